"""This process's open screens, and the one task that keeps their presence and versions.

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
from datetime import datetime, timedelta
from typing import Any, Protocol

from channels.db import database_sync_to_async
from django.conf import settings
from django.utils import timezone

from game.storage import presence, store

log = logging.getLogger(__name__)

# Seconds between ticks, drawn anew each time (settings: the connection's clock).
TICK = (0.8 * settings.SPLENDOR_LIVENESS_TICK, settings.SPLENDOR_LIVENESS_TICK)
# Seconds between version checks, drawn anew each time.
CHECK = (8.0 * settings.SPLENDOR_LIVENESS_TICK, 12.0 * settings.SPLENDOR_LIVENESS_TICK)


class Watched(Protocol):
    """What the task reads of a screen (game.web.consumers.GameConsumer)."""

    channel_name: str
    channel_layer: Any
    game_id: int | None
    seat_id: int | None
    version: int
    heard: float  # time.monotonic() of its last message
    written: float  # `heard` as last written to its presence row
    here: presence.Here
    here_told: presence.Here | None  # last presence sent it, until it shows one


_screens: dict[str, Watched] = {}  # channel name -> screen
_task: asyncio.Task[None] | None = None
statements: dict[str, int] = {}  # statements run, by kind (tests count them)


def watch(screen: Watched) -> None:
    """Keep this screen's presence and version from now on (it was just heard from)."""
    global _task
    _screens[screen.channel_name] = screen
    loop = asyncio.get_running_loop()
    if _task is None or _task.done() or _task.get_loop() is not loop:
        _task = loop.create_task(_run(), name="splendor-liveness")


def forget(screen: Watched) -> None:
    """The screen's socket closed: nothing more to keep for it."""
    _screens.pop(screen.channel_name, None)
    if not _screens and _task is not None and not _task.done():
        _task.cancel()  # started again with the next screen


def screens() -> list[Watched]:
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
    games: set[int] = set()
    for screen in watched:
        if screen.game_id is None:
            continue
        games.add(screen.game_id)
        if screen.seat_id is None:
            tables.add(screen.game_id)
        elif screen.heard > screen.written:
            heard.append((screen.channel_name, screen.heard))
            screen.written = screen.heard
    started = time.monotonic()
    found, versions = await database_sync_to_async(_work)(heard, tables, games if check else ())
    for screen in watched:
        game_id = screen.game_id
        if game_id is None or screen.channel_name not in _screens:
            continue  # closed meanwhile
        if screen.seat_id is None:
            shown = found.get(game_id, presence.NOBODY)
            if shown != screen.here and shown != screen.here_told:
                screen.here_told = shown
                await screen.channel_layer.send(screen.channel_name, presence_shown(shown, started))
        latest = versions.get(game_id)
        if latest is not None and 0 <= screen.version < latest:
            await screen.channel_layer.send(
                screen.channel_name, {"type": "screen.behind", "version": latest}
            )


def presence_shown(shown: presence.Here, read_at: float) -> dict[str, Any]:
    """The message telling a TV its game's presence, as read at `read_at` (monotonic)."""
    return {
        "type": "presence.shown",
        "connected": sorted(shown.connected),
        "reconnecting": sorted(shown.reconnecting),
        "read_at": read_at,
    }


def _work(
    heard: list[tuple[str, float]], tables: Iterable[int], games: Iterable[int]
) -> tuple[dict[int, presence.Here], dict[int, int]]:
    """A tick's database work, one statement per kind (in the database thread)."""
    wall, now = timezone.now(), time.monotonic()
    if heard:
        rows = [(channel, _wall(wall, now, at)) for channel, at in heard if channel in _screens]
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


def _wall(wall: datetime, now: float, at: float) -> datetime:
    return wall - timedelta(seconds=max(0.0, now - at))


def _count(kind: str, n: int = 1) -> None:
    statements[kind] = statements.get(kind, 0) + n
