"""Measure the project's server against a bare Channels fan-out server, over real websockets.

    python manage.py bench_web [--seconds 10] [--paced-seconds 30] [--games 100]
                               [--busy-games 10] [--idle-sockets 200] [--quick]
                               [--no-scale] [--scale-only] [--ping-every 2]
                               [--no-heartbeats] [--restart-after 60] [--restart-down 10]
                               [--no-restart]
                               [--no-flood]

The same client drives both servers through the same games. A game is five
screens (the TV and four seated phones); the phone whose turn it is sends the
legal action that greedy bots, playing the same deal in the engine beforehand,
chose there, and the action counts as done when all five screens show the new
version (`data-version` on the element with id "screen" or "hand"). Only what
a screen sees is used, so the command works whatever the server does inside.
Every figure is printed beside the bare server's figure of the same run and
their ratio:

- 1 game, acting as soon as its screens show the last action: p50/p99 latency;
- --busy-games (10) at once, the same way: actions/s, and the server's CPU
  (user + system time of its process, from /proc) per action and actions per
  CPU-second (a server core);
- --games (100) acting once a second each, for --paced-seconds (30): the
  sustained rate, p99 latency, and the server's CPU as a share of one core (and
  how much of it was outside the event loop's thread: the project's writer). The
  project's games join part-played, each at a stage of its own, as on a server
  that has run for a while (a game's later turns cost more than its first, and
  about one game a second ends and is replaced, as there); the busy games play
  whole games from their deal. A
  longer measurement than the others: the garbage collector's middle generation
  held every screen for 30-100 ms there about every 15-20 s (every 75 s or so
  since its threshold went from 200 to 1,000), and in 10 s of
  1,000 actions the p99 was whether one such run fell in them or not;
  The paced games are also measured without heartbeats, by turns with them in
  each round: the heartbeats' share of the server's CPU. And the p99 of each
  BUCKET (2 s) of each round: a step at the presence interval (a write per
  socket every 10 s, in step on sockets that connected together) shows as a
  worst bucket far above the median one;
- the heartbeats alone: the paced games' screens connected, none acting, a
  window with every screen silent, then one with every screen sending its
  heartbeat (both servers at once): the server's CPU per ping;
- bytes and messages a TV and a phone receive per change;
- the server's memory per connected socket (its RSS before and after
  --idle-sockets more idle sockets: the TVs and phones of as many more games);
- a restart: --games fresh games connected (a thread per screen, each kept as
  static/js/app.js keeps its socket: heartbeat, silence, reconnect with backoff
  and jitter, one socket at a time), playing once a second; the server killed
  (SIGKILL) between two actions and started again on the same port and
  database --restart-down (10) s later, as a laptop restarting (the screens'
  backoff reaches its cap meanwhile); the time from its listening again until
  every screen shows its game's version, the sockets each screen opened in the
  --restart-after (60) s after that (0 is the target), and the p99 of the
  actions played in them. The bare server forgets its games when killed: any
  view counts as current there.
- a flood (the project only, --no-flood skips it): another game's TV times its
  heartbeat quiet, then while one phone (one cookie) opens 20 sockets and sends
  hint and full-view requests from each, 50 a second (a script, 1,000 messages a
  second from one phone; a page sends one every 2 s); the ratio of the
  medians is the figure (the per-phone limits are what keep it near 1). The
  phone's sockets the server closed are counted by their close code
  (game.screens.wire): the seat's oldest replaced, a flooding one closed.

Every screen sends the page's heartbeat, {"ping": true} every --ping-every (2)
seconds, each at a phase of its own (pages open at different moments), as
static/js/app.js does; --no-heartbeats turns it off for comparison. Answers
("pong") are counted apart; other messages without a version (presence) are
counted as traffic and otherwise ignored.

Then, on PostgreSQL and Redis (both expected on 127.0.0.1), the project with
two Daphne workers against one, as ratios: with each game's screens spread over
both workers (what a balancer that knows nothing of games does), and with each
game's screens on one worker (what a proxy that routes by room code does).
In both parts the games that replace finished ones are dealt and thought out
before each measurement: dealing a game while the servers were measured wrote to
the project's database (SQLite: a server's writer waited for the client's
transactions, stalling every game of a busy or paced phase for 20-50 ms) and
took the client's interpreter (about 15 ms a game, for both servers).

Nothing touches the developer's database: each part runs in a child process
whose settings point at a throwaway SQLite file or a throwaway PostgreSQL
database and a Redis db of the benchmark's own (emptied afterwards). Servers
listen on 127.0.0.1 only; every loop is bounded and a watchdog stops what
overruns. Figures are printed, never checked: a shared machine makes them vary,
so the load average is printed beside them.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import multiprocessing
import os
import platform
import random
import re
import secrets
import select
import socket
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from game.bench.loopback import (
    LOOPBACK,
    VERSION,
    Closed,
    MiniWebSocket,
    NoFreeRedisDb,
    RawFloodRun,
    Server,
    ServerProcess,
    cpu_seconds,
    daphne,
    daphne_process,
    main_thread_cpu_seconds,
    measure_raw_flood,
    own_redis_db,
    rss_bytes,
    run_child,
)
from game.bench.loopback import flood as loopback_flood
from game.engine import apply_action, new_game
from game.engine.bot_registry import make_bot
from game.engine.bots import Bot
from game.models import Game, new_player_key
from game.screens.wire import Close
from game.writer import lobby, moves, seating

clock = time.perf_counter

# Set in the child's environment: which part it runs ("sqlite" or "scale").
CHILD_ENV = "SPLENDOR_BENCH_WEB_PART"
SEATS = 4
SEED = 20_240_611
WAIT = 30.0  # seconds the screens may take to show one action before it counts as lost
MAX_ACTIONS = 1_000_000  # a bound on every loop, besides its time
MAX_CHANGES = 2_000  # far beyond any game's length
PROJECT_APP = "splendor_site.asgi:application"
BARE_APP = "game.bench.bare_fanout:application"
POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
QUICK = {
    "seconds": 1.5,
    "paced_seconds": 3.0,
    "games": 6,
    "busy_games": 3,
    "idle_sockets": 10,
    "restart_after": 3.0,
    "restart_down": 3.0,
    "raw_flood_seconds": 3.0,
}
# The page's heartbeat (static/js/app.js): {"ping": true} every PING_EVERY seconds from
# every screen, each at a phase of its own (pages open at different moments). The page's
# timings are the server's settings ("The live connection's clock"): read from there.
PING_EVERY = float(settings.SPLENDOR_HEARTBEAT)
# The paced phase's p99 is also taken per bucket of this many seconds of each round: a
# step at the presence interval (a database write per socket every 10 s, in step on
# sockets that connected together) shows as buckets far above the median one.
BUCKET = 2.0
# The restart phase's screens reconnect as the page does (retryLater in app.js): a
# close, or no message for SILENT_AFTER seconds, ends a socket; the first retry comes
# after a random wait in RECONNECT_FIRST, the next ones after RECONNECT_BASE times 2 to
# the attempt's number, at most RECONNECT_CAP, times a random 0.5-1. One socket per
# screen at a time.
SILENT_AFTER = float(settings.SPLENDOR_SILENT_AFTER)
RECONNECT_FIRST = (0.3 * settings.SPLENDOR_CLOCK, 0.9 * settings.SPLENDOR_CLOCK)
RECONNECT_BASE = 0.5 * settings.SPLENDOR_CLOCK
RECONNECT_CAP = float(settings.SPLENDOR_BACKOFF_CAP)
RESTART_BEFORE = 5.0  # seconds the games play before the server is killed
# Seconds the killed server stays down (a laptop restarting, a server started again by
# hand): long enough for every screen's backoff to reach its cap, as it does then.
RESTART_DOWN = 10.0
RESTART_WAIT = 60.0  # seconds the screens may take to be current again before it gives up
SCALE_ROUNDS = 3  # one worker, then two, this many times
# Part 1 measures the project and the bare server by turns, each phase in this many
# rounds, so that a slower minute of this shared machine weighs on both.
ROUNDS = 3
# Games dealt ahead for a measurement of busy games, per game and second measured: a
# game lasts about GAME_LENGTH actions and a busy game plays 10-25 a second here (the
# rest, if any, are dealt when needed).
REPLACED = 0.25
GAME_LENGTH = 100


def pooled(phases: Sequence[Phase]) -> Phase:
    """Several measurements of the same games taken together."""
    traffic = Traffic()
    for phase in phases:
        traffic.add(phase.traffic)
    return Phase(
        sum(phase.actions for phase in phases),
        sum(phase.elapsed for phase in phases),
        sum(phase.cpu for phase in phases),
        [t for phase in phases for t in phase.latencies],
        traffic,
        sum(phase.replaced for phase in phases),
        [e for phase in phases for e in phase.errors],
        phases[-1].load,
        calm_latencies=[t for phase in phases for t in phase.calm_latencies],
        loop_cpu=sum(phase.loop_cpu for phase in phases),
        pings=sum(phase.pings for phase in phases),
        buckets=[b for phase in phases for b in phase.buckets],
    )


# ---------------------------------------------------------------- figures


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def ms(seconds: float) -> str:
    value = seconds * 1000
    return f"{value:.2f} ms" if value < 10 else f"{value:,.0f} ms"


TOO_SMALL = "n/a (sample too small)"


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


def load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


# ---------------------------------------------------------------- games


@dataclass
class Table:
    """One game as the client knows it: its code, the screens' cookies, its deal, its version."""

    code: str
    cookies: list[str]  # session keys: the TV's (the host's), then one phone a seat
    seed: int
    version: int  # what the screens show now
    start: int = field(init=False)  # the version of the deal, before the first change

    def __post_init__(self) -> None:
        self.start = self.version


