"""Two players on one phone (issue 33): a phone takes several seats in the lobby, shows
a curtain between them ("Pass the phone to Ben"), plays and counts as present per seat.

The curtain is checked in what the server sends over the socket (the full ASGI
application, sessions and database): a curtain names no card and carries no gem
count of either hand, and a hand is sent only once its player tapped.
"""

from __future__ import annotations

from collections.abc import Callable
from html import unescape

import pytest
from django.test import Client
from pytest_django.fixtures import Settings

from game.models import Game, Move, Seat
from game.storage import presence
from game.web import inbound
from game.writer import games, lobby, moves, seating
from tests.web.helpers import (
    Screen,
    Screens,
    Table,
    db,
    find_element,
    game,
    hand_free,
    open_lobby,
    shared_game,
    shared_lobby,
    start,
)
from tests.web.test_consumers import settle

pytestmark = pytest.mark.django_db(transaction=True)


def shows(text: str) -> Callable[[str], bool]:
    return lambda view: text in unescape(view)


async def told(screen: Screen, text: str) -> None:
    """Receive until a new message says `text` (a flash: the page may show an older one)."""
    mark = len(screen.log)
    await screen.until(lambda _view: any(text in unescape(m) for m in screen.log[mark:]))


async def shared_phone(screens: Screens, table: Table, label: str = "Ada+Ben") -> Screen:
    return await screens.phone(table, 0, label=label)


# ---------------------------------------------------------------- joining


def join_client(code: str, name: str, another: bool = False, client: Client | None = None):  # type: ignore[no-untyped-def]
    client = client or Client()
    data = {"name": name, **({"another": "1"} if another else {})}
    return client, client.post(f"/join/{code}/", data)


def test_a_phone_takes_a_second_and_third_seat_in_the_lobby() -> None:
    table = open_lobby(("Zoe",))
    client, answer = join_client(table.code, "Ada")
    assert answer.status_code == 302
    page = client.get(f"/join/{table.code}/?another=1")
    assert page.status_code == 200
    assert "Already playing on this phone: Ada." in unescape(page.content.decode())
    for name in ("Ben", "Cy"):
        _, answer = join_client(table.code, name, another=True, client=client)
        assert answer.status_code == 302 and answer["Location"] == f"/play/{table.code}/"
    key = client.session["player_key"]
    seats = list(Seat.objects.filter(game_id=table.game_id, player_key=key).order_by("position"))
    assert [(s.position, s.name) for s in seats] == [(1, "Ada"), (2, "Ben"), (3, "Cy")]
    # Without "another", the join page still takes the phone to its game.
    assert client.get(f"/join/{table.code}/").status_code == 302
    hand = unescape(client.get(f"/play/{table.code}/").content.decode())
    assert "You are seated, Ada." in hand and "Also playing on this phone: Ben, Cy." in hand
    # The phone still remembers its first player's name for the next game.
    assert "Ada" in unescape(client.cookies["splendor_name"].value)


def test_the_join_page_seats_a_phone_then_asks_for_its_next_player() -> None:
    table = open_lobby(("Zoe",))
    client = Client()
    page = unescape(client.get(f"/join/{table.code}/").content.decode())
    assert "Join, then add another player on this phone" in page
    answer = client.post(f"/join/{table.code}/", {"name": "Ada", "then": "another"})
    assert answer.status_code == 302
    assert answer["Location"] == f"/join/{table.code}/?another=1"
    page = unescape(client.get(answer["Location"]).content.decode())
    assert 'id="add-player-form"' in page and "Already playing on this phone: Ada." in page
    _, answer = join_client(table.code, "Ben", another=True, client=client)
    key = client.session["player_key"]
    seats = Seat.objects.filter(game_id=table.game_id, player_key=key).order_by("position")
    assert [s.name for s in seats] == ["Ada", "Ben"]
    # A refused name seats nobody and goes nowhere.
    refused = Client().post(f"/join/{table.code}/", {"name": " ", "then": "another"})
    assert refused.status_code == 400
    assert Seat.objects.filter(game_id=table.game_id).count() == 3


def test_the_next_player_s_form_never_offers_the_first_player_s_name() -> None:
    table = open_lobby(("Zoe",))
    client, _ = join_client(table.code, "Ada")
    page = unescape(client.get(f"/join/{table.code}/?another=1").content.decode())
    assert 'id="add-player-form"' in page and 'value="Ada"' not in page
    _, refused = join_client(table.code, "   ", another=True, client=client)
    assert refused.status_code == 400
    assert 'value="Ada"' not in unescape(refused.content.decode())


