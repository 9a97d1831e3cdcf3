"""The automatic stand-in: a bot plays for a phone away on its turn, until it comes back.

The host's lobby offers waits of 15 s and more; these tests store a wait of one
second directly so they stay short, and wait for versions and timers, never for
a quiet period.
"""

from __future__ import annotations

import threading

import pytest
from pytest_django.fixtures import Settings

from game.engine.vocabulary import SeatRole
from game.models import Game, Move, Seat
from game.storage import presence
from game.writer import bot_turns, games, lobby, standin
from tests.web.helpers import Screens, Table, db, game, my_turn, open_lobby, start


@pytest.fixture(autouse=True)
def no_grace(settings: Settings) -> None:
    """A phone that leaves is away at once (test_presence covers the grace)."""
    settings.SPLENDOR_PRESENCE_GRACE = 0


@pytest.fixture(autouse=True)
def no_checks_left() -> object:
    """No check or bot turn may still run when the test's database is flushed."""
    yield None
    while standin._checks.timers() or bot_turns.scheduler.timers.timers():
        standin.cancel()
        bots = list(bot_turns.scheduler.timers.timers())
        bot_turns.scheduler.cancel()
        for timer in bots:
            if timer.ident is not None:  # started
                timer.join(30)


def _lobby_with_stand_in(seconds: int | None) -> Table:
    table = open_lobby(("Ada", "Bob"))
    lobby.set_stand_in(table.game_id, table.host_key, 15)
    Game.objects.filter(pk=table.game_id).update(stand_in_after=seconds)
    return table


def _table_with_stand_in(seconds: int | None = 1, first_player: int = 0) -> Table:
    return start(_lobby_with_stand_in(seconds), first_player)


def _seat(table: Table, position: int) -> Seat:
    return Seat.objects.get(game_id=table.game_id, position=position)


def _settle(table: Table, version: int) -> None:
    """Run the scheduled checks and bot turns until the game reaches `version`."""
    for _ in range(200):
        if game(table.game_id).version >= version:
            return
        for timer in list(standin._checks.timers()) + list(bot_turns.scheduler.timers.timers()):
            if timer.ident is not None:  # started (one being scheduled is joined next round)
                timer.join(30)
    pytest.fail(f"the game never reached version {version}")


def _consistent(table: Table) -> list[int]:
    """The seats that moved, after checking no move was made twice."""
    g = game(table.game_id)
    moves = list(Move.objects.filter(game_id=table.game_id).order_by("index"))
    assert [m.index for m in moves] == list(range(g.version))
    assert g.state == games.replay_game(g).to_dict()
    return [m.seat for m in moves]


@pytest.mark.django_db
def test_a_check_stands_in_only_for_an_away_phone_on_an_unchanged_turn() -> None:
    table = _table_with_stand_in(seconds=30)
    ada = _seat(table, 0)
    presence.arrive(table.game_id, ada.pk, "ada-phone")
    assert not standin.check(table.game_id, 0, seen_away=True)  # her phone is connected
    presence.leave("ada-phone")
    assert not standin.check(table.game_id, 7, seen_away=True)  # the game is not at that version
    assert standin.check(table.game_id, 0, seen_away=True)
    ada.refresh_from_db()
    assert ada.role == SeatRole.STAND_IN and ada.player_key == table.player(0).key
    assert not standin.check(table.game_id, 0, seen_away=True)  # a second check changes nothing


@pytest.mark.django_db
def test_a_phone_there_is_watched_on_and_one_gone_since_gets_one_more_wait() -> None:
    table = _table_with_stand_in(seconds=30)
    ada = _seat(table, 0)
    presence.arrive(table.game_id, ada.pk, "ada-phone")
    standin.cancel()
    assert not standin.check(table.game_id, 0, seen_away=False)
    assert len(standin._checks.timers()) == 1  # watched on, in case its process dies silently
    presence.leave("ada-phone")  # gone (or its row expired) since the wait began
    assert not standin.check(table.game_id, 0, seen_away=False)
    assert len(standin._checks.timers()) == 2 and _seat(table, 0).role == SeatRole.HUMAN
    assert standin.check(table.game_id, 0, seen_away=True)  # away a whole wait


@pytest.mark.django_db
def test_no_stand_in_when_the_host_left_the_option_off() -> None:
    table = _table_with_stand_in(seconds=None)
    assert not standin.check(table.game_id, 0, seen_away=True)
    assert _seat(table, 0).role == SeatRole.HUMAN


@pytest.mark.django_db(transaction=True)
def test_two_checks_of_one_turn_make_one_stand_in_and_one_move() -> None:
    table = _table_with_stand_in(seconds=30)
    standin.cancel()  # this test runs the checks itself, two at once
    results: list[bool] = []
    start_together = threading.Barrier(2)

    def check() -> None:
        start_together.wait()
        results.append(standin.check_now(table.game_id, 0, seen_away=True))

    threads = [threading.Thread(target=check) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(results) == [False, True]
    _settle(table, 1)
    assert _consistent(table) == [0]


@pytest.mark.django_db(transaction=True)
async def test_an_away_phone_gets_a_stand_in_and_takes_its_seat_back(screens: Screens) -> None:
    # Nobody connected: the writer's own timers find Ada away and let a bot play.
    table = await db(_table_with_stand_in)(1, 0)
    await db(_settle)(table, 1)
    assert (await db(_consistent)(table))[0] == 0
    tv = await screens.tv(table)
    await tv.until(lambda html: "a bot plays for Ada" in html)

    # Ada's phone comes back: she plays her seat again, and the game waits for her.
    ada = await screens.phone(table, 0)
    seat = await db(_seat)(table, 0)
    assert seat.role == SeatRole.HUMAN
    await ada.until(my_turn, timeout=30)
    await tv.until(lambda html: "a bot plays for Ada" not in html)
    waiting = await db(game)(table.game_id)
    assert (await db(_seat)(table, 1)).role == SeatRole.STAND_IN  # Bob never came

    # She leaves on her turn: after the wait a bot plays for her again.
    await ada.close()
    await tv.until_version(waiting.version + 1, timeout=30)
    seats = await db(_consistent)(table)
    assert seats[waiting.version] == 0


@pytest.mark.django_db(transaction=True)
async def test_no_stand_in_while_the_phone_is_connected(screens: Screens) -> None:
    table = await db(_lobby_with_stand_in)(1)
    ada = await screens.phone(table, 0)  # connected before the game starts
    await ada.barrier()
    await db(start)(table, 0)
    checks = list(standin._checks.timers())
    assert checks  # the start scheduled the check of Ada's turn
    await ada.until(my_turn)
    for timer in checks:  # it runs after the wait and finds her phone there
        await db(timer.join)(30)
    assert (await db(_seat)(table, 0)).role == SeatRole.HUMAN
    assert (await db(game)(table.game_id)).version == 0


@pytest.mark.django_db(transaction=True)
def test_after_a_restart_the_waits_for_away_phones_resume() -> None:
    table = _table_with_stand_in(seconds=1)
    standin.cancel()  # the old process (or a dead worker) died with its timers
    assert standin.resume_checks() == 1
    assert standin.resume_checks() == 0  # the next sweep: watched already
    _settle(table, 1)
    assert _seat(table, 0).role == SeatRole.STAND_IN
    assert _consistent(table)[0] == 0
