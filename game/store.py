"""The writer's hot path in plain SQL: lock a game, read its seats, record a move, save it;
and read the moves a replay has not seen yet (game.history).

Every action runs these four statements. Through the ORM, building and compiling
each query cost more than everything else the writer does (about 0.5 ms a
statement, against 0.05 ms for the statement itself), so the SQL is written out
once per database vendor and run through a cursor. The rows still become model
instances (`Model.from_db`), so the rest of the code sees the same Game and Seat
objects; values are converted and adapted by the fields themselves, which keeps
SQLite and PostgreSQL (JSON text, booleans, time zones) right. The timestamps are
left out of the read (deferred: loaded only if something reads them).
tests/web/test_store.py compares every read and write with the ORM's, on both.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from django.db import connection
from django.db.models import BooleanField, DateTimeField, Field, Model
from django.utils import timezone

from game.models import Game, Move, Seat, SnapshotField


def _columns(model: type[Model]) -> tuple[Field[Any, Any], ...]:
    """The model's columns that the hot path reads (timestamps are deferred)."""
    return tuple(
        f
        for f in model._meta.concrete_fields
        if not isinstance(f, DateTimeField)  # type: ignore[misc]
    )


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
    statements = {
        "game": _select(Game, "id") + lock,
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
        statements["game and seats"] = (
            f"SELECT {games}, (SELECT coalesce(json_agg(json_build_array({seats})"
            f" ORDER BY s.{quote('position')}), '[]'::json)"
            f" FROM {quote(Seat._meta.db_table)} s WHERE s.{quote('game_id')} = g.{quote('id')})"
            f" FROM {quote(Game._meta.db_table)} g WHERE g.{quote('id')} = %s FOR UPDATE OF g"
        )
        statements["move and save"] = f"WITH moved AS ({statements['move']}) {statements['save']}"
    return statements


def _python(field: Field[Any, Any], value: Any) -> Any:
    """A column's value as the ORM would give it (SQLite keeps booleans as 0/1, and
    the snapshot is JSON text)."""
    if value is None:
        return None
    if isinstance(field, BooleanField):
        return bool(value)
    if isinstance(field, SnapshotField):
        return field.from_db_value(value, None, connection)
    return value


def _instance(model: type[Model], row: tuple[Any, ...]) -> Any:
    fields = _columns(model)
    values = [_python(f, v) for f, v in zip(fields, row, strict=True)]
    return model.from_db(connection.alias, [f.attname for f in fields], values)


def lock_game(game_id: int) -> tuple[Game, list[Seat]] | None:
    """The game row, locked until the transaction ends (see services._lock), and its
    seats in seat order; None if there is no such game."""
    statements = _statements(connection.vendor)
    with connection.cursor() as cursor:
        if "game and seats" in statements:
            cursor.execute(statements["game and seats"], [game_id])
            row = cursor.fetchone()
            if row is None:
                return None
            *columns, seats = row
            if isinstance(seats, str | bytes):
                seats = json.loads(seats)
            return _instance(Game, tuple(columns)), [_instance(Seat, tuple(s)) for s in seats]
        cursor.execute(statements["game"], [game_id])
        row = cursor.fetchone()
        if row is None:
            return None
        cursor.execute(statements["seats"], [game_id])
        return _instance(Game, row), [_instance(Seat, seat) for seat in cursor.fetchall()]


def _adapt(model: type[Model], name: str, value: Any) -> Any:
    """A value as the field would send it (the snapshot as JSON text, time zones)."""
    field = model._meta.get_field(name)
    assert isinstance(field, Field)
    return field.get_db_prep_save(value, connection)


def save_move(game: Game, index: int, seat: int, notation: str) -> None:
    """Record move number `index` and save what it changed in the game: the snapshot,
    the log's last turns, the version and the status."""
    statements = _statements(connection.vendor)
    game.updated_at = timezone.now()
    move = [game.pk, index, seat, notation, _adapt(Move, "created_at", game.updated_at)]
    save = [
        _adapt(Game, "state", game.state),
        game.recent,
        game.version,
        game.status,
        _adapt(Game, "updated_at", game.updated_at),
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
