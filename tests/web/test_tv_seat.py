"""A seat played on the TV (issue 33): a player without a phone, whose turns the host
screen plays in the open, and whose card reserved blind only the host screen sees, and
only while it is held.

Real database, real websockets through the full ASGI application.
"""

from __future__ import annotations

import asyncio
from html import unescape

import pytest
from django.test import Client

from game.engine.actions import buy, parse_action
from game.engine.cards import noble
from game.engine.hints import BUY_CARD, TAKE_GEMS, Hint, Reason
from game.engine.rules import cheapest_payment
from game.engine.vocabulary import PlayedOn, SeatRole
from game.models import Game, Move, Seat
from game.screens import hint_answers, tv_seat
from game.storage import readmodel
from game.storage.readmodel import read
from game.writer import games, lobby, moves, notices, seating
from tests.engine.builder import position
from tests.web.helpers import (
    Screen,
    Screens,
    Table,
    card_ids,
    db,
    fingerprint,
    game,
    new_session,
    open_lobby,
    player_panel,
    region,
    start,
    state_of,
    states_by_version,
    visible_cards,
)

pytestmark = pytest.mark.django_db(transaction=True)

TV = 1  # Ada plays at the TV, Bob on his phone (seat 0)


def tv_table(first_player: int = TV) -> Table:
    """Bob on his phone (seat 0), Ada at the TV (seat 1), started with `first_player`."""
    table = open_lobby(("Bob",))
    lobby.add_tv_player(table.game_id, table.host_key, "Ada")
    return start(table, first_player)


def refused(call: object, *args: object) -> str:
    with pytest.raises(games.Refused) as refusal:
        call(*args)  # type: ignore[operator]
    return refusal.value.message


def seats(game_id: int) -> list[tuple[int, str, str, str]]:
    return list(
        Seat.objects.filter(game_id=game_id).values_list("position", "name", "role", "played_on")
    )


# ---------------------------------------------------------------- the lobby and the seat


def test_the_host_adds_a_player_without_a_phone_by_the_join_pages_name_rules() -> None:
    table = open_lobby(("Bob",))
    seat = lobby.add_tv_player(table.game_id, table.host_key, "  Ada\u200b  ")
    assert (seat.position, seat.name, seat.role, seat.played_on) == (1, "Ada", "human", "tv")
    assert seat.player_key == "" and not seat.bot_plays and seat.on_tv
    room = read(table.game_id)[0].with_presence(frozenset())
    # Never away: no phone to lose, so no rejoin code on the TV.
    assert room.seats[1].connected and room.seats[1].tv_plays
    assert not room.seats[0].connected


def test_adding_a_player_without_a_phone_is_the_hosts_in_the_lobby_only() -> None:
    table = open_lobby(("Bob",))
    before = seats(table.game_id)
    assert "name" in refused(lobby.add_tv_player, table.game_id, table.host_key, "  \u200b ")
    assert "Only the screen" in refused(lobby.add_tv_player, table.game_id, "", "Ada")
    assert "Only the screen" in refused(
        lobby.add_tv_player, table.game_id, table.player(0).key, "Ada"
    )
    assert seats(table.game_id) == before
    for name in ("Ada", "Cy", "Di"):
        lobby.add_tv_player(table.game_id, table.host_key, name)
    assert "full" in refused(lobby.add_tv_player, table.game_id, table.host_key, "Ed")
    lobby.remove_seat(table.game_id, table.host_key, 1)  # Remove works for it
    assert [s[1] for s in seats(table.game_id)] == ["Bob", "Cy", "Di"]
    start(table, 0)
    assert "already started" in refused(lobby.add_tv_player, table.game_id, table.host_key, "Ed")


def test_a_tv_seats_rejoin_code_takes_nothing_and_no_stand_in_comes_by_itself() -> None:
    table = tv_table()
    code = Seat.objects.get(game_id=table.game_id, position=TV).rejoin_code
    stranger = "some-phone-key"
    assert "does not match" in refused(seating.rejoin, table.game_id, stranger, code)
    Game.objects.filter(pk=table.game_id).update(stand_in_after=5)
    assert not seating.stand_in_for_away(table.game_id, TV, 0)
    assert Seat.objects.get(game_id=table.game_id, position=TV).role == SeatRole.HUMAN


