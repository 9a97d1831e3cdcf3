"""Read what a screen sends over its websocket, whatever it sends.

The consumer never parses a message itself: it calls `read_message` and acts on
the resulting `Inbound` (only the page's heartbeat, one of the exact texts of
game.screens.wire.HEARTBEATS, is answered without it). Anything that is not a
well-formed message becomes kind "bad" with a translated problem for the player;
nothing here raises, for any text (any JSON shape, depth or number size), binary
frame or size.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Literal

from django.utils.translation import gettext as _

# A real message is under 300 bytes ({"action": "buy:17:wwy", "version": "12"} plus
# htmx's few HEADERS); anything above a few KB is refused unread.
MAX_MESSAGE_BYTES = 4096
# Daphne closes a socket (1009, "message too big") whose message or frame is longer
# than this before it is read whole (settings' DAPHNE_WEBSOCKET_MAX_MESSAGE_SIZE and
# _FRAME_SIZE; its own default is 1 MiB): room for a message a few times too long to be
# refused in words, and at most game.web.flow.QUEUE_HIGH of them waiting per socket.
# Not less: with 16 KiB, a client that offers permessage-deflate (the `websockets`
# package) got no answer at all from Autobahn 26.11 (tests/web/test_flood_close.py).
MAX_FRAME_BYTES = 64 * 1024
# Real messages nest two levels ({"HEADERS": {...}}); a few more do no harm, but
# thousands would exhaust the parser's recursion.
MAX_BRACKETS = 64
# Actions are short ASCII notations such as "buy:17:wwy" or "take:wug".
MAX_ACTION_LENGTH = 64
# Versions are move counts; a real game has a few hundred at most.
MAX_VERSION = 10**9

Kind = Literal["sync", "action", "ping", "hint", "uncover", "cover", "look", "bad"]
# A seat holds at most three reserved cards: a look names one of them by its place.
MAX_SLOT = 2


@dataclass(frozen=True, slots=True)
class Inbound:
    """One message from a screen, read and checked."""

    kind: Kind
    action: str = ""
    version: int | None = None
    problem: str = ""  # translated, for kind "bad" only
    seat: int = -1  # a seat's position, for "uncover" and "cover" (a shared phone's curtain)
    slot: int = -1  # kind "look": the place of the held card among the seat's reserves


def _bad() -> Inbound:
    return Inbound("bad", problem=_("That action could not be read."))


def too_long() -> Inbound:
    return Inbound("bad", problem=_("That message is too long."))


def too_fast() -> Inbound:
    """What a screen is told when its phone's rate (game.web.limits) says no."""
    return Inbound("bad", problem=_("Too many messages at once. Please wait a moment."))


def _version(value: Any) -> int | None:
    """Read a version: a non-negative integer, or a short string of its digits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value <= MAX_VERSION else None
    if isinstance(value, str) and 0 < len(value) <= 10 and value.isascii() and value.isdigit():
        return int(value)
    return None


def _action(value: Any) -> str | None:
    """Read an action notation: short printable ASCII, else None."""
    if not isinstance(value, str) or not 0 < len(value) <= MAX_ACTION_LENGTH:
        return None
    return value if value.isascii() and value.isprintable() else None


def _seat_message(kind: Literal["uncover", "cover"], value: Any) -> Inbound:
    """{"uncover": position} or {"cover": position}: a seat 0-3, else unreadable."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        return _bad()
    return Inbound(kind, seat=value)


def _size(text: str) -> int:
    """Bytes on the wire (a lone surrogate, impossible from a browser, counts too)."""
    return len(text.encode("utf-8", "surrogatepass"))


def _parse(text: str) -> Any:
    """Parse JSON, or return None for anything unreadable (NaN and Infinity included)."""
    if text.count("[") + text.count("{") > MAX_BRACKETS:
        return None
    try:
        return json.loads(text, parse_constant=lambda _name: math.nan)
    except (ValueError, RecursionError, TypeError):
        return None


def read_message(text_data: str | None, bytes_data: bytes | None = None) -> Inbound:
    """Turn one websocket frame into an Inbound; never raises."""
    if not isinstance(text_data, str) or bytes_data is not None:
        return _bad()  # binary frames: no screen of ours sends them
    if len(text_data) > MAX_MESSAGE_BYTES or _size(text_data) > MAX_MESSAGE_BYTES:
        return too_long()
    message = _parse(text_data)
    if not isinstance(message, dict):
        return _bad()
    if message.get("ping") is True:
        return Inbound("ping")
    if message.get("sync") is True:
        return Inbound("sync")
    if message.get("hint") is True:  # "Suggest a move", at the version the phone shows
        return Inbound("hint", version=_version(message.get("version")))
    for kind in ("uncover", "cover"):  # a shared phone's curtain: {"uncover": position}
        if kind in message:
            return _seat_message(kind, message[kind])
    if "look" in message:  # the TV holds a face-down card: {"look": slot, "version": v}
        slot = _version(message.get("look"))
        if slot is None or slot > MAX_SLOT:
            return _bad()
        return Inbound("look", version=_version(message.get("version")), slot=slot)
    action = _action(message.get("action"))
    version = _version(message.get("version"))
    if action is None or version is None:
        return _bad()
    return Inbound("action", action=action, version=version)
