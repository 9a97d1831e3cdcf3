"""A player who leaves mid-game: the host lets a bot play their seat until they rejoin."""

from __future__ import annotations

import pytest
from django.test import Client

from game.engine.vocabulary import SeatRole
from game.models import Move, Seat
from game.writer import games, moves, seating
from tests.web.helpers import (
    Screens,
    db,
    fingerprint,
    game,
    new_session,
    play_as,
    started,
    version_of,
)


@pytest.mark.django_db
def test_only_the_host_can_hand_a_running_seat_to_a_bot() -> None:
    table = started(("Ada", "Bob"), first_player=0)
    before = fingerprint(table.game_id)
    with pytest.raises(games.Refused):
        seating.hand_to_bot(table.game_id, table.player(0).key, 1)
    with pytest.raises(games.Refused):
        seating.hand_to_bot(table.game_id, table.host_key, 7)
    assert fingerprint(table.game_id) == before


@pytest.mark.django_db
def test_a_stand_in_bot_keeps_the_seat_and_its_rejoin_code_takes_it_back() -> None:
    table = started(("Ada", "Bob"), first_player=0)
    bob = Seat.objects.get(game_id=table.game_id, position=1)
    seating.hand_to_bot(table.game_id, table.host_key, 1)
    bob.refresh_from_db()
    assert bob.role == SeatRole.STAND_IN and bob.player_key == "" and bob.name == "Bob"
    with pytest.raises(games.Refused):  # Bob's old phone no longer holds the seat
        moves.play(table.game_id, table.player(1).key, "take:wug", 0)
    play_as(table, "take:wug")  # Ada plays; now the bot is to act for Bob
    assert moves.play_bot_turn(table.game_id, 1)
    new_phone = "new-phone-key"
    seating.rejoin(table.game_id, new_phone, bob.rejoin_code.lower())
    bob.refresh_from_db()
    assert bob.role == SeatRole.HUMAN and bob.player_key == new_phone
    g = game(table.game_id)
    assert g.state == games.replay_game(g).to_dict()


@pytest.mark.django_db(transaction=True)
async def test_the_host_hands_a_seat_to_a_bot_and_it_plays_on(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob"), first_player=1)  # Bob is to play, and gone
    await screens.tv(table)  # bots play while a screen watches
    ada = await screens.phone(table, 0)
    await db(seating.hand_to_bot)(table.game_id, table.host_key, 1)
    for _ in range(20):
        view = await ada.receive()
        if version_of(view) == 1 and 'data-my-turn="1"' in view:
            break
    else:
        pytest.fail("the stand-in bot did not play Bob's turn")
    first = await db(lambda: Move.objects.get(game_id=table.game_id, index=0))()
    assert first.seat == 1


@pytest.mark.django_db
def test_the_host_page_offers_a_bot_for_an_away_seat_only_to_the_host() -> None:
    table = started(("Ada", "Bob"), first_player=0)
    host = Client(HTTP_HOST="localhost:8000")
    host.cookies["sessionid"] = table.host_session
    guest = Client(HTTP_HOST="localhost:8000")
    guest.cookies["sessionid"] = new_session()
    url = f"/host/{table.code}/"
    assert 'data-stand-in="1"' in host.get(url).content.decode()
    assert "data-stand-in" not in guest.get(url).content.decode()
    guest.post(f"/host/{table.code}/stand-in/", {"position": "1"})
    assert Seat.objects.get(game_id=table.game_id, position=1).role == SeatRole.HUMAN
    response = host.post(f"/host/{table.code}/stand-in/", {"position": "1"})
    assert response.status_code == 302
    assert Seat.objects.get(game_id=table.game_id, position=1).role == SeatRole.STAND_IN
