"""Play many games in one server process through the real consumers; print the memory growth.

    python manage.py soak [--games 1000] [--tables 2] [--bots 1] [--no-tracemalloc]

Each game has a TV and phones (and --bots seats played by the server's own bots)
connected to the project's ASGI application in this process (Channels'
WebsocketCommunicator: the real routing, sessions, consumers, writer and
rendering, without a network). The phone whose turn it is sends the greedy
bot's choice on the state read from the database; every screen is read until
it shows each new version. Languages rotate between English, German and
Finnish, so every per-language cache is used. --tables games run at once.

After the first tenth of the games (the warm-up: imports, templates, caches
filling), the process's RSS is measured, then again after every further tenth;
at the end, the growth per 100 games in each half (before tracemalloc starts).
tracemalloc runs during the last two tenths only (it slows play down several
times): the Python memory held after the last tenth minus that held before it,
by line of code. A cache without a bound shows as growth that does not level
off, and as its line in that list.

Nothing touches the developer's database: the command re-runs itself in a child
process whose settings point at a throwaway SQLite file (SPLENDOR_BOT_DELAY=0).
"""

from __future__ import annotations

import asyncio
import gc
import math
import os
import secrets
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from game.bench.client import VERSION
from game.bench.loopback import rss_bytes, run_child
from game.bench.web.config import SEATS
from game.bench.web.tables import Table, greedy_bots, project_table
from game.models import Game
from game.writer import games

CHILD_ENV = "SPLENDOR_SOAK_DB"
WAIT = 60.0  # seconds a screen may take to show a change before the soak fails
LANGUAGES = (b"en", b"de", b"fi")
MAX_ACTIONS = 2_000  # far beyond any game's length: a bound on each game's loop
clock = time.perf_counter


def mb(size: float) -> str:
    return f"{size / 2**20:,.1f} MB"


class Screen:
    """One websocket of a game, connected in-process, and the newest version it showed."""

    def __init__(self, path: str, cookie: str, language: bytes) -> None:
        from channels.testing import WebsocketCommunicator

        from splendor_site.asgi import application

        headers = [
            (b"host", b"127.0.0.1:8000"),
            (b"origin", b"http://127.0.0.1:8000"),
            (b"cookie", f"sessionid={cookie}".encode()),
            (b"accept-language", language),
        ]
        self.communicator = WebsocketCommunicator(application, path, headers=headers)
        self.version = -1

    async def connect(self) -> None:
        connected, code = await self.communicator.connect(timeout=WAIT)
        if not connected:
            raise CommandError(f"a screen was refused (code {code})")

    async def wait_version(self, version: int) -> None:
        deadline = clock() + WAIT
        while self.version < version:
            left = deadline - clock()
            if left <= 0:
                raise CommandError(f"version {version} did not arrive within {WAIT:g} s")
            message = await self.communicator.receive_output(timeout=left)
            if message["type"] == "websocket.close":
                raise CommandError(f"the server closed a screen: {message}")
            text = message.get("text") or ""
            if 'id="flash"' in text:  # every action the soak sends is legal and current
                raise CommandError(f"a screen was refused: {text[:300]}")
            match = VERSION.search(text)
            if match:
                self.version = max(self.version, int(match.group(1)))

    async def close(self) -> None:
        await self.communicator.disconnect(timeout=WAIT)


def read_state(code: str) -> Any:
    from django.db import connection

    try:
        return games.load_state(Game.objects.get(code=code))
    finally:
        connection.close()


