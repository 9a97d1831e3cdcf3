"""Part 2's scenario: the project with two Daphne workers against one, on PostgreSQL
and Redis, by turns."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError

from game.bench.client import Closed, clock
from game.bench.loopback import daphne
from game.bench.web.config import PROJECT_APP, REPLACED, SCALE_ROUNDS
from game.bench.web.machine import (
    backends_cpu,
    busy_cpu,
    database_cpu,
    redis_cpu,
    two_worker_ceiling,
)
from game.bench.web.players import Phase, Player, add_players, measure, pooled
from game.bench.web.tables import project_table
from game.bench.web.target import Target

# One worker, two with each game's screens spread over both (a balancer that knows
# nothing of games), two with each game's screens on one (routed by room code):
# (workers, by game).
KINDS = {"one": (1, False), "spread": (2, False), "by game": (2, True)}


@dataclass
class ScaleRound:
    """One measurement of part 2: a kind of run (KINDS) in one round."""

    round: int
    kind: str
    workers: int
    phase: Phase


@dataclass
class Scale:
    """Part 2's measurements, by kind, round by round."""

    phases: dict[str, list[Phase]]

    @property
    def one(self) -> Phase:
        return pooled(self.phases["one"])

    def pooled(self, kind: str) -> Phase:
        return pooled(self.phases[kind])

    def gain(self, kind: str) -> float | None:
        """Two workers' rate over one worker's, pooled over the rounds."""
        one = self.one.rate
        return self.pooled(kind).rate / one if one else None

    def gains_by_round(self, kind: str) -> list[float | None]:
        return [
            b.rate / a.rate if a.rate else None
            for a, b in zip(self.phases["one"], self.phases[kind], strict=True)
        ]

    def ceiling(self, kind: str) -> float | None:
        return two_worker_ceiling(self.one, self.phases[kind])


def scale(
    options: dict[str, Any], env: dict[str, str], tmp: Path, show: Callable[[object], None]
) -> Scale:
    """One worker and two take turns, SCALE_ROUNDS rounds, so that a slower minute of
    this shared machine weighs on all; each measurement is shown as it is taken."""
    phases: dict[str, list[Phase]] = {kind: [] for kind in KINDS}
    for round_ in range(1, SCALE_ROUNDS + 1):
        for kind, (workers, by_game) in KINDS.items():
            phase = scale_phase(workers, options, env, tmp, by_game)
            phases[kind].append(phase)
            show(ScaleRound(round_, kind, workers, phase))
    return Scale(phases)


def scale_phase(
    workers: int, options: dict[str, Any], env: dict[str, str], tmp: Path, by_game: bool = False
) -> Phase:
    """Start `workers` servers, connect the busy games across them, measure, stop."""
    with contextlib.ExitStack() as stack:
        servers = [
            stack.enter_context(
                daphne(PROJECT_APP, env, tmp / f"worker{index}.log", Path(settings.BASE_DIR))
            )
            for index in range(workers)
        ]
        target = Target(
            f"{workers} workers", servers, project_table, options["ping_every"], by_game
        )
        players: list[Player] = []
        try:
            left_out = add_players(target, players, options["busy_games"])
            target.deal_ahead(math.ceil(options["busy_games"] * options["seconds"] * REPLACED))
            phase = measure_machine(target, players, options["seconds"])
            phase.errors += left_out
        except (Closed, OSError) as error:
            raise CommandError(f"{workers} workers: {error}") from None
        finally:
            for player in players:
                player.close()
    return phase


def measure_machine(target: Target, players: list[Player], seconds: float) -> Phase:
    """`measure`, with what else took CPU meanwhile: PostgreSQL, the client, Redis and
    the machine's cores."""
    before = backends_cpu()
    client, redis, busy, started = time.process_time(), redis_cpu(), busy_cpu(), clock()
    phase = measure(target, players, seconds)
    phase.database_cpu = database_cpu(before)
    phase.client_cpu = time.process_time() - client
    redis_now = redis_cpu()
    phase.redis_cpu = None if redis is None or redis_now is None else redis_now - redis
    phase.busy_cores = (busy_cpu() - busy) / max(1e-9, clock() - started)
    return phase
