"""The path from a committed change to the screens (issue 6).

One read per change whatever the number of screens, regions sent only when they
change, presence shared through the database with expiry, bot turns scheduled
by the writer (no screen needed) and resumed after a restart, a heartbeat, and a
consumer that survives any frame.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterator
from datetime import timedelta
from html import unescape
from typing import Any
from unittest import mock

import channels.consumer
import pytest
from django.db.backends.utils import CursorWrapper
from django.utils import timezone
from pytest_django.fixtures import Settings

from game.engine import apply_action, legal_actions, parse_action
from game.engine.bot_registry import make_bot
from game.models import Game, Presence, Seat
from game.storage import presence, readmodel
from game.writer import bot_turns, games, liveness, moves
from tests.web.helpers import (
    PONG,
    Screens,
    Table,
    db,
    fingerprint,
    game,
    oob_ids,
    play_as,
    player_panel,
    started,
    state_of,
    version_of,
)

pytestmark = pytest.mark.django_db(transaction=True)


# ---------------------------------------------------------------- one read per change


class Statements:
    """Count SQL statements on every connection of the process (all threads)."""

    def __init__(self) -> None:
        self.sql: list[str] = []

    def reads_of_the_game(self) -> int:
        return sum(
            1 for q in self.sql if q.lstrip().upper().startswith("SELECT") and "game_game" in q
        )

    @staticmethod
    def counting(original: Any, sql: list[str]) -> Callable[..., Any]:
        def execute(cursor: Any, query: str, params: Any = None) -> Any:
            sql.append(str(query))
            return original(cursor, query, params)

        return execute


@pytest.fixture
def statements() -> Iterator[Statements]:
    found = Statements()
    with mock.patch.object(
        CursorWrapper, "execute", Statements.counting(CursorWrapper.execute, found.sql)
    ):
        yield found


async def _one_change(screens: Screens, statements: Statements, phones: int) -> tuple[int, int]:
    """Play one action with a TV and `phones` phones watching; return (game reads, read())."""
    table = await db(started)(("Ada", "Bob", "Cy", "Di"))
    tv = await screens.tv(table)
    watching = [tv] + [await screens.phone(table, position) for position in range(phones)]
    for screen in watching:
        await screen.until_version(0)
    await asyncio.gather(*(screen.barrier() for screen in watching))
    statements.sql.clear()
    with mock.patch.object(readmodel, "read", wraps=readmodel.read) as reads:
        await db(moves.play)(table.game_id, table.player(0).key, "take:wug", 0)
        for screen in watching:
            await screen.until_version(1)
        return statements.reads_of_the_game(), reads.call_count


async def test_a_change_is_read_once_whatever_the_number_of_screens(
    screens: Screens, statements: Statements
) -> None:
    few = await _one_change(screens, statements, phones=1)
    await screens.close_all()
    many = await _one_change(screens, statements, phones=4)
    # The writer locks and reads the game; no screen reads it again.
    assert few == many, (few, many)
    assert many[1] == 0, "a screen re-read the game after a change"
    assert many[0] <= 2


async def test_changes_committed_back_to_back_reach_the_screens_in_order(
    screens: Screens,
) -> None:
    """The writer does not wait for the sends (game.writer.notices.publish): the loop sends
    each change after the one before."""
    table = await db(started)(("Ada", "Bob"))
    tv = await screens.tv(table)
    ada = await screens.phone(table, 0)
    for screen in (tv, ada):
        await screen.until_version(0)

    def play_six() -> None:
        for version, take in enumerate(("take:wug", "take:rkw", "take:ugr") * 2):
            moves.play(table.game_id, table.player(version % 2).key, take, version)

    await db(play_six)()
    for screen in (tv, ada):
        await screen.until_version(6)
        shown = [v for v in screen.versions if v is not None]
        assert shown == sorted(shown), (screen.label, shown)


# A join QR code's drawing (game.screens.join_qr), told apart from the seats' small shapes.
JOIN_QR = '<rect fill="white" x="0" y="0" width="100%"'


# ---------------------------------------------------------------- regions


async def test_unchanged_regions_and_sheets_are_not_sent_again(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob", "Cy"))
    tv = await screens.tv(table)
    cy = await screens.phone(table, 2)
    first = await tv.receive()
    assert JOIN_QR in first, "the first view carries the join QR code"
    await cy.until_version(0)
    await db(moves.play)(table.game_id, table.player(0).key, "take:wug", 0)
    update = await cy.until_version(1)
    frame = cy.log[-1]
    # Cy was not to play before nor after: the market and its action sheets did not change.
    assert "sheet-card-" not in frame and 'id="market"' not in frame
    assert len(frame) < len(update) / 3
    assert "Bob’s turn" in unescape(update)
    # Past Latin-1 (the colour marks, the apostrophe) as character references: every
    # fragment a server remembers stays one byte a character.
    for message in cy.log + tv.log:
        message.encode("latin-1")
    await tv.until_version(1)
    assert all(JOIN_QR not in message for message in tv.log[1:]), "the QR code was sent again"
    assert "data-url" in tv.view  # the preserved QR code is still on the page


def _play_to_the_last_move(table: Table) -> tuple[str, int]:
    """Play greedy bots' moves until one is left; return it and the version it is for."""
    bots = [make_bot("greedy", seat) for seat in range(2)]
    while True:
        state = state_of(table.game_id)
        action = bots[state.current].choose(state, state.current).notation()
        after = state.copy()
        apply_action(after, parse_action(action), seat=state.current)
        if after.is_over:
            return action, state.moves
        play_as(table, action)


