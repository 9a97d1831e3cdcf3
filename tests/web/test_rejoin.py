"""Rejoin codes: only for a seat whose phone is away, new after each use, guesses slowed."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client
from pytest_django.fixtures import Settings

from game.engine.vocabulary import SeatRole
from game.models import Seat, new_player_key
from game.storage import presence
from game.writer import games, seating
from tests.web.helpers import Screens, Table, db, started

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_counters() -> None:
    cache.clear()


def seat(table: Table, position: int) -> Seat:
    return Seat.objects.get(game_id=table.game_id, position=position)


def connect_phone(monkeypatch: pytest.MonkeyPatch, seat: Seat) -> None:
    """As if this seat's phone had its websocket open (presence is the consumer's job)."""
    monkeypatch.setattr(presence, "here", lambda game_id: presence.Here(frozenset({seat.pk})))


def test_a_code_cannot_take_a_seat_whose_phone_is_connected(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = started()
    ada = seat(table, 0)
    connect_phone(monkeypatch, ada)
    thief = new_player_key()
    with pytest.raises(games.Refused, match="still connected"):
        seating.rejoin(table.game_id, thief, ada.rejoin_code)
    assert seat(table, 0).player_key == table.player(0).key
    assert seat(table, 0).rejoin_code == ada.rejoin_code


def test_a_code_cannot_take_a_seat_whose_phone_is_reconnecting(settings: Settings) -> None:
    """A phone silent (or whose socket closed) within the grace is most likely coming
    back, and the TV does not show its code yet: the code waits for the grace to end."""
    settings.SPLENDOR_PRESENCE_GRACE = 60
    table = started()
    ada = seat(table, 0)
    presence.arrive(table.game_id, ada.pk, "ada-phone")
    presence.leave("ada-phone")
    assert presence.here(table.game_id).reconnecting == {ada.pk}
    thief = new_player_key()
    with pytest.raises(games.Refused, match="reconnecting"):
        seating.rejoin(table.game_id, thief, ada.rejoin_code)
    assert seat(table, 0).player_key == table.player(0).key
    settings.SPLENDOR_PRESENCE_GRACE = 0  # the grace is over: the seat is away
    assert seating.rejoin(table.game_id, thief, ada.rejoin_code).player_key == thief


def test_a_code_takes_an_away_seat_once_and_is_then_replaced() -> None:
    table = started()
    old = seat(table, 0).rejoin_code
    new_phone = new_player_key()
    taken = seating.rejoin(table.game_id, new_phone, old.lower())
    assert taken.player_key == new_phone
    fresh = seat(table, 0).rejoin_code
    assert fresh != old and len(fresh) == len(old)
    assert fresh != seat(table, 1).rejoin_code
    # The old code, once seen on the TV, takes nothing any more.
    with pytest.raises(games.Refused, match="does not match"):
        seating.rejoin(table.game_id, new_player_key(), old)
    assert seat(table, 0).player_key == new_phone


def test_the_phone_holding_the_seat_keeps_it_and_its_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = started()
    ada = seat(table, 0)
    connect_phone(monkeypatch, ada)
    again = seating.rejoin(table.game_id, table.player(0).key, ada.rejoin_code)
    assert again.pk == ada.pk and seat(table, 0).rejoin_code == ada.rejoin_code


def test_a_stand_in_seat_is_taken_back_with_its_code() -> None:
    table = started()
    seating.hand_to_bot(table.game_id, table.host_key, 1)
    code = seat(table, 1).rejoin_code
    back = seating.rejoin(table.game_id, table.player(1).key, code)
    assert back.role == SeatRole.HUMAN
    assert seat(table, 1).rejoin_code != code


def test_wrong_codes_are_slowed_down_per_game_and_client(settings: Settings) -> None:
    settings.SPLENDOR_REJOIN_TRIES = 3
    table = started()
    other = started()
    right = seat(table, 0).rejoin_code
    guesser = new_player_key()
    for guess in ("AAAAAA", "BBBBBB", "CCCCCC"):
        with pytest.raises(games.Refused, match="does not match"):
            seating.rejoin(table.game_id, guesser, guess, client="10.0.0.9")
    # Even the right code waits now: guessing on cannot find it.
    with pytest.raises(games.Refused, match="wait a minute"):
        seating.rejoin(table.game_id, guesser, right, client="10.0.0.9")
    assert seat(table, 0).player_key == table.player(0).key
    # Another phone, or the same phone in another game, is not held up.
    seating.rejoin(other.game_id, guesser, seat(other, 0).rejoin_code, client="10.0.0.9")
    seating.rejoin(table.game_id, new_player_key(), right, client="10.0.0.10")
    # After the pause the guesser may try again.
    cache.clear()
    with pytest.raises(games.Refused, match="does not match"):
        seating.rejoin(table.game_id, guesser, "DDDDDD", client="10.0.0.9")


def test_the_join_page_counts_wrong_codes_per_phone_address(settings: Settings) -> None:
    settings.SPLENDOR_REJOIN_TRIES = 2
    table = started()
    phone = Client(REMOTE_ADDR="192.168.1.50")
    for _ in range(2):
        page = phone.post(f"/join/{table.code}/", {"rejoin_code": "ZZZZZZ"})
        assert page.status_code == 400 and b"does not match" in page.content
    code = seat(table, 0).rejoin_code
    page = phone.post(f"/join/{table.code}/", {"rejoin_code": code})
    assert page.status_code == 400 and b"wait a minute" in page.content
    # A new session does not help: the count is per address.
    fresh = Client(REMOTE_ADDR="192.168.1.50")
    assert fresh.post(f"/join/{table.code}/", {"rejoin_code": code}).status_code == 400
    ok = Client(REMOTE_ADDR="192.168.1.51").post(f"/join/{table.code}/", {"rejoin_code": code})
    assert ok.status_code == 302


@pytest.mark.parametrize("typed", ["", "  ", "ABC\x00", "ÄÖÜÄÖÜ", "A" * 1000, "12345"])
def test_unreadable_codes_are_refused_without_error(typed: str) -> None:
    table = started()
    response = Client().post(f"/join/{table.code}/", {"rejoin_code": typed})
    assert response.status_code == 400


@pytest.mark.django_db(transaction=True)
async def test_over_websockets_a_code_waits_until_the_phone_is_away(
    screens: Screens, settings: Settings
) -> None:
    table = await db(started)(("Ada", "Bob"))
    old_phone = await screens.phone(table, 1, label="Bob's phone")
    code = await db(lambda: seat(table, 1).rejoin_code)()
    thief = new_player_key()
    with pytest.raises(games.Refused, match="still connected"):
        await db(seating.rejoin)(table.game_id, thief, code)
    # Bob's phone sleeps (its socket closes): reconnecting, then after the grace the
    # code works, once.
    await old_phone.close()
    with pytest.raises(games.Refused, match="reconnecting"):
        await db(seating.rejoin)(table.game_id, thief, code)
    settings.SPLENDOR_PRESENCE_GRACE = 0
    new_key = new_player_key()
    await db(seating.rejoin)(table.game_id, new_key, code)
    assert await db(lambda: seat(table, 1).player_key)() == new_key
    assert await db(lambda: seat(table, 1).rejoin_code)() != code
    # The old phone wakes up: it holds no seat any more.
    connected, _detail, screen = await screens.try_open(
        table.code, "seat", table.player(1).session, label="Bob's old phone"
    )
    assert connected  # accepted, then closed with 4403: the page goes to the join page
    closed = await screen.communicator.receive_output(timeout=15)
    assert closed == {"type": "websocket.close", "code": 4403}
