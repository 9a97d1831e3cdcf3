"""Measured games: five screens a game played by one thread, and the figures of a
measurement of many (`measure`)."""

from __future__ import annotations

import contextlib
import math
import random
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from game.bench.client import Closed, ScreenSocket, clock
from game.bench.web.config import GAME_LENGTH, MAX_ACTIONS, PING_EVERY, REPLACED, WAIT
from game.bench.web.figures import Span, away_from, bucket_p99s, load, percentile
from game.bench.web.tables import script
from game.bench.web.target import Target, open_screens


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

    def per_change(self, name: str, screens: int) -> float:
        """Bytes or messages (`name`, a field) each of `screens` screens received a change."""
        return float(getattr(self, name)) / max(1, self.changes) / screens


class Player:
    """The five screens of one game, played by one thread; a finished game is replaced."""

    def __init__(self, target: Target, slot: int, in_play: bool = False) -> None:
        self.target = target
        self.slot = slot  # spreads the screens over the target's servers
        self.table = target.next_table(in_play=in_play)
        self.screens: list[ScreenSocket] = []
        self.latencies: list[float] = []
        # When each action ran, and when a finished game was replaced (its screens closed,
        # the next game's opened): to tell the actions that overlapped a replacement.
        self.spans: list[Span] = []
        self.replacing: list[Span] = []
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

    def clear(self) -> None:
        """Forget the figures of the last measurement."""
        self.latencies.clear()
        self.spans.clear()
        self.replacing.clear()
        self.traffic = Traffic()
        self.replaced = 0
        self.pings = 0
        self.error = ""
        self.reset_traffic()

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
            self.replace(end)

    def replace(self, ended: float) -> None:
        """The game is over: a fresh one, connected outside the timed part."""
        self.count_traffic()
        self.close()
        self.table = self.target.next_table()
        self.replaced += 1
        self.connect()
        self.replacing.append((ended, clock()))

    def ping(self, ping_every: float) -> float:
        """Send the heartbeat of every screen whose time has come (its answer carries no
        version: the next wait reads past it); return when the next one is due."""
        now = clock()
        for index, ws in enumerate(self.screens):
            if self.next_ping[index] <= now:
                ws.heartbeat()
                self.pings += 1
                # The page keeps its phase; one that fell behind (a long wait) skips.
                behind = math.floor((now - self.next_ping[index]) / ping_every) + 1
                self.next_ping[index] += behind * ping_every
        return min(self.next_ping, default=math.inf)

    def resume_heartbeats(self, ping_every: float) -> None:
        """Silent since the last measurement: each page's next beat, no burst."""
        now = clock()
        self.next_ping = [
            beat + math.ceil((now - beat) / ping_every) * ping_every if beat < now else beat
            for beat in self.next_ping
        ]

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
        if ping_every:
            self.resume_heartbeats(ping_every)
        try:
            if act:
                self.play(until, period, due, ping_every)
            else:
                self.beat(until, ping_every)
        except (Closed, OSError, AssertionError) as error:
            self.error = f"game {self.table.code}: {error}"
        finally:
            with contextlib.suppress(OSError):
                self.count_traffic()

    def beat(self, until: float, ping_every: float) -> None:
        """Only send heartbeats until `until`."""
        for _beat in range(MAX_ACTIONS):
            next_ping = self.ping(ping_every) if ping_every else math.inf
            if clock() >= until:
                return
            time.sleep(max(0.0, min(next_ping, until) - clock()))

    def play(self, until: float, period: float | None, due: float, ping_every: float) -> None:
        """Act until `until`, back to back or once every `period` seconds from `due`,
        sending the heartbeats that come due meanwhile."""
        for _action in range(MAX_ACTIONS):
            next_ping = self.ping(ping_every) if ping_every else math.inf
            if period is not None and clock() < due:
                time.sleep(max(0.0, min(due, until, next_ping) - clock()))
                if clock() < min(due, until):
                    continue  # a heartbeat came first
            if clock() >= until:
                return
            if period is not None:
                due = max(due + period, clock())
            self.act()


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

    def latency(self, fraction: float) -> float:
        return percentile(self.latencies, fraction)

    def cpu_share(self) -> float:
        """The servers' CPU as a share of one core."""
        return self.cpu / self.elapsed if self.elapsed else 0.0

    def share_of_core(self) -> float:
        """The same, as the rounds print it (a measurement never takes no time)."""
        return self.cpu / max(1e-9, self.elapsed)

    def pings_per_second(self) -> float:
        return self.pings / max(1e-9, self.elapsed)


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


def run_all(players: Sequence[Player], args: Sequence[tuple[object, ...]], limit: float) -> None:
    """Run each player (Player.run with its arguments) in a thread of its own; wait for
    each at most `limit` seconds."""
    threads = [
        threading.Thread(target=player.run, args=arguments, daemon=True)
        for player, arguments in zip(players, args, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=limit)


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
        player.clear()
    offsets = [(period or 0.0) * index / len(players) for index in range(len(players))]
    ping_every = target.ping_every if heartbeats else 0.0
    cpu, loop_cpu, started = target.cpu(), target.loop_cpu(), clock()
    until = started + seconds
    run_all(
        players,
        [(until, period, offset, ping_every, act) for offset in offsets],
        seconds + WAIT + 60,
    )
    elapsed, cpu, loop_cpu = clock() - started, target.cpu() - cpu, target.loop_cpu() - loop_cpu
    phase = _phase(players, elapsed, cpu)
    phase.loop_cpu = loop_cpu
    spans = [span for p in players for span in p.spans]
    phase.calm_latencies = away_from(spans, [span for p in players for span in p.replacing])
    phase.buckets = bucket_p99s(spans, started, until)
    return phase


def _phase(players: list[Player], elapsed: float, cpu: float) -> Phase:
    """What the players measured, taken together."""
    traffic = Traffic()
    for player in players:
        traffic.add(player.traffic)
    latencies = [t for p in players for t in p.latencies]
    errors = [p.error for p in players if p.error]
    replaced = sum(p.replaced for p in players)
    phase = Phase(len(latencies), elapsed, cpu, latencies, traffic, replaced, errors, load())
    phase.pings = sum(p.pings for p in players)
    return phase
