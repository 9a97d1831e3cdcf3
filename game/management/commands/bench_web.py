"""Measure the web path of one server process: play(), rendering per change, websocket fan-out.

    python manage.py bench_web [--games 20] [--seconds 10] [--screens 5] [--no-sockets]

(a) services.play (lock, validate, apply, record, save, announce) over N games of four
    seats, every seat a phone whose action a greedy bot chooses; called through
    database_sync_to_async from an event loop, as the consumers call it.
(b) what each change costs the screens: every screen's GameConsumer handles the event
    the writer published for it (game.events: the table's or its seat's projection)
    and sends the regions that changed, once per change with the shared region cache,
    and again with the cache cleared before every screen, to show what it saves.
(c) end to end: `manage.py runserver` (Daphne) on 127.0.0.1 and real websockets, one
    per screen; time from a phone sending its action until every screen of the game
    has the new version. Skipped with --no-sockets.

Nothing here touches the developer's database: the command re-runs itself in a child
process whose settings point at a throwaway SQLite file in a temporary directory
(SPLENDOR_DB_PATH, without DATABASE_URL or REDIS_URL), migrates it and measures there.
Times are wall-clock, plus this process's CPU time for (a) and (b), and are only
printed, never checked: a shared machine makes them vary.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import platform
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from game import events, inbound, regions, rendering, services
from game.consumers import GameConsumer
from game.engine import Action, GameState, apply_action
from game.engine.bots import Bot, make_bot
from game.management.commands.bench_engine import one_core
from game.management.loopback import SOCKET_TIMEOUT, Closed, MiniWebSocket, runserver
from game.models import Game, new_player_key
from game.readmodel import holder_of

clock = time.perf_counter
# CPU time of this process (all its threads): steadier than wall time on a busy machine.
cpu_clock = time.process_time

# Set in the child's environment to the throwaway database it must use.
CHILD_ENV = "SPLENDOR_BENCH_WEB_DB"
SEATS = 4
SEED = 20_240_611
MAX_ACTIONS = 200_000  # a bound on every measuring loop, besides its time


# ---------------------------------------------------------------- figures


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def ms(seconds: float) -> str:
    value = seconds * 1000
    return f"{value:.2f} ms" if value < 10 else f"{value:.1f} ms"


def spread(values: Sequence[float]) -> str:
    return f"p50 {ms(percentile(values, 0.5))}, p99 {ms(percentile(values, 0.99))}"


class QueryCounter:
    """A connection.execute_wrapper that counts SQL statements."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, execute: Callable[..., Any], *args: Any) -> Any:
        self.count += 1
        return execute(*args)


# ---------------------------------------------------------------- games (sync, database thread)


@dataclass
class Table:
    """A started four-seat game and the bench's own copy of its state."""

    game_id: int
    code: str
    host_key: str
    keys: list[str]  # player key by position
    seat_ids: list[int]  # Seat pk by position
    state: GameState
    bots: list[Bot]
    sessions: dict[str, str] = field(default_factory=dict)  # player key -> session key

    def choose(self) -> tuple[int, Action]:
        seat = self.state.current
        return seat, self.bots[seat].choose(self.state, seat)


def deal_table(number: int) -> Table:
    """Open a game, seat four phones, start it; deterministic per number."""
    host_key = new_player_key()
    game = services.create_game(host_key)
    seed = SEED + number
    Game.objects.filter(pk=game.pk).update(seed=seed)
    keys = [new_player_key() for _ in range(SEATS)]
    seat_ids = [
        services.join_game(game.id, key, f"Player {position + 1}").pk
        for position, key in enumerate(keys)
    ]
    services.start_game(game.id, host_key, first_player=0)
    state = services.load_state(Game.objects.get(pk=game.id))
    assert state is not None
    bots = [make_bot("greedy", seed * 10 + position) for position in range(SEATS)]
    return Table(game.id, game.code, host_key, keys, seat_ids, state, bots)


def timed_play(game_id: int, key: str, notation: str, version: int) -> tuple[float, int]:
    """Run services.play; return its own time and its SQL statements (database thread)."""
    counter = QueryCounter()
    with connection.execute_wrapper(counter):
        start = clock()
        try:
            services.play(game_id, key, notation, version)
        except services.Refused as refusal:
            raise CommandError(f"play({notation!r}) was refused: {refusal.message}") from None
        return clock() - start, counter.count


