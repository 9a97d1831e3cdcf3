"""Which seats have a phone, in any server process: connected, reconnecting or away.

One database row per phone socket (game.models.Presence) whose `seen_at` is when
that socket was last heard from. Each server process writes the rows of its own
phones, all of them in one statement a tick (game.writer.liveness), and every process
reads the same rows, so a TV on one process sees a phone connected to another.

A seat's state is its freshest row's:
- connected: heard within `LIVE` seconds (a phone is silent after `SILENT`
  seconds without any message; its row may lag by one tick of the writer);
- reconnecting: silent, or its socket closed, less than the grace ago
  (settings.SPLENDOR_PRESENCE_GRACE): the phone is probably on its way back,
  so the TV does not show its rejoin code yet and nobody may take its seat;
- away: nothing fresher (its phone left longer ago, its process died, or it
  never had a phone).
A socket that closes dates its row back to `LIVE` ago: its seat is reconnecting
at once and away a grace later, unless a new socket of that phone arrives.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from typing import Any

from django.conf import settings
from django.db import connection
from django.utils import timezone

from game.models import Presence

# A phone pings every heartbeat (2 s): one that sent nothing for SILENT seconds is in
# trouble, as its page says too (settings.SPLENDOR_SILENT_AFTER).
SILENT = float(settings.SPLENDOR_SILENT_AFTER)
# Each process writes its rows once a tick (game.writer.liveness.TICK, at most
# settings.SPLENDOR_LIVENESS_TICK apart), so a row may be one tick older than its phone's
# last message.
LIVE = SILENT + float(settings.SPLENDOR_LIVENESS_TICK)
# Rows of sockets long gone (closed, or of a process that died) are deleted this
# long after they stopped counting.
KEEP = 60.0
# Statements name at most this many sockets (far below SQLite's and PostgreSQL's limits).
CHUNK = 500


@dataclass(frozen=True, slots=True)
class Here:
    """A game's seats (by Seat id) with a phone connected, and those reconnecting."""

    connected: frozenset[int] = frozenset()
    reconnecting: frozenset[int] = frozenset()

    @property
    def present(self) -> frozenset[int]:
        """Seats that are not away."""
        return self.connected | self.reconnecting


NOBODY = Here()


def grace() -> float:
    """Seconds a seat stays "reconnecting" before it is away."""
    return max(0.0, float(settings.SPLENDOR_PRESENCE_GRACE))


@cache
def _statements(vendor: str) -> dict[str, str]:
    """Each fixed statement in plain SQL, written once per vendor (through the ORM
    each cost 0.2-0.7 ms)."""
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
        # Never later than it was: a socket silent for a while stays as silent.
        "leave": (
            f"UPDATE {table} SET {seen} = CASE WHEN {seen} > %s THEN %s ELSE {seen} END"
            f" WHERE {channel} = %s"
        ),
        "refresh": f"UPDATE {table} SET {seen} = CASE {channel} {{cases}} END"
        f" WHERE {channel} IN ({{names}})",
        "read": (
            f"SELECT {game}, {seat}, MAX(CASE WHEN {seen} >= %s THEN 1 ELSE 0 END)"
            f" FROM {table} WHERE {game} IN ({{games}}) AND {seen} >= %s GROUP BY {game}, {seat}"
        ),
    }


def _run(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Run one statement; the rows it read (none for a write)."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall() if cursor.description else []


def _sql(name: str) -> str:
    return _statements(connection.vendor)[name]


def _at(moment: datetime) -> Any:
    """A time as the seen_at column stores it (as the ORM would send it)."""
    return connection.ops.adapt_datetimefield_value(moment)


def _ago(seconds: float, now: datetime | None = None) -> Any:
    return _at((now or timezone.now()) - timedelta(seconds=seconds))


def row_of(channel: str, seat_id: int) -> str:
    """The presence row of a shared phone's socket for one of its later seats (its
    first seat's row is named for the socket alone)."""
    return f"{channel}#{seat_id}"


def socket_of(row: str) -> str:
    """The socket's channel name a presence row is named for."""
    return row.split("#", 1)[0]


def arrive(game_id: int, seat_id: int, channel: str = "") -> None:
    """Count this socket (`channel`, its channel name) as the seat's phone, heard now."""
    channel = channel or f"local-{game_id}-{seat_id}"
    _run(_sql("arrive"), [channel, game_id, seat_id, _at(timezone.now())])


def on_the_way(game_id: int, seat_ids: Iterable[int]) -> None:
    """These seats' phones are moving here from another game (a rematch): count each
    as reconnecting from now, as a socket that just closed, so the TV shows no rejoin
    code while the phones follow, and the seat is away a grace later if its phone
    never arrives. One row per seat, named for no socket (no tick refreshes it)."""
    back = _ago(LIVE + 0.001)
    for seat_id in seat_ids:
        _run(_sql("arrive"), [f"on-the-way-{seat_id}", game_id, seat_id, back])


def refresh(heard: Iterable[tuple[str, datetime]]) -> int:
    """Record when each socket (channel name, moment) was last heard from: one
    statement for them all (one per CHUNK sockets). Return how many statements ran."""
    rows = list(heard)
    statements = 0
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start : start + CHUNK]
        sql = _sql("refresh").format(
            cases=" ".join(["WHEN %s THEN %s"] * len(chunk)),
            names=", ".join(["%s"] * len(chunk)),
        )
        params: list[Any] = []
        for channel, moment in chunk:
            params += [channel, _at(moment)]
        params += [channel for channel, _moment in chunk]
        _run(sql, params)
        statements += 1
    return statements


def leave(channel: str, also: Iterable[str] = ()) -> None:
    """The socket closed: its seat is reconnecting from now (away after the grace), and
    so are the seats of its other rows (`also`: a shared phone's)."""
    back = _ago(LIVE + 0.001)
    for row in (channel, *also):
        _run(_sql("leave"), [back, back, row])


def forget_ghosts() -> None:
    """Delete the rows that stopped counting a while ago (closed sockets, dead processes)."""
    _run(_sql("ghosts"), [_ago(LIVE + grace() + KEEP)])


def read(game_ids: Iterable[int]) -> dict[int, Here]:
    """The presence of these games, in one statement (games with nobody are left out)."""
    games = sorted(set(game_ids))
    if not games:
        return {}
    now = timezone.now()
    sql = _sql("read").format(games=", ".join(["%s"] * len(games)))
    found: dict[int, tuple[set[int], set[int]]] = {}
    for game_id, seat_id, live in _run(sql, [_ago(LIVE, now), *games, _ago(LIVE + grace(), now)]):
        connected, reconnecting = found.setdefault(game_id, (set(), set()))
        (connected if live else reconnecting).add(seat_id)
    return {g: Here(frozenset(c), frozenset(r)) for g, (c, r) in found.items()}


def here(game_id: int) -> Here:
    """Which seats of a game have a phone connected, and which are reconnecting."""
    return read([game_id]).get(game_id, NOBODY)


def connected(game_id: int) -> frozenset[int]:
    """The ids of the seats whose phone is connected right now."""
    return here(game_id).connected


def present(game_id: int) -> frozenset[int]:
    """The ids of the seats that are not away (connected or reconnecting)."""
    return here(game_id).present


def reset() -> None:
    """Forget everything (tests)."""
    Presence.objects.all().delete()
