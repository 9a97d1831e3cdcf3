"""The analysis scenario: the project's --busy-games, paced (config.ANALYSIS_PERIOD),
measured by turns with a game's analysis running beside them (the process
game.writer.analyst starts when a game ends) and with none."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from game.bench.client import clock
from game.bench.loopback import cpu_seconds
from game.bench.web.config import (
    ANALYSIS_PLAYOUTS,
    ANALYSIS_WARM_CPU,
    ANALYSIS_WARM_WAIT,
    ROUNDS,
    SEATS,
    SEED,
)
from game.bench.web.players import Phase, Player, measure, pooled, to_replace
from game.bench.web.tables import script
from game.bench.web.target import Target
from game.writer.analyst import PROJECT_DIR
from game.writer.analyst import SEED as SEARCH_SEED

# What game.writer.analyst.analyse runs, as it runs it.
COMMAND = [sys.executable, "-m", "game.writer.analysis_process"]


def order(playouts: int = ANALYSIS_PLAYOUTS) -> dict[str, object]:
    """What game.writer.analyst.order_of makes of a finished game, for the greedy bots'
    4-player game the bench plays first (the script of seed SEED, first player 0)."""
    return {
        "players": SEATS,
        "seed": SEED,
        "moves": [action for _seat, action in script(SEED)],
        "first_player": 0,
        "no_gold_small": False,
        "playouts": playouts,
        "search_seed": SEARCH_SEED,
        "low_priority": True,  # as a server runs it (settings.SPLENDOR_ANALYSIS_LOW_PRIORITY)
    }


@dataclass
class Running:
    """One analysis process through one round: its CPU, and whether it ran throughout."""

    pid: int
    cpus: set[int]  # where it may run: the server's CPUs, as the server's child would
    cpu: float = 0.0  # its CPU seconds in the measured round
    ended: bool = False  # it ended before the round did (it should not: see the budget)


@contextlib.contextmanager
def analysis_process(server_pid: int) -> Iterator[Running]:
    """Start the analysis process as the server would (game.writer.analyst.analyse: the
    same command, the order on its standard input, its lines read as they come; it
    sets its own niceness), on the server's CPUs as the server's own child inherits
    them; yield once it is at work; kill it on leaving."""
    child = subprocess.Popen(
        COMMAND,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=PROJECT_DIR,
        text=True,
        encoding="utf-8",
    )
    try:
        cpus = os.sched_getaffinity(server_pid) if hasattr(os, "sched_getaffinity") else set()
        if cpus:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(child.pid, cpus)
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(json.dumps(order()) + "\n")
        child.stdin.close()
        # Its progress lines are read as the server's analyst thread reads them (a full
        # pipe would stop it).
        reader = threading.Thread(target=child.stdout.read, daemon=True)
        reader.start()
        warm_up(child)
        yield Running(child.pid, cpus)
    finally:
        child.kill()
        child.wait(timeout=10)
        if child.stdout is not None:
            child.stdout.close()


def warm_up(child: subprocess.Popen[str]) -> None:
    """Wait until the process has imported the engine and is playing out positions."""
    until = clock() + ANALYSIS_WARM_WAIT
    while clock() < until and child.poll() is None:
        with contextlib.suppress(OSError):
            if cpu_seconds(child.pid) >= ANALYSIS_WARM_CPU:
                return
        time.sleep(0.05)


@dataclass
class AnalysisRounds:
    """The project's busy games measured by turns: with an analysis running, without."""

    games: int
    period: float | None  # seconds between a game's actions; None: back to back
    running: list[Phase] = field(default_factory=list)  # with an analysis process
    none: list[Phase] = field(default_factory=list)  # without
    analyses: list[Running] = field(default_factory=list)  # the process of each round

    @property
    def with_analysis(self) -> Phase:
        return pooled(self.running)

    @property
    def without(self) -> Phase:
        return pooled(self.none)

    def analysis_shares(self) -> list[float]:
        """Each round's analysis process's CPU, as a share of one core."""
        return [
            a.cpu / max(1e-9, phase.elapsed)
            for a, phase in zip(self.analyses, self.running, strict=True)
        ]


def analysis_rounds(
    target: Target, players: list[Player], seconds: float, period: float | None = None
) -> AnalysisRounds:
    """Busy games (`players`, connected) acting back to back (or once every `period`
    seconds each) on the project's server, `seconds` each way in ROUNDS rounds, by turns
    with an analysis process running and without; which comes first alternates round by
    round."""
    server_pid = target.servers[0].pid
    result = AnalysisRounds(len(players), period)
    window = seconds / ROUNDS
    for number in range(ROUNDS):
        for running in (True, False) if number % 2 == 0 else (False, True):
            kept = result.running if running else result.none
            wanted = to_replace(len(players), window, period, kept[-1] if kept else None)
            target.deal_ahead(wanted - len(target.ahead))
            if not running:
                kept.append(measure(target, players, window, period))
                continue
            with analysis_process(server_pid) as analysis:
                before = cpu_seconds(analysis.pid)
                kept.append(measure(target, players, window, period))
                with contextlib.suppress(OSError):
                    analysis.cpu = cpu_seconds(analysis.pid) - before
                analysis.ended = ended(analysis.pid)
            result.analyses.append(analysis)
    return result


def ended(pid: int) -> bool:
    """Whether the (not yet reaped) process has exited: a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in {"Z", "X"}