def test_another_player_uses_the_join_rules_for_names() -> None:
    table = open_lobby(("Ada",))
    ada = table.player(0)
    with pytest.raises(games.Refused, match="Please type your name"):
        seating.add_player(table.game_id, ada.key, "  \u200b ")
    seat = seating.add_player(table.game_id, ada.key, "  Ben\u0007  ")
    assert seat.name == "Ben"


def test_a_fifth_seat_and_a_started_game_are_refused() -> None:
    table = open_lobby(("Ada", "Bob"))
    ada = table.player(0)
    seating.add_player(table.game_id, ada.key, "Ben")
    seating.add_player(table.game_id, ada.key, "Cy")
    with pytest.raises(games.Refused, match="The table is full"):
        seating.add_player(table.game_id, ada.key, "Dee")
    lobby.remove_seat(table.game_id, table.host_key, 3)  # the host may remove any seat
    start(table)
    with pytest.raises(games.Refused, match="already started"):
        seating.add_player(table.game_id, ada.key, "Dee")
    client = Client()
    client.cookies["sessionid"] = ada.session
    answer = client.post(f"/join/{table.code}/", {"name": "Dee", "another": "1"})
    assert answer.status_code == 400 and "already started" in answer.content.decode()
    assert Seat.objects.filter(game_id=table.game_id).count() == 3


def test_the_tv_marks_a_phone_s_later_seats_without_showing_a_key() -> None:
    table = shared_lobby(("Cy",))
    client = Client()
    client.cookies["sessionid"] = table.host_session
    html = unescape(client.get(f"/host/{table.code}/").content.decode())
    assert html.count("shares Ada’s phone") == 1
    assert table.player(0).key not in html
    start(table)
    html = unescape(client.get(f"/host/{table.code}/").content.decode())
    head = html[html.index('id="player-1-head"') :][:600]
    assert "shares Ada’s phone" in head
    assert "shares" not in html[html.index('id="player-2-head"') :][:300]


def test_a_rematch_keeps_a_shared_phone_s_seats_together() -> None:
    table = shared_game(("Cy",))
    Game.objects.filter(pk=table.game_id).update(status=Game.Status.OVER)
    fresh = lobby.rematch(table.game_id, table.host_key)
    keys = dict(Seat.objects.filter(game=fresh).values_list("name", "player_key"))
    assert keys["Ada"] == keys["Ben"] == table.player(0).key != keys["Cy"]


async def test_a_covered_shared_phone_follows_a_rematch(screens: Screens) -> None:
    table = await db(shared_game)(("Cy",))
    phone = await shared_phone(screens, table)
    await settle(phone)
    await db(Game.objects.filter(pk=table.game_id).update)(status=Game.Status.OVER)
    fresh = await db(lobby.rematch)(table.game_id, table.host_key)
    view = await phone.until(lambda v: "data-redirect" in v)
    assert f"/play/{fresh.code}/" in view and 'id="curtain"' in view


# ---------------------------------------------------------------- rejoin and stand-ins


def test_a_rejoin_takes_one_seat_and_keeps_the_phone_s_others() -> None:
    table = start(open_lobby(("Ada", "Ben", "Cy")))
    ada, ben = table.player(0), table.player(1)
    code = Seat.objects.get(game_id=table.game_id, position=1).rejoin_code
    # Ben's phone is away; Ada's phone takes Ben's seat with its code.
    seating.rejoin(table.game_id, ada.key, code)
    held = Seat.objects.filter(game_id=table.game_id, player_key=ada.key).order_by("position")
    assert [s.name for s in held] == ["Ada", "Ben"]
    assert not Seat.objects.filter(game_id=table.game_id, player_key=ben.key).exists()


def test_a_seated_phone_follows_a_rejoin_link_and_keeps_its_seat() -> None:
    table = start(open_lobby(("Ada", "Ben", "Cy")))
    ada = table.player(0)
    code = Seat.objects.get(game_id=table.game_id, position=1).rejoin_code
    client = Client()
    client.cookies["sessionid"] = ada.session
    page = client.get(f"/join/{table.code}/?rejoin={code}")
    assert page.status_code == 200 and 'id="rejoin-form"' in page.content.decode()
    answer = client.post(f"/join/{table.code}/", {"rejoin_code": code})
    assert answer.status_code == 302
    held = Seat.objects.filter(game_id=table.game_id, player_key=ada.key).order_by("position")
    assert [s.position for s in held] == [0, 1]
    # Its page now comes back to the curtain, asking for Ada (whose turn it is).
    html = unescape(client.get(f"/play/{table.code}/").content.decode())
    assert "Pass the phone to Ada" in html and 'id="my-hand"' not in html


