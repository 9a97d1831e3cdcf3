"""The notices the writer and the liveness task send to the screens, and their one encoding.

Every message between them is one of the frozen dataclasses below (`Notice`):
- a change, one notice per audience (`publish`, after each commit, with what the
  writer already holds): the table screens' group gets the room and the table's
  projection (`TableChanged`); each seat's group (its phones) gets the room and
  only that seat's projection (`SeatChanged`). Rooms and projections are immutable
  objects, shared as they are by the screens of this process and sent as JSON to
  other processes (game.web.layers), so no screen reads the database to learn what
  changed and none ever holds a GameState;
- presence, on its own (`PresenceChanged`, `PresenceShown`): it only touches the
  seats' indicators on the TV;
- a screen behind its game (`ScreenBehind`), and a socket replaced by a newer one of
  its phone (`SocketReplaced`).

Channels routes a message by its "type" and carries plain dicts: `encode` is the one
place a notice becomes one, `decode` the one place it becomes a notice again.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, ClassVar, get_args

from asgiref.sync import async_to_sync
from channels.layers import BaseChannelLayer, get_channel_layer

from game.engine import GameState
from game.engine.projection import TABLE, GameView, Viewer, views_for
from game.storage import presence
from game.storage.readmodel import Room, played_on_tv

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class TableChanged:
    """A change, as the game's table screens show it."""

    TYPE: ClassVar[str] = "table.changed"

    room: Room
    view: GameView | None  # the table's projection; None before the game starts
    log: str  # the recent turns (game.storage.history.encode_recent)
    # The seat to play, when the TV plays it: its view in the open (its blind reserves
    # face down, none of them among its actions), which only the host screen shows.
    open: GameView | None = None


@dataclass(frozen=True, slots=True)
class SeatChanged:
    """A change, as one seat's phones show it."""

    TYPE: ClassVar[str] = "seat.changed"

    room: Room
    view: GameView | None  # this seat's projection; None if no phone holds the seat
    log: str
    holder: str  # digest of the seat's player key: a phone that no longer matches lost it
    position: int  # the seat's place at the table; -1 for a seat this change removed
    seat: int = 0  # the seat's id: a shared phone follows several seats' groups


@dataclass(frozen=True, slots=True)
class PresenceChanged:
    """A phone came or went (its row written): table screens re-read presence
    (game.storage.presence). When (time.monotonic()) and in which process it was sent:
    a screen of the same process skips the re-read if one it began later already
    showed the change (phones arriving together, as after a restart, cost a TV one
    read, not four)."""

    TYPE: ClassVar[str] = "presence.changed"

    game: int
    at: float
    pid: int


@dataclass(frozen=True, slots=True)
class PresenceShown:
    """A game's presence, as game.writer.liveness read it at `read_at` (monotonic) for
    every TV of the process."""

    TYPE: ClassVar[str] = "presence.shown"

    connected: tuple[int, ...]
    reconnecting: tuple[int, ...]
    read_at: float

    @property
    def here(self) -> presence.Here:
        return presence.Here(frozenset(self.connected), frozenset(self.reconnecting))


@dataclass(frozen=True, slots=True)
class ScreenBehind:
    """The game is at `version`, which the screen never heard of (a change's message
    lost between processes, found by game.writer.liveness)."""

    TYPE: ClassVar[str] = "screen.behind"

    version: int


@dataclass(frozen=True, slots=True)
class SocketReplaced:
    """A newer socket of this phone's seat took over (game.web.limits)."""

    TYPE: ClassVar[str] = "socket.replaced"


Notice = (
    TableChanged | SeatChanged | PresenceChanged | PresenceShown | ScreenBehind | SocketReplaced
)

# Each notice's type, as Channels routes it: the notice's class and its fields' names.
_BY_TYPE: dict[str, tuple[Callable[..., Notice], tuple[str, ...]]] = {
    kind.TYPE: (kind, tuple(field.name for field in fields(kind))) for kind in get_args(Notice)
}


def encode(notice: Notice) -> dict[str, Any]:
    """The channel layer's message for a notice: its type, then its fields as they are
    (a room and a projection stay objects: game.web.layers sends them to another process
    as JSON) and its sequences as lists."""
    message: dict[str, Any] = {"type": notice.TYPE}
    for field in fields(notice):
        value = getattr(notice, field.name)
        message[field.name] = list(value) if isinstance(value, tuple) else value
    return message


def decode(message: dict[str, Any]) -> Notice | None:
    """The notice a channel layer's message carries; None for any other message (the
    socket's own, from Channels)."""
    found = _BY_TYPE.get(message["type"])
    if found is None:
        return None
    kind, names = found
    values = (message[name] for name in names)
    return kind(*(tuple(value) if isinstance(value, list) else value for value in values))


def presence_changed(game_id: int) -> PresenceChanged:
    """A phone of this game came or went, now, in this process."""
    return PresenceChanged(game_id, time.monotonic(), os.getpid())


def presence_shown(here: presence.Here, read_at: float) -> PresenceShown:
    return PresenceShown(tuple(sorted(here.connected)), tuple(sorted(here.reconnecting)), read_at)


