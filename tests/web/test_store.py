"""game.storage.store: the writer's plain SQL reads and writes give what the ORM gives.

The same comparison runs on PostgreSQL in tests/web/test_postgres.py.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection, transaction
from django.db.models import Model
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from pytest_django.fixtures import Settings

from game.engine.vocabulary import SeatRole
from game.models import Game, Move, Presence, Seat
from game.storage import presence, store
from game.writer import games, moves
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


def test_an_instance_read_here_is_saved_and_refreshed_like_the_orm_s() -> None:
    """Rows become instances the ORM knows as saved rows of this database, with only
    the timestamps deferred."""
    table = started(("Ada", "Bob"))
    with transaction.atomic():
        locked = store.lock_game(table.game_id)
        assert locked is not None
        fast, seats = locked
        assert not fast._state.adding and fast._state.db == "default"
        assert fast.get_deferred_fields() == {"created_at", "updated_at", "bot_claimed_at"}
        assert seats[0].get_deferred_fields() == set() and seats[0].game.pk == fast.pk
        seats[1].name = "Robert"
        seats[1].save(update_fields=["name"])  # an UPDATE, not an INSERT
        fast.stand_in_after = 45
        fast.save(update_fields=["stand_in_after"])
    assert Seat.objects.get(pk=seats[1].pk).name == "Robert"
    assert Seat.objects.filter(game_id=table.game_id).count() == 2
    fast.refresh_from_db()
    assert fast.stand_in_after == 45 and fast == game(table.game_id)


def test_a_missing_game_reads_as_none_and_an_action_on_it_is_refused() -> None:
    with transaction.atomic():
        assert store.lock_game(999_999) is None
    with pytest.raises(games.Refused, match="does not exist"):
        moves.play(999_999, "anyone", "pass", 0)


def test_the_seats_are_the_orm_s_in_seat_order() -> None:
    table = started(("Ada", "Bob"), bots=2)
    with transaction.atomic():
        locked = store.lock_game(table.game_id)
    assert locked is not None
    _game, fast = locked
    orm = list(Seat.objects.filter(game_id=table.game_id).order_by("position"))
    assert [loaded(s) for s in fast] == [loaded(s) for s in orm]
    assert [s.bot_plays for s in fast] == [False, False, True, True]
    assert [s.position for s in fast] == [0, 1, 2, 3]


def test_a_move_is_recorded_and_saved_as_the_orm_reads_it_back() -> None:
    table = started(("Ada", "Bob"))
    before = game(table.game_id)
    notation = legal(table.game_id)[0]
    version = play_as(table, notation)
    after = game(table.game_id)
    assert version == after.version == before.version + 1
    assert after.state == games.replay_game(after).to_dict()
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


def test_a_screen_s_unlocked_read_is_the_locked_one() -> None:
    table = started(("Ada", "Bob", "Cy"), bots=1)
    play_as(table, legal(table.game_id)[0])
    with transaction.atomic():
        locked = store.lock_game(table.game_id)
    read = store.read_game(table.game_id)
    assert locked is not None and read is not None
    assert loaded(read[0]) == loaded(locked[0])
    assert [loaded(s) for s in read[1]] == [loaded(s) for s in locked[1]]
    assert store.read_game(999_999) is None


def test_a_game_s_code_and_progress_are_the_orm_s() -> None:
    table = started(("Ada", "Bob"))
    Game.objects.filter(pk=table.game_id).update(stand_in_after=45)
    orm = game(table.game_id)
    assert store.game_code(table.game_id) == orm.code
    assert store.progress(table.game_id) == (orm.version, orm.status, 45)
    assert store.game_code(999_999) == "" and store.progress(999_999) is None


def test_who_connects_is_read_in_one_statement() -> None:
    table = started(("Ada", "Bob"), bots=1)
    code = game(table.game_id).code
    seats = {s.position: s for s in Seat.objects.filter(game_id=table.game_id)}
    ada, bob = table.player(0), table.player(1)
    assert store.who(code, ada.key) == (
        table.game_id,
        table.host_key,
        seats[0].pk,
        False,
        (seats[0].pk,),
    )
    assert store.who(code, bob.key) == (
        table.game_id,
        table.host_key,
        seats[1].pk,
        False,
        (seats[1].pk,),
    )
    # The host's key holds no seat here; a screen without a key, nor does a bot's "" key.
    assert store.who(code, table.host_key) == (table.game_id, table.host_key, None, False, ())
    assert store.who(code, "") == (table.game_id, table.host_key, None, False, ())
    assert store.who(code, "someone else") == (table.game_id, table.host_key, None, False, ())
    assert store.who("NOPE", ada.key) is None
    # A stand-in plays Bob's seat: no human seat for his key, and he is told so.
    Seat.objects.filter(pk=seats[1].pk).update(role=SeatRole.STAND_IN)
    assert store.who(code, bob.key) == (table.game_id, table.host_key, None, True, ())


def test_who_connects_with_a_shared_phone_has_each_of_its_seats_in_order() -> None:
    table = started(("Ada", "Bob", "Cy"))
    code = game(table.game_id).code
    seats = {s.position: s for s in Seat.objects.filter(game_id=table.game_id)}
    Seat.objects.filter(pk=seats[2].pk).update(player_key=table.player(0).key)
    found = store.who(code, table.player(0).key)
    assert found is not None
    assert found.seat_id == seats[0].pk and found.seat_ids == (seats[0].pk, seats[2].pk)


def test_presence_rows_are_written_and_read_as_the_orm_sees_them(settings: Settings) -> None:
    settings.SPLENDOR_PRESENCE_GRACE = 20
    table = started(("Ada", "Bob"))
    seats = dict(Seat.objects.filter(game_id=table.game_id).values_list("position", "pk"))
    presence.arrive(table.game_id, seats[0], "ada-phone")
    presence.arrive(table.game_id, seats[1], "bob-phone")
    presence.arrive(table.game_id, seats[1], "bob-phone")  # again: still one row
    rows = Presence.objects.filter(game_id=table.game_id)
    assert sorted(rows.values_list("channel", "seat_id")) == [
        ("ada-phone", seats[0]),
        ("bob-phone", seats[1]),
    ]
    assert all(abs(r.seen_at - timezone.now()) < timedelta(minutes=1) for r in rows)
    assert presence.connected(table.game_id) == {seats[0], seats[1]}
    # Ada's phone went silent: reconnecting for the grace, then away.
    silent = timezone.now() - timedelta(seconds=presence.LIVE + 1)
    Presence.objects.filter(channel="ada-phone").update(seen_at=silent)
    assert presence.here(table.game_id) == presence.Here(
        frozenset({seats[1]}), frozenset({seats[0]})
    )
    assert presence.present(table.game_id) == {seats[0], seats[1]}
    gone = timezone.now() - timedelta(seconds=presence.LIVE + 21)
    Presence.objects.filter(channel="ada-phone").update(seen_at=gone)
    assert presence.here(table.game_id) == presence.Here(frozenset({seats[1]}))
    # Bob's second screen arrives; his phone closes: the tablet keeps him connected.
    presence.arrive(table.game_id, seats[1], "bob-tablet")
    presence.leave("bob-phone")
    assert presence.here(table.game_id) == presence.Here(frozenset({seats[1]}))
    presence.leave("bob-tablet")  # reconnecting at once, away after the grace
    assert presence.here(table.game_id) == presence.Here(reconnecting=frozenset({seats[1]}))
    settings.SPLENDOR_PRESENCE_GRACE = 0
    assert presence.here(table.game_id) == presence.NOBODY
    assert presence.read([table.game_id, 999_999]) == {}
    # Rows that stopped counting long ago are deleted, in one statement.
    Presence.objects.filter(channel="ada-phone").update(
        seen_at=timezone.now() - timedelta(seconds=presence.LIVE + presence.KEEP + 1)
    )
    presence.forget_ghosts()
    assert sorted(Presence.objects.values_list("channel", flat=True)) == [
        "bob-phone",
        "bob-tablet",
    ]


def test_a_refresh_writes_when_each_socket_was_heard_in_one_statement() -> None:
    table = started(("Ada", "Bob"))
    seats = list(Seat.objects.filter(game_id=table.game_id).values_list("pk", flat=True))
    old = timezone.now() - timedelta(seconds=20)
    for n in range(3):
        presence.arrive(table.game_id, seats[n % 2], f"phone-{n}")
    Presence.objects.update(seen_at=old)
    heard = {f"phone-{n}": timezone.now() - timedelta(seconds=n) for n in range(2)}
    with CaptureQueriesContext(connection) as statements:
        assert presence.refresh(heard.items()) == 1
    assert len(statements.captured_queries) == 1
    rows = dict(Presence.objects.values_list("channel", "seen_at"))
    assert rows == {**heard, "phone-2": old}
    assert presence.refresh([]) == 0


def test_the_versions_of_many_games_are_read_in_one_statement() -> None:
    one, two = started(("Ada", "Bob")), started(("Cy", "Di"))
    play_as(one, "take:wug")
    with CaptureQueriesContext(connection) as statements:
        found = store.versions([one.game_id, two.game_id, 999_999])
    assert found == {one.game_id: 1, two.game_id: 0}
    assert len(statements.captured_queries) == 1
    assert store.versions([]) == {}