def test_the_host_lets_a_bot_play_a_tv_seat_and_takes_it_back() -> None:
    table = tv_table(first_player=0)
    assert "no bot" in refused(seating.play_on_tv_again, table.game_id, table.host_key, TV).lower()
    seating.hand_to_bot(table.game_id, table.host_key, TV)
    assert Seat.objects.get(game_id=table.game_id, position=TV).role == SeatRole.STAND_IN
    assert "Only the screen" in refused(seating.play_on_tv_again, table.game_id, "", TV)
    seating.play_on_tv_again(table.game_id, table.host_key, TV)
    seat = Seat.objects.get(game_id=table.game_id, position=TV)
    assert (seat.role, seat.played_on) == (SeatRole.HUMAN, PlayedOn.TV)


def test_a_rematch_keeps_a_tv_seat_at_the_tv() -> None:
    table = tv_table()
    Game.objects.filter(pk=table.game_id).update(status=Game.Status.OVER)
    fresh = lobby.rematch(table.game_id, table.host_key)
    assert [s[3] for s in seats(fresh.id)] == ["phone", "tv"]


def test_a_move_for_the_tv_seat_goes_through_the_writer_and_replays() -> None:
    table = tv_table()
    moves.play_on_tv(table.game_id, table.host_key, "reserve:d2", 0)
    moves.play(table.game_id, table.player(0).key, "take:wug", 1)
    moves.play_on_tv(table.game_id, table.host_key, "take:urk", 2)
    saved = game(table.game_id)
    assert list(saved.moves.values_list("seat", "notation")) == [
        (TV, "reserve:d2"),
        (0, "take:wug"),
        (TV, "take:urk"),
    ]
    assert games.replay_game(saved).to_dict() == saved.state


def test_the_tv_cannot_buy_a_blind_reserve_it_cannot_afford() -> None:
    table = tv_table()
    moves.play_on_tv(table.game_id, table.host_key, "reserve:d3", 0)
    moves.play(table.game_id, table.player(0).key, "take:wug", 1)
    before = fingerprint(table.game_id)
    message = refused(moves.play_on_tv, table.game_id, table.host_key, "blind:0", 2)
    assert message == "You cannot afford that card."
    assert "no card" in refused(moves.play_on_tv, table.game_id, table.host_key, "blind:2", 2)
    assert fingerprint(table.game_id) == before


def test_the_tv_buys_its_blind_reserve_by_its_place_the_cheapest_way() -> None:
    table = tv_table()
    top = state_of(table.game_id).decks[0][-1]
    moves.play_on_tv(table.game_id, table.host_key, "reserve:d1", 0)
    moves.play(table.game_id, table.player(0).key, "take:wug", 1)
    # Three of each gem from the bank: any level-1 card is then within reach.
    saved = game(table.game_id)
    assert saved.state is not None
    saved.state["players"][TV]["tokens"][:5] = [3, 3, 3, 3, 3]
    saved.state["bank"][:5] = [n - 3 for n in saved.state["bank"][:5]]
    Game.objects.filter(pk=table.game_id).update(state=saved.state)
    assert "moved on" in refused(moves.play_on_tv, table.game_id, table.host_key, "blind:0", 1)
    cheapest = cheapest_payment(state_of(table.game_id).players[TV], top)
    assert cheapest is not None
    moves.play_on_tv(table.game_id, table.host_key, "blind:0", 2)
    bought = Move.objects.get(game_id=table.game_id, index=2)
    assert (bought.seat, bought.notation) == (TV, buy(top, cheapest).notation())
    after = state_of(table.game_id).players[TV]
    assert after.cards == [top] and after.reserved == []


def test_the_tv_plays_only_a_game_being_played() -> None:
    table = open_lobby(("Bob",))
    lobby.add_tv_player(table.game_id, table.host_key, "Ada")
    message = refused(moves.play_on_tv, table.game_id, table.host_key, "take:wug", 0)
    assert message == "The game has not started yet."


# ---------------------------------------------------------------- over websockets


async def settle(*screens: Screen) -> None:
    await asyncio.gather(*(screen.barrier() for screen in screens))


def flash_of(screen: Screen) -> str:
    return unescape(region(screen.view, "flash"))


async def told(screen: Screen, message: dict[str, object]) -> str:
    """Send a message and return the flash it was answered with."""
    mark = len(screen.log)
    await screen.send(message)
    await screen.barrier()
    flashes = [m for m in screen.log[mark:] if 'id="flash"' in m]
    assert flashes, f"{screen.label} was not told anything"
    return unescape(region(flashes[-1], "flash"))


