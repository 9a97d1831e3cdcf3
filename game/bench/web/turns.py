"""Part 1's scenarios, the project and the bare server measured by turns: one game,
busy games, paced games (with and without heartbeats), the heartbeats alone and the
memory per socket."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.core.management.base import CommandError

from game.bench.client import clock
from game.bench.web.analysis import analysis_rounds
from game.bench.web.config import ROUNDS, SEATS, WAIT
from game.bench.web.figures import percentile, worst_to_median
from game.bench.web.heartbeats import Heartbeats, heartbeat_costs
from game.bench.web.memory import memory_per_socket
from game.bench.web.players import Phase, Player, add_players, measure, pooled, to_replace
from game.bench.web.target import Target


@dataclass
class Rounds:
    """One phase of one server, measured in ROUNDS rounds by turns with the other's."""

    name: str  # the server's
    label: str  # the phase's: "alone", "busy" or "paced"
    games: int
    period: float | None  # seconds between a game's actions; None: back to back
    in_play: bool  # the games joined part-played (Target.deal_in_play)
    rounds: list[Phase]
    quiet: list[Phase] = field(default_factory=list)  # the same without heartbeats, if measured

    @property
    def phase(self) -> Phase:
        return pooled(self.rounds)

    @property
    def quiet_phase(self) -> Phase:
        return pooled(self.quiet)


@dataclass
class ServerFigures:
    """Part 1's figures of one server."""

    phases: dict[str, Phase]  # "alone", "busy", "paced" and, if measured, "paced quiet"
    memory: float  # bytes per idle socket
    heartbeats: Heartbeats | None
    errors: list[str]  # why games stopped or could not join
    left_out: list[str]  # why games could not join

    @property
    def alone(self) -> Phase:
        return self.phases["alone"]

    @property
    def busy(self) -> Phase:
        return self.phases["busy"]

    @property
    def paced(self) -> Phase:
        return self.phases["paced"]

    @property
    def paced_quiet(self) -> Phase | None:
        return self.phases.get("paced quiet")

    def actions_per_cpu_second(self) -> float:
        return self.busy.actions / self.busy.cpu if self.busy.cpu else 0.0

    def cpu_per_action(self) -> float:
        return self.busy.cpu / max(1, self.busy.actions)

    def paced_share(self) -> float:
        return self.paced.cpu / self.paced.elapsed

    def outside_loop_share(self) -> float:
        # Both totals are read from /proc in clock ticks a moment apart: on an idle
        # thread their difference can come out a tick below zero.
        return max(0.0, self.paced.cpu - self.paced.loop_cpu) / self.paced.elapsed

    def quiet_share(self) -> float:
        assert self.paced_quiet is not None
        return self.paced_quiet.cpu_share()

    def heartbeat_share(self) -> float:
        """What the heartbeats add, over what the server used with them."""
        with_them = self.paced.cpu_share()
        return (with_them - self.quiet_share()) / max(1e-9, with_them)

    def worst_bucket(self) -> float:
        return worst_to_median(self.paced.buckets)

    def per_ping(self) -> float:
        assert self.heartbeats is not None
        return self.heartbeats.per_ping

    def tv_bytes(self) -> float:
        return self.busy.traffic.per_change("tv_bytes", 1)

    def phone_bytes(self) -> float:
        return self.busy.traffic.per_change("phone_bytes", SEATS)

    def tv_messages(self) -> float:
        return self.busy.traffic.per_change("tv_messages", 1)

    def phone_messages(self) -> float:
        return self.busy.traffic.per_change("phone_messages", SEATS)

    def calm_p99(self) -> float:
        return percentile(self.paced.calm_latencies, 0.99)


Shown = Callable[[object], None]  # hands each result to the report as it is measured