def test_a_reconnecting_shared_phone_takes_back_every_stood_in_seat() -> None:
    table = shared_game(("Cy",))
    Seat.objects.filter(game_id=table.game_id, position__in=(0, 1)).update(role="stand_in")
    seating.take_seat_back(table.game_id, table.player(0).key)
    roles = Seat.objects.filter(game_id=table.game_id).order_by("position")
    assert [s.role for s in roles][:2] == ["human", "human"]


# ---------------------------------------------------------------- the curtain


async def test_a_new_socket_starts_covered_and_the_curtain_shows_no_hand(
    screens: Screens,
) -> None:
    table = await db(shared_game)(("Cy",))
    phone = await shared_phone(screens, table)
    first = await phone.receive()
    assert "Pass the phone to Ada" in unescape(first)
    assert "Ada, tap when you hold it" in unescape(first)
    assert hand_free(first), first
    # Nothing else came: no hand behind the curtain.
    assert all(hand_free(message) for message in await phone.barrier())

    await phone.send({"uncover": 0})
    view = await phone.until(shows("Ada’s hand"))
    assert 'id="my-hand"' in view and 'id="curtain"' not in view
    assert not hand_free(view)  # the check sees a hand when there is one
    assert "Pass to Ben" in unescape(view)

    # Another socket of the same phone (a reload, a restart) starts covered again.
    again = await shared_phone(screens, table, label="reloaded")
    first = await again.receive()
    assert "Pass the phone to Ada" in unescape(first) and hand_free(first)


async def test_the_turn_passing_between_the_phone_s_seats_brings_the_curtain(
    screens: Screens,
) -> None:
    table = await db(shared_game)(("Cy",))
    phone = await shared_phone(screens, table)
    cy = await screens.phone(table, 2)
    await settle(phone, cy)
    await phone.send({"uncover": 0})
    await phone.until(shows("Ada’s hand"))

    mark = len(phone.log)
    await phone.send({"action": "take:wug", "version": 0})
    view = await phone.until(shows("Pass the phone to Ben"))
    # The curtain replaced the hand whole: nothing of Ada's hand stays in the page.
    assert hand_free(view), view
    assert all(hand_free(m) for m in phone.log[mark:] if "curtain" in m)
    assert "Ada’s hand" not in unescape(view)

    await phone.send({"uncover": 1})
    view = await phone.until(shows("Ben’s hand"))
    assert 'id="my-hand"' in view and 'data-my-turn="1"' in view
    await phone.send({"action": "take:urk", "version": 1})
    await cy.until(lambda v: 'data-my-turn="1"' in v)
    # Cy's turn: the phone keeps Ben's hand (the player who just played looks on).
    view = await phone.until(lambda v: 'data-version="2"' in v)
    assert "Ben’s hand" in unescape(view) and 'id="curtain"' not in view

    await cy.send({"action": "take:wug", "version": 2})
    view = await phone.until(shows("Pass the phone to Ada"))
    assert hand_free(view)


async def test_a_move_goes_to_the_seat_whose_turn_it_is_only_when_uncovered(
    screens: Screens,
) -> None:
    table = await db(shared_game)(("Cy",))
    phone = await shared_phone(screens, table)
    await settle(phone)
    # Under the curtain: refused, nothing played.
    await phone.send({"action": "take:wug", "version": 0})
    await told(phone, "It is Ada’s turn: pass the phone to Ada")
    # Ben's hand uncovered on Ada's turn: refused in words.
    await phone.send({"cover": 1})
    await phone.until(shows("Pass the phone to Ben"))
    await phone.send({"uncover": 1})
    await phone.until(shows("Ben’s hand"))
    await phone.send({"action": "take:wug", "version": 0})
    await told(phone, "It is Ada’s turn")
    assert (await db(game)(table.game_id)).version == 0
    # Ada's hand: played as Ada.
    await phone.send({"cover": 0})
    await phone.until(shows("Pass the phone to Ada"))
    await phone.send({"uncover": 1})  # not the seat the curtain asks for: still covered
    await phone.send({"uncover": 0})
    await phone.until(shows("Ada’s hand"))
    await phone.send({"action": "take:wug", "version": 0})
    await phone.until(shows("Pass the phone to Ben"))
    assert await db(_moved)(table.game_id) == [0]