def is_look(message: str) -> bool:
    """The answer to a look: the only frame of the host screen that may show the card."""
    return message.startswith('<div id="tv-look"')


async def open_all(table: Table, screens: Screens) -> tuple[Screen, Screen, Screen]:
    tv = await screens.tv(table)
    spectator = await screens.tv(table, await db(new_session)(None), label="spectator")
    bob = await screens.phone(table, 0)
    await settle(tv, spectator, bob)
    return tv, spectator, bob


async def test_the_host_screen_plays_the_tv_seats_turn(screens: Screens) -> None:
    table = await db(tv_table)()
    tv, spectator, bob = await open_all(table, screens)
    # Only the host screen shows the turn panel, with the phone's controls.
    assert 'id="tv-turn" class="tv-turn"' in tv.view and "data-picker" in tv.view
    assert "data-picker" not in spectator.view and "tv-turn" in spectator.view
    ada = unescape(player_panel(tv.view, TV))
    assert "plays on the TV" in ada and "rejoin code" not in ada and "Let a bot play" in ada
    assert "Let a bot play" not in unescape(player_panel(spectator.view, TV))

    await tv.send({"action": "take:wug", "version": 0})
    await tv.until_version(1)
    await bob.until_version(1)
    assert 'id="tv-turn" hidden' in tv.view  # Bob's turn: the plain table again
    saved = await db(game)(table.game_id)
    assert await db(lambda: list(saved.moves.values_list("seat", "notation")))() == [
        (TV, "take:wug")
    ]
    assert (await db(games.replay_game)(saved)).to_dict() == saved.state


async def test_table_screens_and_phones_are_refused_and_change_nothing(screens: Screens) -> None:
    table = await db(tv_table)()
    tv, spectator, bob = await open_all(table, screens)
    before = await db(fingerprint)(table.game_id)
    moved = await db(lambda: Move.objects.filter(game_id=table.game_id).count())()

    assert "play from your phone" in await told(spectator, {"action": "take:wug", "version": 0})
    assert "not your turn" in (await told(bob, {"action": "take:wug", "version": 0})).lower()
    assert "moved on" in await told(tv, {"action": "take:wug", "version": 3})
    assert await db(fingerprint)(table.game_id) == before

    await tv.send({"action": "take:wug", "version": 0})  # now Bob's turn
    await tv.until_version(1)
    before = await db(fingerprint)(table.game_id)
    assert "not the turn of a player at the TV" in await told(
        tv, {"action": "take:urk", "version": 1}
    )
    assert await db(fingerprint)(table.game_id) == before
    assert await db(lambda: Move.objects.filter(game_id=table.game_id).count())() == moved + 1


async def test_a_blind_reserve_at_the_tv_is_seen_only_while_held_on_the_host_screen(
    screens: Screens,
) -> None:
    table = await db(tv_table)()
    top = (await db(state_of)(table.game_id)).decks[1][-1]
    tv, spectator, bob = await open_all(table, screens)
    await tv.send({"action": "reserve:d2", "version": 0})
    await tv.until_version(1)
    await bob.send({"action": "reserve:d1", "version": 1})  # Bob has a blind card too
    await tv.until_version(2)
    await settle(tv, spectator, bob)
    assert 'data-look="0"' in tv.view and top not in card_ids(tv.view)

    before = await db(fingerprint)(table.game_id)
    await tv.send({"look": 0, "version": 2})
    answer = await tv.until(lambda view: f'data-card="{top}"' in region(view, "tv-look"))
    assert answer
    asked: tuple[tuple[dict[str, object], str], ...] = (
        ({"look": 1, "version": 2}, "no card"),  # it holds one card
        ({"look": 0, "version": 1}, "moved on"),
        ({"look": 5, "version": 2}, "could not be read"),
    )
    for sent, why in asked:
        assert why in await told(tv, sent)
    assert "play from your phone" in await told(spectator, {"look": 0, "version": 2})
    assert "Only the TV" in await told(bob, {"look": 0, "version": 2})
    assert await db(fingerprint)(table.game_id) == before

    # Play on (bots' choices for both seats), then scan every frame.
    await tv.send({"action": "take:wug", "version": 2})
    await bob.until_version(3)
    await settle(tv, spectator, bob)
    states = await db(states_by_version)(table.game_id)
    looks = [m for m in tv.log if is_look(m)]
    assert len(looks) == 1 and top in card_ids(looks[0])
    for screen in (tv, spectator, bob):
        for message, version in zip(screen.log, screen.versions, strict=True):
            if screen is tv and is_look(message):
                continue
            assert version is not None
            allowed = visible_cards(states[version], screen.seat)
            assert card_ids(message) <= allowed, (screen.label, version)
            assert top not in card_ids(message), screen.label