def greedy_bots(seed: int) -> list[Bot]:
    return [make_bot("greedy", seed * 10 + position) for position in range(SEATS)]


@lru_cache(maxsize=1024)
def script(seed: int) -> tuple[tuple[int, str], ...]:
    """Every change of the game greedy bots play from this deal: (seat, action) each.

    Chosen ahead, so that the client's own thinking neither delays the actions nor
    competes with the servers; both servers get the same games (same seeds).
    """
    state = new_game(SEATS, seed, 0)
    bots = greedy_bots(seed)
    changes: list[tuple[int, str]] = []
    for _change in range(MAX_CHANGES):
        if state.is_over:
            return tuple(changes)
        seat = state.current
        action = bots[seat].choose(state, seat)
        changes.append((seat, action.notation()))
        apply_action(state, action, seat)
    raise CommandError(f"the game of seed {seed} did not end within {MAX_CHANGES} changes")


def project_table(number: int, bots: int = 0, played: int = 0) -> Table:
    """Open a game in the database, seat phones (and `bots` bots last), start it, and
    play its first `played` changes (the greedy script's, so only without bots).

    Deterministic per number. The cookies are the host's and each phone's sessions.
    """
    try:
        host_key = new_player_key()
        game = lobby.create_game(host_key)
        seed = SEED + number
        Game.objects.filter(pk=game.pk).update(seed=seed)
        keys = [new_player_key() for _ in range(SEATS - bots)]
        for position, key in enumerate(keys):
            seating.join_game(game.id, key, f"Player {position + 1}")
        for _bot in range(bots):
            lobby.add_bot(game.id, host_key, "greedy")
        lobby.start_game(game.id, host_key, first_player=0)
        dealt = Game.objects.values_list("version", flat=True).get(pk=game.id)
        if played and bots:
            raise ValueError("a game with bots is played by its bots, not by the script")
        for index, (seat, action) in enumerate(script(seed)[:played]):
            moves.play(game.id, keys[seat], action, dealt + index)
        version = Game.objects.values_list("version", flat=True).get(pk=game.id)
        cookies = []
        for key in [host_key, *keys]:
            store = SessionStore()
            store["player_key"] = key
            store.create()
            assert store.session_key is not None
            cookies.append(store.session_key)
        table = Table(game.code, cookies, seed, version)
        table.start = dealt  # the script's changes are counted from the deal
        return table
    finally:
        connection.close()  # dealt from many threads: leave no connection open


# A fraction of a game's changes, different for each game number and spread evenly
# over [0, 1) however many games there are (the golden ratio's low-discrepancy sequence).
GOLDEN = (math.sqrt(5) - 1) / 2


def project_table_in_play(number: int) -> Table:
    """A game already part-played, at a stage of its own: a server that has run for a
    while has games at every stage, and a game's later turns cost more than its first
    (more cards affordable, more ways to pay, fewer regions that every game shares).
    Spread evenly over a game's length, as many games end in a measurement as would in
    a server's steady state (one a second of 100 games of about 100 changes)."""
    stage = (number * GOLDEN) % 1.0
    return project_table(number, played=int(stage * len(script(SEED + number))))


def bare_table(number: int) -> Table:
    """The same game for the bare server, which keeps nothing but a version."""
    seed = SEED + number
    cookies = [secrets.token_hex(16) for _ in range(SEATS + 1)]
    return Table(f"bare{number}", cookies, seed, 0)


# ---------------------------------------------------------------- the client


@dataclass
class Target:
    """A server configuration under test: its processes and how to deal its games."""

    name: str
    servers: list[Server]
    deal: Callable[[int], Table]
    ping_every: float = 0.0  # seconds between heartbeats from every screen; 0: none
    # With several servers: False spreads each game's screens over them (a balancer that
    # knows nothing of games); True sends all of a game's screens to one (one that routes
    # by room code, as the README's proxy configuration does).
    by_game: bool = False
    # Waits on a game's TV, until `until`, for the server to have let go of the game's
    # closed phones; None: nothing to wait for.
    released: Callable[[MiniWebSocket, float], None] | None = None
    # Deals a game already part-played (None: as `deal`): the paced phase's first games.
    deal_in_play: Callable[[int], Table] | None = None
    numbers: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    lock: threading.Lock = field(default_factory=threading.Lock)
    ahead: deque[Table] = field(default_factory=deque)  # dealt before measuring (deal_ahead)

    def next_table(self, think: bool = True, in_play: bool = False) -> Table:
        """Deal the next game; every target deals the same games in the same order.

        `in_play`: a game already part-played, if the target deals such games.
        """
        with self.lock:
            if self.ahead and not in_play:
                return self.ahead.popleft()
            number = next(self.numbers)
        if think:
            script(SEED + number)  # thought out now, not while measuring
        if in_play and self.deal_in_play is not None:
            return self.deal_in_play(number)
        return self.deal(number)

    def deal_ahead(self, count: int) -> None:
        """Deal and think out `count` more games now, for the finished ones to be replaced
        with while measuring: a replacement then costs the client (and the database) next
        to nothing. Without it, on a machine whose cores the servers share with the client,
        thinking out a game (the greedy bots' whole game) took CPU from the servers while
        they were measured, and more of it the faster they played."""
        for _ in range(count):
            with self.lock:
                number = next(self.numbers)
            script(SEED + number)
            table = self.deal(number)
            with self.lock:
                self.ahead.append(table)

    def cpu(self) -> float:
        return sum(cpu_seconds(server.pid) for server in self.servers)

    def loop_cpu(self) -> float:
        """The servers' event-loop threads only (the rest is their database threads)."""
        return sum(main_thread_cpu_seconds(server.pid) for server in self.servers)

    def rss(self) -> int:
        return sum(rss_bytes(server.pid) for server in self.servers)


