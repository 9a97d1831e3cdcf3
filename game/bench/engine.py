"""Measure the rules engine: actions per second, random games per second, bot strength.

    python manage.py bench_engine [--seconds N] [--players 4] [--profile]

Everything runs in this one process, pinned to one CPU where the OS allows it, and
rates are per second of this process's CPU time (so a busy machine does not skew them
much; caches still do). Legal-action generation and GameState.copy() are also timed
against frozen baselines (game/management/engine_baseline.py, the dict round trip)
on the same positions, alternating, so their ratios hold on a busy machine too.
"""

from __future__ import annotations

import cProfile
import io
import os
import platform
import pstats
import random
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from game.bench import engine_baseline
from game.engine import GameState, apply_action, legal_actions, new_game, outcome
from game.engine.bots import Bot, GreedyBot, RandomBot, play_game

# CPU time of this process: the figures hold even when other work shares the machine.
clock = time.process_time

ACTIONS_TARGET = 20_000  # legal-action generation + apply, per second
GAMES_TARGET = 300  # complete random games per second
BASELINE_GAMES = 40  # random games whose positions the ratios are measured on
WIN_RATE_TARGET = 0.95
WIN_RATE_GAMES = 200


@contextmanager
def one_core() -> Iterator[str]:
    """Pin this process to a single CPU for the measurement, if the OS allows it."""
    if not hasattr(os, "sched_setaffinity"):
        yield "not pinned (no sched_setaffinity here)"
        return
    before = os.sched_getaffinity(0)
    cpu = min(before)
    os.sched_setaffinity(0, {cpu})
    try:
        yield f"pinned to CPU {cpu} of {len(before)}"
    finally:
        os.sched_setaffinity(0, before)


def random_actions(players: int, seconds: float) -> tuple[int, int, float]:
    """Play uniformly random legal actions for `seconds`; return actions, games, time."""
    actions = games = 0
    start = clock()
    while clock() - start < seconds:
        state = new_game(players, seed=games)
        rng = random.Random(games)
        while not state.is_over:
            apply_action(state, rng.choice(legal_actions(state)))
            actions += 1
        games += 1
    return actions, games, clock() - start


def random_games(players: int, seconds: float) -> tuple[int, float]:
    """Play complete games of RandomBots for `seconds`; return games, time.

    The bots are the engine's own, so their actions take the trusted path that
    playouts use (apply_legal_action); the public apply_action still validates.
    """
    games = 0
    start = clock()
    while clock() - start < seconds:
        bots = [RandomBot(games * 10 + s) for s in range(players)]
        play_game(players, games, bots, trust_bots=True)
        games += 1
    return games, clock() - start


def greedy_win_rate(games: int) -> tuple[int, float]:
    """Greedy (seat 0) against random in two-player games, alternating who starts."""
    wins = 0
    start = clock()
    for seed in range(games):
        bots: list[Bot] = [GreedyBot(seed), RandomBot(seed + 10_000)]
        result = outcome(play_game(2, seed, bots, first_player=seed % 2))
        wins += result is not None and result.winners == (0,)
    return wins, clock() - start


def sample_positions(players: int, games: int) -> list[GameState]:
    """Every position of some seeded RandomBot games."""
    positions = []
    for seed in range(games):
        bots = [RandomBot(seed * 10 + s) for s in range(players)]
        state = new_game(players, seed)
        while not state.is_over:
            positions.append(state.copy())
            apply_action(state, bots[state.current].choose(state, state.current))
    return positions


def alternate(
    work: Callable[[GameState], object],
    baseline: Callable[[GameState], object],
    positions: list[GameState],
    seconds: float,
) -> tuple[float, float]:
    """CPU time a position of each, run in turns for `seconds`, so load hits both alike."""
    spent = [0.0, 0.0]
    runs = 0
    while sum(spent) < seconds:
        runs += 1
        for i, job in enumerate((work, baseline)):
            start = clock()
            for state in positions:
                job(state)  # results dropped at once: no garbage piles up to skew either
            spent[i] += clock() - start
    return spent[0] / runs / len(positions), spent[1] / runs / len(positions)


def profile(work: Callable[[], object], lines: int = 15) -> str:
    profiler = cProfile.Profile()
    profiler.runcall(work)
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(lines)
    return out.getvalue()


class Command(BaseCommand):
    help = "Benchmark the rules engine on one core and check that the greedy bot beats random."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
        parser.add_argument("--players", type=int, choices=(2, 3, 4), default=4)
        parser.add_argument(
            "--profile", action="store_true", help="also profile random play and show hot spots"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        seconds: float = options["seconds"]
        players: int = options["players"]
        self.line(f"Python {sys.version.split()[0]} ({platform.python_implementation()})")
        self.line(f"Platform {platform.platform()}, {platform.machine()}")
        with one_core() as pinned:
            self.line(f"CPU: {pinned}")
            self.measure(seconds, players)
            if options["profile"]:
                self.line(profile(lambda: random_games(players, seconds)))

    def measure(self, seconds: float, players: int) -> None:
        self.ratios(seconds, players)
        actions, games, elapsed = random_actions(players, seconds)
        rate = actions / elapsed
        self.report(
            f"{rate:,.0f} actions/s (legal actions + apply, uniform random play, "
            f"{players} players, {games} games, {actions / max(games, 1):.0f} actions a game)",
            rate >= ACTIONS_TARGET,
            f">= {ACTIONS_TARGET:,}",
        )
        games, elapsed = random_games(players, seconds)
        rate = games / elapsed
        self.report(
            f"{rate:,.1f} games/s (complete {players}-player games, RandomBot at every seat)",
            rate >= GAMES_TARGET,
            f">= {GAMES_TARGET}",
        )
        wins, elapsed = greedy_win_rate(WIN_RATE_GAMES)
        self.report(
            f"greedy beat random in {wins}/{WIN_RATE_GAMES} two-player games "
            f"({wins / WIN_RATE_GAMES:.1%}, {elapsed:.1f} s CPU)",
            wins >= WIN_RATE_TARGET * WIN_RATE_GAMES,
            f">= {WIN_RATE_TARGET:.0%}",
        )

    def ratios(self, seconds: float, players: int) -> None:
        positions = sample_positions(players, BASELINE_GAMES)
        same = all(legal_actions(s) == engine_baseline.legal_actions(s) for s in positions)
        new, old = alternate(legal_actions, engine_baseline.legal_actions, positions, seconds)
        self.line(
            f"legal actions: {new * 1e6:.1f} us a position, frozen baseline "
            f"{old * 1e6:.1f} us: {old / new:.2f}x as fast on {len(positions):,} positions "
            f"({'the same actions in the same order' if same else 'DIFFERENT ACTIONS'})"
        )
        new, old = alternate(
            GameState.copy, lambda s: GameState.from_dict(s.to_dict()), positions, seconds / 2
        )
        self.line(
            f"GameState.copy(): {new * 1e6:.1f} us, dict round trip {old * 1e6:.1f} us: "
            f"{old / new:.2f}x as fast"
        )

    def report(self, figure: str, met: bool, target: str) -> None:
        verdict = self.style.SUCCESS("ok") if met else self.style.ERROR("BELOW TARGET")
        self.line(f"{figure}  [target {target}: {verdict}]")

    def line(self, text: str) -> None:
        self.stdout.write(text)