async def test_a_hint_at_the_tv_never_names_a_blind_reserve(screens: Screens) -> None:
    table = await db(tv_table)()
    tv, _spectator, _bob = await open_all(table, screens)
    await tv.send({"hint": True, "version": 0})
    answer = await tv.until(lambda view: "data-hint-action=" in view)
    assert "hint-answer-0" in answer


# ---------------------------------------------------------------- the host screen's forms


def test_the_lobby_form_adds_a_player_without_a_phone_for_the_host_only() -> None:
    table = open_lobby(("Bob",))
    url = f"/host/{table.code}/tv-player/"
    stranger = Client()
    stranger.cookies["sessionid"] = new_session("someone-else")
    stranger.post(url, {"name": "Eve"})
    host = Client()
    host.cookies["sessionid"] = table.host_session
    assert host.post(url, {"name": "  Ada "}).status_code == 302
    assert host.post(url, {"name": ""}).status_code == 302  # refused in words
    # Bytes that are not text, raw or percent-encoded, and control characters seat nobody.
    form = "application/x-www-form-urlencoded"
    for body in (b"name=Ed\xff\xfe", b"name=Ed%FF", b"name=%07%1B"):
        assert host.post(url, body, content_type=form).status_code == 302
    assert seats(table.game_id) == [(0, "Bob", "human", "phone"), (1, "Ada", "human", "tv")]


def test_the_table_form_gives_a_tv_seat_back_to_the_tv() -> None:
    table = tv_table()
    seating.hand_to_bot(table.game_id, table.host_key, TV)
    host = Client()
    host.cookies["sessionid"] = table.host_session
    host.post(f"/host/{table.code}/play-on-tv/", {"position": str(TV)})
    assert Seat.objects.get(game_id=table.game_id, position=TV).role == SeatRole.HUMAN


def test_a_hint_at_the_tv_never_names_a_blind_reserve_in_words() -> None:
    state = position(
        players=2,
        seats=[{"reserved": [41, 21], "blind": [True, False], "tokens": "wuggrrkky"}],
        current=0,
    )
    buying = Hint(buy(41, (0, 0, 3, 2, 2, 0)), Reason(BUY_CARD, 41, 2, "white", 1))
    shown = tv_seat.shown_in_the_open(buying, 3, state, 0)
    assert (shown.notation, shown.open, shown.version) == ("blind:0", "", 3)
    assert "41" not in shown.notation and "white" not in shown.sentence
    taking = Hint(parse_action("take:rk"), Reason(TAKE_GEMS, gems=("red", "black"), next_card=41))
    assert "level-2" in hint_answers.shown(taking, 3).sentence  # as its phone would say
    assert "level-2" not in tv_seat.shown_in_the_open(taking, 3, state, 0).sentence
    face_up = Hint(buy(21, (1, 1, 0, 1, 1, 0)), Reason(BUY_CARD, 21, 1, "blue", 0))
    assert tv_seat.shown_in_the_open(face_up, 3, state, 0) == hint_answers.shown(face_up, 3)


def test_the_open_view_crosses_processes_with_its_change() -> None:
    table = tv_table()
    room, holders, state, log = read(table.game_id)
    [(_group, notice), *_phones] = notices.notices_for(room, holders, state, (), log)
    assert isinstance(notice, notices.TableChanged) and notice.open is not None
    sent = readmodel.to_wire(notices.encode(notice))
    assert isinstance(sent["open"], str)
    back = notices.decode(readmodel.from_wire(sent))
    assert isinstance(back, notices.TableChanged) and back.open is not None
    assert [a.notation() for a in back.open.legal] == [a.notation() for a in notice.open.legal]
    assert back.open.me is not None and back.open.viewer == TV


def test_the_host_page_paints_the_tv_seats_turn_for_the_host_only() -> None:
    table = tv_table()
    host = Client()
    host.cookies["sessionid"] = table.host_session
    page = host.get(f"/host/{table.code}/").content.decode()
    assert 'id="tv-turn" class="tv-turn"' in page and 'data-picker="take"' in page
    assert 'id="sheet"' in page
    other = Client().get(f"/host/{table.code}/").content.decode()
    assert 'id="tv-turn" hidden' in other and "data-picker" not in other


