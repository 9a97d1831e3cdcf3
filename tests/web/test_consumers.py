"""GameConsumer over real websockets: the full ASGI application, sessions and database.

Each screen receives only its own regions; private cards never leave their seat;
a refused action is told to the sender alone and changes nothing.
"""

from __future__ import annotations

import asyncio
from html import unescape

import pytest
from django.test import Client
from pytest_django.fixtures import Settings

from game.engine import legal_actions
from game.engine.bot_registry import make_bot
from game.engine.vocabulary import SeatRole
from game.models import Game, Move, Presence, Seat, new_player_key
from game.writer import games, lobby, seating
from tests.web.helpers import (
    Screen,
    Screens,
    card_ids,
    db,
    fingerprint,
    game,
    hand_free,
    my_turn,
    new_session,
    oob_ids,
    open_lobby,
    play_as,
    player_panel,
    region,
    shared_game,
    start,
    started,
    state_of,
    states_by_version,
    version_of,
    visible_cards,
)

pytestmark = pytest.mark.django_db(transaction=True)


async def settle(*screens: Screen) -> None:
    """Receive on every screen whatever the server sent it before a ping (see Screen.barrier)."""
    await asyncio.gather(*(screen.barrier() for screen in screens))


async def ready(tv: Screen, *others: Screen) -> None:
    """Wait until the host TV (connected first) shows every phone present, then catch up all."""
    await tv.until(lambda view: "tag away" not in view)
    await settle(tv, *others)


async def heard_before(version: int, *screens: Screen) -> dict[str, list[str]]:
    """What each screen heard before the change to `version` (see Screen.before_version)."""
    return {screen.label: await screen.before_version(version) for screen in screens}


async def everyone_sees(version: int, *screens: Screen) -> dict[str, str]:
    """Wait until every screen shows this version; return what each shows."""
    return {screen.label: await screen.until_version(version) for screen in screens}


def rejoin_code(game_id: int, position: int) -> str:
    return Seat.objects.get(game_id=game_id, position=position).rejoin_code


def assert_no_hidden_cards(game_id: int, *screens: Screen) -> int:
    """Check every message each screen received names only cards that screen may see.

    A message is checked against the game as it was at the version it shows, so
    a card still in a deck then (or blind-reserved by another seat) is a leak.
    Returns how many messages were checked.
    """
    states = states_by_version(game_id)
    checked = 0
    for screen in screens:
        for message, version in zip(screen.log, screen.versions, strict=True):
            if version is None:
                assert not card_ids(message), f"{screen.label}: {message[:200]}"
                continue
            shown = card_ids(message)
            if not shown:
                continue
            allowed = visible_cards(states[version], screen.seat)
            assert shown <= allowed, (
                f"{screen.label} saw hidden cards {sorted(shown - allowed)} at version {version}"
            )
            checked += 1
    return checked


# ---------------------------------------------------------------- who gets what


async def test_tv_and_phones_receive_their_own_regions(screens: Screens) -> None:
    table = await db(open_lobby)(("Ada", "Bob"))
    tv = await screens.tv(table)
    assert oob_ids(await tv.receive()) == ["screen"]
    ada = await screens.phone(table, 0)
    bob = await screens.phone(table, 1)
    for phone, name in ((ada, "Ada"), (bob, "Bob")):
        first = await phone.receive()
        assert oob_ids(first) == ["status", "hand"]
        assert f"You are seated, {name}." in region(first, "hand")
    await settle(tv, ada, bob)
    tv_regions = {"screen", "screen-meta", "lobby", "market", "bank", "turn-line", "last-turn"}
    for message in tv.log[1:]:
        assert set(oob_ids(message)) <= tv_regions | {f"player-{n}" for n in range(4)}
    for message in ada.log + bob.log:
        assert "screen" not in oob_ids(message) and "lobby" not in oob_ids(message)
    assert "You are seated, Bob" not in "".join(ada.log)
    assert "You are seated, Ada" not in "".join(bob.log)

    await db(start)(table)  # still version 0: wait for the table itself
    views = {
        screen.label: await screen.until(lambda view: "Ada’s turn" in unescape(view))
        for screen in (tv, ada, bob)
    }
    assert 'data-status="playing"' in views["tv"]
    assert my_turn(views["Ada"]) and not my_turn(views["Bob"])
    # The table shows the market; phones get their own controls.
    assert "Ada’s turn" in unescape(views["tv"])
    # Each phone can plan with its deck and card sheets, on its turn or not (the phone
    # enables their buttons on its own turn only; see the browser tests).
    assert 'data-action="reserve:d1"' in views["Ada"] and 'data-action="reserve:d1"' in views["Bob"]
    assert "data-turn-note" in views["Bob"]


