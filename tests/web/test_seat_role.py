"""A seat's role: migrations 0010 and 0011 turn is_bot and bot_kind into role and
bot_level, and back."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from game.models import Seat

BEFORE = [("game", "0009_snapshot_as_text")]
AFTER = [("game", "0011_remove_seat_is_bot")]

# (name, is_bot, bot_kind) as stored before, and (role, bot_level) after.
OLD_SEATS = [
    ("Ada", False, ""),
    ("Bot 1", True, "hard"),
    ("Bot 2", True, "random"),
    ("Bob", True, "stand-in"),
]
OLD_BOTS = [("Bot 1", True, "greedy"), ("Bot 2", True, "")]
ROLES = [("human", ""), ("bot", "hard"), ("bot", "easy"), ("stand_in", "")]
OLD_BOT_ROLES = [("bot", "medium"), ("bot", "medium")]


def _migrate(target: list[tuple[str, str]]) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)
    return executor


def _store_old_seats(executor: MigrationExecutor) -> None:
    old = executor.loader.project_state(BEFORE).apps
    for code, seats in (("OLDONE", OLD_SEATS), ("OLDTWO", OLD_BOTS)):
        game = old.get_model("game", "Game").objects.create(code=code, host_key="h")
        for position, (name, is_bot, kind) in enumerate(seats):
            old.get_model("game", "Seat").objects.create(
                game=game, position=position, name=name, is_bot=is_bot, bot_kind=kind
            )


def _rows(executor: MigrationExecutor, state: list[tuple[str, str]], *fields: str) -> list:
    seat = executor.loader.project_state(state).apps.get_model("game", "Seat")
    ordered = seat.objects.filter(game__code__startswith="OLD").order_by("game__code", "position")
    return list(ordered.values_list(*fields))


@pytest.mark.django_db(transaction=True)
def test_the_migrations_give_each_seat_its_role_and_take_it_back() -> None:
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    executor = _migrate(BEFORE)
    try:
        _store_old_seats(executor)
        executor = _migrate(AFTER)
        assert _rows(executor, AFTER, "role", "bot_level") == ROLES + OLD_BOT_ROLES
        executor = _migrate(BEFORE)
        # Back: the flags again, an engine bot's name now the level it played at.
        assert _rows(executor, BEFORE, "is_bot", "bot_kind") == [
            (False, ""),
            (True, "hard"),
            (True, "easy"),
            (True, "stand-in"),
            (True, "medium"),
            (True, "medium"),
        ]
    finally:
        _migrate(latest)  # the later tables back, as the other tests expect them
    assert Seat.objects.filter(game__code__startswith="OLD").count() == 6