async def play_game(number: int, bots: int) -> int:
    """Play one game to its end; return the number of changes."""
    from asgiref.sync import sync_to_async

    table: Table = await sync_to_async(project_table, thread_sensitive=False)(number, bots)
    language = LANGUAGES[number % len(LANGUAGES)]
    screens = [
        Screen(f"/ws/game/{table.code}/{'table' if index == 0 else 'seat'}/", cookie, language)
        for index, cookie in enumerate(table.cookies)
    ]
    phones = SEATS - bots
    players = greedy_bots(table.seed)  # choose for the phones
    try:
        for screen in screens:
            await screen.connect()
        for _change in range(MAX_ACTIONS):
            state = await sync_to_async(read_state, thread_sensitive=False)(table.code)
            await asyncio.gather(*(screen.wait_version(state.moves) for screen in screens))
            if state.is_over:
                return int(state.moves)
            seat = state.current
            if seat < phones:  # a phone plays; otherwise the server's bot does
                action = players[seat].choose(state, seat)
                await screens[1 + seat].communicator.send_json_to(
                    {"action": action.notation(), "version": state.moves}
                )
            await asyncio.gather(*(screen.wait_version(state.moves + 1) for screen in screens))
        raise CommandError(f"game {table.code} did not end within {MAX_ACTIONS} changes")
    finally:
        for screen in screens:
            await screen.close()


