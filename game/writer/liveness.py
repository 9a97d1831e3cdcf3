"""This process's open screens, and the one task that keeps their presence and versions.

What the TV does when a phone goes silent, from end to end: the phone's socket stops
noting `Watch.heard`, so its presence row is no longer refreshed and ages
(game.storage.presence: connected, then reconnecting, then away); the next tick that
reads the game's presence sends each TV of the game whose seats changed state a
notices.PresenceShown; the TV takes it (`Watch.take_presence`) unless what it shows
was read later, and its Screen (game.web.screen) draws the seats anew. A phone whose
socket closes leaves at once instead: its row goes, and its TVs, sent a
notices.PresenceChanged, read presence again.

A screen's socket only notes when it was last heard from (any message, a ping
too: one time.monotonic() store). One task per process, on the server's loop,
does the rest about once a second (`TICK`, jittered), whatever the number of
sockets, in one trip to the database thread:
- one statement records when each phone heard since the last tick was last
  heard (game.storage.presence.refresh); none if there are none;
- one statement reads the presence of the games whose TVs are here, and each TV
  whose seats changed state (connected, reconnecting, away) is told through the
  channel layer, so it handles that in order with its other messages;
- every `CHECK` seconds or so, one statement reads the versions of the games
  with a screen here, and a screen behind (a change's message lost between
  processes) is told to fetch its whole view; and one deletes old presence rows.
No timer per socket: sockets that all connected at once (after a restart) put no
work in step.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.utils import timezone

from game.storage import presence, store
from game.writer import notices

log = logging.getLogger(__name__)

# Seconds between ticks, drawn anew each time (settings: the connection's clock).
TICK = (0.8 * settings.SPLENDOR_LIVENESS_TICK, settings.SPLENDOR_LIVENESS_TICK)
# Seconds between version checks, drawn anew each time.
CHECK = (8.0 * settings.SPLENDOR_LIVENESS_TICK, 12.0 * settings.SPLENDOR_LIVENESS_TICK)


@dataclass(eq=False)
class Watch:
    """What the task keeps of one open screen: its game, when it was last heard from, and
    what it shows (the game's version; for a TV, which seats have a phone)."""

    channel: str  # the socket's channel name
    game_id: int
    seat_id: int | None  # None: a table screen; a shared phone's first seat
    also: tuple[int, ...] = ()  # a shared phone's other seats (each has a presence row)
    lost: frozenset[int] = frozenset()  # seats a shared phone no longer holds (rows left)
    heard: float = 0.0  # time.monotonic() of its last message
    written: float = 0.0  # `heard` as last written to its presence row
    version: int = -1  # the game's version the screen last showed
    here: presence.Here = presence.NOBODY  # a TV's seats with a phone, as shown
    here_at: float = 0.0  # time.monotonic() when `here` was read
    here_told: presence.Here | None = None  # last presence sent it, until it shows one

    @property
    def seats(self) -> tuple[int, ...]:
        """A phone's seats (ids): its first, then a shared phone's others."""
        return () if self.seat_id is None else (self.seat_id, *self.also)

    @property
    def all_rows(self) -> tuple[str, ...]:
        """Its presence rows' names: its own, and one per other seat of a shared phone."""
        return (self.channel, *(presence.row_of(self.channel, s) for s in self.also))

    @property
    def rows(self) -> tuple[str, ...]:
        """The rows it keeps fresh: those of the seats its phone still holds."""
        rows = self.all_rows
        if not self.lost:
            return rows
        return tuple(
            row for row, seat in zip(rows, self.seats, strict=True) if seat not in self.lost
        )

    @property
    def lost_rows(self) -> tuple[str, ...]:
        return tuple(
            row for row, seat in zip(self.all_rows, self.seats, strict=True) if seat in self.lost
        )

    def take_presence(self, here: presence.Here, read_at: float) -> bool:
        """A TV was told its game's presence as read at `read_at`: whether it is news
        to show (it changed, and was not read before what the TV shows)."""
        self.here_told = None
        if read_at < self.here_at:
            return False
        self.here_at = read_at
        return here != self.here

    def read_presence(self, here: presence.Here, read_at: float) -> None:
        """A TV read its game's presence whole, at `read_at`, to show it now."""
        self.here, self.here_at, self.here_told = here, read_at, None


_screens: dict[str, Watch] = {}  # channel name -> screen
_task: asyncio.Task[None] | None = None
statements: dict[str, int] = {}  # statements run, by kind (tests count them)


def watch(screen: Watch) -> None:
    """Keep this screen's presence and version from now on (it was just heard from)."""
    global _task
    _screens[screen.channel] = screen
    loop = asyncio.get_running_loop()
    if _task is None or _task.done() or _task.get_loop() is not loop:
        _task = loop.create_task(_run(), name="splendor-liveness")


def forget(screen: Watch) -> None:
    """The screen's socket closed: nothing more to keep for it."""
    _screens.pop(screen.channel, None)
    if not _screens and _task is not None and not _task.done():
        _task.cancel()  # started again with the next screen


def screens() -> list[Watch]:
    return list(_screens.values())


async def _run() -> None:
    check_at = time.monotonic() + random.uniform(0, CHECK[1])  # processes out of step
    while _screens:
        await asyncio.sleep(random.uniform(*TICK))
        now = time.monotonic()
        check = now >= check_at
        if check:
            check_at = now + random.uniform(*CHECK)
        try:
            await tick(check)
        except asyncio.CancelledError:
            raise
        except Exception:  # the database or the layer stumbled: try again next tick
            log.exception("Presence tick failed")


async def tick(check: bool = False) -> None:
    """One round: write, read and tell (see the module's docstring)."""
    watched = list(_screens.values())
    if not watched:
        return
    heard: list[tuple[str, float]] = []
    tables: set[int] = set()
    for screen in watched:
        if screen.seat_id is None:
            tables.add(screen.game_id)
        elif screen.heard > screen.written:
            if screen.also:  # a shared phone: a row per seat
                heard += [(row, screen.heard) for row in screen.rows]
            else:
                heard.append((screen.channel, screen.heard))
            screen.written = screen.heard
    games = {screen.game_id for screen in watched} if check else set()
    started = time.monotonic()
    found, versions = await database_sync_to_async(_work)(heard, tables, games)
    layer = get_channel_layer()
    if layer is None:
        return
    for screen in watched:
        if screen.channel not in _screens:
            continue  # closed meanwhile
        if screen.seat_id is None:
            shown = found.get(screen.game_id, presence.NOBODY)
            if shown != screen.here and shown != screen.here_told:
                screen.here_told = shown
                await notices.tell(layer, screen.channel, notices.presence_shown(shown, started))
        latest = versions.get(screen.game_id)
        if latest is not None and 0 <= screen.version < latest:
            await notices.tell(layer, screen.channel, notices.ScreenBehind(latest))


def _work(
    heard: list[tuple[str, float]], tables: Iterable[int], games: Iterable[int]
) -> tuple[dict[int, presence.Here], dict[int, int]]:
    """A tick's database work, one statement per kind (in the database thread)."""
    wall, now = timezone.now(), time.monotonic()
    if heard:
        rows = [(row, _wall(wall, now, at)) for row, at in heard if _open(row)]
        _count("refresh", presence.refresh(rows))
    found = presence.read(tables)
    if tables:
        _count("read")
    versions: dict[int, int] = {}
    if games:
        versions = store.versions(games)
        _count("versions")
        presence.forget_ghosts()
        _count("ghosts")
    return found, versions


def _open(row: str) -> bool:
    """Whether a presence row's socket is still open here (closed meanwhile: not written)."""
    return row in _screens or presence.socket_of(row) in _screens


def _wall(wall: datetime, now: float, at: float) -> datetime:
    return wall - timedelta(seconds=max(0.0, now - at))


def _count(kind: str, n: int = 1) -> None:
    statements[kind] = statements.get(kind, 0) + n