def new_session(player_key: str | None) -> str:
    store = SessionStore()
    if player_key is not None:
        store["player_key"] = player_key
    store.create()
    assert store.session_key is not None
    return store.session_key


# ---------------------------------------------------------------- (b) screens without sockets


class Sink:
    """Stands in for the socket: remembers the size of what a screen would be sent."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    async def __call__(self, message: dict[str, Any]) -> None:
        self.sizes.append(len(message.get("text") or ""))


@dataclass
class Screen:
    kind: str  # "table (host)", "phone", "table (spectator)"
    consumer: GameConsumer
    sink: Sink
    queries: QueryCounter


def screen_kinds(screens: int) -> list[tuple[str, int | None]]:
    """The host's table, then one phone a seat, then spectator tables."""
    kinds: list[tuple[str, int | None]] = [("table (host)", None)]
    for position in range(screens - 1):
        kinds.append(("phone", position) if position < SEATS else ("table (spectator)", None))
    return kinds[:screens]


def make_screens(table: Table, screens: int) -> list[Screen]:
    """Consumers set up as a connected screen of this game would be (no socket)."""
    made = []
    for kind, position in screen_kinds(screens):
        consumer = GameConsumer()
        consumer.scope = {"headers": [(b"host", b"127.0.0.1:8000")], "cookies": {}}
        consumer.shown = regions.Shown()
        consumer.limit = inbound.RateLimit()
        consumer.game_id = table.game_id
        consumer.role = "table" if position is None else "seat"
        consumer.seat_id = None if position is None else table.seat_ids[position]
        consumer.is_host = kind == "table (host)"
        consumer.holder = holder_of(table.keys[position]) if position is not None else ""
        consumer.here = frozenset(table.seat_ids)  # the phones are online: no rejoin QR codes
        consumer.language = "en"
        sink = Sink()
        consumer.base_send = sink
        made.append(Screen(kind, consumer, sink, QueryCounter()))
    return made


async def deliver(screen: Screen, published: list[tuple[str, dict[str, Any]]]) -> None:
    """Hand a screen the event the writer published for it, as the channel layer would."""
    consumer = screen.consumer
    group = (
        events.table_group(consumer.game_id or 0)
        if consumer.seat_id is None
        else events.seat_group(consumer.game_id or 0, consumer.seat_id)
    )
    event = next(message for name, message in published if name == group)
    with connection.execute_wrapper(screen.queries):
        if consumer.seat_id is None:
            await consumer.table_changed(event)
        else:
            await consumer.seat_changed(event)


@dataclass
class RenderStats:
    requests: int = 0  # shared regions asked of the cache
    renders: int = 0  # shared regions actually rendered

    def counting(self, key: tuple[Any, ...], render: Callable[[], str]) -> str:
        self.requests += 1

        def counted() -> str:
            self.renders += 1
            return render()

        return ORIGINAL_CACHED(key, counted)


ORIGINAL_CACHED = regions.cached


# ---------------------------------------------------------------- (c) a minimal websocket client


@contextlib.contextmanager
def server(log: Path, cpu: int | None) -> Iterator[int]:
    """Run the real server on this process's database, as a command error if it fails."""
    try:
        with runserver(os.environ.copy(), log, settings.BASE_DIR, cpu) as port:
            yield port
    except RuntimeError as error:
        raise CommandError(str(error)) from error


@dataclass
class Client:
    """The sockets of one game's screens, driven by one thread."""

    table: Table
    sockets: list[MiniWebSocket]
    phones: dict[int, MiniWebSocket]
    # Phones of seats that are not among the screens: they play and are drained, not timed.
    extra: list[MiniWebSocket] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    error: str = ""

    def drive(self, until: float) -> None:
        """Play greedy actions from the phones, waiting for every screen each time."""
        state = self.table.state
        try:
            for _action in range(MAX_ACTIONS):
                if clock() >= until or state.is_over:
                    return
                seat, action = self.table.choose()
                target = state.moves + 1
                start = clock()
                self.phones[seat].send_json({"action": action.notation(), "version": state.moves})
                for ws in self.sockets:
                    ws.wait_version(target, start + SOCKET_TIMEOUT)
                self.latencies.append(clock() - start)
                for ws in self.extra:
                    ws.wait_version(target, start + SOCKET_TIMEOUT)
                apply_action(state, action, seat)
        except (Closed, OSError) as error:
            self.error = f"game {self.table.code}: {error}"

    def close(self) -> None:
        for ws in [*self.sockets, *self.extra]:
            ws.close()


