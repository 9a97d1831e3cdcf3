"""Which seats (by Seat id) have a phone connected right now, in any server process.

One database row per open phone socket (game.models.Presence), refreshed by the
socket's heartbeat. A row not refreshed for `TTL` no longer counts: a server
process that died cannot leave a seat "present" (and its rejoin code hidden)
for long. Every process reads the same rows, so a TV on one process sees a phone
connected to another.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from functools import cache
from typing import Any

from django.db import connection
from django.utils import timezone

from game.models import Presence

# A socket refreshes its row every REFRESH seconds; a row older than TTL is a ghost.
REFRESH = 10.0
TTL = timedelta(seconds=30)


def due(refreshed: float) -> bool:
    """Whether a socket last refreshed at `refreshed` (time.monotonic()) should refresh
    at this heartbeat."""
    return time.monotonic() - refreshed >= REFRESH


@cache
def _statements(vendor: str) -> dict[str, str]:
    """Each statement in plain SQL, written once per vendor: a game's five screens run
    them as they connect and leave, and through the ORM each cost 0.2-0.7 ms."""
    quote = connection.ops.quote_name
    table = quote(Presence._meta.db_table)
    channel, game, seat, seen = (quote(c) for c in ("channel", "game_id", "seat_id", "seen_at"))
    return {
        "ghosts": f"DELETE FROM {table} WHERE {seen} < %s",
        # SQLite (3.24+) and PostgreSQL both write an upsert this way.
        "arrive": (
            f"INSERT INTO {table} ({channel}, {game}, {seat}, {seen}) VALUES (%s, %s, %s, %s)"
            f" ON CONFLICT ({channel}) DO UPDATE SET {game} = excluded.{game},"
            f" {seat} = excluded.{seat}, {seen} = excluded.{seen}"
        ),
        "refresh": f"UPDATE {table} SET {seen} = %s WHERE {channel} = %s",
        "leave": f"DELETE FROM {table} WHERE {channel} = %s",
        "connected": f"SELECT DISTINCT {seat} FROM {table} WHERE {game} = %s AND {seen} >= %s",
    }


def _run(name: str, params: list[Any]) -> list[tuple[Any, ...]]:
    """Run one statement; the rows it read (none for a write)."""
    with connection.cursor() as cursor:
        cursor.execute(_statements(connection.vendor)[name], params)
        return cursor.fetchall() if cursor.description else []


def _at(moment: datetime) -> Any:
    """A time as the seen_at column stores it (as the ORM would send it)."""
    return connection.ops.adapt_datetimefield_value(moment)


def arrive(game_id: int, seat_id: int, channel: str = "") -> None:
    """Count this socket (`channel`, its channel name) as the seat's phone."""
    now = timezone.now()
    _run("ghosts", [_at(now - TTL)])  # rows of dead processes
    _run("arrive", [channel or f"local-{game_id}-{seat_id}", game_id, seat_id, _at(now)])


def refresh(channel: str) -> None:
    """Mark the socket as still there (its heartbeat)."""
    _run("refresh", [_at(timezone.now()), channel])


def leave(channel: str) -> None:
    _run("leave", [channel])


def connected(game_id: int) -> frozenset[int]:
    """Return the ids of the seats with at least one open socket."""
    return frozenset(seat for (seat,) in _run("connected", [game_id, _at(timezone.now() - TTL)]))


def reset() -> None:
    """Forget everything (tests)."""
    Presence.objects.all().delete()