class Turns:
    """The games of both servers, measured phase by phase."""

    def __init__(self, targets: dict[str, Target], options: dict[str, Any], show: Shown) -> None:
        self.targets, self.options, self.show = targets, options, show
        self.players: dict[str, list[Player]] = {name: [] for name in targets}
        self.left_out: dict[str, list[str]] = {name: [] for name in targets}
        self.phases: dict[str, dict[str, Phase]] = {name: {} for name in targets}
        self.memory: dict[str, float] = {}

    def memories(self) -> None:
        """Each server's memory per socket, measured first, while it has freed nothing
        it could reuse for new sockets (one game connected)."""
        for name, target in self.targets.items():
            self.left_out[name] += add_players(target, self.players[name], 1)
            if not self.players[name]:
                raise CommandError(f"{name}: {self.left_out[name][0]}")
            self.memory[name] = memory_per_socket(target, self.options["idle_sockets"])
            for player in self.players[name]:  # whatever the closing left queued is handled
                for ws in player.screens:
                    ws.settle(clock() + WAIT)

    def phase(self, label: str, games: int, period: float | None, seconds: float) -> None:
        """Measure one phase of every server by turns, ROUNDS rounds. The paced games are
        also measured without heartbeats, by turns with them in each round: what the
        heartbeats cost the server, in the same minute."""
        for name, target in self.targets.items():
            # The paced games join at every stage of a game, as on a server that has run
            # for a while (the busy ones play whole games meanwhile).
            self.left_out[name] += add_players(target, self.players[name], games, bool(period))
        pinging = any(target.ping_every for target in self.targets.values())
        quiet_too = bool(period) and pinging
        rounds = {
            name: Rounds(
                name,
                label,
                len(self.players[name][:games]),
                period,
                bool(period and target.deal_in_play),
                [],
            )
            for name, target in self.targets.items()
        }
        window = seconds / ROUNDS
        for _ in range(ROUNDS):
            for heartbeats in (True, False) if quiet_too else (True,):
                for name, target in self.targets.items():
                    kept = rounds[name].rounds if heartbeats else rounds[name].quiet
                    wanted = to_replace(games, window, period, kept[-1] if kept else None)
                    target.deal_ahead(wanted - len(target.ahead))
                    players = self.players[name][:games]
                    kept.append(measure(target, players, window, period, heartbeats))
        for name, result in rounds.items():
            if result.quiet:
                self.phases[name][f"{label} quiet"] = result.quiet_phase
            self.phases[name][label] = result.phase
            self.show(result)

    def analysis(self) -> None:
        """The project's busy games by turns with an analysis process running and without
        (the bare server runs no analyses): its own figures, shown as measured."""
        target = self.targets.get("project")
        if target is None:
            return
        players = self.players["project"][: self.options["busy_games"]]
        period = self.options["analysis_period"] or None
        self.show(analysis_rounds(target, players, self.options["analysis_seconds"], period))

    def heartbeats(self) -> dict[str, Heartbeats]:
        """The heartbeats alone, on the paced games' screens (none without heartbeats)."""
        costs = {}
        if all(target.ping_every for target in self.targets.values()):
            costs = heartbeat_costs(
                self.targets, self.players, self.options["games"], self.options["seconds"]
            )
        self.show(costs)  # none: skipped
        return costs

    def close(self) -> None:
        for player in (p for group in self.players.values() for p in group):
            player.close()

    def figures(self, costs: dict[str, Heartbeats]) -> dict[str, ServerFigures]:
        results = {}
        for name in self.targets:
            errors = [e for phase in self.phases[name].values() for e in phase.errors]
            results[name] = ServerFigures(
                self.phases[name],
                self.memory[name],
                costs.get(name),
                errors + self.left_out[name],
                self.left_out[name],
            )
        return results


def compare(
    targets: dict[str, Target], options: dict[str, Any], show: Shown
) -> dict[str, ServerFigures]:
    """Measure each server's memory, then each phase by turns (ROUNDS rounds).

    Both servers run throughout, pinned to the same CPU; the one not measured is
    idle. A slower spell of the machine then weighs on both, as in part 2."""
    turns = Turns(targets, options, show)
    try:
        turns.memories()
        turns.phase("alone", 1, None, options["seconds"])
        turns.phase("busy", options["busy_games"], None, options["seconds"])
        if not options["no_analysis"]:
            turns.analysis()
        turns.phase("paced", options["games"], 1.0, options["paced_seconds"])
        costs = turns.heartbeats()
    finally:
        turns.close()
    return turns.figures(costs)


def analysis_alone(target: Target, options: dict[str, Any], show: Shown) -> list[str]:
    """Only the analysis scenario (--analysis-only), on the project's server: its busy
    games connected, measured, closed. Returns why games could not join."""
    turns = Turns({"project": target}, options, show)
    try:
        turns.left_out["project"] += add_players(
            target, turns.players["project"], options["busy_games"]
        )
        if not turns.players["project"]:
            raise CommandError(f"project: {turns.left_out['project'][0]}")
        turns.analysis()
    finally:
        turns.close()
    return turns.left_out["project"]
