"""The messages a change sends to the screens, one per audience.

The writer (game.writer.services) calls `publish` after each commit with what it
already holds: the table screens' group gets the room and the table's
projection; each seat's group (its phones) gets the room and only that seat's
projection. Rooms and projections are immutable objects, shared as they are by
the screens of this process and sent as JSON to other processes (game.web.layers),
so no screen reads the database to learn what changed and none ever holds a
GameState.
Presence changes travel on their own (`presence_changed`): they only touch the
seats' indicators on the TV.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import BaseChannelLayer, get_channel_layer

from game.engine import GameState
from game.engine.projection import TABLE, Viewer, views_for
from game.storage.readmodel import Room

logger = logging.getLogger(__name__)


def table_group(game_id: int) -> str:
    """The TV and spectator screens of a game."""
    return f"game-{game_id}"


def seat_group(game_id: int, seat_id: int) -> str:
    """The phone (or phones) holding one seat."""
    return f"game-{game_id}-seat-{seat_id}"


def messages(
    room: Room,
    holders: dict[int, str],
    state: GameState | None,
    gone: tuple[int, ...] = (),
    log: str = "",
) -> list[tuple[str, dict[str, Any]]]:
    """Build the messages of one change: one per audience, each view computed once.

    `holders` digests each seat's player key (a phone that no longer matches has
    lost its seat); `gone` are seats removed by this change; `log` the game's
    recent turns (game.storage.history.encode_recent), the same for every screen.
    """
    held = {seat.id: "" if seat.bot_plays else holders.get(seat.id, "") for seat in room.seats}
    viewers: list[Viewer] = [TABLE, *(s.position for s in room.seats if held[s.id])]
    views = views_for(state, viewers) if state is not None else {}
    sent: list[tuple[str, dict[str, Any]]] = [
        (
            table_group(room.id),
            {"type": "table.changed", "room": room, "view": views.get(TABLE), "log": log},
        )
    ]
    for seat in room.seats:
        holder = held[seat.id]
        view = views.get(seat.position) if holder else None
        sent.append(
            (
                seat_group(room.id, seat.id),
                {
                    "type": "seat.changed",
                    "room": room,
                    "view": view,
                    "log": log,
                    "holder": holder,
                    "position": seat.position,
                },
            )
        )
    for seat_id in gone:
        sent.append(
            (
                seat_group(room.id, seat_id),
                {
                    "type": "seat.changed",
                    "room": room,
                    "view": None,
                    "log": "",
                    "holder": "",
                    "position": -1,
                },
            )
        )
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
    """Send every screen of the game its part of this change (call after the commit).

    The writer hands the messages to the server's loop and goes on: waiting there
    for the sends cost a thread switch each way at every change.
    """
    layer = get_channel_layer()
    if layer is None:
        return
    sent = messages(room, holders, state, gone, log)
    with _loop_lock:
        loop = _loop
        if loop is not None and loop.is_running() and not loop.is_closed():
            loop.call_soon_threadsafe(_schedule, layer, sent)
            return
        # No socket has connected to this process yet (the first one waits for the
        # lock before it joins a group), so none here can miss this change; the
        # screens of other processes get it through Redis.
        async_to_sync(_send_all)(layer, sent)


def presence_changed(game_id: int) -> dict[str, Any]:
    """A phone came or went (its row written): table screens re-read presence
    (game.storage.presence). When and in which process it was sent: a screen of the
    same process skips the re-read if one it began later already showed the change
    (phones arriving together, as after a restart, cost a TV one read, not four)."""
    return {
        "type": "presence.changed",
        "game": game_id,
        "at": time.monotonic(),
        "pid": os.getpid(),
    }
