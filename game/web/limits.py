"""Limits per phone, not only per socket: the bookkeeping, kept apart from the consumer.

A phone may open many sockets (tabs, reconnects after a blip, a hostile script with
its cookie). All sockets of one phone (its session's player key; a table screen
without a key is a phone of its own) in this process share:

- one message rate (a token bucket, SPLENDOR_SOCKET_RATE a second, twice that at once);
  a socket over it is answered at most once a second ("slow down"), the rest dropped,
  and one that sends FLOOD_DROPPED more before the next second is closed (Close.FLOOD
  of game.screens.wire: a script, not a page, and reading it on would take the
  server's time from every game);
- full views ({"sync": true}): the first at once, then at most one a second for the
  phone; a socket asking sooner gets one later (once, however often it asked);
- one hint search at a time;
- and, for a seat, at most SPLENDOR_SOCKETS_PER_SEAT open sockets: when one more
  opens, the oldest is closed (Close.REPLACED). The newest is the live one after a
  network blip, so a new socket is never refused.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Literal

from django.conf import settings

# Seconds between two full views of one phone (after its first), and between two
# "slow down" answers to one socket.
FULL_VIEW_EVERY = 1.0
TOLD_EVERY = 1.0
# Messages dropped between two "slow down" answers that close the socket. A page sends a
# heartbeat every 2 s and a tap now and then; only a script sends fifty too many a second.
FLOOD_DROPPED = 50

Verdict = Literal["ok", "tell", "drop", "close"]


class RateLimit:
    """A token bucket: `burst` messages at once, then `per_second` on average."""

    __slots__ = ("burst", "last", "per_second", "tokens")  # one per phone

    def __init__(self, per_second: float = 10.0, burst: int = 20) -> None:
        self.per_second = max(0.0, float(per_second))
        self.burst = max(1.0, float(burst))
        self.tokens = self.burst
        self.last: float | None = None

    def allow(self, now: float) -> bool:
        """Spend one token if there is one; `now` is time.monotonic()."""
        if self.last is not None:
            # A clock that jumps back refills nothing (and takes nothing away).
            elapsed = max(0.0, now - self.last)
            self.tokens = min(self.burst, self.tokens + elapsed * self.per_second)
        self.last = now if self.last is None else max(now, self.last)
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


@dataclass(eq=False)
class Phone:
    """What the sockets of one phone share."""

    key: str
    rate: RateLimit
    sockets: OrderedDict[str, Socket] = field(default_factory=OrderedDict)  # oldest first
    next_full: float = 0.0  # when the phone may have its next full view
    hinting: bool = False


@dataclass(eq=False)
class Socket:
    """One socket's share: its phone, and when it was last told to slow down."""

    phone: Phone
    channel: str
    seat: bool
    told: float = -TOLD_EVERY
    dropped: int = 0  # since it was last told
    full_pending: bool = False


_phones: dict[str, Phone] = {}


def _new_rate() -> RateLimit:
    rate = settings.SPLENDOR_SOCKET_RATE
    return RateLimit(per_second=rate, burst=max(1, int(2 * rate)))


def arrive(player_key: str, channel: str, seat: bool) -> tuple[Socket, list[str]]:
    """Count a new socket for its phone; return it and the channels to close (replaced):
    the phone's oldest seat sockets beyond SPLENDOR_SOCKETS_PER_SEAT."""
    key = player_key or f"socket:{channel}"
    phone = _phones.get(key)
    if phone is None:
        phone = _phones[key] = Phone(key, _new_rate())
    socket = Socket(phone, channel, seat)
    phone.sockets[channel] = socket
    most = max(1, int(settings.SPLENDOR_SOCKETS_PER_SEAT))
    seats = [s.channel for s in phone.sockets.values() if s.seat]
    return socket, seats[: max(0, len(seats) - most)] if seat else []


def leave(socket: Socket) -> None:
    """Forget a closed socket (and its phone with its last socket)."""
    phone = socket.phone
    phone.sockets.pop(socket.channel, None)
    if not phone.sockets and _phones.get(phone.key) is phone:
        del _phones[phone.key]


def allow(socket: Socket, now: float) -> Verdict:
    """May this socket's message be answered? Else tell it (at most once a second), drop
    it, or close the socket if it floods on."""
    if socket.phone.rate.allow(now):
        return "ok"
    if now - socket.told >= TOLD_EVERY:
        socket.told, socket.dropped = now, 0
        return "tell"
    socket.dropped += 1
    return "close" if socket.dropped >= FLOOD_DROPPED else "drop"


def full_view_wait(socket: Socket, now: float) -> float | None:
    """Seconds until this socket may have a full view: 0 now, None if one is already due
    later for it (asking again changes nothing). A delay is booked: the caller sends it
    then (and calls full_view_sent)."""
    if socket.full_pending:
        return None
    phone = socket.phone
    wait = max(0.0, phone.next_full - now)
    phone.next_full = max(now, phone.next_full) + FULL_VIEW_EVERY
    if wait > 0:
        socket.full_pending = True
    return wait


def full_view_sent(socket: Socket) -> None:
    socket.full_pending = False


def start_hint(socket: Socket) -> bool:
    """Claim the phone's one hint search; False while another of its sockets has it."""
    if socket.phone.hinting:
        return False
    socket.phone.hinting = True
    return True


def end_hint(socket: Socket) -> None:
    socket.phone.hinting = False


def phones() -> int:
    """How many phones this process counts (for tests)."""
    return len(_phones)