class Command(BaseCommand):
    help = "Play many games through the real consumers in one process; print the memory growth."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--games", type=int, default=1000, help="games to play")
        parser.add_argument("--tables", type=int, default=2, help="games played at once")
        parser.add_argument(
            "--bots", type=int, default=1, help=f"seats of {SEATS} played by the server's bots"
        )
        parser.add_argument(
            "--no-tracemalloc", action="store_true", help="RSS only (tracemalloc slows play)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["games"] < 2 or options["tables"] < 1 or not 0 <= options["bots"] < SEATS:
            raise CommandError(f"--games >= 2, --tables >= 1, 0 <= --bots < {SEATS}.")
        if os.environ.get(CHILD_ENV):
            asyncio.run(self.soak(options))
        else:
            self.parent(options)

    def line(self, text: str) -> None:
        self.stdout.write(text)
        self.stdout.flush()

    def parent(self, options: dict[str, Any]) -> None:
        """Re-run this command in a child process whose database is a temporary file."""
        with tempfile.TemporaryDirectory(prefix="splendor-soak-") as tmp:
            db_path = str(Path(tmp) / "soak.sqlite3")
            env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
            env.update(
                {
                    CHILD_ENV: db_path,
                    "SPLENDOR_DB_PATH": db_path,
                    "SPLENDOR_SECRET_KEY": "soak-" + secrets.token_urlsafe(24),
                    "SPLENDOR_DEBUG": "0",
                    "SPLENDOR_BOT_DELAY": "0",
                    # The phones act as soon as their turn shows, dozens of times a
                    # second with the bots playing at once; the flood guard would
                    # refuse them (a flash the soak does not read) and stall the game.
                    "SPLENDOR_SOCKET_RATE": "1000",
                    "DJANGO_SETTINGS_MODULE": os.environ.get(
                        "DJANGO_SETTINGS_MODULE", "splendor_site.settings"
                    ),
                    "PYTHONUNBUFFERED": "1",
                }
            )
            argv = [
                sys.executable,
                str(Path(settings.BASE_DIR) / "manage.py"),
                "soak",
                f"--games={options['games']}",
                f"--tables={options['tables']}",
                f"--bots={options['bots']}",
            ]
            if options["no_tracemalloc"]:
                argv.append("--no-tracemalloc")
            limit = 300 + 60 * options["games"]  # a generous bound: about a minute a game
            code = run_child(argv, env, Path(settings.BASE_DIR), limit, self.line)
            if code != 0:
                raise CommandError(f"the soak failed (exit code {code}).")

    async def soak(self, options: dict[str, Any]) -> None:
        database = settings.DATABASES["default"]
        if str(database["NAME"]) != os.environ[CHILD_ENV]:
            raise CommandError("Refusing to run: the database is not the throwaway file.")
        await asyncio.to_thread(call_command, "migrate", interactive=False, verbosity=0)
        games, tables, bots = options["games"], options["tables"], options["bots"]
        trace = not options["no_tracemalloc"]
        self.line(
            f"Soak: {games} games of {SEATS - bots} phone(s) and {bots} server bot(s), "
            f"TV connected, {tables} at a time, in one process (pid {os.getpid()}); "
            f"throwaway SQLite; tracemalloc {'on for the last two tenths' if trace else 'off'}"
        )
        self.line(f"RSS at start: {mb(rss_bytes(os.getpid()))}")
        warm = max(1, games // 10)
        started = clock()
        changes = await self.play(range(warm), tables, bots)
        gc.collect()
        rss_base = rss_bytes(os.getpid())
        self.line(
            f"after the warm-up ({warm} games, {changes} changes, {clock() - started:.0f} s): "
            f"RSS {mb(rss_base)}"
        )
        checkpoints: list[tuple[int, int]] = []  # (games played, RSS)
        step = max(1, math.ceil((games - warm) / 10))  # ten checkpoints at most
        firsts = range(warm, games, step)
        snapshots: list[tracemalloc.Snapshot] = []
        for first in firsts:
            done = range(first, min(games, first + step))
            if trace and len(firsts) >= 2 and first == firsts[-2]:
                tracemalloc.start(1)  # only now: it slows play down several times
            changes += await self.play(done, tables, bots)
            gc.collect()
            rss = rss_bytes(os.getpid())
            if tracemalloc.is_tracing():
                snapshots.append(tracemalloc.take_snapshot())
            else:  # tracemalloc's own bookkeeping would count as growth
                checkpoints.append((done.stop, rss))
            self.line(
                f"{done.stop:>6} games, {changes:>8} changes, {clock() - started:>6.0f} s: "
                f"RSS {mb(rss)} (+{mb(rss - rss_base)} since the warm-up"
                + (", tracemalloc's own memory included)" if snapshots else ")")
            )
        tracemalloc.stop()
        traced_games = min(games, firsts[-1] + step) - firsts[-1] if len(snapshots) == 2 else 0
        self.report(checkpoints or [(warm, rss_base)], warm, rss_base, snapshots, traced_games)

    async def play(self, numbers: range, tables: int, bots: int) -> int:
        """Play these games, `tables` at a time; return their changes."""
        queue = iter(numbers)
        total = 0

        async def table() -> None:
            nonlocal total
            for number in queue:
                total += await play_game(number, bots)

        await asyncio.gather(*(table() for _ in range(tables)))
        return total

    def report(
        self,
        checkpoints: list[tuple[int, int]],
        warm: int,
        rss_base: int,
        snapshots: list[tracemalloc.Snapshot],
        traced_games: int,
    ) -> None:
        played, rss_end = checkpoints[-1]
        middle, rss_middle = checkpoints[(len(checkpoints) - 1) // 2]

        def per_100(grown: int, count: int) -> str:
            return f"{grown / 1024 / count * 100:,.0f} KB" if count else "-"

        first_half = per_100(rss_middle - rss_base, middle - warm)
        second_half = per_100(rss_end - rss_middle, played - middle)
        self.line(
            f"Growth after the warm-up, without tracemalloc: RSS {mb(rss_end - rss_base)} over "
            f"{played - warm} games; per 100 games {first_half} in the first half, "
            f"{second_half} in the second"
        )
        if not traced_games:
            return
        ignore = [
            tracemalloc.Filter(False, tracemalloc.__file__),
            tracemalloc.Filter(False, "<frozen importlib._bootstrap*>"),
        ]
        before, after = (snapshot.filter_traces(ignore) for snapshot in snapshots)
        growth = after.compare_to(before, "lineno")
        total = sum(stat.size_diff for stat in growth)
        self.line(
            f"tracemalloc, Python memory held after the last {traced_games} games minus "
            f"before them: {total / 1024:+,.1f} KB ({per_100(total, traced_games)} per 100 "
            "games); the lines that grew most:"
        )
        for stat in sorted(growth, key=lambda stat: stat.size_diff, reverse=True)[:8]:
            frame = stat.traceback[0]
            where = os.path.relpath(frame.filename, settings.BASE_DIR)
            if where.startswith(".."):
                where = frame.filename
            self.line(
                f"  {stat.size_diff / 1024:>+9,.1f} KB, {stat.count_diff:>+7,} blocks  "
                f"{where}:{frame.lineno}"
            )
