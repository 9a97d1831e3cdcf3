"""The web benchmark's printed lines and tables: each function formats the results the
scenarios returned, reading their figures from them (nothing here measures)."""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from functools import singledispatch

from game.bench.loopback import RawFloodRun
from game.bench.web.analysis import AnalysisRounds
from game.bench.web.config import (
    ANALYSIS_PLAYOUTS,
    BUCKET,
    FLOOD_RATE,
    FLOOD_SOCKETS,
    RAW_FLOOD_SOCKETS,
    RESTART_WAIT,
    SCALE_ROUNDS,
)
from game.bench.web.figures import percentile, worst_to_median
from game.bench.web.flood import Flood
from game.bench.web.heartbeats import Heartbeats
from game.bench.web.players import Phase
from game.bench.web.restart import Restart
from game.bench.web.scale import Scale, ScaleRound
from game.bench.web.turns import Rounds, ServerFigures
from game.screens.wire import Close
from game.writer.analysis_process import NICENESS

# A figure: its label, the project's and the bare server's values, how to print a value,
# and the target.
Row = tuple[str, float, float, Callable[[float], str], str]
TOO_SMALL = "n/a (sample too small)"
MB = 1024 * 1024


def ms(seconds: float) -> str:
    value = seconds * 1000
    return f"{value:.2f} ms" if value < 10 else f"{value:,.0f} ms"


def kb(value: float) -> str:
    return f"{value / 1024:.1f} KB"


def rate(value: float) -> str:
    return f"{value:,.1f}/s"


def share(value: float) -> str:
    return f"{value:.0%}"


def count(value: float) -> str:
    return f"{value:.2f}"