async def test_the_last_change_sends_the_tv_what_changed_not_its_whole_screen(
    screens: Screens,
) -> None:
    table = await db(started)(("Ada", "Bob"))
    last, version = await db(_play_to_the_last_move)(table)
    tv = await screens.tv(table)
    await tv.until_version(version)
    assert "end-screen" not in tv.view and 'id="end"' in tv.view  # its place is kept
    await db(play_as)(table, last)
    await tv.until_version(version + 1)
    frame = tv.log[-1]
    assert 'id="end-screen"' in frame and 'id="screen"' not in frame, frame[:300]
    assert "end-screen" in tv.view and "hidden data-version" in tv.view


async def test_the_tv_log_gets_only_the_new_turn_and_keeps_the_last_six(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob", "Cy", "Di"))  # seven gems a colour
    tv = await screens.tv(table)
    await tv.until_version(0)
    assert 'id="log-empty"' in tv.view
    takes = ("take:wug", "take:rkw", "take:ugr", "take:kwu", "take:grk", "take:wug", "take:rkw")
    for version, take in enumerate(takes):
        key = table.player(version % 4).key
        await db(moves.play)(table.game_id, key, take, version)
        await tv.until_version(version + 1)
        frame = tv.log[-1]
        turn = version + 1
        # The new turn goes on top of the list; the turns before it are not sent again.
        assert 'hx-swap-oob="afterbegin:#game-log-list"' in frame
        assert f'id="log-turn-{turn}"' in frame
        assert f'id="log-turn-{turn - 1}"' not in frame
        log = tv.view[tv.view.index('id="game-log-list"') :]
        shown = [int(n) for n in re.findall(r'id="log-turn-(\d+)"', log)]
        assert shown == list(range(turn, max(0, turn - 6), -1)), shown
        assert 'id="log-empty"' not in tv.view
    # What the page built from the frames is what a fresh page shows.
    fresh = await screens.tv(table)
    first = await fresh.until_version(len(takes))
    assert re.findall(r'id="log-turn-(\d+)"', first) == re.findall(r'id="log-turn-(\d+)"', tv.view)


async def test_screens_get_only_the_parts_of_their_panels_that_changed(
    screens: Screens,
) -> None:
    table = await db(started)(("Ada", "Bob", "Cy", "Di"))  # seven gems a colour
    cy = await screens.phone(table, 2)
    tv = await screens.tv(table)
    await cy.until_version(0)
    await tv.until_version(0)
    await db(moves.play)(table.game_id, table.player(0).key, "take:wug", 0)
    await cy.until_version(1)
    # The TV too: Ada's tokens, not her whole panel (her score did not change).
    await tv.until_version(1)
    assert 'id="player-0-tokens" hx-swap-oob="true"' in tv.log[-1]
    for part in ("player-0", "player-0-head", "player-0-bonuses", "player-1-tokens"):
        assert f'id="{part}"' not in tv.log[-1], part
    frame = cy.log[-1]
    # Ada's take changed three piles, Ada's and Bob's lines and the turn: only they come.
    for part in ("take-pile-white", "take-pile-blue", "take-pile-green", "line-0", "line-1"):
        assert f'id="{part}" hx-swap-oob="true"' in frame, part
    for part in ("take-pile-red", "take-pile-black", "line-2", "line-3", "my-tokens"):
        assert f'id="{part}"' not in frame, part
    assert 'id="status"' not in frame and 'id="take-picker"' not in frame
    assert 'id="my-hand"' not in frame
    # Cy's own take changes Cy's tokens in the hand, and nothing else of it.
    await db(moves.play)(table.game_id, table.player(1).key, "take:rkw", 1)
    await db(moves.play)(table.game_id, table.player(2).key, "take:ugr", 2)
    await cy.until_version(3)
    assert 'id="my-tokens" hx-swap-oob="true"' in cy.log[-1]
    assert 'id="my-hand"' not in cy.log[-1]
    # What the page built from the parts is what a fresh page shows.
    fresh = await screens.phone(table, 2)
    first = await fresh.until_version(3)
    for part in ("take-pile-white", "take-pile-red", "line-2", "status-last", "my-tokens"):
        assert _element(first, part) == _element(cy.view, part), part


def _element(page: str, element_id: str) -> str:
    """The opening tag and text of the element with this id, as a page shows it."""
    start = page.index(f'id="{element_id}"')
    start = page.rindex("<", 0, start)
    found = page[start : page.index("</", start)]
    return found.replace(' hx-swap-oob="true"', "")


async def test_a_new_card_brings_its_sheet_and_a_bought_one_takes_its_sheet_away(
    screens: Screens,
) -> None:
    table = await db(started)(("Ada", "Bob"))
    ada = await screens.phone(table, 0)
    view = await ada.until_version(0)
    market = (await db(games.load_state)(await db(game)(table.game_id))).market
    reserved = market[0][0]
    assert f'id="sheet-card-{reserved}"' in view
    await ada.send({"action": f"reserve:{reserved}", "version": 0})
    view = await ada.until_version(1)
    state = await db(games.load_state)(await db(game)(table.game_id))
    replacement = state.market[0][0]
    assert f'id="sheet-card-{replacement}"' in view, "the new card's sheet is missing"
    assert f'id="sheet-card-{reserved}"' in view, "a reserved card keeps its sheet"
    sheets = view[view.index('id="sheets"') :]
    assert sheets.count(f'id="sheet-card-{replacement}"') == 1


# ---------------------------------------------------------------- presence


async def test_a_phone_on_another_process_counts_and_a_ghost_expires(
    screens: Screens, settings: Settings
) -> None:
    table = await db(started)(("Ada", "Bob"))
    bob_seat = await db(lambda: Seat.objects.get(game_id=table.game_id, position=1).pk)()
    tv = await screens.tv(table)
    await tv.until(lambda view: "away" in player_panel(view, 1))
    # Another server process holds Bob's socket: its row is all this process knows.
    await db(presence.arrive)(table.game_id, bob_seat, "specific.other-process!abc")
    await screens.phone(table, 0)  # any presence event makes the TV look again
    shown = await tv.until(lambda view: "away" not in player_panel(view, 0))
    assert "away" not in player_panel(shown, 1)
    assert bob_seat in await db(presence.connected)(table.game_id)

    # That process died: its row is not refreshed, so the seat is reconnecting, then away.
    settings.SPLENDOR_PRESENCE_GRACE = 0
    old = timezone.now() - timedelta(seconds=presence.LIVE + 1)
    await db(lambda: Presence.objects.filter(seat_id=bob_seat).update(seen_at=old))()
    assert bob_seat not in await db(presence.present)(table.game_id)
    away = await tv.until(lambda view: "away" in player_panel(view, 1), timeout=30)
    code = await db(lambda: Seat.objects.get(pk=bob_seat).rejoin_code)()
    assert code in player_panel(away, 1)
    assert "away" not in player_panel(away, 0), "Ada's phone is still there"


async def test_a_rejoin_qr_that_went_away_is_drawn_again_when_the_phone_leaves_again(
    screens: Screens, settings: Settings
) -> None:
    settings.SPLENDOR_PRESENCE_GRACE = 0  # away as soon as the phone leaves
    table = await db(started)(("Ada", "Bob"))
    code = await db(lambda: Seat.objects.get(game_id=table.game_id, position=1).rejoin_code)()
    qr = f'id="rejoin-qr-1-{code}"'
    tv = await screens.tv(table)
    first = await tv.until(lambda view: qr in view)
    assert "<svg" in first[first.index(qr) :][:400], "the first paint draws the QR code"
    for round_ in range(2):
        bob = await screens.phone(table, 1, label=f"Bob {round_}")
        await tv.until(lambda view: qr not in view)
        await bob.close()
        await tv.until(lambda view: qr in view)
        # The QR's element was gone from the page: it comes back drawn, not empty.
        frame = tv.log[-1]
        assert "<svg" in frame[frame.index(qr) :][:400], f"round {round_}: an empty QR"


async def test_a_socket_that_dies_with_an_error_leaves_no_presence(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob"))
    bob = await screens.phone(table, 1)
    await bob.until_version(0)
    bob_seat = await db(lambda: Seat.objects.get(game_id=table.game_id, position=1).pk)()
    assert bob_seat in await db(presence.connected)(table.game_id)
    bob.communicator.future.cancel()  # the task serving the socket ends abruptly
    with pytest.raises(asyncio.CancelledError):
        await bob.communicator.future
    # The task is over, so its cleanup (in GameConsumer.__call__'s finally) has run.
    assert bob_seat not in await db(presence.connected)(table.game_id)


# ---------------------------------------------------------------- bots


def test_the_writer_plays_a_bot_turn_with_no_screen_connected() -> None:
    table = started(("Ada",), bots=1, first_player=1)
    bot_turns.scheduler.wait()  # the writer scheduled exactly the bot's move
    assert game(table.game_id).version == 1
    assert game(table.game_id).state["current"] == 0  # type: ignore[index]


def test_a_bot_turn_nobody_plays_is_swept_up(settings: Settings) -> None:
    settings.SPLENDOR_BOT_DELAY = 60  # the scheduled move would come far too late
    table = started(("Ada",), bots=1, first_player=1)
    bot_turns.scheduler.cancel()  # the server stopped before the bot moved
    # Its claim is a lease, still live: no other process takes the turn yet.
    assert bot_turns.pending() == []
    expired = timezone.now() - bot_turns.BOT_LEASE - timedelta(seconds=1)
    Game.objects.filter(pk=table.game_id).update(bot_claimed_at=expired)
    assert bot_turns.pending() == [(table.game_id, 0)]
    assert bot_turns.scheduler.sweep() == 1  # no pause: the turn has waited long enough
    bot_turns.scheduler.wait()
    assert game(table.game_id).version == 1
    assert bot_turns.pending() == []


def test_one_process_claims_a_bot_turn_and_keeps_it_while_it_renews() -> None:
    table = started(("Ada", "Bob"))
    gid = table.game_id
    claimed = bot_turns.claim(gid, 0)
    assert claimed is not None
    assert bot_turns.claim(gid, 0) is None, "a second process claimed the same turn"
    assert bot_turns.claim(gid, 5) is None, "a turn of another version"
    renewed = bot_turns.renew(gid, 0, claimed)
    assert renewed is not None and renewed >= claimed
    assert bot_turns.renew(gid, 0, claimed) is None, "renewed with an old claim"
    # Not renewed for a whole lease: its process died; another takes over, once.
    stale = timezone.now() - bot_turns.BOT_LEASE - timedelta(seconds=1)
    Game.objects.filter(pk=gid).update(bot_claimed_at=stale)
    taken = bot_turns.claim(gid, 0)
    assert taken is not None, "a dead process's claim is taken over"
    assert bot_turns.claim(gid, 0) is None
    assert bot_turns.renew(gid, 0, renewed) is None, "the dead process lost it"


def test_a_held_bot_claim_renews_again_and_again() -> None:
    """A bot that pauses and thinks for several renewals keeps its turn: each renewal
    starts from the one before."""
    table = started(("Ada", "Bob"))
    claimed = bot_turns.claim(table.game_id, 0)
    assert claimed is not None
    held = bot_turns.Claim(table.game_id, 0, claimed)
    assert [held.renew() for _ in range(4)] == [True] * 4
    assert bot_turns.claim(table.game_id, 0) is None, "another process took a held turn"
    Game.objects.filter(pk=table.game_id).update(bot_claim=None)
    assert held.renew() is False, "renewed a claim that is no longer ours"


def test_a_bot_thinks_outside_the_lock_and_a_stale_choice_is_dropped() -> None:
    table = started(("Ada",), bots=1, first_player=0)
    moves.play(table.game_id, table.player(0).key, "take:wug", 0)
    bot_turns.scheduler.cancel()
    before = fingerprint(table.game_id)
    # A move chosen on version 1 arrives after the game moved on: nothing happens.
    assert moves.play_bot_turn(table.game_id, 0) is False
    assert fingerprint(table.game_id) == before


# ---------------------------------------------------------------- the socket itself


async def test_a_ping_is_answered_with_a_tiny_frame(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob"))
    ada = await screens.phone(table, 0)
    await ada.until_version(0)
    await ada.send({"ping": True})
    assert await ada.receive() == PONG


async def test_no_message_costs_a_trip_to_the_database_thread_before_its_handler(
    screens: Screens, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Channels' dispatch checks the database connections before every message (a trip to
    the database thread, pinned in test_tuning); the consumer's handlers reach the
    database only through database_sync_to_async, which checks them itself, so no
    message pays for that trip: heartbeats, requests, actions, the screens' changes."""
    checks: list[int] = []

    async def counted() -> None:
        checks.append(1)

    monkeypatch.setattr(channels.consumer, "aclose_old_connections", counted)
    table = await db(started)(("Ada", "Bob"))
    tv = await screens.tv(table)
    ada = await screens.phone(table, 0)
    await ada.until_version(0)
    for text in ('{"ping":true}', '{"ping": true}'):  # as connection.js writes it, and spaced
        await ada.send_text(text)
        assert await ada.receive() == PONG
    await ada.send({"sync": True})
    await ada.until_version(0)
    state = await db(state_of)(table.game_id)
    await ada.send({"action": legal_actions(state)[0].notation(), "version": 0})
    await ada.until_version(1)
    await tv.until_version(1)
    assert checks == []


async def test_a_change_a_screen_never_heard_of_is_shown_at_the_next_version_check(
    screens: Screens, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between processes a change's messages can be lost (Redis pub/sub keeps nothing for
    a connection that dropped): the process's version check finds every screen behind
    and it catches up; pings alone change nothing."""
    from game.writer import notices

    table = await db(started)(("Ada", "Bob"))
    tv = await screens.tv(table)
    ada, bob = await screens.phone(table, 0), await screens.phone(table, 1)
    for screen in (tv, ada, bob):
        await screen.until_version(0)
        await screen.barrier()  # the TV hears of each phone arriving first
    monkeypatch.setattr(notices, "publish", lambda *args, **kwargs: None)  # lost on the way
    await db(moves.play)(table.game_id, table.player(0).key, "take:wug", 0)
    monkeypatch.undo()
    for phone in (ada, bob):
        assert await phone.barrier() == [], phone.label  # a ping is only answered
    assert version_of(tv.view) == 0
    await liveness.tick(check=True)  # the periodic check, now
    for screen in (tv, ada, bob):
        shown = await screen.until_version(1)
    assert 'data-my-turn="1"' in shown  # Bob's phone: his turn now


HOSTILE = [
    '{"action": "take:wug", "version": ' + "9" * 4301 + "}",
    "[" * 2000 + "]" * 2000,
    '{"a":' * 3000 + "1" + "}" * 3000,
    '{"action": "take:wug", "version": 1e400}',
    '{"action": null, "version": -1}',
    '{"sync": "yes"}',
    "\udcff",
]


async def test_no_frame_crashes_the_socket(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob"))
    tv = await screens.tv(table)
    ada = await screens.phone(table, 0)
    await ada.until_version(0)
    await tv.until(lambda view: "away" not in player_panel(view, 0))
    before = await db(fingerprint)(table.game_id)
    for text in HOSTILE:
        await ada.send_text(text)
        assert oob_ids(await ada.receive()) == ["flash"], text[:40]
    await ada.send_bytes(b"\x00\xff" * 100)
    assert oob_ids(await ada.receive()) == ["flash"]
    assert await db(fingerprint)(table.game_id) == before
    await ada.send({"action": "take:wug", "version": 0})
    # Both still connected and answering, and the move is the next thing they hear.
    heard = {"ada": await ada.before_version(1), "tv": await tv.before_version(1)}
    assert heard == {"ada": [], "tv": []}


async def test_a_flood_is_refused_politely(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob"))
    ada = await screens.phone(table, 0)
    await ada.until_version(0)
    for _ in range(100):
        await ada.send({"ping": True})
    flash = await ada.until(lambda view: "Too many messages" in view)
    assert 'id="flash"' in flash


async def test_the_flood_guard_follows_the_setting(screens: Screens, settings: Settings) -> None:
    settings.SPLENDOR_SOCKET_RATE = 0.1  # one message, then one every ten seconds
    table = await db(started)(("Ada", "Bob"))
    ada = await screens.phone(table, 0)
    await ada.until_version(0)
    await ada.send({"ping": True})
    await ada.send({"action": "take:wug", "version": 0})
    flash = await ada.until(lambda view: "Too many messages" in view)
    assert 'id="flash"' in flash
    assert (await db(game)(table.game_id)).version == 0


async def test_a_refused_frame_is_answered_in_the_screens_language(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob"))
    connected, _detail, phone = await screens.try_open(
        table.code, "seat", table.player(0).session, cookies="django_language=de"
    )
    assert connected
    await phone.until_version(0)
    await phone.send_text("not json")
    flash = await phone.receive()
    assert oob_ids(flash) == ["flash"]
    assert "Diese Aktion konnte nicht gelesen werden." in flash
