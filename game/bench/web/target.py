"""A server under test, and how a game's screens connect to it and let go of it."""

from __future__ import annotations

import itertools
import re
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from game.bench.client import ScreenSocket, clock
from game.bench.loopback import Server, cpu_seconds, main_thread_cpu_seconds, rss_bytes
from game.bench.web.config import SEATS, SEED, WAIT
from game.bench.web.tables import Table, script


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
    released: Callable[[ScreenSocket, float], None] | None = None
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

    def port_of(self, slot: int, screen: int, screens: int) -> int:
        """The port a game's screen connects to: its game's server (by_game), or the
        screens of all games spread over the servers one by one."""
        spot = slot if self.by_game else slot * screens + screen
        return self.servers[spot % len(self.servers)].port


def screen_path(table: Table, screen: int) -> str:
    """A game's TV (screen 0) or a seat's phone (1 to SEATS): its socket's path."""
    return f"/ws/game/{table.code}/{'table' if screen == 0 else 'seat'}/"


def open_screens(target: Target, table: Table, slot: int) -> list[ScreenSocket]:
    """Connect a game's TV and phones; return once each shows the game's current version."""
    cookies = table.cookies
    screens: list[ScreenSocket] = []
    try:
        for index, cookie in enumerate(cookies):
            port = target.port_of(slot, index, len(cookies))
            screens.append(ScreenSocket(port, screen_path(table, index), cookie))
        for ws in screens:  # the first message is the whole current view
            ws.wait_version(table.version, clock() + WAIT)
    except BaseException:
        for ws in screens:
            ws.close()
        raise
    return screens


def release(target: Target, games: list[list[ScreenSocket]]) -> None:
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


def phones_shown_away(tv: ScreenSocket, until: float) -> None:
    """Read a (project) game's TV until no seat shows its phone connected: the server has
    handled each of the game's phone sockets closing (game.storage.presence)."""
    away: dict[str, bool] = {}

    def all_away(message: str) -> bool:
        for seat, head in PLAYER_HEAD.findall(message):
            away[seat] = LEFT.search(head) is not None
        return len(away) == SEATS and all(away.values())

    tv.read_until(all_away, until, "every seat shown away")
