"""The hot paths in plain SQL: the writer's (lock a game, read its seats, record a move,
save it), a connecting screen's (who it is, the game and its seats, unlocked), and the
moves a replay has not seen yet (game.storage.history).

Every action runs the writer's four statements; a game that starts or resumes on a
TV runs the screens' reads five times (the TV and four phones). Through the ORM,
building and compiling each query cost more than everything else the writer does
(about 0.5 ms a statement, against 0.05 ms for the statement itself; a screen's read
of a game 1.6 ms), so the SQL is written out once per database vendor and run through
a cursor. The rows still become model instances through `Model.from_db`, so
the rest of the code sees the same Game and Seat objects; values are converted and
adapted as the fields and the backend do it, which keeps SQLite and PostgreSQL (JSON
text, booleans, time zones) right. The timestamps are left out of the read (deferred:
loaded only if something reads them). tests/web/test_store.py compares every read and
write with the ORM's, on both.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from typing import Any, NamedTuple

from django.db import connection
from django.db.models import BooleanField, DateTimeField, Field, Model
from django.utils import timezone

from game.engine.vocabulary import SeatRole
from game.models import Game, Move, Seat, SnapshotField, dumps_snapshot


def _columns(model: type[Model]) -> tuple[Field[Any, Any], ...]:
    """The model's columns that the hot path reads (timestamps are deferred)."""
    return _shape(model).fields


class _Shape(NamedTuple):
    """How a model's rows read by the hot path become instances, worked out once."""

    fields: tuple[Field[Any, Any], ...]
    attnames: tuple[str, ...]
    # (position, field) of the columns whose database value is not the Python one.
    converted: tuple[tuple[int, Field[Any, Any]], ...]


@cache
def _shape(model: type[Model]) -> _Shape:
    fields = tuple(f for f in model._meta.concrete_fields if not isinstance(f, DateTimeField))
    converted = tuple(
        (i, f) for i, f in enumerate(fields) if isinstance(f, BooleanField | SnapshotField)
    )
    return _Shape(fields, tuple(f.attname for f in fields), converted)


def _select(model: type[Model], where: str, order: str = "") -> str:
    quote = connection.ops.quote_name
    names = ", ".join(quote(f.column) for f in _columns(model))
    sql = f"SELECT {names} FROM {quote(model._meta.db_table)} WHERE {quote(where)} = %s"
    return sql + (f" ORDER BY {quote(order)}" if order else "")


@cache
def _statements(vendor: str) -> dict[str, str]:
    """The hot path's SQL for one database vendor, written once."""
    quote = connection.ops.quote_name
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    move_columns = ("game_id", "index", "seat", "notation", "created_at")
    game, seat = quote(Game._meta.db_table), quote(Seat._meta.db_table)
    statements = {
        "game": _select(Game, "id") + lock,
        "game unlocked": _select(Game, "id"),
        "code": f"SELECT {quote('code')} FROM {game} WHERE {quote('id')} = %s",
        "version": (
            f"SELECT {quote('version')}, {quote('status')}, {quote('stand_in_after')}"
            f" FROM {game} WHERE {quote('id')} = %s"
        ),
        "versions": (
            f"SELECT {quote('id')}, {quote('version')} FROM {game}"
            f" WHERE {quote('id')} IN ({{games}})"
        ),
        # A connecting screen: its game by code, and the seat its player key holds.
        "who": (
            f"SELECT g.{quote('id')}, g.{quote('host_key')}, s.{quote('id')}, s.{quote('role')}"
            f" FROM {game} g LEFT JOIN {seat} s"
            f" ON s.{quote('game_id')} = g.{quote('id')} AND s.{quote('player_key')} = %s"
            f" WHERE g.{quote('code')} = %s ORDER BY s.{quote('position')}"
        ),
        "seats": _select(Seat, "game_id", "position"),
        "move": (
            f"INSERT INTO {quote(Move._meta.db_table)}"
            f" ({', '.join(quote(c) for c in move_columns)}) VALUES (%s, %s, %s, %s, %s)"
        ),
        "moves": (
            f"SELECT {quote('notation')} FROM {quote(Move._meta.db_table)}"
            f" WHERE {quote('game_id')} = %s AND {quote('index')} >= %s"
            f" AND {quote('index')} < %s ORDER BY {quote('index')}"
        ),
        "save": (
            f"UPDATE {quote(Game._meta.db_table)} SET {quote('state')} = %s,"
            f" {quote('recent')} = %s, {quote('version')} = %s, {quote('status')} = %s,"
            f" {quote('updated_at')} = %s WHERE {quote('id')} = %s"
        ),
    }
    if vendor == "postgresql":
        # One round trip each, where the statements above take two: the game with its
        # seats (as one JSON array, in seat order), and the move with the save.
        seats = ", ".join(f"s.{quote(f.column)}" for f in _columns(Seat))
        games = ", ".join(f"g.{quote(f.column)}" for f in _columns(Game))
        statements["game and seats unlocked"] = (
            f"SELECT {games}, (SELECT coalesce(json_agg(json_build_array({seats})"
            f" ORDER BY s.{quote('position')}), '[]'::json)"
            f" FROM {seat} s WHERE s.{quote('game_id')} = g.{quote('id')})"
            f" FROM {game} g WHERE g.{quote('id')} = %s"
        )
        statements["game and seats"] = statements["game and seats unlocked"] + " FOR UPDATE OF g"
        statements["move and save"] = f"WITH moved AS ({statements['move']}) {statements['save']}"
    return statements