async def test_the_tv_gives_back_gems_over_ten(screens: Screens) -> None:
    table = await db(tv_table)()

    def rich() -> None:  # Ada holds nine gems from the bank: a take goes over ten
        saved = game(table.game_id)
        assert saved.state is not None
        saved.state["players"][TV]["tokens"][:5] = [2, 2, 2, 2, 1]
        saved.state["bank"][:5] = [2, 2, 2, 2, 3]
        Game.objects.filter(pk=table.game_id).update(state=saved.state)

    await db(rich)()
    tv, _spectator, _bob = await open_all(table, screens)
    await tv.send({"action": "take:wug", "version": 0})
    view = await tv.until_version(1)
    assert 'data-picker="return"' in region(view, "tv-turn")
    await tv.send({"action": "return:wu", "version": 1})
    view = await tv.until_version(2)
    assert 'id="tv-turn" hidden' in view
    assert (await db(state_of)(table.game_id)).players[TV].token_count() == 10


async def test_two_players_at_the_tv_take_their_turns_there(screens: Screens) -> None:
    def two_at_the_tv() -> Table:
        table = open_lobby(())
        for name in ("Ada", "Cy"):
            lobby.add_tv_player(table.game_id, table.host_key, name)
        return start(table, 0)

    table = await db(two_at_the_tv)()
    tv = await screens.tv(table)
    await tv.until(lambda view: "Ada’s turn, played here on the TV" in unescape(view))
    await tv.send({"action": "take:wug", "version": 0})
    await tv.until(lambda view: "Cy’s turn, played here on the TV" in unescape(view))
    await tv.send({"action": "take:urk", "version": 1})
    await tv.until_version(2)
    saved = await db(game)(table.game_id)
    assert await db(lambda: list(saved.moves.values_list("seat", flat=True)))() == [0, 1]


async def test_a_bot_plays_a_tv_seat_only_when_the_host_asks(screens: Screens) -> None:
    table = await db(tv_table)()
    tv = await screens.tv(table)
    await tv.until(lambda view: 'id="tv-turn" class="tv-turn"' in view)
    await db(seating.hand_to_bot)(table.game_id, table.host_key, TV)
    view = await tv.until_version(1)  # the stand-in played Ada's turn
    assert "a bot plays for Ada" in unescape(view) and "Play on the TV again" in view
    assert 'id="tv-turn" hidden' in view
    await db(seating.play_on_tv_again)(table.game_id, table.host_key, TV)
    await db(moves.play)(table.game_id, table.player(0).key, "take:wug", 1)
    view = await tv.until_version(2)
    assert 'id="tv-turn" class="tv-turn"' in view  # Ada plays at the TV again


async def test_a_look_at_a_card_reserved_face_up_is_refused(screens: Screens) -> None:
    table = await db(tv_table)()
    market_card = (await db(state_of)(table.game_id)).market[0][0]
    tv, _spectator, bob = await open_all(table, screens)
    await tv.send({"action": f"reserve:{market_card}", "version": 0})
    await tv.until_version(1)
    await bob.send({"action": "take:wug", "version": 1})
    await tv.until_version(2)
    before = await db(fingerprint)(table.game_id)
    assert "no card reserved from a deck" in await told(tv, {"look": 0, "version": 2})
    assert not [m for m in tv.log if is_look(m)]
    assert await db(fingerprint)(table.game_id) == before


async def test_the_tv_chooses_between_two_nobles(screens: Screens) -> None:
    table = await db(tv_table)()

    def two_nobles_near() -> list[int]:  # Ada's bonuses meet two nobles at her turn's end
        saved = game(table.game_id)
        assert saved.state is not None
        wanted = [noble(n).requires for n in saved.state["nobles"][:2]]
        saved.state["players"][TV]["bonuses"] = [max(a, b) for a, b in zip(*wanted, strict=True)]
        Game.objects.filter(pk=table.game_id).update(state=saved.state)
        return list(saved.state["nobles"][:2])

    choices = await db(two_nobles_near)()
    tv, _spectator, _bob = await open_all(table, screens)
    await tv.send({"action": "take:wug", "version": 0})
    panel = region(await tv.until_version(1), "tv-turn")
    assert all(f'data-action="noble:{n}"' in panel for n in choices)
    await tv.send({"action": f"noble:{choices[1]}", "version": 1})
    assert 'id="tv-turn" hidden' in await tv.until_version(2)
    assert (await db(state_of)(table.game_id)).players[TV].nobles == [choices[1]]