def test_the_writer_refuses_a_shared_phone_s_move_for_a_covered_seat() -> None:
    table = shared_game(("Cy",))
    ada = table.player(0)
    seats = dict(Seat.objects.filter(game_id=table.game_id).values_list("position", "pk"))
    with pytest.raises(games.Refused, match="Ada’s turn"):
        moves.play(table.game_id, ada.key, "take:wug", 0, seats[1])
    with pytest.raises(games.Refused):
        moves.play(table.game_id, ada.key, "take:wug", 0, None)
    moves.play(table.game_id, ada.key, "take:wug", 0, seats[0])
    assert _moved(table.game_id) == [0]


def _moved(game_id: int) -> list[int]:
    """The seat (position) of each move played so far."""
    return list(
        Move.objects.filter(game_id=game_id).order_by("index").values_list("seat", flat=True)
    )


async def test_a_hint_is_only_for_the_uncovered_seat(screens: Screens) -> None:
    table = await db(shared_game)(("Cy",))
    phone = await shared_phone(screens, table)
    await settle(phone)
    await phone.send({"hint": True, "version": 0})
    await told(phone, "A hint is only for your own turn.")


async def test_a_bot_let_play_one_seat_leaves_the_phone_its_other(
    screens: Screens, settings: Settings
) -> None:
    settings.SPLENDOR_PRESENCE_GRACE = 0
    table = await db(shared_game)(("Cy",))
    ben = await db(Seat.objects.get)(game_id=table.game_id, position=1)
    phone = await shared_phone(screens, table)
    await settle(phone)
    await db(seating.hand_to_bot)(table.game_id, table.host_key, 1)
    # One seat left: its hand, no curtain and nothing to pass to.
    view = await phone.until(lambda v: 'id="my-hand"' in v)
    assert 'id="curtain"' not in view and 'id="whose-hand"' not in view
    # Ben's seat no longer counts this phone as present: his code takes it back.
    await settle(phone)
    assert ben.pk not in (await db(presence.here)(table.game_id)).present
    await phone.send({"action": "take:wug", "version": 0})
    await phone.until(lambda v: 'data-version="1"' in v)
    assert (await db(_moved)(table.game_id))[0] == 0
    await db(seating.rejoin)(table.game_id, table.player(0).key, ben.rejoin_code)
    held = await db(lambda: list(Seat.objects.filter(player_key=table.player(0).key)))()
    assert [s.position for s in held] == [0, 1]


@pytest.mark.parametrize(
    ("text", "kind", "seat"),
    [
        ('{"uncover": 1}', "uncover", 1),
        ('{"cover": 0}', "cover", 0),
        ('{"uncover": true}', "bad", -1),
        ('{"uncover": 4}', "bad", -1),
        ('{"cover": "1"}', "bad", -1),
    ],
)
def test_the_curtain_s_messages_are_read_or_refused(text: str, kind: str, seat: int) -> None:
    message = inbound.read_message(text)
    assert (message.kind, message.seat) == (kind, seat)


# ---------------------------------------------------------------- presence per seat


async def test_each_seat_of_a_shared_phone_counts_as_present(screens: Screens) -> None:
    table = await db(shared_game)(("Cy",))
    seats = dict(
        await db(
            lambda: list(Seat.objects.filter(game_id=table.game_id).values_list("position", "pk"))
        )()
    )
    tv = await screens.tv(table)
    await tv.receive()
    phone = await shared_phone(screens, table)
    await settle(phone)
    here = await db(presence.here)(table.game_id)
    assert {seats[0], seats[1]} <= here.connected and seats[2] not in here.present
    view = await tv.until(lambda v: 'id="player-1"' in v and _tag(v, 0) == _tag(v, 1) == "")
    assert "away" in _tag(view, 2)
    await phone.close()
    here = await db(presence.here)(table.game_id)
    assert {seats[0], seats[1]} <= here.reconnecting
    view = await tv.until(lambda v: "reconnecting" in _tag(v, 0) and "reconnecting" in _tag(v, 1))


def _tag(html: str, position: int) -> str:
    """The presence tag of a seat's panel on the TV ("" when its phone is here)."""
    head = find_element(html, f"player-{position}-head")
    if head is None:
        return ""
    text = html[head.start : head.end]
    for tag in ("reconnecting", "away"):
        if f"tag {tag}" in text:
            return tag
    return ""