@dataclass
class Traffic:
    """What the screens received, per change."""

    changes: int = 0
    tv_bytes: int = 0
    tv_messages: int = 0
    phone_bytes: int = 0
    phone_messages: int = 0

    def add(self, other: Traffic) -> None:
        for name in ("changes", "tv_bytes", "tv_messages", "phone_bytes", "phone_messages"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


class Player:
    """The five screens of one game, played by one thread; a finished game is replaced."""

    def __init__(self, target: Target, slot: int, in_play: bool = False) -> None:
        self.target = target
        self.slot = slot  # spreads the screens over the target's servers
        self.table = target.next_table(in_play=in_play)
        self.screens: list[MiniWebSocket] = []
        self.latencies: list[float] = []
        # When each action ran, and when a finished game was replaced (its screens closed,
        # the next game's opened): to tell the actions that overlapped a replacement.
        self.spans: list[tuple[float, float]] = []
        self.replacing: list[tuple[float, float]] = []
        self.traffic = Traffic()
        self.replaced = 0
        self.error = ""
        self.pings = 0  # heartbeats sent in the measurement
        self.random = random.Random(slot)
        self.next_ping: list[float] = []  # when each screen sends its next heartbeat
        self.connect()

    def connect(self) -> None:
        self.screens = open_screens(self.target, self.table, self.slot)
        # Each page pings at a phase of its own: it opened at a moment of its own.
        now = clock()
        self.next_ping = [now + self.random.uniform(0, PING_EVERY) for _ in self.screens]
        # The TV hears of each phone arriving: let that land before the first timed action,
        # or a new game's arrivals count in the latency and the bytes of its first change.
        for ws in self.screens:
            ws.settle(clock() + WAIT)
        self.reset_traffic()

    def reset_traffic(self) -> None:
        for ws in self.screens:
            ws.messages = ws.received = 0

    def count_traffic(self) -> None:
        """Add what the screens received since the last reset; reset."""
        if not self.screens:  # a replacement game that could not connect (self.error says)
            return
        tv, *phones = self.screens
        self.traffic.tv_bytes += tv.received
        self.traffic.tv_messages += tv.messages
        self.traffic.phone_bytes += sum(ws.received for ws in phones)
        self.traffic.phone_messages += sum(ws.messages for ws in phones)
        self.reset_traffic()

    def close(self) -> None:
        for ws in self.screens:
            ws.close()
        self.screens = []

    def act(self) -> None:
        """Play one action from the phone whose turn it is; wait until every screen shows it."""
        table = self.table
        changes = script(table.seed)
        seat, action = changes[table.version - table.start]
        start = clock()
        self.screens[1 + seat].send_json({"action": action, "version": table.version})
        for ws in self.screens:
            ws.wait_version(table.version + 1, start + WAIT)
        end = clock()
        self.latencies.append(end - start)
        self.spans.append((start, end))
        self.traffic.changes += 1
        table.version += 1
        if table.version - table.start == len(changes):
            # Over: a fresh game, connected outside the timed part.
            self.count_traffic()
            self.close()
            self.table = self.target.next_table()
            self.replaced += 1
            self.connect()
            self.replacing.append((end, clock()))

    def ping(self, ping_every: float) -> float:
        """Send the heartbeat of every screen whose time has come (its answer carries no
        version: the next wait reads past it); return when the next one is due."""
        now = clock()
        for index, ws in enumerate(self.screens):
            if self.next_ping[index] <= now:
                ws.send_json({"ping": True})
                self.pings += 1
                # The page keeps its phase; one that fell behind (a long wait) skips.
                behind = math.floor((now - self.next_ping[index]) / ping_every) + 1
                self.next_ping[index] += behind * ping_every
        return min(self.next_ping, default=math.inf)

    def run(
        self,
        until: float,
        period: float | None,
        offset: float = 0.0,
        ping_every: float = 0.0,
        act: bool = True,
    ) -> None:
        """Act until `until`: back to back, or once every `period` seconds from `offset`;
        every screen sends a heartbeat every `ping_every` seconds (0: none). Without
        `act`, the screens only send heartbeats (their answers are read past later)."""
        due = clock() + offset
        if ping_every:  # silent since the last measurement: each page's next beat, no burst
            now = clock()
            self.next_ping = [
                beat + math.ceil((now - beat) / ping_every) * ping_every if beat < now else beat
                for beat in self.next_ping
            ]
        try:
            for _action in range(MAX_ACTIONS):
                next_ping = self.ping(ping_every) if ping_every else math.inf
                if not act:
                    if clock() >= until:
                        break
                    time.sleep(max(0.0, min(next_ping, until) - clock()))
                    continue
                if period is not None and clock() < due:
                    time.sleep(max(0.0, min(due, until, next_ping) - clock()))
                    if clock() < min(due, until):
                        continue  # a heartbeat came first
                if clock() >= until:
                    return
                if period is not None:
                    due = max(due + period, clock())
                self.act()
        except (Closed, OSError, AssertionError) as error:
            self.error = f"game {self.table.code}: {error}"
        finally:
            with contextlib.suppress(OSError):
                self.count_traffic()


@dataclass
class Phase:
    """The figures of one measurement."""

    actions: int
    elapsed: float
    cpu: float
    latencies: list[float]
    traffic: Traffic
    replaced: int
    errors: list[str]
    load: str
    # The latencies of the actions that overlapped no game's replacement (Player.replacing).
    calm_latencies: list[float] = field(default_factory=list)
    loop_cpu: float = 0.0  # of `cpu`, what the servers' event-loop threads used
    pings: int = 0  # heartbeats the screens sent
    # The p99 latency of each BUCKET seconds of the measurement (actions by their start).
    buckets: list[float] = field(default_factory=list)
    # In the two-worker part, what else took CPU meanwhile (seconds): PostgreSQL's server
    # processes for this database, the client (this process) and Redis; and how many of
    # the machine's cores were busy on average.
    database_cpu: float | None = None
    client_cpu: float | None = None
    redis_cpu: float | None = None
    busy_cores: float | None = None

    @property
    def rate(self) -> float:
        return self.actions / self.elapsed if self.elapsed else 0.0


def to_replace(games: int, seconds: float, period: float | None, last: Phase | None) -> int:
    """How many games a measurement may finish: half as many again as the phase's last
    round did, or before its first round a guess (a game lasts about GAME_LENGTH
    actions; a busy game plays about 1 / REPLACED of them a second here)."""
    if last is not None:
        return math.ceil(1.5 * last.replaced) + 1
    per_second = REPLACED if period is None else 1 / (period * GAME_LENGTH)
    return math.ceil(games * seconds * per_second) + 1


def add_players(
    target: Target, players: list[Player], count: int, in_play: bool = False
) -> list[str]:
    """Connect games until there are `count`, and play one untimed action in each new one.
    `in_play`: new games already part-played (Target.deal_in_play).

    In parallel: a slow server connects slowly. The untimed action also lets what the
    connections caused (seats shown as present) reach the screens before anything is
    counted. Returns why games could not join (they are left out).
    """

    def new_player(slot: int) -> Player | str:
        try:
            player = Player(target, slot, in_play)
        except (Closed, OSError) as error:
            return f"a game could not connect: {error}"
        try:
            player.act()
        except (Closed, OSError) as error:
            player.close()
            return f"game {player.table.code} could not play: {error}"
        return player

    with ThreadPoolExecutor(max_workers=8) as pool:
        joined = list(pool.map(new_player, range(len(players), count)))
    players.extend(p for p in joined if isinstance(p, Player))
    return [p for p in joined if isinstance(p, str)]


def measure(
    target: Target,
    players: list[Player],
    seconds: float,
    period: float | None = None,
    heartbeats: bool = True,
    act: bool = True,
) -> Phase:
    """Play (or, without `act`, only send heartbeats) for `seconds`; the figures.
    `heartbeats`: the screens send the target's heartbeats meanwhile."""
    for player in players:
        player.latencies.clear()
        player.spans.clear()
        player.replacing.clear()
        player.traffic = Traffic()
        player.replaced = 0
        player.pings = 0
        player.error = ""
        player.reset_traffic()
    offsets = [(period or 0.0) * index / len(players) for index in range(len(players))]
    ping_every = target.ping_every if heartbeats else 0.0
    cpu, loop_cpu, started = target.cpu(), target.loop_cpu(), clock()
    until = started + seconds
    threads = [
        threading.Thread(target=p.run, args=(until, period, offset, ping_every, act), daemon=True)
        for p, offset in zip(players, offsets, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + WAIT + 60)
    elapsed, cpu, loop_cpu = clock() - started, target.cpu() - cpu, target.loop_cpu() - loop_cpu
    traffic = Traffic()
    for player in players:
        traffic.add(player.traffic)
    latencies = [t for p in players for t in p.latencies]
    errors = [p.error for p in players if p.error]
    replaced = sum(p.replaced for p in players)
    phase = Phase(len(latencies), elapsed, cpu, latencies, traffic, replaced, errors, load())
    phase.loop_cpu = loop_cpu
    phase.pings = sum(p.pings for p in players)
    spans = [span for p in players for span in p.spans]
    phase.calm_latencies = away_from(spans, [span for p in players for span in p.replacing])
    phase.buckets = bucket_p99s(spans, started, until)
    return phase


def bucket_p99s(spans: list[tuple[float, float]], started: float, until: float) -> list[float]:
    """The p99 latency of the actions that started in each BUCKET seconds from `started`
    (a bucket without actions is left out)."""
    buckets: list[list[float]] = [[] for _ in range(max(1, math.ceil((until - started) / BUCKET)))]
    for start, end in spans:
        index = min(len(buckets) - 1, max(0, int((start - started) / BUCKET)))
        buckets[index].append(end - start)
    return [percentile(bucket, 0.99) for bucket in buckets if bucket]


def worst_to_median(values: Sequence[float]) -> float:
    """The largest value over the median one (0 for none): 1 when all are alike."""
    middle = percentile(values, 0.5)
    return max(values) / middle if values and middle else 0.0


def away_from(spans: list[tuple[float, float]], busy: list[tuple[float, float]]) -> list[float]:
    """The durations of the spans (actions) that overlap none of `busy` (replacements)."""
    return [
        end - start
        for start, end in spans
        if not any(start < b_end and b_start < end for b_start, b_end in busy)
    ]


def open_screens(target: Target, table: Table, slot: int) -> list[MiniWebSocket]:
    """Connect a game's TV and phones; return once each shows the game's current version."""
    servers, cookies = target.servers, table.cookies
    screens: list[MiniWebSocket] = []
    try:
        for index, cookie in enumerate(cookies):
            spot = slot if target.by_game else slot * len(cookies) + index
            port = servers[spot % len(servers)].port
            role = "table" if index == 0 else "seat"
            screens.append(MiniWebSocket(port, f"/ws/game/{table.code}/{role}/", cookie))
        for ws in screens:  # the first message is the whole current view
            ws.wait_version(table.version, clock() + WAIT)
    except BaseException:
        for ws in screens:
            ws.close()
        raise
    return screens


def memory_per_socket(target: Target, count: int) -> float:
    """The server's RSS growth per socket (bytes) over `count` idle ones, whole games of them."""
    tables = [target.next_table(think=False) for _ in range(math.ceil(count / (SEATS + 1)))]
    before = target.rss()
    games: list[list[MiniWebSocket]] = []
    try:
        for slot, table in enumerate(tables):
            games.append(open_screens(target, table, slot))
        grown = (target.rss() - before) / sum(len(screens) for screens in games)
    except BaseException:
        for ws in (ws for screens in games for ws in screens):
            ws.close()
        raise
    release(target, games)
    return grown


def release(target: Target, games: list[list[MiniWebSocket]]) -> None:
    """Close these games' screens, phones first, and wait on each TV until the server
    has let go of the phones, so that the next measurement does not start behind that
    work."""
    for screens in games:  # a game's TV comes first (open_screens)
        for phone in screens[1:]:
            phone.close()
    until = clock() + WAIT
    for tv, *_phones in games:
        if target.released is not None:
            target.released(tv, until)
        tv.close()


# A seat's name line on the TV, with its tags ("reconnecting" from the moment its
# phone's socket closes, "away" after the grace).
PLAYER_HEAD = re.compile(r'id="player-(\d)-head"[^>]*>(.*?)</header>', re.S)
LEFT = re.compile(r'class="tag (?:away|reconnecting)"')


def phones_shown_away(tv: MiniWebSocket, until: float) -> None:
    """Read a (project) game's TV until no seat shows its phone connected: the server has
    handled each of the game's phone sockets closing (game.storage.presence)."""
    away: dict[str, bool] = {}

    def all_away(message: str) -> bool:
        for seat, head in PLAYER_HEAD.findall(message):
            away[seat] = LEFT.search(head) is not None
        return len(away) == SEATS and all(away.values())

    tv.read_until(all_away, until, "every seat shown away")


# ---------------------------------------------------------------- the restart phase


class LiveScreen:
    """One page's socket, kept as static/js/app.js keeps it, in a thread of its own: the
    heartbeat every PING_EVERY seconds at the page's own phase (kept across reconnects,
    as the page's timer is); a close, or no message for SILENT_AFTER seconds while
    pinging, ends the socket, and a new one is opened after a backoff with jitter
    (RECONNECT_FIRST, then doubling from RECONNECT_BASE, at most RECONNECT_CAP). One
    socket at a time."""

    def __init__(
        self,
        game: LiveGame,
        port: int,
        path: str,
        cookie: str,
        ping_every: float,
        rng: random.Random,
    ) -> None:
        self.game, self.port, self.path, self.cookie = game, port, path, cookie
        self.ping_every = ping_every
        self.random = rng
        self.next_ping = clock() + rng.uniform(0, ping_every) if ping_every else math.inf
        self.version = -1  # the version the screen shows now
        self.opened: list[float] = []  # when each socket was opened (a TCP connection made)
        # Once set (the moment before the server was killed, a version): when a socket
        # opened after that moment first showed that version or a later one.
        self.watch: tuple[float, int] | None = None
        self.current_at: float | None = None
        self.ws: MiniWebSocket | None = None
        self.lock = threading.Lock()  # one writer at a time: heartbeats and actions
        self.failures = 0

    def send(self, message: Any) -> bool:
        with self.lock:
            if self.ws is None:
                return False
            try:
                self.ws.send_json(message)
            except (Closed, OSError):
                return False
            return True

    def backoff(self) -> float:
        if self.failures <= 1:
            return float(self.random.uniform(*RECONNECT_FIRST))
        wait = RECONNECT_BASE * 2 ** (self.failures - 1)
        return float(min(RECONNECT_CAP, wait) * self.random.uniform(0.5, 1.0))

    def run(self, stop: threading.Event) -> None:
        for _attempt in range(MAX_ACTIONS):
            if stop.is_set():
                return
            attempted = clock()
            try:
                ws = MiniWebSocket(self.port, self.path, self.cookie)
            except ConnectionRefusedError:  # the server is not listening: no socket
                ws = None
            except (Closed, OSError):
                self.opened.append(attempted)
                ws = None
            if ws is not None:
                self.opened.append(attempted)
                with self.lock:
                    self.ws = ws
                with contextlib.suppress(Closed, OSError):
                    self.listen(ws, attempted, stop)
                with self.lock:
                    self.ws = None
                with contextlib.suppress(OSError):
                    ws.sock.shutdown(socket.SHUT_RDWR)
                ws.close()
            self.failures += 1
            if stop.wait(self.backoff()):
                return

    def listen(self, ws: MiniWebSocket, opened: float, stop: threading.Event) -> None:
        heard = clock()
        for _message in range(MAX_ACTIONS):
            if stop.is_set():
                return
            now = clock()
            if now >= self.next_ping:
                self.send({"ping": True})
                behind = math.floor((now - self.next_ping) / self.ping_every) + 1
                self.next_ping += behind * self.ping_every
            if self.ping_every and now - heard > SILENT_AFTER:
                raise Closed("silent")
            wait = min(self.next_ping, heard + SILENT_AFTER, now + 1.0) - now
            if not ws.pending and not select.select([ws.sock], [], [], max(0.0, wait))[0]:
                continue
            message = ws.receive()
            heard = clock()
            match = VERSION.search(message)
            if match is not None:
                self.failures = 0  # a view arrived: the next close retries quickly again
                self.game.shown(self, int(match.group(1)), opened)

    def close(self) -> None:
        with self.lock:
            ws, self.ws = self.ws, None
        if ws is not None:
            with contextlib.suppress(OSError):
                ws.sock.shutdown(socket.SHUT_RDWR)
            ws.close()


class LiveGame:
    """A game's five LiveScreens; its own thread plays the greedy script once a second
    while `acting` is set and every screen shows the game's version (a player acts on
    what the screen shows), and counts the action done when all five show the next."""

    def __init__(
        self, target: Target, table: Table, slot: int, keeps_games: bool, rng: random.Random
    ) -> None:
        self.table = table
        self.changes = script(table.seed)
        self.keeps_games = keeps_games  # False: the server forgets versions when restarted
        self.condition = threading.Condition()
        port = target.servers[0].port
        self.screens = [
            LiveScreen(
                self,
                port,
                f"/ws/game/{table.code}/{'table' if index == 0 else 'seat'}/",
                cookie,
                target.ping_every,
                rng,
            )
            for index, cookie in enumerate(table.cookies)
        ]
        self.slot = slot
        self.spans: list[tuple[float, float]] = []  # each action done: (sent, shown)
        self.lost: list[float] = []  # when each action no screen showed within WAIT was sent
        self.busy = False

    def shown(self, screen: LiveScreen, version: int, opened: float) -> None:
        with self.condition:
            screen.version = version
            watch = screen.watch
            if (
                watch is not None
                and screen.current_at is None
                and opened > watch[0]
                and version >= watch[1]
            ):
                screen.current_at = clock()
            self.condition.notify_all()

    def run(self, offset: float, stop: threading.Event, acting: threading.Event) -> None:
        table = self.table
        due = clock() + offset
        for _tick in range(MAX_ACTIONS):
            if stop.wait(max(0.0, due - clock())):
                return
            due = max(due + 1.0, clock())
            with self.condition:
                if not acting.is_set():
                    continue
                shown = min(screen.version for screen in self.screens)
                if self.keeps_games and shown > table.version:
                    table.version = shown  # the server moved on (an action shown late)
                if self.keeps_games and shown < table.version:
                    continue  # a screen is behind (reconnecting): no one would act yet
                if table.version - table.start >= len(self.changes):
                    return  # over
                self.busy = True
            try:
                seat, action = self.changes[table.version - table.start]
                sent = clock()
                if not self.screens[1 + seat].send({"action": action, "version": table.version}):
                    continue
                goal = table.version + 1

                def everywhere(goal: int = goal) -> bool:
                    return all(screen.version >= goal for screen in self.screens)

                with self.condition:
                    done = self.condition.wait_for(everywhere, WAIT)
                if done:
                    self.spans.append((sent, clock()))
                    table.version = goal
                else:
                    self.lost.append(sent)
            finally:
                with self.condition:
                    self.busy = False


@dataclass
class Restart:
    """The figures of one restart: the server killed under connected, playing games."""

    games: int
    screens: int
    down: float  # from the kill until the server listened again
    current: float | None  # from listening again until every screen was current (None: not)
    not_current: int  # screens not current within RESTART_WAIT
    sockets_meanwhile: float  # sockets opened per screen from the kill until all were current
    after: float  # the length of the window after every screen was current
    reconnects: list[int]  # sockets each screen opened in that window
    latencies: list[float]  # actions sent in that window
    lost: int  # actions sent in that window that no screen showed within WAIT
    load: str
    # The p99 of each BUCKET seconds of that window: a step at the presence interval (every
    # screen reconnected at once, so refreshed in step) shows as some buckets far above.
    buckets: list[float] = field(default_factory=list)


def wait_for(condition: Callable[[], bool], until: float, every: float = 0.05) -> bool:
    """Check `condition` every `every` seconds until it holds (True) or `until` (False)."""
    while not condition():
        if clock() >= until:
            return False
        time.sleep(every)
    return True


def restart(
    target: Target,
    process: ServerProcess,
    games: int,
    after: float,
    keeps_games: bool,
    before: float = RESTART_BEFORE,
    down: float = RESTART_DOWN,
) -> Restart:
    """Connect `games` fresh games (every screen a LiveScreen with the target's heartbeat),
    play them once a second for `before` seconds, then kill the server (SIGKILL) between
    two actions and start it again on its port `down` seconds later; measure until every
    screen shows the game's version again, then `after` seconds more of play.
    `keeps_games`: the server keeps versions across a restart (else any view after it
    counts as current)."""
    rng = random.Random(SEED)
    tables = [target.next_table() for _ in range(games)]
    live = [LiveGame(target, table, slot, keeps_games, rng) for slot, table in enumerate(tables)]
    screens = [screen for game in live for screen in game.screens]
    stop, acting = threading.Event(), threading.Event()
    threads: list[threading.Thread] = []
    try:
        for screen in screens:  # pages opened one after another, not all in one instant
            thread = threading.Thread(target=screen.run, args=(stop,), daemon=True)
            threads.append(thread)
            thread.start()
            time.sleep(0.005)
        if not wait_for(
            lambda: all(s.version >= s.game.table.version for s in screens), clock() + 2 * WAIT
        ):
            behind = sum(1 for s in screens if s.version < s.game.table.version)
            raise Closed(f"{behind} of {len(screens)} screens did not connect")
        for game in live:
            thread = threading.Thread(
                target=game.run, args=(game.slot / games, stop, acting), daemon=True
            )
            threads.append(thread)
            thread.start()
        acting.set()
        time.sleep(before)
        acting.clear()  # between two actions: every game's version is known
        wait_for(lambda: not any(game.busy for game in live), clock() + WAIT + 5)
        mark = clock()
        for game in live:
            with game.condition:
                for screen in game.screens:
                    screen.watch = (mark, game.table.version if keeps_games else 0)
        process.kill()
        killed = clock()
        time.sleep(down)  # the screens meanwhile try again and again, as pages do
        target.servers = [process.start(poll=0.01)]
        listening = clock()
        wait_for(lambda: all(s.current_at is not None for s in screens), listening + RESTART_WAIT)
        current = [s.current_at for s in screens if s.current_at is not None]
        everyone = len(current) == len(screens)
        window = clock()
        acting.set()  # the evening goes on
        time.sleep(after)
        ended = clock()
        acting.clear()  # the actions under way are let finish: none counts as lost
        wait_for(lambda: not any(game.busy for game in live), clock() + WAIT + 5)
    finally:
        stop.set()
        acting.clear()
        for screen in screens:
            screen.close()
        for thread in threads:
            thread.join(timeout=WAIT)
    spans = [span for game in live for span in game.spans if window <= span[0] < ended]
    return Restart(
        games=games,
        screens=len(screens),
        down=listening - killed,
        current=max(current) - listening if everyone else None,
        not_current=len(screens) - len(current),
        sockets_meanwhile=sum(1 for s in screens for t in s.opened if killed <= t < window)
        / len(screens),
        after=ended - window,
        reconnects=[sum(1 for t in s.opened if window <= t < ended) for s in screens],
        latencies=[end - start for start, end in spans],
        lost=sum(1 for game in live for sent in game.lost if window <= sent < ended),
        load=load(),
        buckets=bucket_p99s(spans, window, ended),
    )


# ---------------------------------------------------------------- the flood phase

FLOOD_SOCKETS = 20  # one phone's sockets (its cookie)...
FLOOD_RATE = 50.0  # ...each sending this many messages a second: 1,000 a second from one phone
FLOOD_ROUND_TRIPS = 40  # the other game's TV heartbeats timed, quiet and then under the flood


@dataclass
class Flood:
    """Another game's TV, quiet and while one phone floods the server from many sockets."""

    quiet: list[float]  # the TV's heartbeat round trips (s) before the flood
    busy: list[float]  # and during it
    kept: int  # of the phone's sockets, those the server kept open to the end
    sent: int  # messages the phone's sockets sent
    answered: int  # and the replies they got
    closes: dict[int, int]  # the sockets the server closed, by close code (game.screens.wire)

    def closed(self) -> str:
        """The sockets the server closed, by reason: "17 replaced, 3 for flooding"."""
        reasons = {Close.REPLACED: "replaced", Close.FLOOD: "for flooding"}
        said = [
            f"{self.closes[code]} {reason}"
            for code, reason in reasons.items()
            if self.closes.get(code)
        ]
        said += [f"{n} with code {code}" for code, n in self.closes.items() if code not in reasons]
        return ", ".join(said) or "none"


def round_trips(tv: MiniWebSocket, count: int) -> list[float]:
    """Time `count` heartbeats of a TV, a tenth of a second apart (the page's own rate
    is one every PING_EVERY; this one stays within the TV's message rate)."""
    times = []
    for _ in range(count):
        start = clock()
        tv.settle(start + WAIT)
        times.append(clock() - start)
        time.sleep(0.1)
    return times


def flood(target: Target) -> Flood:
    """Time another game's TV quiet, then while one phone floods from FLOOD_SOCKETS sockets
    (in a process of its own: see loopback.flood)."""
    tv_table, phone_table = target.next_table(think=False), target.next_table(think=False)
    port = target.servers[0].port
    tv = MiniWebSocket(port, f"/ws/game/{tv_table.code}/table/", tv_table.cookies[0])
    spawn = multiprocessing.get_context("spawn")
    stop, out = spawn.Event(), spawn.Queue()
    flooder = spawn.Process(
        target=loopback_flood,
        args=(port, f"/ws/game/{phone_table.code}/seat/", phone_table.cookies[1]),
        kwargs={
            "version": phone_table.version,
            "sockets": FLOOD_SOCKETS,
            "rate": FLOOD_RATE,
            "stop": stop,
            "out": out,
        },
        daemon=True,
    )
    try:
        tv.wait_version(tv_table.version, clock() + WAIT)
        quiet = round_trips(tv, FLOOD_ROUND_TRIPS)
        flooder.start()
        time.sleep(2.0)  # the flood under way, its sockets open and their first bursts spent
        busy = round_trips(tv, FLOOD_ROUND_TRIPS)
        stop.set()
        sent, answered, kept, closes = out.get(timeout=WAIT)
    finally:
        stop.set()
        flooder.join(timeout=WAIT)
        if flooder.is_alive():
            flooder.kill()
        tv.close()
    return Flood(quiet=quiet, busy=busy, kept=kept, sent=sent, answered=answered, closes=closes)


RAW_FLOOD_SECONDS = 30.0  # the raw flood: one client writing unread frames this long...
RAW_FLOOD_SOCKETS = 2  # ...from this many sockets of one phone (each opened again if ended)


def raw_flood(target: Target, seconds: float) -> RawFloodRun:
    """Time another game's TV quiet, then while one phone writes {"sync": true} frames
    unpaced from RAW_FLOOD_SOCKETS sockets and reads nothing (loopback.measure_raw_flood)."""
    tv_table, phone_table = target.next_table(think=False), target.next_table(think=False)
    server = target.servers[0]
    tv = MiniWebSocket(server.port, f"/ws/game/{tv_table.code}/table/", tv_table.cookies[0])
    try:
        tv.wait_version(tv_table.version, clock() + WAIT)
        seat = (f"/ws/game/{phone_table.code}/seat/", phone_table.cookies[1])
        return measure_raw_flood(
            server.pid,
            server.port,
            tv,
            [seat],
            "sync",
            RAW_FLOOD_SOCKETS,
            seconds,
            quiet_trips=FLOOD_ROUND_TRIPS,
        )
    finally:
        tv.close()


# ---------------------------------------------------------------- the command


class Command(BaseCommand):
    help = "Benchmark the server against bare Channels fan-out over real websockets."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--seconds", type=float, default=10.0, help="time per measurement")
        parser.add_argument(
            "--paced-seconds",
            type=float,
            default=30.0,
            help="time of the paced measurement (--games acting once a second)",
        )
        parser.add_argument(
            "--games", type=int, default=100, help="games acting once a second each"
        )
        parser.add_argument(
            "--busy-games", type=int, default=10, help="games acting back to back (throughput)"
        )
        parser.add_argument(
            "--idle-sockets", type=int, default=200, help="extra sockets for memory per socket"
        )
        parser.add_argument(
            "--quick", action="store_true", help="a smoke test: tiny sizes, about a minute"
        )
        parser.add_argument(
            "--no-scale", action="store_true", help="skip the two-worker Redis + PostgreSQL run"
        )
        parser.add_argument(
            "--scale-only",
            action="store_true",
            help="only the two-worker Redis + PostgreSQL run",
        )
        parser.add_argument(
            "--ping-every",
            type=float,
            default=PING_EVERY,
            help='seconds between {"ping": true} heartbeats from every screen, as the page '
            f"sends them (default {PING_EVERY:g})",
        )
        parser.add_argument(
            "--no-heartbeats",
            action="store_true",
            help="screens send no heartbeat (for comparison with the default)",
        )
        parser.add_argument(
            "--restart-after",
            type=float,
            default=60.0,
            help="seconds of play measured after a restart, once every screen is current",
        )
        parser.add_argument(
            "--restart-down",
            type=float,
            default=RESTART_DOWN,
            help="seconds the killed server stays down before it is started again",
        )
        parser.add_argument("--no-restart", action="store_true", help="skip the restart phase")
        parser.add_argument("--no-flood", action="store_true", help="skip the flood phase")
        parser.add_argument(
            "--flood-only", action="store_true", help="only the flood phase (SQLite, one server)"
        )
        parser.add_argument(
            "--raw-flood-seconds",
            type=float,
            default=RAW_FLOOD_SECONDS,
            help="seconds of the flood phase's raw flood (frames written unread, unpaced)",
        )
        parser.add_argument(
            "--postgres-url",
            default=POSTGRES_URL,
            help="PostgreSQL server for the two-worker run (a throwaway database is made on it)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["quick"]:
            options.update(QUICK)
        if options["no_heartbeats"]:
            options["ping_every"] = 0.0
        if options["ping_every"] < 0 or options["restart_after"] <= 0:
            raise CommandError("--ping-every must be at least 0 and --restart-after above 0.")
        if options["restart_down"] < 0:
            raise CommandError("--restart-down must be at least 0.")
        if min(options["games"], options["busy_games"], options["idle_sockets"]) < 1:
            raise CommandError("--games, --busy-games and --idle-sockets must be at least 1.")
        if not min(options["seconds"], options["paced_seconds"]) > 0:
            raise CommandError("--seconds and --paced-seconds must be above 0.")
        if options["scale_only"] and options["no_scale"]:
            raise CommandError("--scale-only and --no-scale leave nothing to run.")
        part = os.environ.get(CHILD_ENV)
        if part == "sqlite":
            self.sqlite_part(options)
        elif part == "scale":
            self.scale_part(options)
        else:
            self.parent(options)

    def line(self, text: str) -> None:
        self.stdout.write(text)

    # ------------------------------------------------------------ parent: throwaway databases

    def parent(self, options: dict[str, Any]) -> None:
        self.line(f"Python {sys.version.split()[0]} ({platform.python_implementation()})")
        self.line(f"Platform {platform.platform()}, {platform.machine()}")
        usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
        self.line(f"Cores: {os.cpu_count()} ({usable} usable); load average {load()} (1/5/15 min)")
        self.line(
            f"Sizes: {options['seconds']:g} s a measurement ({options['paced_seconds']:g} s "
            f"paced); 1 game, {options['busy_games']} busy games, {options['games']} games at "
            f"1 action/s, {options['idle_sockets']} idle sockets (whole games); 5 screens a "
            "game (TV + 4 phones)"
        )
        with tempfile.TemporaryDirectory(prefix="splendor-bench-") as tmp:
            db_path = Path(tmp) / "bench.sqlite3"
            if not options["scale_only"]:
                self.run_child("sqlite", options, {"SPLENDOR_DB_PATH": str(db_path)}, Path(tmp))
            if options["no_scale"] or options["flood_only"]:
                why = "--no-scale" if options["no_scale"] else "--flood-only"
                self.line(f"Two workers: skipped ({why})")
                return
            missing = [
                name
                for name, port in (("PostgreSQL", 5432), ("Redis", 6379))
                if not listening(port)
            ]
            if missing:
                self.line(f"Two workers: skipped ({' and '.join(missing)} not on 127.0.0.1)")
                return
            with postgres_database(options["postgres_url"]) as url, redis_db() as redis:
                extra = {"DATABASE_URL": url, "REDIS_URL": redis}
                self.run_child("scale", options, extra, Path(tmp))

    def run_child(
        self, part: str, options: dict[str, Any], extra: dict[str, str], tmp: Path
    ) -> None:
        """Run one part in a child process on its own database; stop it if it overruns."""
        env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
        env.update(extra)
        env.update(
            {
                CHILD_ENV: part,
                "SPLENDOR_BENCH_WEB_TMP": str(tmp),
                # Shared with the servers, so the sessions the child makes are valid there;
                # also keeps anyone from writing a .secret_key.
                "SPLENDOR_SECRET_KEY": "bench-" + secrets.token_urlsafe(24),
                "SPLENDOR_DEBUG": "0",  # as a server should run: no query log, no debug pages
                "SPLENDOR_BOT_DELAY": "0",
                # The client acts as soon as the screens show a change: a phone may
                # send 30 actions a second, which the flood guard would slow down.
                "SPLENDOR_SOCKET_RATE": "1000",
                "DJANGO_SETTINGS_MODULE": os.environ.get(
                    "DJANGO_SETTINGS_MODULE", "splendor_site.settings"
                ),
                "PYTHONUNBUFFERED": "1",
            }
        )
        command = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), "bench_web"]
        for name in (
            "seconds",
            "paced_seconds",
            "games",
            "busy_games",
            "idle_sockets",
            "ping_every",
            "restart_after",
            "restart_down",
            "raw_flood_seconds",
        ):
            command.append(f"--{name.replace('_', '-')}={options[name]}")
        if options["no_restart"]:
            command.append("--no-restart")
        if options["no_flood"]:
            command.append("--no-flood")
        if options["flood_only"]:
            command.append("--flood-only")
        # Four measurements a server, two servers, connecting, start-up; then it is stopped.
        limit = (
            10 * options["seconds"]
            + 2 * options["paced_seconds"]
            + 6 * WAIT
            + 300
            + 3 * options["games"]
            # The paced games without heartbeats, the heartbeats alone and two restarts.
            + options["paced_seconds"]
            + 2 * options["seconds"]
            + 2 * (options["restart_after"] + options["restart_down"] + RESTART_BEFORE)
            + 2 * (RESTART_WAIT + 3 * WAIT + 60)
        )
        code = run_child(command, env, Path(settings.BASE_DIR), limit, self.line)
        if code != 0:
            self.stdout.flush()
            raise CommandError(f"the benchmark's {part} part failed (exit code {code}).")

    # ------------------------------------------------------------ child: SQLite, project vs bare

    def server_env(self) -> dict[str, str]:
        return {k: v for k, v in os.environ.items() if k != CHILD_ENV}

    def sqlite_part(self, options: dict[str, Any]) -> None:
        database = settings.DATABASES["default"]
        if database["ENGINE"] != "django.db.backends.sqlite3" or not str(
            database["NAME"]
        ).startswith(os.environ["SPLENDOR_BENCH_WEB_TMP"]):
            raise CommandError("Refusing to run: the database is not the throwaway file.")
        call_command("migrate", interactive=False, verbosity=0)
        layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
        cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        server_cpu = cpus[0] if len(cpus) >= 2 else None
        where = (
            f"each server pinned to CPU {server_cpu}, the client on the others"
            if server_cpu is not None
            else "servers and client share the CPUs"
        )
        self.line(
            f"Part 1: one Daphne process, throwaway SQLite, {layer}, "
            f"DEBUG {settings.DEBUG}; {where}"
        )
        tmp = Path(os.environ["SPLENDOR_BENCH_WEB_TMP"])
        logs = {name: tmp / f"{name}.log" for name in ("project", "bare")}
        with client_cpus(cpus, server_cpu), contextlib.ExitStack() as servers:
            targets = {}
            processes: dict[str, ServerProcess] = {}
            for name, app, deal, in_play, released in (
                ("project", PROJECT_APP, project_table, project_table_in_play, phones_shown_away),
                # The bare server's cost does not change with the stage of a game.
                ("bare", BARE_APP, bare_table, None, None),
            ):
                env = self.server_env()
                if name == "bare":
                    env.pop("DJANGO_SETTINGS_MODULE", None)
                processes[name] = process = servers.enter_context(
                    daphne_process(app, env, logs[name], Path(settings.BASE_DIR), server_cpu)
                )
                assert process.server is not None
                targets[name] = Target(
                    name,
                    [process.server],
                    deal,
                    options["ping_every"],
                    released=released,
                    deal_in_play=in_play,
                )
            try:
                if options["flood_only"]:
                    self.flood_target(targets["project"])
                    self.raw_flood_target(targets["project"], options["raw_flood_seconds"])
                    return
                results = self.measure_targets(targets, options)
                if not options["no_flood"]:
                    self.flood_target(targets["project"])
                    self.raw_flood_target(targets["project"], options["raw_flood_seconds"])
                restarts = {}
                if not options["no_restart"]:
                    for name, target in targets.items():
                        restarts[name] = self.restart_target(name, target, processes[name], options)
            except (Closed, OSError) as error:
                tails = "\n".join(f"{name}: {log_tail(log)}" for name, log in logs.items())
                raise CommandError(f"{error}\n{tails}") from None
            for name, log in logs.items():
                tail = log_tail(log)
                if results[name]["errors"] and tail:
                    self.line(f"{name} server log, without access lines:\n{tail}")
        self.print_table(results["project"], results["bare"])
        if restarts:
            self.print_restarts(restarts["project"], restarts["bare"], options["restart_after"])
        else:
            self.line("Restart: skipped (--no-restart)")

    def flood_target(self, target: Target) -> None:
        """The flood phase: the figure is the project's own, quiet against flooded."""
        result = flood(target)
        quiet, busy = percentile(result.quiet, 0.5), percentile(result.busy, 0.5)
        slower = ratio(busy, quiet, (ms(busy), ms(quiet)))
        self.line(
            f"flood: another game's TV heartbeat round trip, median {ms(quiet)} quiet, "
            f"{ms(busy)} while one phone floods from {FLOOD_SOCKETS} sockets at "
            f"{FLOOD_RATE:g} messages/s each "
            f"({slower}, target <= 2x; p90 {ms(percentile(result.quiet, 0.9))} "
            f"and {ms(percentile(result.busy, 0.9))}); the server kept {result.kept} of "
            f"the phone's sockets open (closed: {result.closed()}), and answered "
            f"{result.answered} of its {result.sent} messages"
        )

    def raw_flood_target(self, target: Target, seconds: float) -> None:
        """The flood phase's raw flood: the same TV quiet and while one client writes
        frames without reading (loopback.raw_flood), and the server's memory growth."""
        run = raw_flood(target, seconds)
        quiet, busy = percentile(run.quiet, 0.5), percentile(run.busy, 0.5)
        mb = 1024 * 1024
        self.line(
            f"raw flood: another game's TV heartbeat round trip, median {ms(quiet)} quiet, "
            f"{ms(busy)} while one client writes sync requests from {RAW_FLOOD_SOCKETS} "
            f"sockets for {seconds:g} s, unpaced and reading nothing "
            f"({ratio(busy, quiet, (ms(busy), ms(quiet)))}, target <= 2x); server memory "
            f"+{run.growth / mb:,.1f} MB (target <= 100 MB; {run.rss_before / mb:,.0f} MB "
            f"before), server CPU {run.cpu:.0%}; the client wrote {run.flood.written / mb:,.0f}"
            f" MB, the server ended {run.flood.ended} of its {run.flood.opened} sockets"
        )

    def restart_target(
        self, name: str, target: Target, process: ServerProcess, options: dict[str, Any]
    ) -> Restart:
        """The restart phase on one server (the project keeps its games in the database;
        the bare server forgets them, so any view after its restart counts as current)."""
        before = min(RESTART_BEFORE, options["restart_after"])
        result = restart(
            target,
            process,
            options["games"],
            options["restart_after"],
            name != "bare",
            before,
            options["restart_down"],
        )
        moved = [count for count in result.reconnects if count]
        current = (
            f"every screen current {result.current:.2f} s after that"
            if result.current is not None
            else f"{result.not_current} screens not current {RESTART_WAIT:g} s after that"
        )
        heartbeat = (
            f"heartbeats every {target.ping_every:g} s" if target.ping_every else "no heartbeats"
        )
        self.line(
            f"{name} restart: {result.games} games, {result.screens} screens at 1 action/s "
            f"with {heartbeat}; killed (SIGKILL) and listening again after {result.down:.2f} s; "
            f"{current} ({result.sockets_meanwhile:.2f} sockets opened per screen meanwhile); "
            f"in the {result.after:.0f} s after: {sum(result.reconnects)} new sockets from "
            f"{len(moved)} screens (most from one: {max(result.reconnects, default=0)}), "
            f"{len(result.latencies)} actions, p99 {ms(percentile(result.latencies, 0.99))}, "
            f"{result.lost} lost; load average {result.load}"
        )
        self.line(
            f"{name} restart p99 by {BUCKET:g} s after: "
            + ", ".join(ms(b) for b in result.buckets)
            + f" (worst / median {worst_to_median(result.buckets):.2f})"
        )
        return result

    def print_restarts(self, project: Restart, bare: Restart, after: float) -> None:
        """The restart figures beside the bare server's, as the table above."""

        def current(r: Restart) -> float:
            return r.current if r.current is not None else math.inf

        rows: list[tuple[str, float, float, Callable[[float], str], str]] = [
            ("restart: kill to listening again", project.down, bare.down, ms, ""),
            (
                "restart: listening to every screen current",
                current(project),
                current(bare),
                ms,
                "<= 10 s (500 screens)",
            ),
            (
                f"restart: reconnects per screen, {after:g} s after",
                sum(project.reconnects) / max(1, project.screens),
                sum(bare.reconnects) / max(1, bare.screens),
                lambda value: f"{value:.2f}",
                "0",
            ),
            (
                f"restart: latency p99, {after:g} s after",
                percentile(project.latencies, 0.99),
                percentile(bare.latencies, 0.99),
                ms,
                "",
            ),
        ]
        self.print_rows(rows)

    def print_rows(self, rows: list[tuple[str, float, float, Callable[[float], str], str]]) -> None:
        """Each figure beside the bare server's and their ratio (TOO_SMALL: see ratio)."""
        self.line(f"{'':44} {'project':>12} {'bare':>12} {'project/bare':>13}  target")
        for label, mine, theirs, show, target in rows:
            shown = (show(mine), show(theirs))
            self.line(
                f"{label:44} {shown[0]:>12} {shown[1]:>12} "
                f"{ratio(mine, theirs, shown):>13}  {target}"
            )

    def measure_targets(
        self, targets: dict[str, Target], options: dict[str, Any]
    ) -> dict[str, dict[str, Any]]:
        """Measure each server's memory, then each phase by turns (ROUNDS rounds).

        Both servers run throughout, pinned to the same CPU; the one not measured is
        idle. A slower spell of the machine then weighs on both, as in part 2."""
        players: dict[str, list[Player]] = {name: [] for name in targets}
        left_out: dict[str, list[str]] = {name: [] for name in targets}
        phases: dict[str, dict[str, Phase]] = {name: {} for name in targets}
        memory: dict[str, float] = {}
        try:
            for name, target in targets.items():
                left_out[name] += add_players(target, players[name], 1)
                if not players[name]:
                    raise CommandError(f"{name}: {left_out[name][0]}")
                # First, while the server has freed nothing it could reuse for new sockets.
                memory[name] = memory_per_socket(target, options["idle_sockets"])
                for player in players[name]:  # whatever the closing left queued is handled
                    for ws in player.screens:
                        ws.settle(clock() + WAIT)
            for label, games, period, seconds in (
                ("alone", 1, None, options["seconds"]),
                ("busy", options["busy_games"], None, options["seconds"]),
                ("paced", options["games"], 1.0, options["paced_seconds"]),
            ):
                for name, target in targets.items():
                    # The paced games join at every stage of a game, as on a server that
                    # has run for a while (the busy ones play whole games meanwhile).
                    left_out[name] += add_players(target, players[name], games, bool(period))
                rounds: dict[str, list[Phase]] = {name: [] for name in targets}
                # The paced games are also measured without heartbeats, by turns with them
                # in each round: what the heartbeats cost the server, in the same minute.
                pinging = any(target.ping_every for target in targets.values())
                quiet_too = bool(period) and pinging
                quiet: dict[str, list[Phase]] = {name: [] for name in targets}
                window = seconds / ROUNDS
                for _ in range(ROUNDS):
                    for heartbeats in (True, False) if quiet_too else (True,):
                        for name, target in targets.items():
                            kept = rounds if heartbeats else quiet
                            last = kept[name][-1] if kept[name] else None
                            wanted = to_replace(games, window, period, last)
                            target.deal_ahead(wanted - len(target.ahead))
                            kept[name].append(
                                measure(target, players[name][:games], window, period, heartbeats)
                            )
                for name in targets:
                    if quiet_too:
                        phases[name][f"{label} quiet"] = still = pooled(quiet[name])
                        shares = ", ".join(
                            f"{r.cpu / max(1e-9, r.elapsed):.0%}" for r in quiet[name]
                        )
                        self.line(
                            f"{name}, no heartbeats: the same games, {still.actions} actions "
                            f"measured in {ROUNDS} rounds by turns with the heartbeats' "
                            f"(server CPU by round {shares}), {len(still.errors)} games stopped"
                            + (f" ({still.errors[0]})" if still.errors else "")
                        )
                    phases[name][label] = phase = pooled(rounds[name])
                    pace = "once a second each" if period else "back to back"
                    if period and targets[name].deal_in_play is not None:
                        pace += ", joined at every stage of a game"
                    # The server's CPU in each round, as a share of one core: a figure
                    # that grows round by round would be the server's, not the machine's.
                    shares = ", ".join(f"{r.cpu / max(1e-9, r.elapsed):.0%}" for r in rounds[name])
                    if phase.pings:
                        pace += f", {phase.pings / max(1e-9, phase.elapsed):,.1f} heartbeats/s"
                    self.line(
                        f"{name}: {len(players[name][:games])} game(s) acting {pace}, "
                        f"{phase.actions} actions measured in {ROUNDS} rounds "
                        f"(server CPU by round {shares}), "
                        f"{len(phase.errors)} games stopped"
                        + (f" ({phase.errors[0]})" if phase.errors else "")
                    )
                    if period:
                        self.line(
                            f"{name} paced p99 by {BUCKET:g} s of each round: "
                            + ", ".join(ms(b) for b in phase.buckets)
                            + f" (worst / median {worst_to_median(phase.buckets):.2f})"
                        )
            costs = self.heartbeat_costs(targets, players, options)
        finally:
            for player in (p for group in players.values() for p in group):
                player.close()
        results = {}
        for name in targets:
            if left_out[name]:
                self.line(f"{name}: {len(left_out[name])} games left out: {left_out[name][0]}")
            errors = [e for phase in phases[name].values() for e in phase.errors]
            results[name] = {
                **phases[name],
                "memory": memory[name],
                "heartbeat": costs.get(name),
                "errors": errors + left_out[name],
            }
        return results

    def heartbeat_costs(
        self, targets: dict[str, Target], players: dict[str, list[Player]], options: dict[str, Any]
    ) -> dict[str, float]:
        """The server's CPU per heartbeat, with the paced games' screens connected and no
        game acting: a window with every screen silent, then one (of --seconds, at least
        a presence interval at the default) with every screen sending the page's
        heartbeat, both servers at once. Per ping: what the second window cost beyond the
        first, over the pings sent. Returns it by target (none without heartbeats)."""
        if not all(target.ping_every for target in targets.values()):
            self.line("Heartbeats alone: skipped (no heartbeats)")
            return {}
        games = options["games"]
        seconds = options["seconds"]
        idle = {name: (t.cpu(), clock()) for name, t in targets.items()}
        time.sleep(seconds / 2)
        idle_rate = {
            name: (t.cpu() - idle[name][0]) / (clock() - idle[name][1])
            for name, t in targets.items()
        }
        before = {name: (t.cpu(), clock()) for name, t in targets.items()}
        until = clock() + seconds
        threads = [
            threading.Thread(
                target=p.run, args=(until, None, 0.0, targets[name].ping_every, False), daemon=True
            )
            for name in targets
            for p in players[name][:games]
        ]
        for player in (p for name in targets for p in players[name][:games]):
            player.pings = 0
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=seconds + WAIT + 60)
        costs = {}
        for name, target in targets.items():
            elapsed = clock() - before[name][1]
            spent = target.cpu() - before[name][0]
            pings = sum(p.pings for p in players[name][:games])
            costs[name] = (spent - idle_rate[name] * elapsed) / max(1, pings)
            self.line(
                f"{name} heartbeats alone: {pings:,} pings from "
                f"{sum(len(p.screens) for p in players[name][:games])} screens in "
                f"{elapsed:.1f} s, server CPU {spent / elapsed:.1%} of a core "
                f"({idle_rate[name]:.1%} with every screen silent)"
            )
        return costs

    def print_table(self, project: dict[str, Any], bare: dict[str, Any]) -> None:
        rows: list[tuple[str, float, float, Callable[[float], str], str]] = []

        def row(
            label: str,
            key: Callable[[dict[str, Any]], float],
            show: Callable[[float], str],
            target: str = "",
        ) -> None:
            rows.append((label, key(project), key(bare), show, target))

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

        def per_change(phase: Phase, name: str, screens: int) -> float:
            return float(getattr(phase.traffic, name)) / max(1, phase.traffic.changes) / screens

        busy = "busy"
        row("1 game: latency p50", lambda r: percentile(r["alone"].latencies, 0.5), ms)
        row(
            "1 game: latency p99",
            lambda r: percentile(r["alone"].latencies, 0.99),
            ms,
            "<= 5x bare",
        )
        row("busy games: actions/s (wall)", lambda r: r[busy].rate, rate)
        row(
            "busy games: actions per server CPU-second",
            lambda r: r[busy].actions / r[busy].cpu if r[busy].cpu else 0.0,
            rate,
            ">= 120/s",
        )
        row(
            "busy games: server CPU per action",
            lambda r: r[busy].cpu / max(1, r[busy].actions),
            ms,
            "<= 8 ms",
        )
        row("paced games: sustained actions/s", lambda r: r["paced"].rate, rate, "= games/s")
        row(
            "paced games: latency p99",
            lambda r: percentile(r["paced"].latencies, 0.99),
            ms,
            "<= 150 ms, <= 3x bare",
        )
        # Without the actions that overlapped a finished game's replacement: how much of
        # the p99 is games ending and new ones connecting.
        row(
            "paced games: p99 away from replacements",
            lambda r: percentile(r["paced"].calm_latencies, 0.99),
            ms,
        )
        row(
            "paced games: server CPU, share of one core",
            lambda r: r["paced"].cpu / r["paced"].elapsed,
            share,
            "<= 70%",
        )
        # Of that, what the threads other than the event loop's used: the project's
        # writer runs in its database thread (the bare server has none at work).
        row(
            "paced games: of which outside the event loop",
            # Both totals are read from /proc in clock ticks a moment apart: on an idle
            # thread their difference can come out a tick below zero.
            lambda r: max(0.0, r["paced"].cpu - r["paced"].loop_cpu) / r["paced"].elapsed,
            share,
        )
        if "paced quiet" in project and "paced quiet" in bare:

            def cpu_share(phase: Phase) -> float:
                return phase.cpu / phase.elapsed if phase.elapsed else 0.0

            row(
                "paced games: server CPU without heartbeats",
                lambda r: cpu_share(r["paced quiet"]),
                share,
            )
            # What the heartbeats add, over what the server used with them.
            row(
                "paced games: heartbeat share of server CPU",
                lambda r: (
                    (cpu_share(r["paced"]) - cpu_share(r["paced quiet"]))
                    / max(1e-9, cpu_share(r["paced"]))
                ),
                share,
                "<= 10%",
            )
        # A periodic step (every screen's presence refreshed in step) makes some buckets'
        # p99 far above the typical one.
        row(
            f"paced games: worst / median {BUCKET:g} s p99",
            lambda r: worst_to_median(r["paced"].buckets),
            count,
            "no step at presence intervals",
        )
        if project.get("heartbeat") is not None and bare.get("heartbeat") is not None:
            row(
                "heartbeats alone: server CPU per ping",
                lambda r: r["heartbeat"],
                micro,
                "<= 0.1 ms",
            )
        row("bytes per change, TV", lambda r: per_change(r[busy], "tv_bytes", 1), kb, "<= 8 KB")
        row(
            "bytes per change, phone",
            lambda r: per_change(r[busy], "phone_bytes", SEATS),
            kb,
            "<= 6 KB",
        )
        row("messages per change, TV", lambda r: per_change(r[busy], "tv_messages", 1), count)
        row(
            "messages per change, phone",
            lambda r: per_change(r[busy], "phone_messages", SEATS),
            count,
        )
        row("server memory per socket", lambda r: r["memory"], kb, "<= 60 KB")

        self.print_rows(rows)
        for name, result in (("project", project), ("bare", bare)):
            alone, busy_phase, paced = result["alone"], result[busy], result["paced"]
            self.line(
                f"{name}: {alone.actions} + {busy_phase.actions} + {paced.actions} actions "
                f"measured; {busy_phase.replaced + paced.replaced} finished games replaced; "
                f"{len(result['errors'])} games stopped; load average after each: "
                f"{alone.load} | {busy_phase.load} | {paced.load}"
            )

    # ------------------------------------------------------------ child: two workers

    def scale_part(self, options: dict[str, Any]) -> None:
        database = settings.DATABASES["default"]
        postgres = database["ENGINE"] == "game.postgresql"
        if not postgres or not str(database["NAME"]).startswith("splendor_bench_"):
            raise CommandError("Refusing to run: the database is not the throwaway one.")
        call_command("migrate", interactive=False, verbosity=0)
        tmp = Path(os.environ["SPLENDOR_BENCH_WEB_TMP"])
        games = options["busy_games"]
        self.line(
            f"Part 2: the project on PostgreSQL + Redis, {games} busy games, nothing pinned; "
            "two workers with each game's screens spread over both (a balancer that knows "
            "nothing of games), then with each game's screens on one worker (routed by room "
            "code, as the README's proxy configuration does)"
        )
        # One worker and two take turns, so that a slower minute of this shared machine
        # weighs on all; the ratios are of the rates pooled over the rounds.
        kinds = {"one": (1, False), "spread": (2, False), "by game": (2, True)}
        phases: dict[str, list[Phase]] = {kind: [] for kind in kinds}
        for round_ in range(1, SCALE_ROUNDS + 1):
            for kind, (workers, by_game) in kinds.items():
                phase = self.scale_phase(workers, options, tmp, by_game)
                phases[kind].append(phase)
                name = "1 worker" if workers == 1 else f"2 workers, {kind}"
                self.line(
                    f"Round {round_}, {name}: "
                    f"{phase.rate:,.1f} actions/s, p99 {ms(percentile(phase.latencies, 0.99))}, "
                    f"server CPU {ms(phase.cpu / max(1, phase.actions))} an action"
                    f"{per_action(phase.database_cpu, phase.actions, ', PostgreSQL')}"
                    f"{per_action(phase.client_cpu, phase.actions, ', client')}"
                    f"{per_action(phase.redis_cpu, phase.actions, ', Redis')}"
                    f", {phase.busy_cores or 0:.2f} of {os.cpu_count()} cores busy; "
                    f"{len(phase.errors)} games stopped; load average {phase.load}"
                    + (f"; {phase.errors[0]}" if phase.errors else "")
                )
        alone = pooled(phases["one"])
        one = alone.rate
        # The target is for the configuration the README gives (each game on one worker);
        # a balancer that knows nothing of games makes two processes render what one did.
        notes = {
            "spread": "for comparison: no target, the README routes each game to one worker",
            "by game": "target >= 1.6x",
        }
        for kind in ("spread", "by game"):
            two = pooled(phases[kind]).rate
            rounds = ", ".join(
                f"{b.rate / a.rate:.2f}x" if a.rate else "-"
                for a, b in zip(phases["one"], phases[kind], strict=True)
            )
            ratio = f"{two / one:.2f}x" if one else "-"
            ceiling = two_worker_ceiling(alone, phases[kind])
            most = f"; at most {ceiling:.2f}x on these cores" if ceiling else ""
            self.line(
                f"Two workers ({kind}) / one worker: {ratio} ({one:,.1f} and {two:,.1f} "
                f"actions/s over {SCALE_ROUNDS} rounds; by round {rounds}{most}) ({notes[kind]})"
            )

    def scale_phase(
        self, workers: int, options: dict[str, Any], tmp: Path, by_game: bool = False
    ) -> Phase:
        """Start `workers` servers, connect the busy games across them, measure, stop."""
        with contextlib.ExitStack() as stack:
            servers = [
                stack.enter_context(
                    daphne(
                        PROJECT_APP,
                        self.server_env(),
                        tmp / f"worker{index}.log",
                        Path(settings.BASE_DIR),
                    )
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
                before = backends_cpu()
                client, redis, busy, started = time.process_time(), redis_cpu(), busy_cpu(), clock()
                phase = measure(target, players, options["seconds"])
                phase.database_cpu = database_cpu(before)
                phase.client_cpu = time.process_time() - client
                redis_now = redis_cpu()
                phase.redis_cpu = None if redis is None or redis_now is None else redis_now - redis
                phase.busy_cores = (busy_cpu() - busy) / max(1e-9, clock() - started)
                phase.errors += left_out
            except (Closed, OSError) as error:
                raise CommandError(f"{workers} workers: {error}") from None
            finally:
                for player in players:
                    player.close()
        return phase


# ---------------------------------------------------------------- helpers


def backends_cpu() -> dict[int, float]:
    """The CPU so far of each PostgreSQL server process (backend) of this database,
    but this process's own; empty where /proc cannot show them (another host)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
            " AND pid <> pg_backend_pid()"
        )
        pids = [pid for (pid,) in cursor.fetchall()]
    seen: dict[int, float] = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            seen[pid] = cpu_seconds(pid)
    return seen


def database_cpu(before: dict[int, float]) -> float | None:
    """PostgreSQL's CPU seconds for this database since `before` (backends_cpu)."""
    now = backends_cpu()
    if not now:
        return None
    return sum(seconds - before.get(pid, 0.0) for pid, seconds in now.items())


def redis_cpu() -> float | None:
    """Redis's CPU seconds so far (its INFO), or None without Redis."""
    import redis

    if not settings.REDIS_URL:
        return None
    client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=5)
    try:
        cpu: dict[str, Any] = client.info("cpu")  # type: ignore[assignment]  # sync client
    except redis.RedisError:
        return None
    finally:
        client.close()
    return float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])