async def tell(layer: BaseChannelLayer, channel: str, notice: Notice) -> None:
    """Send one screen's socket a notice."""
    await layer.send(channel, encode(notice))


async def tell_group(layer: BaseChannelLayer, group: str, notice: Notice) -> None:
    """Send every screen of a group a notice."""
    await layer.group_send(group, encode(notice))


def table_group(game_id: int) -> str:
    """The TV and spectator screens of a game."""
    return f"game-{game_id}"


def seat_group(game_id: int, seat_id: int) -> str:
    """The phone (or phones) holding one seat (a shared phone follows each of its seats')."""
    return f"game-{game_id}-seat-{seat_id}"


def notices_for(
    room: Room,
    holders: dict[int, str],
    state: GameState | None,
    gone: tuple[int, ...] = (),
    log: str = "",
) -> list[tuple[str, TableChanged | SeatChanged]]:
    """The notices of one change, by group: one per audience, each view computed once.

    `holders` digests each seat's player key (a phone that no longer matches has
    lost its seat); `gone` are seats removed by this change; `log` the game's
    recent turns (game.storage.history.encode_recent), the same for every screen.
    """
    held = {seat.id: "" if seat.bot_plays else holders.get(seat.id, "") for seat in room.seats}
    viewers: list[Viewer] = [TABLE, *(s.position for s in room.seats if held[s.id])]
    views = views_for(state, viewers) if state is not None else {}
    open_view = played_on_tv(room, state)  # none for any other seat's turn
    sent: list[tuple[str, TableChanged | SeatChanged]] = [
        (table_group(room.id), TableChanged(room, views.get(TABLE), log, open_view))
    ]
    for seat in room.seats:
        holder = held[seat.id]
        view = views.get(seat.position) if holder else None
        sent.append(
            (
                seat_group(room.id, seat.id),
                SeatChanged(room, view, log, holder, seat.position, seat.id),
            )
        )
    for seat_id in gone:
        sent.append((seat_group(room.id, seat_id), SeatChanged(room, None, "", "", -1, seat_id)))
    return sent


async def _send_all(layer: BaseChannelLayer, sent: list[tuple[str, dict[str, Any]]]) -> None:
    many = getattr(layer, "group_send_many", None)  # Redis: all audiences in one round trip
    if many is not None:
        await many(sent)
        return
    for group, message in sent:
        await layer.group_send(group, message)


# The server's event loop: every writer (they all run in threads: requests, screens'
# database calls, bots' turns) sends through it, as the in-memory channel layer's
# queues belong to that loop and are not thread-safe.
_loop: asyncio.AbstractEventLoop | None = None
# Held while the loop is learned and while a change is sent before it is known, so
# that no screen joins a group while a thread sends from a loop of its own.
_loop_lock = threading.Lock()


def serve_from(loop: asyncio.AbstractEventLoop) -> None:
    """Remember the loop the sockets are served from (called as a socket connects,
    before it joins any group)."""
    global _loop
    if _loop is loop:
        return
    with _loop_lock:
        _loop = loop


# The loop's latest publication: the next one waits for it, so that every screen
# gets the changes in the order they were committed (sends to Redis may wait).
_last: tuple[asyncio.AbstractEventLoop, asyncio.Future[None]] | None = None


async def _send_after(
    previous: asyncio.Future[None] | None,
    layer: BaseChannelLayer,
    sent: list[tuple[str, dict[str, Any]]],
) -> None:
    if previous is not None and not previous.done():
        await asyncio.wait([previous])  # its failure is its own (logged there)
    await _send_all(layer, sent)


def _logged(task: asyncio.Future[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.error("A change could not be sent to the screens", exc_info=task.exception())


def _schedule(layer: BaseChannelLayer, sent: list[tuple[str, dict[str, Any]]]) -> None:
    """On the loop: send this change after the one before."""
    global _last
    loop = asyncio.get_running_loop()
    previous = _last[1] if _last is not None and _last[0] is loop else None
    task = asyncio.ensure_future(_send_after(previous, layer, sent))
    task.add_done_callback(_logged)
    _last = (loop, task)


def publish(
    room: Room,
    holders: dict[int, str],
    state: GameState | None,
    gone: tuple[int, ...] = (),
    log: str = "",
) -> None:
    """Send every screen of the game its notice of this change (call after the commit).

    The writer hands the messages to the server's loop and goes on: waiting there
    for the sends cost a thread switch each way at every change.
    """
    layer = get_channel_layer()
    if layer is None:
        return
    change = notices_for(room, holders, state, gone, log)
    sent = [(group, encode(notice)) for group, notice in change]
    with _loop_lock:
        loop = _loop
        if loop is not None and loop.is_running() and not loop.is_closed():
            loop.call_soon_threadsafe(_schedule, layer, sent)
            return
        # No socket has connected to this process yet (the first one waits for the
        # lock before it joins a group), so none here can miss this change; the
        # screens of other processes get it through Redis.
        async_to_sync(_send_all)(layer, sent)