# ---------------------------------------------------------------- the command


class Command(BaseCommand):
    help = (
        "Benchmark play(), rendering and websocket fan-out of one server on a throwaway database."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--games", type=int, default=20, help="games at a time (4 seats each)")
        parser.add_argument("--seconds", type=float, default=10.0, help="time per measurement")
        parser.add_argument(
            "--screens", type=int, default=5, help="screens a game: host table, phones, spectators"
        )
        parser.add_argument(
            "--no-sockets", action="store_true", help="skip (c), the real server and websockets"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["games"] < 1 or options["screens"] < 1 or not options["seconds"] > 0:
            raise CommandError("--games and --screens must be at least 1, --seconds above 0.")
        if os.environ.get(CHILD_ENV):
            self.child(options)
        else:
            self.parent(options)

    def line(self, text: str) -> None:
        self.stdout.write(text)

    # ------------------------------------------------------------ parent: a throwaway database

    def parent(self, options: dict[str, Any]) -> None:
        """Re-run this command in a child process whose database is a temporary file."""
        with tempfile.TemporaryDirectory(prefix="splendor-bench-") as tmp:
            db_path = Path(tmp) / "bench.sqlite3"
            env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
            env.update(
                {
                    CHILD_ENV: str(db_path),
                    "SPLENDOR_DB_PATH": str(db_path),
                    # Shared with the server of (c), so its sessions are valid there; also
                    # keeps the child from writing a .secret_key.
                    "SPLENDOR_SECRET_KEY": "bench-" + secrets.token_urlsafe(24),
                    "DJANGO_SETTINGS_MODULE": os.environ.get(
                        "DJANGO_SETTINGS_MODULE", "splendor_site.settings"
                    ),
                    "PYTHONUNBUFFERED": "1",
                }
            )
            command = [
                sys.executable,
                str(Path(settings.BASE_DIR) / "manage.py"),
                "bench_web",
                f"--games={options['games']}",
                f"--seconds={options['seconds']}",
                f"--screens={options['screens']}",
            ]
            if options["no_sockets"]:
                command.append("--no-sockets")
            # Three measurements, set-up and the server's start; then the child is stopped.
            limit = 3 * options["seconds"] + 120 + 2 * options["games"]
            process = subprocess.Popen(
                command,
                cwd=settings.BASE_DIR,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                # Its own process group: stopping it also stops the server of (c).
                start_new_session=hasattr(os, "killpg"),
            )

            def stop() -> None:
                if process.poll() is None:
                    with contextlib.suppress(ProcessLookupError):
                        if hasattr(os, "killpg"):
                            os.killpg(process.pid, signal.SIGKILL)
                        else:
                            process.kill()

            watchdog = threading.Timer(limit, stop)
            watchdog.start()
            try:
                assert process.stdout is not None
                for text in process.stdout:
                    self.line(text.rstrip("\n"))
                code = process.wait(timeout=limit)
            finally:
                watchdog.cancel()
                stop()
                process.wait()
            if code != 0:
                self.stdout.flush()
                raise CommandError(f"the benchmark failed (exit code {code}).")

    # ------------------------------------------------------------ child: measure

    def child(self, options: dict[str, Any]) -> None:
        database = settings.DATABASES["default"]
        if database["ENGINE"] != "django.db.backends.sqlite3" or str(database["NAME"]) != str(
            os.environ[CHILD_ENV]
        ):
            raise CommandError("Refusing to run: the database is not the throwaway file.")
        call_command("migrate", interactive=False, verbosity=0)
        games: int = options["games"]
        seconds: float = options["seconds"]
        screens: int = options["screens"]
        usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
        layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
        kinds = [kind for kind, _position in screen_kinds(screens)]
        self.line(f"Python {sys.version.split()[0]} ({platform.python_implementation()})")
        self.line(f"Platform {platform.platform()}, {platform.machine()}")
        self.line(f"Cores: {os.cpu_count()} ({usable or '?'} usable by this process)")
        self.line("Wall-clock figures vary on a busy machine; the CPU-time figures are steadier.")
        self.line(
            f"Database: {database['NAME']} (throwaway SQLite), CONN_MAX_AGE "
            f"{database.get('CONN_MAX_AGE', 0)}, DEBUG {settings.DEBUG}; channel layer {layer}"
        )
        self.line(
            f"Games: {games} at a time, {SEATS} phones each (greedy choices, not timed); "
            f"{screens} screens a game: "
            + ", ".join(f"{kinds.count(k)} {k}" for k in dict.fromkeys(kinds))
        )
        with one_core() as pinned:
            self.line(f"(a), (b): {pinned}")
            asyncio.run(self.measure_in_process(games, seconds, screens))
        if options["no_sockets"]:
            self.line("(c) fan-out: skipped (--no-sockets)")
        else:
            self.measure_sockets(games, seconds, screens)

    async def measure_in_process(self, games: int, seconds: float, screens: int) -> None:
        """(a) and (b): the consumers' path, from an event loop, without sockets."""
        deal = database_sync_to_async(deal_table)
        tables = [await deal(number) for number in range(games)]
        dealt = len(tables)
        finished = 0

        async def advance(index: int, table: Table) -> Table:
            """Replace a finished game by a fresh one."""
            nonlocal dealt, finished
            if not table.state.is_over:
                return table
            finished += 1
            dealt += 1
            tables[index] = await deal(dealt)
            return tables[index]

        # (a) play(); one untimed action first (imports, first queries)
        seat, action = tables[0].choose()
        await database_sync_to_async(timed_play)(
            tables[0].game_id, tables[0].keys[seat], action.notation(), tables[0].state.moves
        )
        apply_action(tables[0].state, action, seat)
        inner: list[float] = []
        outer: list[float] = []
        cpu = 0.0
        queries = 0
        until = clock() + seconds
        for count in range(MAX_ACTIONS):
            if clock() >= until:
                break
            index = count % len(tables)
            table = tables[index]
            seat, action = table.choose()
            start, start_cpu = clock(), cpu_clock()
            took, statements = await database_sync_to_async(timed_play)(
                table.game_id, table.keys[seat], action.notation(), table.state.moves
            )
            outer.append(clock() - start)
            cpu += cpu_clock() - start_cpu
            inner.append(took)
            queries += statements
            apply_action(table.state, action, seat)
            await advance(index, table)
        actions = len(outer)
        self.line(
            f"(a) play(): {actions / sum(outer):,.0f} actions/s ({actions} actions over "
            f"{games} games, one at a time through the database thread); latency "
            f"{spread(outer)} as awaited, {spread(inner)} inside play()"
        )
        self.line(
            f"(a) play() CPU: {ms(cpu / actions)} a play ({actions / cpu:,.0f} actions per "
            f"CPU-second); {queries / actions:.1f} SQL statements a play; "
            f"{finished} games finished"
        )

        # (b) render per change
        await self.measure_renders(tables, seconds, screens, deal)

    async def measure_renders(
        self,
        tables: list[Table],
        seconds: float,
        screens: int,
        deal: Callable[[int], Awaitable[Table]],
    ) -> None:
        def connect(table: Table) -> dict[str, list[Screen]]:
            return {
                "cached": make_screens(table, screens),
                "uncached": make_screens(table, screens),
            }

        views = [connect(table) for table in tables]
        # Warm up (template loading and compiling), untimed: the whole view of every screen,
        # as sent on connect.
        for table_views in views:
            for mode in ("cached", "uncached"):
                for screen in table_views[mode]:
                    await screen.consumer.send_full()
                    screen.sink.sizes.clear()
                    screen.queries.count = 0
        published: list[tuple[str, dict[str, Any]]] = []
        region_caches = {"cached": regions._cache.copy(), "uncached": regions._cache.copy()}

        def capture(*args: Any) -> None:
            published[:] = events.messages(*args)

        dealt = 10_000
        per_change: dict[str, list[float]] = {"cached": [], "uncached": []}
        cpu = {"cached": 0.0, "uncached": 0.0}
        per_kind: dict[str, list[float]] = {}
        stats = {"cached": RenderStats(), "uncached": RenderStats()}
        until = clock() + seconds
        with (
            mock.patch.object(regions, "cached") as patched,
            mock.patch.object(events, "publish", capture),
        ):
            for count in range(MAX_ACTIONS):
                if clock() >= until:
                    break
                index = count % len(tables)
                table = tables[index]
                seat, action = table.choose()
                await database_sync_to_async(services.play)(
                    table.game_id, table.keys[seat], action.notation(), table.state.moves
                )
                apply_action(table.state, action, seat)
                # Alternate which pass goes first, so neither always finds warm caches.
                modes = ("cached", "uncached") if count % 2 == 0 else ("uncached", "cached")
                for mode in modes:
                    patched.side_effect = stats[mode].counting
                    # Each pass keeps its own region cache across changes, as a server does
                    # (the other pass must not have filled it).
                    regions._cache = region_caches[mode]
                    total = 0.0
                    start_cpu = cpu_clock()
                    for screen in views[index][mode]:
                        if mode == "uncached":
                            rendering.clear_cache()
                        start = clock()
                        await deliver(screen, published)
                        took = clock() - start
                        total += took
                        if mode == "cached":
                            per_kind.setdefault(screen.kind, []).append(took)
                    per_change[mode].append(total)
                    cpu[mode] += cpu_clock() - start_cpu
                if table.state.is_over:
                    dealt += 1
                    tables[index] = await deal(dealt)
                    views[index] = connect(tables[index])
        rendering.clear_cache()
        changes = len(per_change["cached"])
        if not changes:
            self.line("(b) render per change: no change measured")
            return
        cached, uncached = per_change["cached"], per_change["uncached"]
        mean_cached, mean_uncached = sum(cached) / changes, sum(uncached) / changes
        every = [s for v in views for s in v["cached"]]
        sizes = [size for s in every for size in s.sink.sizes]
        statements = sum(s.queries.count for s in every) / max(
            1, sum(len(s.sink.sizes) for s in every)
        )
        self.line(
            f"(b) render per change ({screens} screens, {changes} changes): "
            f"{ms(mean_cached)} mean, {spread(cached)}; {ms(mean_cached / screens)} a screen; "
            f"{sum(sizes) / max(1, len(sizes)) / 1024:.1f} KB a screen; "
            f"{statements:.1f} SQL statements a screen"
        )
        kb = {
            kind: [size / 1024 for s in every if s.kind == kind for size in s.sink.sizes]
            for kind in per_kind
        }
        self.line(
            "(b) per screen kind: "
            + "; ".join(
                f"{kind} {ms(sum(times) / len(times))} mean, {spread(times)}, "
                f"{sum(kb[kind]) / max(1, len(kb[kind])):.1f} KB"
                for kind, times in per_kind.items()
            )
        )
        shared, rendered = stats["cached"].requests / changes, stats["cached"].renders / changes
        saved = mean_uncached - mean_cached
        self.line(
            f"(b) shared cache: {rendered:.1f} of {shared:.1f} shared regions rendered a change "
            f"({shared - rendered:.1f} renders saved); cache cleared before every screen: "
            f"{ms(mean_uncached)} a change ({spread(uncached)}), so the cache saves "
            f"{ms(saved)} a change ({saved / mean_uncached:.0%})"
        )
        cpu_cached, cpu_uncached = cpu["cached"] / changes, cpu["uncached"] / changes
        self.line(
            f"(b) render CPU: {ms(cpu_cached)} a change with the cache "
            f"({ms(cpu_cached / screens)} a screen), {ms(cpu_uncached)} without "
            f"({1 - cpu_cached / cpu_uncached:.0%} saved)"
        )

    # ------------------------------------------------------------ (c) real sockets

    def measure_sockets(self, games: int, seconds: float, screens: int) -> None:
        tables = [deal_table(50_000 + number) for number in range(games)]
        for table in tables:
            for key in [table.host_key, *table.keys]:
                table.sessions[key] = new_session(key)
        cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        server_cpu = cpus[0] if len(cpus) >= 2 else None
        where = (
            f"server pinned to CPU {server_cpu}, clients on the other {len(cpus) - 1}"
            if server_cpu is not None
            else "server and clients share the CPUs"
        )
        # Next to the database, in the directory the parent process removes.
        log = Path(os.environ[CHILD_ENV]).parent / "server.log"
        with server(log, server_cpu) as port, self.client_cpus(cpus, server_cpu):
            clients: list[Client] = []
            try:
                try:
                    for table in tables:
                        clients.append(self.connect(table, port, screens))
                except (Closed, OSError) as error:
                    raise CommandError(
                        f"(c) could not connect: {error}\n{log.read_text()[-1500:]}"
                    ) from None
                sockets = sum(len(c.sockets) for c in clients)
                self.line(f"(c) {sockets} websockets to runserver (Daphne) on port {port}; {where}")
                alone = clients[0]
                alone.drive(clock() + seconds / 3)
                single = list(alone.latencies)
                self.report_fanout("one game alone", single, seconds / 3, [alone])
                for client in clients:
                    client.latencies.clear()
                until = clock() + 2 * seconds / 3
                started = clock()
                threads = [
                    threading.Thread(target=c.drive, args=(until,), daemon=True) for c in clients
                ]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join(timeout=2 * seconds / 3 + SOCKET_TIMEOUT + 5)
                elapsed = clock() - started
                every = [t for c in clients for t in c.latencies]
                self.report_fanout(
                    f"all {games} games at once, each acting as soon as its screens "
                    "show its last action",
                    every,
                    elapsed,
                    clients,
                )
            finally:
                for client in clients:
                    client.close()
            errors = [c.error for c in clients if c.error]
            if errors:
                self.line(f"(c) server log tail:\n{log.read_text()[-1500:]}")

    @contextlib.contextmanager
    def client_cpus(self, cpus: list[int], server_cpu: int | None) -> Iterator[None]:
        """Keep this process (the clients) off the server's CPU while it runs."""
        if server_cpu is None:
            yield
            return
        os.sched_setaffinity(0, set(cpus) - {server_cpu})
        try:
            yield
        finally:
            os.sched_setaffinity(0, set(cpus))

    def connect(self, table: Table, port: int, screens: int) -> Client:
        path = f"/ws/game/{table.code}"
        sockets: list[MiniWebSocket] = []
        phones: dict[int, MiniWebSocket] = {}
        for kind, position in screen_kinds(screens):
            if kind == "phone":
                assert position is not None
                ws = MiniWebSocket(port, f"{path}/seat/", table.sessions[table.keys[position]])
                phones[position] = ws
            elif kind == "table (host)":
                ws = MiniWebSocket(port, f"{path}/table/", table.sessions[table.host_key])
            else:
                ws = MiniWebSocket(port, f"{path}/table/", new_session(None))
            sockets.append(ws)
        client = Client(table, sockets, phones)
        # Seats without a phone screen (--screens below 5) still need a socket to play from.
        for position in range(SEATS):
            if position not in phones:
                ws = MiniWebSocket(port, f"{path}/seat/", table.sessions[table.keys[position]])
                phones[position] = ws
                client.extra.append(ws)
        for ws in [*sockets, *client.extra]:  # the first message is the whole current view
            ws.wait_version(table.state.moves, clock() + SOCKET_TIMEOUT)
        return client

    def report_fanout(
        self, label: str, latencies: list[float], elapsed: float, clients: list[Client]
    ) -> None:
        errors = [c.error for c in clients if c.error]
        finished = sum(c.table.state.is_over for c in clients)
        if not latencies:
            self.line(f"(c) fan-out, {label}: no action completed; {'; '.join(errors)}")
            return
        self.line(
            f"(c) fan-out, {label}: {len(latencies) / elapsed:,.0f} actions/s "
            f"({len(latencies)} actions); until every screen has it {spread(latencies)}"
            + (f"; {finished} games finished" if finished else "")
            + (f"; {len(errors)} errors: {'; '.join(errors[:3])}" if errors else "")
        )