def busy_cpu() -> float:
    """CPU seconds the machine's cores have been busy so far, all together (/proc/stat)."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    idle = fields[3] + fields[4]  # idle and iowait
    return (sum(fields) - idle) / os.sysconf("SC_CLK_TCK")


def two_worker_ceiling(one: Phase, two: Sequence[Phase]) -> float | None:
    """The most two workers could give over one at the CPU costs measured: every action
    costs the servers, PostgreSQL, the client and Redis their CPU per action, and the
    machine's cores are all there is; one worker is held to one core."""
    actions = sum(p.actions for p in two)
    parts = [[p.cpu, p.database_cpu, p.client_cpu, p.redis_cpu] for p in two]
    if not actions or not one.rate or any(x is None for row in parts for x in row):
        return None
    per_action = sum(x or 0.0 for row in parts for x in row) / actions
    return (os.cpu_count() or 1) / per_action / one.rate


def per_action(seconds: float | None, actions: int, label: str) -> str:
    return "" if seconds is None else f"{label} {ms(seconds / max(1, actions))}"


@contextlib.contextmanager
def client_cpus(cpus: list[int], server_cpu: int | None) -> Iterator[None]:
    """Keep this process (the client) off the servers' CPU while it runs."""
    if server_cpu is None:
        yield
        return
    os.sched_setaffinity(0, set(cpus) - {server_cpu})
    try:
        yield
    finally:
        os.sched_setaffinity(0, set(cpus))


