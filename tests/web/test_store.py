"""game.store: the writer's plain SQL reads and writes give what the ORM gives.

The same comparison runs on PostgreSQL in tests/web/test_postgres.py.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import transaction
from django.db.models import Model
from django.utils import timezone

from game import services, store
from game.models import Game, Move, Seat
from tests.web.helpers import game, legal, play_as, started

pytestmark = pytest.mark.django_db


def loaded(instance: Model) -> dict[str, Any]:
    """The instance's loaded field values, by attribute name."""
    return {
        f.attname: getattr(instance, f.attname)
        for f in instance._meta.concrete_fields
        if f.attname not in instance.get_deferred_fields()
    }


def test_the_locked_game_has_the_orm_s_values_and_types() -> None:
    table = started(("Ada", "Bob", "Cy"), bots=1)
    Game.objects.filter(pk=table.game_id).update(stand_in_after=30, house_no_gold_small=True)
    with transaction.atomic():
        locked = store.lock_game(table.game_id)
    assert locked is not None
    fast, _seats = locked
    orm = game(table.game_id)
    values = loaded(fast)
    assert set(values) >= {"state", "version", "status", "house_no_gold_small", "next_game_id"}
    for name, value in values.items():
        assert value == getattr(orm, name), name
        assert type(value) is type(getattr(orm, name)), name
    # The timestamps are deferred: read on demand, still right.
    assert fast.created_at == orm.created_at


def test_a_missing_game_reads_as_none_and_an_action_on_it_is_refused() -> None:
    with transaction.atomic():
        assert store.lock_game(999_999) is None
    with pytest.raises(services.Refused, match="does not exist"):
        services.play(999_999, "anyone", "pass", 0)


def test_the_seats_are_the_orm_s_in_seat_order() -> None:
    table = started(("Ada", "Bob"), bots=2)
    with transaction.atomic():
        locked = store.lock_game(table.game_id)
    assert locked is not None
    _game, fast = locked
    orm = list(Seat.objects.filter(game_id=table.game_id).order_by("position"))
    assert [loaded(s) for s in fast] == [loaded(s) for s in orm]
    assert [type(s.is_bot) for s in fast] == [bool] * 4
    assert [s.position for s in fast] == [0, 1, 2, 3]


def test_a_move_is_recorded_and_saved_as_the_orm_reads_it_back() -> None:
    table = started(("Ada", "Bob"))
    before = game(table.game_id)
    notation = legal(table.game_id)[0]
    version = play_as(table, notation)
    after = game(table.game_id)
    assert version == after.version == before.version + 1
    assert after.state == services.replay_game(after).to_dict()
    assert after.updated_at > before.updated_at
    move = Move.objects.get(game_id=table.game_id, index=before.version)
    assert (move.seat, move.notation) == (0, notation)
    assert abs(move.created_at - timezone.now()) < timedelta(minutes=1)
    assert move.created_at.tzinfo is not None


def test_the_moves_between_two_numbers_are_the_orm_s_in_order() -> None:
    table = started(("Ada", "Bob"))
    for _ in range(5):
        play_as(table, legal(table.game_id)[0])
    orm = list(
        Move.objects.filter(game_id=table.game_id)
        .order_by("index")
        .values_list("notation", flat=True)
    )
    assert len(orm) == 5
    assert store.moves_between(table.game_id, 0, 5) == orm
    assert store.moves_between(table.game_id, 2, 4) == orm[2:4]
    assert store.moves_between(table.game_id, 5, 9) == []
