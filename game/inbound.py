"""Read what a screen sends over its websocket, whatever it sends.

The consumer never parses a message itself: it calls `read_message` and acts on
the resulting `Inbound`. Anything that is not a well-formed message becomes
kind "bad" with a translated problem for the player; nothing here raises.
A `RateLimit` per socket keeps one screen from flooding the server.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from django.utils.translation import gettext as _

# A real message is under 200 bytes ({"action": "buy:17:wwy", "version": 12}).
MAX_MESSAGE_BYTES = 4096
# Versions are move counts; a real game has a few hundred at most.
MAX_VERSION = 10**9

Kind = Literal["sync", "action", "ping", "bad"]


@dataclass(frozen=True, slots=True)
class Inbound:
    """One message from a screen, read and checked."""

    kind: Kind
    action: str = ""
    version: int | None = None
    problem: str = ""  # translated, for kind "bad" only


def _bad() -> Inbound:
    return Inbound("bad", problem=_("That action could not be read."))


def _version(value: Any) -> int | None:
    """Read a version: a non-negative integer, or a short string of its digits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value <= MAX_VERSION else None
    if isinstance(value, str) and 0 < len(value) <= 10 and value.isascii() and value.isdigit():
        return int(value)
    return None


def read_message(text_data: str | None, bytes_data: bytes | None = None) -> Inbound:
    """Turn one websocket frame into an Inbound; never raises."""
    if text_data is None or bytes_data is not None:
        return _bad()
    if len(text_data) > MAX_MESSAGE_BYTES:
        return Inbound("bad", problem=_("That message is too long."))
    try:
        message = json.loads(text_data)
    except (ValueError, RecursionError):
        return _bad()
    if not isinstance(message, dict):
        return _bad()
    if message.get("ping") is True:
        return Inbound("ping")
    if message.get("sync") is True:
        return Inbound("sync")
    action = message.get("action")
    version = _version(message.get("version"))
    if not isinstance(action, str) or not action or len(action) > 64 or version is None:
        return _bad()
    return Inbound("action", action=action, version=version)


class RateLimit:
    """A token bucket: `burst` messages at once, then `per_second` on average."""

    def __init__(self, per_second: float = 10.0, burst: int = 20) -> None:
        self.per_second = per_second
        self.burst = float(burst)
        self.tokens = float(burst)
        self.last = 0.0

    def allow(self, now: float) -> bool:
        """Spend one token if there is one; `now` is time.monotonic()."""
        if self.last:
            self.tokens = min(self.burst, self.tokens + (now - self.last) * self.per_second)
        self.last = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True