ACCESS_LINE = re.compile(r"^\S+ - - \[")  # Daphne's access log: one line per connection


def log_tail(log: Path, lines: int = 20) -> str:
    """The end of a server's log without its access lines: errors and tracebacks."""
    kept = [line for line in log.read_text().splitlines() if not ACCESS_LINE.match(line)]
    return "\n".join(kept[-lines:])


def listening(port: int) -> bool:
    try:
        with socket.create_connection((LOOPBACK, port), timeout=1):
            return True
    except OSError:
        return False


@contextlib.contextmanager
def postgres_database(admin_url: str) -> Iterator[str]:
    """Create an empty PostgreSQL database, yield its URL, drop it afterwards."""
    import psycopg
    from psycopg import sql

    name = f"splendor_bench_{secrets.token_hex(4)}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield admin_url.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


@contextlib.contextmanager
def redis_db() -> Iterator[str]:
    """Yield the URL of a Redis database of the benchmark's own for the channel layer,
    claimed as the tests claim theirs (loopback.own_redis_db: never one in use, so a
    test run may go on beside it) and emptied afterwards."""
    try:
        with own_redis_db(f"bench_web pid {os.getpid()}") as db:
            yield db.url
    except NoFreeRedisDb as error:
        raise CommandError(str(error)) from None
