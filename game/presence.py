"""Which seats (by Seat id) have a phone connected right now, in any server process.

One database row per open phone socket (game.models.Presence), refreshed by the
socket's heartbeat. A row not refreshed for `TTL` no longer counts: a server
process that died cannot leave a seat "present" (and its rejoin code hidden)
for long. Every process reads the same rows, so a TV on one process sees a phone
connected to another.
"""

from __future__ import annotations

import time
from datetime import timedelta

from django.utils import timezone

from game.models import Presence

# A socket refreshes its row every REFRESH seconds; a row older than TTL is a ghost.
REFRESH = 10.0
TTL = timedelta(seconds=30)


def due(refreshed: float) -> bool:
    """Whether a socket last refreshed at `refreshed` (time.monotonic()) should refresh
    at this heartbeat."""
    return time.monotonic() - refreshed >= REFRESH


def arrive(game_id: int, seat_id: int, channel: str = "") -> None:
    """Count this socket (`channel`, its channel name) as the seat's phone."""
    now = timezone.now()
    Presence.objects.filter(seen_at__lt=now - TTL).delete()  # ghosts of dead processes
    Presence.objects.update_or_create(
        channel=channel or f"local-{game_id}-{seat_id}",
        defaults={"game_id": game_id, "seat_id": seat_id, "seen_at": now},
    )


def refresh(channel: str) -> None:
    """Mark the socket as still there (its heartbeat)."""
    Presence.objects.filter(channel=channel).update(seen_at=timezone.now())


def leave(channel: str) -> None:
    Presence.objects.filter(channel=channel).delete()


def connected(game_id: int) -> frozenset[int]:
    """Return the ids of the seats with at least one open socket."""
    recent = Presence.objects.filter(game_id=game_id, seen_at__gte=timezone.now() - TTL)
    return frozenset(recent.values_list("seat_id", flat=True))


def reset() -> None:
    """Forget everything (tests)."""
    Presence.objects.all().delete()
