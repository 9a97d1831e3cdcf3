"""Measure the Players page: a household of 1,000 finished games against one of 10.

    python manage.py bench_players [--games 1000] [--small 10] [--players 6]
                                   [--runs 20] [--seed 0]

Each household is made (game.bench.household) in a throwaway SQLite database of its
own, in a child process (`--child`) whose settings point at it: the developer's
database is never touched. There the page is rendered through Django's test Client
(the whole request: middleware, the household's queries, the charts, the template):
once in a process that has read no snapshot yet (the first visit after the server
starts), then --runs times; the median of those is the figure. Both households are
printed side by side, with their ratio, and the target (under 1 s at 1,000 games).
Figures are printed, never checked: a shared machine makes them vary, so the load
average is printed beside them.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from game.bench.household import make_games

TARGET_SECONDS = 1.0  # a 1,000-game household's Players page


def measure(runs: int) -> dict[str, Any]:
    """Render the Players page: once cold, then `runs` times; times in seconds."""
    client = Client(HTTP_HOST="localhost")
    start = time.perf_counter()
    response = client.get("/players/")
    cold = time.perf_counter() - start
    assert response.status_code == 200, response.status_code
    times = []
    with CaptureQueriesContext(connection) as queries:
        for _run in range(runs):
            start = time.perf_counter()
            client.get("/players/")
            times.append(time.perf_counter() - start)
    return {
        "cold": cold,
        "median": statistics.median(times),
        "max": max(times),
        "queries": len(queries.captured_queries) / max(runs, 1),
        "bytes": len(response.content),
    }


def child(games: int, players: int, seed: int, runs: int) -> dict[str, Any]:
    """In a child process on a fresh database: make the household, then measure."""
    call_command("migrate", verbosity=0)
    start = time.perf_counter()
    make_games(games, players, seed)
    made = time.perf_counter() - start
    return {"games": games, "made": made, **measure(runs)}


def run_child(games: int, players: int, seed: int, runs: int, folder: Path) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env["SPLENDOR_DB_PATH"] = str(folder / f"household-{games}.sqlite3")
    command = [
        sys.executable,
        str(Path(settings.BASE_DIR) / "manage.py"),
        "bench_players",
        "--child",
        f"--games={games}",
        f"--players={players}",
        f"--seed={seed}",
        f"--runs={runs}",
    ]
    done = subprocess.run(
        command, env=env, capture_output=True, text=True, check=True, timeout=1800
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


class Command(BaseCommand):
    help = "Time the Players page with a 1,000-game household against a 10-game one."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--games", type=int, default=1000, help="the large household")
        parser.add_argument("--small", type=int, default=10, help="the small household")
        parser.add_argument("--players", type=int, default=6)
        parser.add_argument("--runs", type=int, default=20, help="renders measured")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--child", action="store_true", help="(internal) one household")

    def handle(self, *args: Any, **options: Any) -> None:
        games, players, seed, runs = (options[k] for k in ("games", "players", "seed", "runs"))
        if options["child"]:
            self.stdout.write(json.dumps(child(games, players, seed, runs)))
            return
        with tempfile.TemporaryDirectory(prefix="bench-players-") as folder:
            small = run_child(options["small"], players, seed, runs, Path(folder))
            large = run_child(games, players, seed, runs, Path(folder))
        self.report(small, large)

    def report(self, small: dict[str, Any], large: dict[str, Any]) -> None:
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        self.stdout.write(f"Players page, rendered through Django's test Client (load {load})")
        self.stdout.write(
            f"{'':28}{small['games']:>10,} games{large['games']:>12,} games{'ratio':>9}"
        )
        for label, key, unit in (
            ("median of the renders", "median", "ms"),
            ("slowest render", "max", "ms"),
            ("first render (cold)", "cold", "ms"),
            ("queries a render", "queries", ""),
            ("page size", "bytes", "KB"),
        ):
            a, b = small[key], large[key]
            scale = 1000 if unit == "ms" else 1 / 1000 if unit == "KB" else 1
            self.stdout.write(
                f"{label:28}{a * scale:>12,.1f} {unit:3}{b * scale:>12,.1f} {unit:3}"
                f"{b / a if a else 0:>8.2f}x"
            )
        met = large["median"] < TARGET_SECONDS
        verdict = self.style.SUCCESS("ok") if met else self.style.ERROR("ABOVE TARGET")
        self.stdout.write(
            f"{large['games']:,} games: median {large['median'] * 1000:.0f} ms "
            f"[target < {TARGET_SECONDS * 1000:.0f} ms: {verdict}]; "
            f"households made in {small['made']:.1f} s and {large['made']:.1f} s"
        )