def micro(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def ratio(mine: float, theirs: float, shown: tuple[str, str] | None = None) -> str:
    """The project's figure over the bare server's, e.g. "2.57x", as `shown` prints them.

    "-" when there is nothing to compare: a figure not measured (infinite or NaN), or a
    bare figure of 0 (the bare server has no writer thread). Else a figure at or below 0,
    or one that prints as 0 (a CPU sample of less than a clock tick, or a difference of
    two samples that the machine's noise outweighs, as the heartbeats' cost on a busy
    machine), was too small to measure: TOO_SMALL, rather than a ratio such as 6.5e-06x
    that says nothing about the server.
    """
    if not (math.isfinite(mine) and math.isfinite(theirs)) or theirs == 0:
        return "-"
    printed_zero = shown is not None and not all(
        any(digit in text for digit in "123456789") for text in shown
    )
    if mine <= 0 or theirs < 0 or printed_zero:
        return TOO_SMALL
    return f"{mine / theirs:,.3g}x"


def table(rows: list[Row], heads: tuple[str, str] = ("project", "bare")) -> list[str]:
    """Each figure beside the bare server's (or, `heads`, another condition's) and their
    ratio (TOO_SMALL: see ratio)."""
    first, second = heads
    lines = [f"{'':44} {first:>12} {second:>12} {f'{first}/{second}':>13}  target"]
    for label, mine, theirs, show, target in rows:
        shown = (show(mine), show(theirs))
        lines.append(
            f"{label:44} {shown[0]:>12} {shown[1]:>12} {ratio(mine, theirs, shown):>13}  {target}"
        )
    return lines


def by_round(rounds: list[Phase]) -> str:
    """The servers' CPU in each round, as a share of one core."""
    return ", ".join(f"{r.share_of_core():.0%}" for r in rounds)


def errors_said(errors: list[str]) -> str:
    """The first reason games stopped, if any did."""
    return f" ({errors[0]})" if errors else ""


def buckets_said(buckets: list[float]) -> str:
    """The p99 of each bucket, then the worst over the median one."""
    return ", ".join(ms(b) for b in buckets) + f" (worst / median {worst_to_median(buckets):.2f})"


# ---------------------------------------------------------------- results as measured


@singledispatch
def lines(result: object) -> list[str]:
    """The lines printed for one result, as it is measured."""
    raise TypeError(f"no report for {type(result).__name__}")


@lines.register
def _rounds(result: Rounds) -> list[str]:
    said = []
    name, phase = result.name, result.phase
    if result.quiet:
        still = result.quiet_phase
        said.append(
            f"{name}, no heartbeats: the same games, {still.actions} actions "
            f"measured in {len(result.quiet)} rounds by turns with the heartbeats' "
            f"(server CPU by round {by_round(result.quiet)}), "
            f"{len(still.errors)} games stopped" + errors_said(still.errors)
        )
    pace = "once a second each" if result.period else "back to back"
    if result.in_play:
        pace += ", joined at every stage of a game"
    if phase.pings:
        pace += f", {phase.pings_per_second():,.1f} heartbeats/s"
    # The server's CPU in each round, as a share of one core: a figure that grows round
    # by round would be the server's, not the machine's.
    said.append(
        f"{name}: {result.games} game(s) acting {pace}, "
        f"{phase.actions} actions measured in {len(result.rounds)} rounds "
        f"(server CPU by round {by_round(result.rounds)}), "
        f"{len(phase.errors)} games stopped" + errors_said(phase.errors)
    )
    if result.period:
        said.append(
            f"{name} paced p99 by {BUCKET:g} s of each round: " + buckets_said(phase.buckets)
        )
    return said


@lines.register
def _analysis(result: AnalysisRounds) -> list[str]:
    """The busy games with an analysis running and without, then the figures' table."""
    running, none = result.with_analysis, result.without
    cpus = sorted({cpu for analysis in result.analyses for cpu in analysis.cpus})
    where = "CPU " + ", ".join(map(str, cpus)) if cpus else "any CPU"
    ended = sum(analysis.ended for analysis in result.analyses)
    throughout = f"{ended} ended early" if ended else "at work throughout each round"
    shares = ", ".join(f"{s:.0%}" for s in result.analysis_shares())
    pace = f"once every {result.period:g} s each" if result.period else "back to back"
    said = [
        f"project, analysis running: {result.games} game(s) acting {pace}, "
        f"{running.actions} actions measured in {len(result.running)} rounds by turns with "
        f"none running (server CPU by round {by_round(result.running)}), "
        f"{len(running.errors)} games stopped" + errors_said(running.errors),
        f"project, no analysis: the same games, {none.actions} actions measured in "
        f"{len(result.none)} rounds (server CPU by round {by_round(result.none)}), "
        f"{len(none.errors)} games stopped" + errors_said(none.errors),
        f"analysis process: python -m game.writer.analysis_process (nice {NICENESS} and "
        f"SCHED_IDLE where the system has it, {where} as "
        f"the server's child, {ANALYSIS_PLAYOUTS:,} playouts a position), {throughout}; "
        f"its CPU by round {shares} of a core; load average {running.load}",
    ]
    return said + table(
        [
            ("analysis running: latency p50", running.latency(0.5), none.latency(0.5), ms, ""),
            (
                "analysis running: latency p99",
                running.latency(0.99),
                none.latency(0.99),
                ms,
                "<= 1.1x",
            ),
            ("analysis running: actions/s (wall)", running.rate, none.rate, rate, ""),
            (
                "analysis running: server CPU per action",
                running.cpu / max(1, running.actions),
                none.cpu / max(1, none.actions),
                ms,
                "",
            ),
        ],
        ("with", "without"),
    )


@lines.register(dict)
def _heartbeats(costs: dict[str, Heartbeats]) -> list[str]:
    """The heartbeats alone, each server's (none: skipped)."""
    if not costs:
        return ["Heartbeats alone: skipped (no heartbeats)"]
    said = []
    for name, cost in costs.items():
        said.append(
            f"{name} heartbeats alone: {cost.pings:,} pings from {cost.screens} screens in "
            f"{cost.elapsed:.1f} s, server CPU {cost.spent / cost.elapsed:.1%} of a core "
            f"({cost.idle_share:.1%} with every screen silent)"
        )
    return said


@lines.register
def _flood(result: Flood) -> list[str]:
    quiet, busy = result.quiet_at(0.5), result.busy_at(0.5)
    slower = ratio(busy, quiet, (ms(busy), ms(quiet)))
    return [
        f"flood: another game's TV heartbeat round trip, median {ms(quiet)} quiet, "
        f"{ms(busy)} while one phone floods from {FLOOD_SOCKETS} sockets at "
        f"{FLOOD_RATE:g} messages/s each "
        f"({slower}, target <= 2x; p90 {ms(result.quiet_at(0.9))} "
        f"and {ms(result.busy_at(0.9))}); the server kept {result.kept} of "
        f"the phone's sockets open (closed: {closed(result.closes)}), and answered "
        f"{result.answered} of its {result.sent} messages"
    ]


def closed(closes: dict[int, int]) -> str:
    """The sockets the server closed, by reason: "17 replaced, 3 for flooding"."""
    reasons = {Close.REPLACED: "replaced", Close.FLOOD: "for flooding"}
    said = [f"{closes[code]} {reason}" for code, reason in reasons.items() if closes.get(code)]
    said += [f"{n} with code {code}" for code, n in closes.items() if code not in reasons]
    return ", ".join(said) or "none"


def raw_flood(run: RawFloodRun, seconds: float) -> list[str]:
    quiet, busy = percentile(run.quiet, 0.5), percentile(run.busy, 0.5)
    return [
        f"raw flood: another game's TV heartbeat round trip, median {ms(quiet)} quiet, "
        f"{ms(busy)} while one client writes sync requests from {RAW_FLOOD_SOCKETS} "
        f"sockets for {seconds:g} s, unpaced and reading nothing "
        f"({ratio(busy, quiet, (ms(busy), ms(quiet)))}, target <= 2x); server memory "
        f"+{run.growth / MB:,.1f} MB (target <= 100 MB; {run.rss_before / MB:,.0f} MB "
        f"before), server CPU {run.cpu:.0%}; the client wrote {run.flood.written / MB:,.0f}"
        f" MB, the server ended {run.flood.ended} of its {run.flood.opened} sockets"
    ]


def restart(name: str, result: Restart, ping_every: float) -> list[str]:
    moved = [count for count in result.reconnects if count]
    current = (
        f"every screen current {result.current:.2f} s after that"
        if result.current is not None
        else f"{result.not_current} screens not current {RESTART_WAIT:g} s after that"
    )
    heartbeat = f"heartbeats every {ping_every:g} s" if ping_every else "no heartbeats"
    return [
        f"{name} restart: {result.games} games, {result.screens} screens at 1 action/s "
        f"with {heartbeat}; killed (SIGKILL) and listening again after {result.down:.2f} s; "
        f"{current} ({result.sockets_meanwhile:.2f} sockets opened per screen meanwhile); "
        f"in the {result.after:.0f} s after: {sum(result.reconnects)} new sockets from "
        f"{len(moved)} screens (most from one: {max(result.reconnects, default=0)}), "
        f"{len(result.latencies)} actions, p99 {ms(result.latency(0.99))}, "
        f"{result.lost} lost; load average {result.load}",
        f"{name} restart p99 by {BUCKET:g} s after: " + buckets_said(result.buckets),
    ]


# ---------------------------------------------------------------- the tables


def left_out(figures: dict[str, ServerFigures]) -> list[str]:
    return [
        f"{name}: {len(result.left_out)} games left out: {result.left_out[0]}"
        for name, result in figures.items()
        if result.left_out
    ]


# A figure of the table: its label, how it is read from a server's figures, how it
# prints, its target.
Figure = tuple[str, Callable[[ServerFigures], float], Callable[[float], str], str]
FIGURES: list[Figure] = [
    ("1 game: latency p50", lambda r: r.alone.latency(0.5), ms, ""),
    ("1 game: latency p99", lambda r: r.alone.latency(0.99), ms, "<= 5x bare"),
    ("busy games: actions/s (wall)", lambda r: r.busy.rate, rate, ""),
    (
        "busy games: actions per server CPU-second",
        ServerFigures.actions_per_cpu_second,
        rate,
        ">= 120/s",
    ),
    ("busy games: server CPU per action", ServerFigures.cpu_per_action, ms, "<= 8 ms"),
    ("paced games: sustained actions/s", lambda r: r.paced.rate, rate, "= games/s"),
    (
        "paced games: latency p99",
        lambda r: r.paced.latency(0.99),
        ms,
        "<= 150 ms, <= 3x bare",
    ),
    # Without the actions that overlapped a finished game's replacement: how much of
    # the p99 is games ending and new ones connecting.
    (
        "paced games: p99 away from replacements",
        lambda r: r.calm_p99(),
        ms,
        "",
    ),
    ("paced games: server CPU, share of one core", ServerFigures.paced_share, share, "<= 70%"),
    # Of that, what the threads other than the event loop's used: the project's writer
    # runs in its database thread (the bare server has none at work).
    ("paced games: of which outside the event loop", ServerFigures.outside_loop_share, share, ""),
]
WITHOUT_HEARTBEATS: list[
    tuple[str, Callable[[ServerFigures], float], Callable[[float], str], str]
] = [
    ("paced games: server CPU without heartbeats", ServerFigures.quiet_share, share, ""),
    # What the heartbeats add, over what the server used with them.
    ("paced games: heartbeat share of server CPU", ServerFigures.heartbeat_share, share, "<= 10%"),
]
# A periodic step (every screen's presence refreshed in step) makes some buckets' p99
# far above the typical one.
STEP: Figure = (
    f"paced games: worst / median {BUCKET:g} s p99",
    ServerFigures.worst_bucket,
    count,
    "no step at presence intervals",
)
PER_PING: Figure = (
    "heartbeats alone: server CPU per ping",
    ServerFigures.per_ping,
    micro,
    "<= 0.1 ms",
)
TRAFFIC: list[Figure] = [
    ("bytes per change, TV", ServerFigures.tv_bytes, kb, "<= 8 KB"),
    ("bytes per change, phone", ServerFigures.phone_bytes, kb, "<= 6 KB"),
    ("messages per change, TV", ServerFigures.tv_messages, count, ""),
    ("messages per change, phone", ServerFigures.phone_messages, count, ""),
    ("server memory per socket", lambda r: r.memory, kb, "<= 60 KB"),
]


def figures(project: ServerFigures, bare: ServerFigures) -> list[str]:
    """Part 1's table, then each server's totals."""
    chosen = list(FIGURES)
    if project.paced_quiet is not None and bare.paced_quiet is not None:
        chosen += WITHOUT_HEARTBEATS
    chosen.append(STEP)
    if project.heartbeats is not None and bare.heartbeats is not None:
        chosen.append(PER_PING)
    chosen += TRAFFIC
    said = table([(label, get(project), get(bare), show, aim) for label, get, show, aim in chosen])
    for name, result in (("project", project), ("bare", bare)):
        alone, busy, paced = result.alone, result.busy, result.paced
        said.append(
            f"{name}: {alone.actions} + {busy.actions} + {paced.actions} actions "
            f"measured; {busy.replaced + paced.replaced} finished games replaced; "
            f"{len(result.errors)} games stopped; load average after each: "
            f"{alone.load} | {busy.load} | {paced.load}"
        )
    return said


def restarts(project: Restart, bare: Restart, after: float) -> list[str]:
    """The restart figures beside the bare server's, as the table above."""

    return table(
        [
            ("restart: kill to listening again", project.down, bare.down, ms, ""),
            (
                "restart: listening to every screen current",
                project.current_or_never(),
                bare.current_or_never(),
                ms,
                "<= 10 s (500 screens)",
            ),
            (
                f"restart: reconnects per screen, {after:g} s after",
                project.reconnects_per_screen(),
                bare.reconnects_per_screen(),
                count,
                "0",
            ),
            (
                f"restart: latency p99, {after:g} s after",
                project.latency(0.99),
                bare.latency(0.99),
                ms,
                "",
            ),
        ]
    )


# ---------------------------------------------------------------- part 2


def per_action(seconds: float | None, actions: int, label: str) -> str:
    return "" if seconds is None else f"{label} {ms(seconds / max(1, actions))}"


@lines.register
def _scale_round(result: ScaleRound) -> list[str]:
    phase = result.phase
    name = "1 worker" if result.workers == 1 else f"2 workers, {result.kind}"
    return [
        f"Round {result.round}, {name}: "
        f"{phase.rate:,.1f} actions/s, p99 {ms(phase.latency(0.99))}, "
        f"server CPU {ms(phase.cpu / max(1, phase.actions))} an action"
        f"{per_action(phase.database_cpu, phase.actions, ', PostgreSQL')}"
        f"{per_action(phase.client_cpu, phase.actions, ', client')}"
        f"{per_action(phase.redis_cpu, phase.actions, ', Redis')}"
        f", {phase.busy_cores or 0:.2f} of {os.cpu_count()} cores busy; "
        f"{len(phase.errors)} games stopped; load average {phase.load}"
        + (f"; {phase.errors[0]}" if phase.errors else "")
    ]


# The target is for the configuration the README gives (each game on one worker); a
# balancer that knows nothing of games makes two processes render what one did.
SCALE_NOTES = {
    "spread": "for comparison: no target, the README routes each game to one worker",
    "by game": "target >= 1.6x",
}


def scale(result: Scale) -> list[str]:
    """Two workers over one, for each way of spreading the games."""
    said = []
    for kind, note in SCALE_NOTES.items():
        one, two = result.one.rate, result.pooled(kind).rate
        rounds = ", ".join("-" if g is None else f"{g:.2f}x" for g in result.gains_by_round(kind))
        gain = result.gain(kind)
        ceiling = result.ceiling(kind)
        most = f"; at most {ceiling:.2f}x on these cores" if ceiling else ""
        said.append(
            f"Two workers ({kind}) / one worker: {'-' if gain is None else f'{gain:.2f}x'} "
            f"({one:,.1f} and {two:,.1f} actions/s over {SCALE_ROUNDS} rounds; by round "
            f"{rounds}{most}) ({note})"
        )
    return said