async def test_a_move_from_a_phone_refreshes_every_screen(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob"))
    tv = await screens.tv(table)
    ada = await screens.phone(table, 0)
    bob = await screens.phone(table, 1)
    await settle(tv, ada, bob)

    await ada.send({"action": "take:wug", "version": 0})
    views = await everyone_sees(1, tv, ada, bob)
    assert "Bob’s turn" in unescape(views["tv"])
    assert my_turn(views["Bob"]) and not my_turn(views["Ada"])
    assert "Bob’s turn" in unescape(region(views["Ada"], "status"))
    assert (await db(game)(table.game_id)).version == 1

    await bob.send({"action": "take:rk", "version": "1"})  # two colours: illegal
    await bob.send({"action": "take:rkb", "version": "1"})  # "b" is no colour
    await bob.send({"action": "take:urk", "version": "1"})
    views = await everyone_sees(2, tv, ada, bob)
    assert "Ada’s turn" in unescape(views["tv"])
    assert await db(lambda: Move.objects.filter(game_id=table.game_id).count())() == 2


async def test_a_blind_reserved_card_reaches_only_its_owner(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob"))
    top = (await db(state_of)(table.game_id)).decks[0][-1]
    tv = await screens.tv(table)
    spectator = await screens.tv(table, await db(new_session)(None), label="spectator")
    ada = await screens.phone(table, 0)
    bob = await screens.phone(table, 1)
    await settle(tv, spectator, ada, bob)

    await ada.send({"action": "reserve:d1", "version": 0})
    views = await everyone_sees(1, tv, spectator, ada, bob)
    assert f'data-card="{top}"' in region(views["Ada"], "hand")
    assert "card-back" in views["tv"]
    for screen in (tv, spectator, bob):
        for message in screen.log:
            assert f'data-card="{top}"' not in message, screen.label
            assert top not in card_ids(message), screen.label
    assert await db(assert_no_hidden_cards)(table.game_id, tv, spectator, ada, bob) >= 4


async def test_no_screen_ever_sees_a_deck_card_or_another_seats_blind_card(
    screens: Screens,
) -> None:
    table = await db(started)(("Ada", "Bob", "Cy"))
    tv = await screens.tv(table)
    spectator = await screens.tv(table, await db(new_session)(None), label="spectator")
    phones = [await screens.phone(table, position) for position in range(3)]
    everyone = (tv, spectator, *phones)
    await settle(*everyone)

    scripted = ["reserve:d1", "reserve:d2", "reserve:d3", "reserve:d3", "reserve:d1"]
    chooser = make_bot("greedy", 11)
    for version in range(24):
        state = await db(state_of)(table.game_id)
        if version < len(scripted):
            action = scripted[version]
        else:
            action = chooser.choose(state, state.current).notation()
        await phones[state.current].send({"action": action, "version": version})
        await everyone_sees(version + 1, *everyone)

    final = await db(state_of)(table.game_id)
    assert any(any(p.blind) for p in final.players)
    assert sum(len(screen.log) for screen in everyone) >= 24 * len(everyone) - 2
    # Frames carry only what changed, so not every one names a card: most still do.
    assert await db(assert_no_hidden_cards)(table.game_id, *everyone) >= 24 * 2


async def test_a_shared_phone_s_blind_card_reaches_no_other_screen_nor_its_curtain(
    screens: Screens,
) -> None:
    table = await db(shared_game)(("Cy",))
    top = (await db(state_of)(table.game_id)).decks[0][-1]
    tv = await screens.tv(table)
    phone = await screens.phone(table, 0, label="Ada+Ben")
    cy = await screens.phone(table, 2)
    await settle(tv, phone, cy)
    await phone.send({"uncover": 0})
    await phone.until(lambda v: "Ada’s hand" in unescape(v))
    await phone.send({"action": "reserve:d1", "version": 0})
    view = await phone.until(lambda v: "Pass the phone to Ben" in unescape(v))
    assert top not in card_ids(view)
    for screen in (tv, cy):
        await screen.until(lambda v: 'data-version="1"' in v)
        assert all(top not in card_ids(m) for m in screen.log), screen.label
    # Ben's hand on the same phone never shows Ada's blind card either.
    await phone.send({"uncover": 1})
    view = await phone.until(lambda v: "Ben’s hand" in unescape(v))
    assert top not in card_ids(view)
    mark = len(phone.log)
    await phone.send({"cover": 0})
    await phone.send({"uncover": 0})
    view = await phone.until(lambda v: "Ada’s hand" in unescape(v))
    assert f'data-card="{top}"' in view  # her own, once she holds the phone
    curtains = [m for m in phone.log if 'id="curtain"' in m]
    assert curtains and all(hand_free(m) for m in curtains)
    assert any(top in card_ids(m) for m in phone.log[mark:])
    # Scanned as Ada's screen (Ben has no secret yet); a curtain has no version: no card.
    phone.seat = 0
    assert await db(assert_no_hidden_cards)(table.game_id, tv, cy, phone) >= 3


# ---------------------------------------------------------------- refusals


BAD_MESSAGES = {
    "out of turn": ("Bob", '{"action": "take:wug", "version": 0}'),
    "stale version": ("Ada", '{"action": "take:wug", "version": 1}'),
    "future version": ("Ada", '{"action": "take:wug", "version": 7}'),
    "version not a number": ("Ada", '{"action": "take:wug", "version": "zero"}'),
    "no version": ("Ada", '{"action": "take:wug"}'),
    "no action": ("Ada", '{"version": 0}'),
    "malformed json": ("Ada", '{"action": "take:wug", "version": 0'),
    "empty frame": ("Ada", ""),
    "json list": ("Ada", '["take:wug", 0]'),
    "json string": ("Ada", '"take:wug"'),
    "json number": ("Ada", "42"),
    "json null": ("Ada", "null"),
    "action not text": ("Ada", '{"action": ["take:wug"], "version": 0}'),
    "unreadable action": ("Ada", '{"action": "take:xyz", "version": 0}'),
    "huge action": ("Ada", '{"action": "' + "w" * 10240 + '", "version": 0}'),
    "illegal action": ("Ada", '{"action": "take:ww", "version": 0}'),
    "gold": ("Ada", '{"action": "take:y", "version": 0}'),
    "card not on table": ("Ada", '{"action": "reserve:999", "version": 0}'),
    "action from the tv": ("tv", '{"action": "take:wug", "version": 0}'),
    "action from a spectator": ("spectator", '{"action": "take:wug", "version": 0}'),
}


@pytest.mark.parametrize("case", list(BAD_MESSAGES))
async def test_a_bad_message_is_flashed_to_its_sender_only(screens: Screens, case: str) -> None:
    sender_label, text = BAD_MESSAGES[case]
    table = await db(started)(("Ada", "Bob"))
    # Bring the white pile down to two, so "take:ww" breaks the four-gem rule.
    await db(play_as)(table, "take:wug")
    await db(play_as)(table, "take:wrk")
    text = text.replace('"version": 0', '"version": 2')
    tv = await screens.tv(table)
    spectator = await screens.tv(table, await db(new_session)(None), label="spectator")
    ada = await screens.phone(table, 0)
    bob = await screens.phone(table, 1)
    everyone = {s.label: s for s in (tv, spectator, ada, bob)}
    await ready(tv, spectator, ada, bob)
    before = await db(fingerprint)(table.game_id)

    sender = everyone[sender_label]
    await sender.send_text(text)
    flash = await sender.receive()
    assert oob_ids(flash) == ["flash"], flash[:300]
    assert len(region(flash, "flash")) > len('id="flash" class="flash show">') + 10
    assert await db(fingerprint)(table.game_id) == before
    await db(play_as)(table, "take:wug")  # the next change: nothing else may come first
    # At most a fresh copy of the sender's own view comes first, at the same version.
    for message in await sender.before_version(3):
        assert version_of(message) == 2
        assert "flash" not in oob_ids(message)
    others = [screen for label, screen in everyone.items() if label != sender_label]
    heard = await heard_before(3, *others)
    assert not any(heard.values()), f"another screen heard about {case}: {heard}"


async def test_a_binary_frame_is_flashed_and_ignored(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob"))
    tv = await screens.tv(table)
    ada = await screens.phone(table, 0)
    bob = await screens.phone(table, 1)
    await ready(tv, ada, bob)
    before = await db(fingerprint)(table.game_id)
    await ada.send_bytes(b'{"action": "take:wug", "version": 0}')
    assert oob_ids(await ada.receive()) == ["flash"]
    assert await db(fingerprint)(table.game_id) == before
    await db(play_as)(table, "take:wug")  # the next change: nothing else may come first
    assert await heard_before(1, tv, bob) == {"tv": [], "Bob": []}


async def test_a_double_tap_is_played_once_and_the_second_is_flashed(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob"))
    tv = await screens.tv(table)
    ada = await screens.phone(table, 0)
    bob = await screens.phone(table, 1)
    await ready(tv, ada, bob)
    tap = {"action": "take:wug", "version": 0}
    await ada.send(tap)
    await ada.send(tap)
    await everyone_sees(1, tv, bob)
    await ada.barrier()
    flashes = [m for m in ada.log if oob_ids(m) == ["flash"]]
    assert len(flashes) == 1
    assert "moved on" in flashes[0]
    assert await db(lambda: Move.objects.filter(game_id=table.game_id).count())() == 1
    await db(play_as)(table, "take:wrk")  # the next change: nothing else may come first
    assert await heard_before(2, tv, bob) == {"tv": [], "Bob": []}


# ---------------------------------------------------------------- who may connect


async def refusal(screens: Screens, code: str, role: str, session: str | None) -> object:
    """Open a socket that must be refused; return its close code.

    A refusal is accepted first and then closed with the code, so the page hears
    the code (a close before the accept is an HTTP 403 at the handshake).
    """
    connected, _detail, screen = await screens.try_open(code, role, session)
    assert connected, "a refused socket is accepted, then closed with its code"
    closed = await screen.communicator.receive_output(timeout=15)  # a busy CI machine
    assert closed["type"] == "websocket.close", closed
    return closed.get("code")


async def test_a_seat_socket_without_a_seat_is_closed_with_4403(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob"))
    sessions = {
        "no cookie": None,
        "session without a key": await db(new_session)(None),
        "unknown key": await db(new_session)(new_player_key()),
        "the host's session": table.host_session,
        "unknown session id": "doesnotexist0123456789",
    }
    for label, session in sessions.items():
        assert await refusal(screens, table.code, "seat", session) == 4403, label


async def test_an_unknown_game_is_closed_with_4404(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob"))
    for role, session in (("table", table.host_session), ("seat", table.player(0).session)):
        assert await refusal(screens, "ZZZZZZ", role, session) == 4404, role


@pytest.mark.parametrize(
    "origin", ["http://evil.example", "http://localhost.evil.example:8000", "null", ""]
)
async def test_a_foreign_origin_is_refused(screens: Screens, origin: str) -> None:
    table = await db(started)(("Ada", "Bob"))
    for role, session in (("table", table.host_session), ("seat", table.player(0).session)):
        connected, _code, _screen = await screens.try_open(table.code, role, session, origin=origin)
        assert not connected, (role, origin)


@pytest.mark.parametrize(
    "origin",
    [
        "http://localhost:8001",  # the same host, another port: another program's page
        "http://localhost",  # the same host on port 80
        "https://localhost:8000",  # another scheme
        "http://127.0.0.1:8000",  # an allowed host, but not the one the page was served from
    ],
)
async def test_an_origin_other_than_the_pages_own_is_refused(screens: Screens, origin: str) -> None:
    table = await db(started)(("Ada", "Bob"))
    for role, session in (("table", table.host_session), ("seat", table.player(0).session)):
        connected, _code, _screen = await screens.try_open(table.code, role, session, origin=origin)
        assert not connected, (role, origin)


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "", "localhost.evil:8000"])
async def test_a_foreign_host_header_is_refused(screens: Screens, host: str) -> None:
    """As over HTTP (400): the Host must be one the server answers, the Origin to match."""
    table = await db(started)(("Ada", "Bob"))
    for role, session in (("table", table.host_session), ("seat", table.player(0).session)):
        connected, _code, _screen = await screens.try_open(
            table.code, role, session, host=host, origin=f"http://{host}"
        )
        assert not connected, (role, host)


@pytest.mark.parametrize(
    ("host", "origin"),
    [
        ("localhost:8000", "http://localhost:8000"),
        ("127.0.0.1:8000", "http://127.0.0.1:8000"),
        ("LOCALHOST:8000", "http://localhost:8000"),  # host names ignore case
        ("localhost", "http://localhost:80"),  # the default port, written or not
        ("[::1]:8000", "http://[::1]:8000"),
    ],
)
async def test_the_pages_own_origin_connects(screens: Screens, host: str, origin: str) -> None:
    table = await db(started)(("Ada", "Bob"))
    for role, session in (("table", table.host_session), ("seat", table.player(0).session)):
        connected, detail, screen = await screens.try_open(
            table.code, role, session, host=host, origin=origin
        )
        assert connected, (role, host, detail)
        assert version_of(await screen.receive()) == 0


async def test_a_room_code_in_lower_case_finds_the_game(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob"))
    connected, _detail, phone = await screens.try_open(
        table.code.lower(), "seat", table.player(1).session
    )
    assert connected
    assert version_of(await phone.receive()) == 0


# ---------------------------------------------------------------- coming back


async def test_a_phone_that_reconnects_gets_the_current_view_first(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob"))
    ada = await screens.phone(table, 0)
    await settle(ada)
    await ada.close()
    for notation in ("take:wug", "take:urk", "reserve:d2", "take:wgr"):
        await db(play_as)(table, notation)
    stored = (await db(game)(table.game_id)).version
    assert stored == 4

    again = await screens.phone(table, 0, label="Ada again")
    first = await again.receive()
    assert oob_ids(first) == ["status", "hand"]
    assert version_of(first) == stored
    assert my_turn(first)  # four moves later, Ada is to play again


async def test_a_phone_is_not_sent_a_view_it_already_shows(
    screens: Screens, settings: Settings
) -> None:
    # Another phone coming and going changes only the host's screen.
    settings.SPLENDOR_PRESENCE_GRACE = 0  # away as soon as it leaves
    table = await db(started)(("Ada", "Bob"))
    tv = await screens.tv(table)
    ada = await screens.phone(table, 0)
    bob = await screens.phone(table, 1)
    await ready(tv, ada, bob)
    await bob.close()
    await tv.until(lambda view: "away" in player_panel(view, 1))
    await screens.phone(table, 1, label="Bob again")
    await tv.until(lambda view: "away" not in player_panel(view, 1))
    await db(play_as)(table, "take:wug")  # the next change: nothing else may come first
    assert await ada.before_version(1) == []


async def test_sync_returns_the_full_view(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob"))
    tv = await screens.tv(table)
    ada = await screens.phone(table, 0)
    bob = await screens.phone(table, 1)
    await ready(tv, ada, bob)
    await db(play_as)(table, "take:wug")
    await everyone_sees(1, tv, bob)
    for screen, regions in ((tv, ["screen"]), (bob, ["status", "hand"])):
        await screen.send({"sync": True})
        view = await screen.receive()
        assert oob_ids(view) == regions
        assert version_of(view) == 1
    await db(play_as)(table, "take:wrk")  # the next change: nothing else may come first
    assert await heard_before(2, tv, bob) == {"tv": [], "Bob": []}


async def test_bots_play_by_themselves_while_a_screen_is_connected(screens: Screens) -> None:
    table = await db(started)(("Ada",), bots=1, first_player=1)
    tv = await screens.tv(table)
    ada = await screens.phone(table, 0)
    view = await ada.until_version(1)  # the bot moved first
    assert my_turn(view)
    first = await db(lambda: Move.objects.get(game_id=table.game_id, index=0))()
    assert first.seat == 1

    state = await db(state_of)(table.game_id)
    action = legal_actions(state)[0].notation()
    await ada.send({"action": action, "version": 1})
    await ada.until(lambda view: (version_of(view) or 0) > 2 and my_turn(view))
    moves = await db(
        lambda: list(Move.objects.filter(game_id=table.game_id).values_list("seat", flat=True))
    )()
    assert moves[:2] == [1, 0] and set(moves[2:]) == {1}
    g = await db(game)(table.game_id)
    assert g.state == (await db(games.replay_game)(g)).to_dict()
    await tv.until_version(g.version)


async def test_the_host_sees_who_is_away_and_their_rejoin_code(
    screens: Screens, settings: Settings
) -> None:
    settings.SPLENDOR_PRESENCE_GRACE = 0  # away as soon as it leaves (test_presence: the grace)
    table = await db(started)(("Ada", "Bob"))
    bob_code = await db(rejoin_code)(table.game_id, 1)
    tv = await screens.tv(table)
    spectator = await screens.tv(table, await db(new_session)(None), label="spectator")
    ada = await screens.phone(table, 0)
    bob = await screens.phone(table, 1)
    await ready(tv, spectator, ada, bob)
    assert "away" not in player_panel(tv.view, 1)
    assert bob_code not in tv.view

    await bob.close()
    away = await tv.until(lambda view: "away" in player_panel(view, 1))
    watching = await spectator.until(lambda view: "away" in player_panel(view, 1))
    assert "away" in player_panel(away, 1)
    assert bob_code in player_panel(away, 1)
    assert "away" not in player_panel(away, 0)
    assert "away" in player_panel(watching, 1)
    assert bob_code not in watching
    await ada.barrier()
    for screen in (spectator, ada):
        assert all(bob_code not in message for message in screen.log), screen.label

    await screens.phone(table, 1, label="Bob again")
    back = await tv.until(lambda view: "away" not in player_panel(view, 1))
    assert bob_code not in back  # a seat's code shows only while its phone is away


async def test_the_lobby_marks_away_seats_for_the_host(screens: Screens) -> None:
    table = await db(open_lobby)(("Ada", "Bob"))
    tv = await screens.tv(table)
    await settle(tv)
    assert tv.view.count("tag away") == 2
    await screens.phone(table, 0)
    seen = await tv.until(lambda view: view.count("tag away") == 1)
    assert 'id="add-bot"' in seen


async def test_a_spectator_table_gets_no_host_controls(screens: Screens) -> None:
    table = await db(open_lobby)(("Ada", "Bob"))
    spectator = await screens.tv(table, await db(new_session)(new_player_key()), "spectator")
    view = await spectator.receive()
    assert oob_ids(view) == ["screen"]
    assert 'id="add-bot"' not in view and 'id="start-game"' not in view
    assert "csrfmiddlewaretoken" not in view
    assert table.code in view


async def test_names_are_escaped_on_every_screen(screens: Screens) -> None:
    table = await db(open_lobby)(('<img src=x onerror="alert(1)">', "Bob"))
    tv = await screens.tv(table)
    phone = await screens.phone(table, 0)
    await settle(tv, phone)
    for message in tv.log + phone.log:
        assert "<img src=x" not in message
    assert "&lt;img src=x" in tv.view


async def test_the_host_screen_forms_carry_a_csrf_token_django_accepts(screens: Screens) -> None:
    table = await db(open_lobby)(("Ada",))
    secret = "a" * 16 + "B" * 16  # the shape of Django's CSRF cookie
    connected, _detail, tv = await screens.try_open(
        table.code, "table", table.host_session, cookies=f"csrftoken={secret}"
    )
    assert connected
    lobby = await tv.receive()
    assert f'name="csrfmiddlewaretoken" value="{secret}"' in lobby
    _connected, _detail, spectator = await screens.try_open(
        table.code, "table", None, cookies=f"csrftoken={secret}", label="spectator"
    )
    assert secret not in await spectator.receive()

    def post_add_bot() -> int:
        browser = Client(enforce_csrf_checks=True)
        browser.cookies["sessionid"] = table.host_session
        browser.cookies["csrftoken"] = secret
        url = f"/host/{table.code}/bot/"
        assert browser.post(url, {"kind": "greedy"}).status_code == 403
        return browser.post(url, {"kind": "greedy", "csrfmiddlewaretoken": secret}).status_code

    assert await db(post_add_bot)() == 302
    assert (
        await db(lambda: Seat.objects.filter(game_id=table.game_id, role=SeatRole.BOT).count())()
        == 1
    )
    assert "Bot 1" in await tv.until(lambda message: "Bot 1" in message)


async def test_two_sockets_for_one_seat(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob"))
    tv = await screens.tv(table)
    ada = await screens.phone(table, 0)
    bob = await screens.phone(table, 1)
    bob_tab = await screens.phone(table, 1, label="Bob's second tab")
    await ready(tv, ada, bob, bob_tab)
    # Closing one tab leaves the seat present.
    await bob_tab.close()
    await db(play_as)(table, "take:wug")  # the next change: nothing else may come first
    assert await tv.before_version(1) == []
    views = await everyone_sees(1, tv, bob)
    assert "away" not in player_panel(views["tv"], 1)

    # Two tabs of one seat tapping at once: one action is played, the other is flashed.
    bob_tab = await screens.phone(table, 1, label="Bob's tab again")
    await ready(tv, ada, bob, bob_tab)
    tap = {"action": "take:urk", "version": 1}
    await asyncio.gather(bob.send(tap), bob_tab.send(tap))
    await everyone_sees(2, tv, ada, bob, bob_tab)
    await settle(bob, bob_tab)
    flashes = [m for m in bob.log + bob_tab.log if oob_ids(m) == ["flash"]]
    assert len(flashes) == 1
    assert await db(lambda: Move.objects.filter(game_id=table.game_id).count())() == 2


async def test_a_bot_that_starts_moves_while_screens_wait(screens: Screens) -> None:
    table = await db(open_lobby)(("Ada",), bots=1)
    tv = await screens.tv(table)
    ada = await screens.phone(table, 0)
    await ready(tv, ada)
    await db(start)(table, 1)  # the bot is first
    assert my_turn(await ada.until_version(1))
    assert (await db(state_of)(table.game_id)).current == 0


async def test_a_game_of_bots_is_played_to_the_end_on_the_tv(
    screens: Screens, settings: Settings
) -> None:
    settings.SPLENDOR_BOT_DELAY = 0
    table = await db(open_lobby)((), bots=2)
    await db(start)(table, 0)
    tv = await screens.tv(table)
    end = await tv.until(lambda view: 'data-status="over"' in view, timeout=60)
    g = await db(game)(table.game_id)
    assert g.status == Game.Status.OVER
    assert version_of(end) == g.version
    assert g.state == (await db(games.replay_game)(g)).to_dict()
    assert await db(assert_no_hidden_cards)(table.game_id, tv) > 0


# ---------------------------------------------------------------- seats that move


async def test_after_a_seat_is_removed_each_phone_still_shows_its_own_seat(
    screens: Screens,
) -> None:
    table = await db(open_lobby)(("Ada", "Bob", "Cy"))
    ada = await screens.phone(table, 0)
    bob = await screens.phone(table, 1)
    cy = await screens.phone(table, 2)
    await settle(ada, bob, cy)

    await db(lobby.remove_seat)(table.game_id, table.host_key, 1)  # Bob leaves
    table.players = [table.player(0), table.player(2)]
    table.players[1].position = 1
    await bob.until(lambda view: "no longer holds a seat" in view)
    await settle(ada, cy)
    assert "You are seated, Cy." in region(cy.view, "hand"), "Cy's phone lost its seat"
    assert "You are seated, Cy." not in bob.view, "Bob's phone shows Cy's seat"

    # Once the game runs, Cy's private card must reach Cy's phone, and only it.
    await db(start)(table)
    top = (await db(state_of)(table.game_id)).decks[1][-1]
    await db(play_as)(table, "take:wug")  # Ada
    await db(play_as)(table, "reserve:d2")  # Cy, now at position 1
    await everyone_sees(2, ada, cy)
    await settle(bob)
    assert top in card_ids(region(cy.view, "my-hand")), "Cy does not see the card Cy reserved"
    assert all(top not in card_ids(m) for m in bob.log), "a removed phone saw Cy's card"


async def test_a_phone_that_lost_its_seat_to_a_rejoin_stops_seeing_the_hand(
    screens: Screens,
) -> None:
    table = await db(started)(("Ada", "Bob"))
    old_phone = await screens.phone(table, 1, label="Bob's old phone")
    await settle(old_phone)
    # The old phone's socket outlived its process's presence (a crashed worker, say):
    # the seat reads as away, so its code may be used while that socket still listens.
    await db(Presence.objects.filter(game_id=table.game_id).delete)()
    code = await db(rejoin_code)(table.game_id, 1)
    new_key = new_player_key()
    new_session_key = await db(new_session)(new_key)
    await db(seating.rejoin)(table.game_id, new_key, code)
    connected, _detail, new_phone = await screens.try_open(
        table.code, "seat", new_session_key, label="Bob's new phone", seat=1
    )
    assert connected
    await old_phone.until(lambda view: "no longer holds a seat" in view)
    await settle(new_phone)

    top = (await db(state_of)(table.game_id)).decks[2][-1]
    await db(play_as)(table, "take:wug")  # Ada
    await new_phone.until_version(1)
    await new_phone.send({"action": "reserve:d3", "version": 1})
    view = await new_phone.until_version(2)
    await settle(old_phone)
    assert top in card_ids(region(view, "my-hand"))
    assert all(top not in card_ids(m) for m in old_phone.log), "the old phone saw the card"
    # And it cannot play for the seat any more.
    before = await db(fingerprint)(table.game_id)
    await old_phone.send({"action": "take:wug", "version": 2})
    assert oob_ids(await old_phone.receive()) == ["flash"]
    assert await db(fingerprint)(table.game_id) == before


async def test_the_game_over_screen_reaches_everyone(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob"), first_player=0)
    tv = await screens.tv(table)
    ada = await screens.phone(table, 0)
    bob = await screens.phone(table, 1)
    await settle(tv, ada, bob)

    def finish() -> int:
        chooser = make_bot("greedy", 5)
        for _ in range(400):
            g = game(table.game_id)
            if g.status == Game.Status.OVER:
                return g.version
            state = state_of(g.id)
            play_as(table, chooser.choose(state, state.current).notation())
        raise AssertionError("no end")

    end = await db(finish)()
    views = await everyone_sees(end, tv, ada, bob)
    assert 'data-status="over"' in views["tv"]
    assert 'id="rematch"' in views["tv"]
    assert "Game over" in region(views["Ada"], "status")
    fresh = await db(lobby.rematch)(table.game_id, table.host_key)
    await tv.until(lambda view: f'data-redirect="/host/{fresh.code}/"' in view)
    await ada.until(lambda view: f'data-redirect="/play/{fresh.code}/"' in view)
    await bob.until(lambda view: f'data-redirect="/play/{fresh.code}/"' in view)
