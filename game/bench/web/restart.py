"""The restart scenario: the server killed under connected, playing games."""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from game.bench.client import Closed, clock
from game.bench.loopback import ServerProcess
from game.bench.web.config import RESTART_BEFORE, RESTART_DOWN, RESTART_WAIT, SEED, WAIT
from game.bench.web.figures import bucket_p99s, load, percentile
from game.bench.web.live import LiveGame, LiveScreen
from game.bench.web.target import Target


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

    def latency(self, fraction: float) -> float:
        return percentile(self.latencies, fraction)

    def reconnects_per_screen(self) -> float:
        return sum(self.reconnects) / max(1, self.screens)

    def current_or_never(self) -> float:
        return self.current if self.current is not None else math.inf


@dataclass
class Moments:
    """When the restart's steps happened (clock())."""

    killed: float = 0.0
    listening: float = 0.0
    window: float = 0.0  # every screen current (or given up on): play measured from here
    ended: float = 0.0
    current: list[float] = field(default_factory=list)  # each screen current again at the window


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
    moments = Moments()
    try:
        _connect(screens, stop, threads)
        _play(live, stop, acting, threads)
        time.sleep(before)
        _pause(live, acting)
        _watch(live, keeps_games)
        _kill_and_start(target, process, down, moments)
        wait_for(
            lambda: all(s.current_at is not None for s in screens),
            moments.listening + RESTART_WAIT,
        )
        moments.current = [s.current_at for s in screens if s.current_at is not None]
        moments.window = clock()
        acting.set()  # the evening goes on
        time.sleep(after)
        moments.ended = clock()
        _pause(live, acting)  # the actions under way are let finish: none counts as lost
    finally:
        stop.set()
        acting.clear()
        for screen in screens:
            screen.close()
        for thread in threads:
            thread.join(timeout=WAIT)
    return _figures(live, screens, moments)


def _start(threads: list[threading.Thread], run: Callable[..., None], *args: object) -> None:
    thread = threading.Thread(target=run, args=args, daemon=True)
    threads.append(thread)
    thread.start()


def _connect(
    screens: list[LiveScreen], stop: threading.Event, threads: list[threading.Thread]
) -> None:
    """Open every screen (a thread each) and wait until each shows its game."""
    for screen in screens:  # pages opened one after another, not all in one instant
        _start(threads, screen.run, stop)
        time.sleep(0.005)
    if not wait_for(
        lambda: all(s.version >= s.game.table.version for s in screens), clock() + 2 * WAIT
    ):
        behind = sum(1 for s in screens if s.version < s.game.table.version)
        raise Closed(f"{behind} of {len(screens)} screens did not connect")


def _play(
    live: list[LiveGame],
    stop: threading.Event,
    acting: threading.Event,
    threads: list[threading.Thread],
) -> None:
    """Start each game's player, spread over a second, and let them act."""
    for game in live:
        _start(threads, game.run, game.slot / len(live), stop, acting)
    acting.set()


def _pause(live: list[LiveGame], acting: threading.Event) -> None:
    """Stop acting between two actions: every game's version is known after."""
    acting.clear()
    wait_for(lambda: not any(game.busy for game in live), clock() + WAIT + 5)


def _watch(live: list[LiveGame], keeps_games: bool) -> None:
    """From now, note when each screen's next socket shows its game's version."""
    mark = clock()
    for game in live:
        with game.condition:
            for screen in game.screens:
                screen.watch = (mark, game.table.version if keeps_games else 0)


def _kill_and_start(target: Target, process: ServerProcess, down: float, moments: Moments) -> None:
    process.kill()
    moments.killed = clock()
    time.sleep(down)  # the screens meanwhile try again and again, as pages do
    target.servers = [process.start(poll=0.01)]
    moments.listening = clock()


def _figures(live: list[LiveGame], screens: list[LiveScreen], moments: Moments) -> Restart:
    window, ended, current = moments.window, moments.ended, moments.current
    everyone = len(current) == len(screens)
    spans = [span for game in live for span in game.spans if window <= span[0] < ended]
    return Restart(
        games=len(live),
        screens=len(screens),
        down=moments.listening - moments.killed,
        current=max(current) - moments.listening if everyone else None,
        not_current=len(screens) - len(current),
        sockets_meanwhile=sum(1 for s in screens for t in s.opened if moments.killed <= t < window)
        / len(screens),
        after=ended - window,
        reconnects=[sum(1 for t in s.opened if window <= t < ended) for s in screens],
        latencies=[end - start for start, end in spans],
        lost=sum(1 for game in live for sent in game.lost if window <= sent < ended),
        load=load(),
        buckets=bucket_p99s(spans, window, ended),
    )
