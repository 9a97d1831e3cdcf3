"""Measure the hard bot's strength against the greedy bot.

    python manage.py bench_bots [--two 200] [--four 100] [--budget 1.0] [--playouts N]
                                [--clock wall|cpu] [--workers 2]

Two-player games put the hard bot in seat 0 and seat 1 by turns (seat 0 starts),
four-player games put it in each seat by turns against three greedy bots. Games
are seeded by their number, so a run can be repeated. Prints win rates with 95%
Wilson confidence intervals and the hard bot's time per move.

`--clock cpu` measures the budget in CPU time of the thinking thread instead of
wall-clock time: on a machine shared with other work it gives the bot the same
amount of thinking as on a quiet machine, and the wall time is printed beside it.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from game.engine.actions import Action
from game.engine.bots import Bot, GreedyBot, play_game
from game.engine.rules import outcome
from game.engine.search import SearchBot
from game.engine.state import GameState

TWO_PLAYER_TARGET = 0.80
FOUR_PLAYER_TARGET = 0.50
Z95 = 1.959964
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}


@dataclass(frozen=True, slots=True)
class Match:
    players: int
    seed: int
    budget: float | None
    playouts: int | None
    clock: str


@dataclass(frozen=True, slots=True)
class Result:
    players: int
    won: bool
    shared: bool
    moves: int  # the hard bot's decisions
    wall: float  # their total wall time
    cpu: float  # and CPU time
    max_wall: float
    playouts: int


class Timed:
    """Wraps the hard bot and times every decision (wall and CPU of this thread)."""

    def __init__(self, bot: SearchBot) -> None:
        self.bot = bot
        self.moves = self.playouts = 0
        self.wall = self.cpu = self.max_wall = 0.0

    def choose(self, state: GameState, seat: int) -> Action:
        wall, cpu = time.perf_counter(), time.thread_time()
        action = self.bot.choose(state, seat)
        spent = time.perf_counter() - wall
        self.cpu += time.thread_time() - cpu
        self.wall += spent
        self.max_wall = max(self.max_wall, spent)
        self.moves += 1
        self.playouts += self.bot.last.playouts if self.bot.last else 0
        return action


def play_match(match: Match) -> Result:
    """One game: the hard bot in seat `seed % players`, greedy bots elsewhere."""
    hard_seat = match.seed % match.players
    hard = Timed(
        SearchBot(
            match.seed,
            budget=match.budget,
            playouts=match.playouts,
            clock=CLOCKS[match.clock],
        )
    )
    bots: list[Bot] = [GreedyBot(match.seed * 10 + s) for s in range(match.players)]
    bots[hard_seat] = hard
    result = outcome(play_game(match.players, match.seed, bots, first_player=0))
    assert result is not None
    return Result(
        players=match.players,
        won=hard_seat in result.winners,
        shared=result.shared and hard_seat in result.winners,
        moves=hard.moves,
        wall=hard.wall,
        cpu=hard.cpu,
        max_wall=hard.max_wall,
        playouts=hard.playouts,
    )


def wilson(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a win rate."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = p + z * z / (2 * games)
    spread = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    scale = 1 + z * z / games
    return (centre - spread) / scale, (centre + spread) / scale


def describe_budget(budget: float | None, playouts: int | None, clock: str) -> str:
    limits = []
    if budget:
        limits.append(f"{budget} s ({clock} clock)")
    if playouts:
        limits.append(f"{playouts} playouts")
    return " and ".join(limits)


class Command(BaseCommand):
    help = "Play the hard (search) bot against greedy bots and print its win rates."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--two", type=int, default=200, help="two-player games")
        parser.add_argument("--four", type=int, default=100, help="four-player games")
        parser.add_argument("--budget", type=float, default=1.0, help="seconds a move")
        parser.add_argument("--playouts", type=int, default=None, help="playout cap a move")
        parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall")
        parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
        parser.add_argument("--first-seed", type=int, default=0)

    def handle(self, *args: Any, **options: Any) -> None:
        budget: float | None = options["budget"]
        if budget is not None and budget <= 0:
            budget = None  # playouts alone
        playouts: int | None = options["playouts"]
        clock: str = options["clock"]
        seeds = range(options["first_seed"], options["first_seed"] + max(options["two"], 0))
        matches = [Match(2, s, budget, playouts, clock) for s in seeds]
        seeds = range(options["first_seed"], options["first_seed"] + max(options["four"], 0))
        matches += [Match(4, s, budget, playouts, clock) for s in seeds]
        self.line(f"hard bot budget a move: {describe_budget(budget, playouts, clock)}")
        self.line(f"{len(matches)} games on {options['workers']} worker processes")
        start = time.perf_counter()
        results = self.run(matches, options["workers"])
        self.line(f"done in {time.perf_counter() - start:.0f} s")
        self.summary(results, 2, TWO_PLAYER_TARGET)
        self.summary(results, 4, FOUR_PLAYER_TARGET)

    def run(self, matches: list[Match], workers: int) -> list[Result]:
        results: list[Result] = []
        with get_context("fork").Pool(workers) as pool:
            for result in pool.imap_unordered(play_match, matches):
                results.append(result)
                if len(results) % 10 == 0:
                    wins = sum(r.won for r in results)
                    self.line(f"  {len(results)}/{len(matches)} games, hard won {wins}")
        return results

    def summary(self, results: list[Result], players: int, target: float) -> None:
        games = [r for r in results if r.players == players]
        if not games:
            return
        wins = sum(r.won for r in games)
        low, high = wilson(wins, len(games))
        moves = sum(r.moves for r in games)
        met = self.style.SUCCESS("ok") if wins / len(games) >= target else self.style.ERROR("BELOW")
        self.line(
            f"{players} players: hard won {wins}/{len(games)} = {wins / len(games):.1%} "
            f"(95% CI {low:.1%}-{high:.1%}; {sum(r.shared for r in games)} shared) "
            f"[target >= {target:.0%}: {met}]"
        )
        self.line(
            f"  time a move: {sum(r.wall for r in games) / moves:.3f} s wall "
            f"(max {max(r.max_wall for r in games):.3f} s), "
            f"{sum(r.cpu for r in games) / moves:.3f} s CPU; "
            f"{sum(r.playouts for r in games) / moves:.0f} playouts a move, {moves} moves"
        )

    def line(self, text: str) -> None:
        self.stdout.write(text)