def _python(field: Field[Any, Any], value: Any) -> Any:
    """A column's value as the ORM would give it (SQLite keeps booleans as 0/1, and
    the snapshot is JSON text)."""
    if value is None:
        return None
    if isinstance(field, BooleanField):
        return bool(value)
    return field.from_db_value(value, None, connection)  # type: ignore[attr-defined]


def _instance(model: type[Model], row: tuple[Any, ...]) -> Any:
    """The instance the ORM would read from this row (Model.from_db); the timestamps
    left out are deferred fields, loaded if something asks."""
    shape = _shape(model)
    values = list(row)
    for index, field in shape.converted:
        values[index] = _python(field, row[index])
    return model.from_db(connection.alias, shape.attnames, values)


def lock_game(game_id: int) -> tuple[Game, list[Seat]] | None:
    """The game row, locked until the transaction ends (see game.writer.games.lock), and its
    seats in seat order; None if there is no such game."""
    return _game_and_seats(game_id, locked=True)


def read_game(game_id: int) -> tuple[Game, list[Seat]] | None:
    """The game row and its seats in seat order, as lock_game reads them but without a
    lock (a screen that connects or resyncs); None if there is no such game."""
    return _game_and_seats(game_id, locked=False)


def _game_and_seats(game_id: int, locked: bool) -> tuple[Game, list[Seat]] | None:
    statements = _statements(connection.vendor)
    unlocked = "" if locked else " unlocked"
    with connection.cursor() as cursor:
        if "game and seats" in statements:
            cursor.execute(statements["game and seats" + unlocked], [game_id])
            row = cursor.fetchone()
            if row is None:
                return None
            *columns, seats = row
            if isinstance(seats, str | bytes):
                seats = json.loads(seats)
            return _instance(Game, tuple(columns)), [_instance(Seat, tuple(s)) for s in seats]
        cursor.execute(statements["game" + unlocked], [game_id])
        row = cursor.fetchone()
        if row is None:
            return None
        cursor.execute(statements["seats"], [game_id])
        return _instance(Game, row), [_instance(Seat, seat) for seat in cursor.fetchall()]


def game_code(game_id: int) -> str:
    """A game's room code ("" if there is no such game)."""
    with connection.cursor() as cursor:
        cursor.execute(_statements(connection.vendor)["code"], [game_id])
        row = cursor.fetchone()
        return str(row[0]) if row else ""


class Progress(NamedTuple):
    """Where a game is: what a phone that leaves and a stand-in check look at."""

    version: int
    status: str
    stand_in_after: int | None


def progress(game_id: int) -> Progress | None:
    """A game's version, status and stand-in wait; None if there is no such game."""
    with connection.cursor() as cursor:
        cursor.execute(_statements(connection.vendor)["version"], [game_id])
        row = cursor.fetchone()
    return Progress(*row) if row else None


def versions(game_ids: Iterable[int]) -> dict[int, int]:
    """The versions of these games, in one statement (a game gone is left out)."""
    games = sorted(set(game_ids))
    if not games:
        return {}
    sql = _statements(connection.vendor)["versions"].format(games=", ".join(["%s"] * len(games)))
    with connection.cursor() as cursor:
        cursor.execute(sql, games)
        return dict(cursor.fetchall())


class Who(NamedTuple):
    """A connecting screen's game and the seat its player key holds."""

    game_id: int
    host_key: str
    seat_id: int | None  # the seat this key plays from its phone, if any (its first)
    stood_in: bool  # a stand-in bot plays a seat of this key now (seating.take_seat_back)
    seat_ids: tuple[int, ...] = ()  # every seat this key plays (a shared phone's), in order


def who(code: str, player_key: str) -> Who | None:
    """Who a connecting screen is, in one statement; None if no game has this code."""
    with connection.cursor() as cursor:
        cursor.execute(_statements(connection.vendor)["who"], [player_key, code])
        rows = cursor.fetchall()
    if not rows:
        return None
    game_id, host_key = rows[0][0], rows[0][1]
    if not player_key:  # the LEFT JOIN matched no seat, or seats without a key
        return Who(game_id, host_key, None, False)
    humans = tuple(seat_id for _, _, seat_id, role in rows if role == SeatRole.HUMAN)
    stood_in = any(role == SeatRole.STAND_IN for _, _, _, role in rows)
    return Who(game_id, host_key, humans[0] if humans else None, stood_in, humans)


def save_move(game: Game, index: int, seat: int, notation: str) -> None:
    """Record move number `index` and save what it changed in the game: the snapshot,
    the log's last turns, the version and the status."""
    statements = _statements(connection.vendor)
    game.updated_at = timezone.now()
    # As the fields would send them: the time (naive UTC text on SQLite) once for both
    # rows, the snapshot as SnapshotField writes it.
    now = connection.ops.adapt_datetimefield_value(game.updated_at)
    move: list[Any] = [game.pk, index, seat, notation, now]
    save: list[Any] = [
        dumps_snapshot(game.state),
        game.recent,
        game.version,
        game.status,
        now,
        game.pk,
    ]
    with connection.cursor() as cursor:
        if "move and save" in statements:
            cursor.execute(statements["move and save"], move + save)
            return
        cursor.execute(statements["move"], move)
        cursor.execute(statements["save"], save)


def moves_between(game_id: int, start: int, stop: int) -> list[str]:
    """The notations of a game's moves numbered start to stop - 1, in order."""
    with connection.cursor() as cursor:
        cursor.execute(_statements(connection.vendor)["moves"], [game_id, start, stop])
        return [notation for (notation,) in cursor.fetchall()]
