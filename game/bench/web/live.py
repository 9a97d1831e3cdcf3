"""Screens kept as the page keeps its socket (static/js/connection.js): the client model of
the restart scenario."""

from __future__ import annotations

import contextlib
import math
import random
import threading
from typing import Any

from game.bench.client import VERSION, Closed, ScreenSocket, clock
from game.bench.web.config import (
    MAX_ACTIONS,
    RECONNECT_BASE,
    RECONNECT_CAP,
    RECONNECT_FIRST,
    SILENT_AFTER,
    WAIT,
)
from game.bench.web.figures import Span
from game.bench.web.tables import Table, script
from game.bench.web.target import Target, screen_path


def backoff(attempt: int, rng: random.Random) -> float:
    """Seconds a page waits before its next socket after `attempt` failed ones in a row
    (backoff in static/js/connection.js): the first retry after a random wait in
    RECONNECT_FIRST, the next ones after RECONNECT_BASE times 2 to the attempt's number,
    at most RECONNECT_CAP, times a random 0.5-1 (the jitter keeps pages apart)."""
    if attempt <= 1:
        return float(rng.uniform(*RECONNECT_FIRST))
    wait = RECONNECT_BASE * 2 ** (attempt - 1)
    return float(min(RECONNECT_CAP, wait) * rng.uniform(0.5, 1.0))


class LiveScreen:
    """One page's socket, kept as static/js/connection.js keeps it, in a thread of its own: the
    heartbeat every PING_EVERY seconds at the page's own phase (kept across reconnects,
    as the page's timer is); a close, or no message for SILENT_AFTER seconds while
    pinging, ends the socket, and a new one is opened after a `backoff`. One socket at
    a time."""

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
        self.ws: ScreenSocket | None = None
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

    def run(self, stop: threading.Event) -> None:
        for _attempt in range(MAX_ACTIONS):
            if stop.is_set():
                return
            attempted = clock()
            ws = self.open(attempted)
            if ws is not None:
                self.keep(ws, attempted, stop)
            self.failures += 1
            if stop.wait(backoff(self.failures, self.random)):
                return

    def open(self, attempted: float) -> ScreenSocket | None:
        """A new socket, or None if the server refused it or is not listening (then no
        connection was made, and none counts as opened)."""
        try:
            ws = ScreenSocket(self.port, self.path, self.cookie)
        except ConnectionRefusedError:
            return None
        except (Closed, OSError):
            self.opened.append(attempted)
            return None
        self.opened.append(attempted)
        return ws

    def keep(self, ws: ScreenSocket, opened: float, stop: threading.Event) -> None:
        """Listen on the socket until it ends (or `stop`), then let it go."""
        with self.lock:
            self.ws = ws
        with contextlib.suppress(Closed, OSError):
            self.listen(ws, opened, stop)
        with self.lock:
            self.ws = None
        ws.abort()

    def listen(self, ws: ScreenSocket, opened: float, stop: threading.Event) -> None:
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
            if not ws.readable(wait):
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
            ws.abort()


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
            LiveScreen(self, port, screen_path(table, index), cookie, target.ping_every, rng)
            for index, cookie in enumerate(table.cookies)
        ]
        self.slot = slot
        self.spans: list[Span] = []  # each action done: (sent, shown)
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
        due = clock() + offset
        for _tick in range(MAX_ACTIONS):
            if stop.wait(max(0.0, due - clock())):
                return
            due = max(due + 1.0, clock())
            with self.condition:
                if not acting.is_set():
                    continue
                turn = self.next_turn()
                if turn is None:
                    return  # over
                if not turn:
                    continue
                self.busy = True
            try:
                self.act()
            finally:
                with self.condition:
                    self.busy = False

    def next_turn(self) -> bool | None:
        """Whether a player would act now (every screen shows the game's version); None
        once the game is over. The caller holds the condition."""
        table = self.table
        shown = min(screen.version for screen in self.screens)
        if self.keeps_games and shown > table.version:
            table.version = shown  # the server moved on (an action shown late)
        if self.keeps_games and shown < table.version:
            return False  # a screen is behind (reconnecting): no one would act yet
        if table.version - table.start >= len(self.changes):
            return None
        return True

    def act(self) -> None:
        """Send the next action from its seat's phone; wait until every screen shows it."""
        table = self.table
        seat, action = self.changes[table.version - table.start]
        sent = clock()
        if not self.screens[1 + seat].send({"action": action, "version": table.version}):
            return
        goal = table.version + 1

        def everywhere() -> bool:
            return all(screen.version >= goal for screen in self.screens)

        with self.condition:
            done = self.condition.wait_for(everywhere, WAIT)
        if done:
            self.spans.append((sent, clock()))
            table.version = goal
        else:
            self.lost.append(sent)
