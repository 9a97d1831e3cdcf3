"""Presence the room can trust, over real websockets against the whole application.

A seat's phone is connected, "reconnecting" (silent for a few seconds, or its
socket closed, within the grace) or away (its rejoin code on the host's TV);
one task per process keeps it (game.writer.liveness) and a ping touches no database.
These tests use the server's real silence threshold (conftest relaxes it for
the others) and a short grace, and wait for what they expect with generous
timeouts. Those that wait for a phone's silence run presence on the compressed clock
(`compressed`: silent after a second, not five); a phone pings each heartbeat while
its TV is to show it connected, as a page does, so a busy machine never sees it silent
before it was shown.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
from channels.layers import get_channel_layer
from django.conf import settings as django_settings
from django.db import connection
from django.db.backends.utils import CursorWrapper
from pytest_django.fixtures import Settings

from game.models import Presence, Seat
from game.storage import presence
from game.writer import liveness, lobby, moves, notices
from tests.web.helpers import Screen, Screens, Table, db, player_panel, region, started
from tests.web.test_archive import finish

pytestmark = pytest.mark.django_db(transaction=True)

WAIT = 60  # seconds: silence takes about six, a busy machine more
# The compressed clock of the tests that wait for silence (settings.SPLENDOR_CLOCK, as
# the browser tests' servers run): the silence and the presence tick five times shorter.
CLOCK = 0.2


@pytest.fixture(autouse=True)
def real_silence(monkeypatch: pytest.MonkeyPatch) -> None:
    """A phone is silent after presence.SILENT seconds, as on the server."""
    monkeypatch.setattr(presence, "LIVE", presence.SILENT + 1.0)


@pytest.fixture
def compressed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Presence on the compressed clock: a phone is silent after presence.SILENT
    seconds, its row one tick late at most, both scaled by CLOCK (about a second)."""
    tick = django_settings.SPLENDOR_LIVENESS_TICK
    monkeypatch.setattr(presence, "LIVE", (presence.SILENT + tick) * CLOCK)
    monkeypatch.setattr(liveness, "TICK", (liveness.TICK[0] * CLOCK, liveness.TICK[1] * CLOCK))


def head(view: str, position: int) -> str:
    return player_panel(view, position)


def is_reconnecting(view: str, position: int) -> bool:
    return 'class="tag reconnecting"' in head(view, position)


def is_away(view: str, position: int) -> bool:
    return 'class="tag away"' in head(view, position)


def is_connected(view: str, position: int) -> bool:
    return not is_away(view, position) and not is_reconnecting(view, position)


def rejoin_code(table: Table, position: int) -> str:
    return Seat.objects.get(game_id=table.game_id, position=position).rejoin_code


async def shown_connected(tv: Screen, phones: dict[int, Screen]) -> str:
    """Wait until the TV shows these phones (by position) connected; then they say nothing
    more. Each phone speaks (a heartbeat, answered), the TV is brought up to date, and
    until it shows them connected each of its updates is waited for and the phones speak
    again: the presence tick that changes the TV always finds them just heard from, however
    busy the machine, and no clock paces them."""
    deadline = time.monotonic() + WAIT
    while True:
        for phone in phones.values():
            await phone.barrier()
        await tv.barrier()
        view = tv.page.html
        if view and all(is_connected(view, position) for position in phones):
            return view
        left = deadline - time.monotonic()
        assert left > 0, f"the TV never showed {sorted(phones)} connected"
        await tv.receive(left)


async def tv_and_bob(screens: Screens, table: Table) -> tuple[Screen, Screen]:
    tv = await screens.tv(table)
    bob = await screens.phone(table, 1)
    await shown_connected(tv, {1: bob})
    return tv, bob


async def test_a_silent_phone_is_reconnecting_then_away_after_the_grace(
    screens: Screens, settings: Settings, compressed: None
) -> None:
    settings.SPLENDOR_PRESENCE_GRACE = 2
    table = await db(started)(("Ada", "Bob"))
    code = await db(rejoin_code)(table, 1)
    tv, bob = await tv_and_bob(screens, table)
    # Bob's phone stops sending anything; its socket stays open.
    shown = await tv.until(lambda view: not is_connected(view, 1), timeout=WAIT)
    assert is_reconnecting(shown, 1), "a silent phone is first reconnecting"
    assert code not in shown
    assert "reconnecting" in head(shown, 1)  # in words, not only a colour
    gone = await tv.until(lambda view: is_away(view, 1), timeout=WAIT)
    assert code in head(gone, 1), "after the grace the host sees the rejoin code"
    assert "Let a bot play" in head(gone, 1)
    # It speaks again: connected once more.
    back = await shown_connected(tv, {1: bob})
    assert code not in back


async def test_a_closed_phone_is_reconnecting_at_once_and_away_after_the_grace(
    screens: Screens, settings: Settings
) -> None:
    settings.SPLENDOR_PRESENCE_GRACE = 3
    table = await db(started)(("Ada", "Bob"))
    code = await db(rejoin_code)(table, 1)
    tv, bob = await tv_and_bob(screens, table)
    await bob.close()
    shown = await tv.until(lambda view: not is_connected(view, 1))
    assert is_reconnecting(shown, 1) and code not in shown
    gone = await tv.until(lambda view: is_away(view, 1), timeout=WAIT)
    assert code in head(gone, 1)


async def test_a_phone_back_within_the_grace_never_shows_its_rejoin_code(
    screens: Screens, settings: Settings, compressed: None
) -> None:
    settings.SPLENDOR_PRESENCE_GRACE = 60
    table = await db(started)(("Ada", "Bob"))
    code = await db(rejoin_code)(table, 1)
    tv, bob = await tv_and_bob(screens, table)
    since = len(tv.log)
    # A blip: the socket closes and a new one opens (a restart, a Wi-Fi hiccup).
    await bob.close()
    await tv.until(lambda view: is_reconnecting(view, 1))
    bob = await screens.phone(table, 1, label="Bob again")
    await shown_connected(tv, {1: bob})
    # A longer one: the phone is silent for a while, then speaks again.
    await tv.until(lambda view: is_reconnecting(view, 1), timeout=WAIT)
    await shown_connected(tv, {1: bob})
    await tv.barrier()
    frames = tv.log[since:]
    assert any("reconnecting" in frame for frame in frames)
    assert all(code not in frame for frame in frames), "the TV flashed Bob's rejoin code"
    heads = [region(f, "player-1-head") for f in frames if 'id="player-1-head"' in f]
    assert heads and all('class="tag away"' not in h for h in heads)


def finished_with_rematch(table: Table) -> Table:
    """Play the game to its end through the writer, then start its rematch (the host's tap)."""
    fresh = lobby.rematch(finish(table).id, table.host_key)
    return dataclasses.replace(table, game_id=fresh.id, code=fresh.code)


async def test_the_phones_following_a_rematch_are_on_their_way_not_away(
    screens: Screens, settings: Settings
) -> None:
    """A rematch starts on the TV a moment before the phones follow it: the seats of the
    phones that were there count as reconnecting meanwhile, never away with their rejoin
    codes on show; a phone that was away is away there too."""
    settings.SPLENDOR_PRESENCE_GRACE = 60
    table = await db(started)(("Ada", "Bob", "Cy"))
    tv = await screens.tv(table)
    await screens.phone(table, 0)
    await screens.phone(table, 1)
    await tv.until(lambda view: is_connected(view, 0) and is_connected(view, 1))
    rematch = await db(finished_with_rematch)(table)
    codes = [await db(rejoin_code)(rematch, position) for position in range(3)]

    tv = await screens.tv(rematch, label="tv, rematch")
    shown = await tv.until(lambda view: is_away(view, 2))
    for position in (0, 1):
        assert is_reconnecting(shown, position) and codes[position] not in shown
    assert codes[2] in head(shown, 2), "Cy's phone was away: the host sees the code at once"
    since = len(tv.log)
    await screens.phone(rematch, 0)
    await screens.phone(rematch, 1)
    await tv.until(lambda view: is_connected(view, 0) and is_connected(view, 1))
    assert all(code not in frame for frame in tv.log[since:] for code in codes[:2])


async def test_a_phone_that_never_follows_a_rematch_is_away_after_the_grace(
    screens: Screens, settings: Settings
) -> None:
    settings.SPLENDOR_PRESENCE_GRACE = 2
    table = await db(started)(("Ada", "Bob"))
    old_tv, _bob = await tv_and_bob(screens, table)
    await screens.phone(table, 0)
    await old_tv.until(lambda view: is_connected(view, 0))
    rematch = await db(finished_with_rematch)(table)
    code = await db(rejoin_code)(rematch, 1)
    tv = await screens.tv(rematch, label="tv, rematch")
    await screens.phone(rematch, 0)
    await tv.until(lambda view: is_connected(view, 0))
    gone = await tv.until(lambda view: is_away(view, 1), timeout=WAIT)
    assert code in head(gone, 1)


class Queries:
    """Every SQL statement run in this process, in any thread."""

    def __init__(self) -> None:
        self.sql: list[str] = []

    def wrapper(self, original: Any) -> Callable[..., Any]:
        def execute(cursor: Any, query: str, params: Any = None) -> Any:
            self.sql.append(str(query))
            return original(cursor, query, params)

        return execute


async def test_a_presence_change_a_later_read_showed_is_not_read_again(
    screens: Screens, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Phones arriving together (after a restart, a Wi-Fi blip) cost their TV one read
    each only when none it began later showed them; another process's change, whose
    clock is not this one's, is always read."""
    table = await db(started)(("Ada", "Bob"))
    before_the_tv = notices.encode(notices.presence_changed(table.game_id))
    tv = await screens.tv(table)
    await tv.until(lambda view: is_away(view, 1))
    reads: list[int] = []
    read_twice = threading.Event()
    here = presence.here

    def counted(game_id: int) -> presence.Here:
        reads.append(game_id)
        if len(reads) == 2:
            read_twice.set()
        return here(game_id)

    monkeypatch.setattr(presence, "here", counted)
    layer = get_channel_layer()
    assert layer is not None
    group = notices.table_group(table.game_id)
    await layer.group_send(group, before_the_tv)  # the TV's first read showed it
    await screens.phone(table, 1)  # a change after that read: read
    await tv.until(lambda view: is_connected(view, 1))
    assert reads == [table.game_id]
    await layer.group_send(group, {**before_the_tv, "pid": -1})
    assert await asyncio.to_thread(read_twice.wait, WAIT), "never read"
    assert reads == [table.game_id] * 2


async def test_a_ping_touches_no_database(
    screens: Screens, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The process's task stays asleep: only pings run. (Before, a heartbeat refreshed
    # presence and read the version once presence.REFRESH had passed: as if always.)
    monkeypatch.setattr(liveness, "TICK", (600.0, 600.0))
    monkeypatch.setattr(presence, "REFRESH", 0.0, raising=False)
    table = await db(started)(("Ada", "Bob"))
    tv = await screens.tv(table)
    ada = await screens.phone(table, 0)
    await tv.until(lambda view: is_connected(view, 0))
    await asyncio.gather(tv.barrier(), ada.barrier())
    counted = Queries()
    with mock.patch.object(CursorWrapper, "execute", counted.wrapper(CursorWrapper.execute)):
        for _ in range(5):
            for screen in (tv, ada):
                assert await screen.barrier() == [], screen.label  # the pong alone
    assert counted.sql == []


def _in_the_tick(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the statements of each tick's database work (in the database thread)."""
    sql: list[str] = []
    work = liveness._work

    def recording(*args: Any) -> Any:
        def record(execute: Any, query: str, params: Any, many: bool, context: Any) -> Any:
            sql.append(query)
            return execute(query, params, many, context)

        with connection.execute_wrapper(record):
            return work(*args)

    monkeypatch.setattr(liveness, "_work", recording)
    return sql


async def test_a_tick_runs_one_statement_per_kind_whatever_the_number_of_sockets(
    screens: Screens, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    monkeypatch.setattr(liveness, "TICK", (600.0, 600.0))  # this test ticks by itself
    settings.SPLENDOR_SOCKETS_PER_SEAT = 5  # five sockets a player, none replaced
    sql = _in_the_tick(monkeypatch)
    table = await db(started)(("Ada", "Bob", "Cy", "Di"))
    tv = await screens.tv(table)
    phones = [
        await screens.phone(table, n % 4, label=f"phone {n}") for n in range(20)
    ]  # several screens a player: a row each
    await tv.until(lambda view: all(is_connected(view, p) for p in range(4)))
    await asyncio.gather(*(phone.barrier() for phone in phones))  # all heard since arriving
    assert await db(Presence.objects.count)() == 20

    await liveness.tick()
    kinds = [q.split()[0].upper() for q in sql]
    assert kinds == ["UPDATE", "SELECT"], sql  # the 20 rows refreshed, the TV's game read
    assert sql[0].count("WHEN") == 20
    sql.clear()
    await liveness.tick(check=True)  # nobody spoke since: no refresh
    kinds = [q.split()[0].upper() for q in sql]
    assert kinds == ["SELECT", "SELECT", "DELETE"], sql  # presence, versions, old rows
    sql.clear()
    await phones[3].barrier()
    await liveness.tick()
    assert [q.split()[0].upper() for q in sql] == ["UPDATE", "SELECT"]
    assert sql[0].count("WHEN") == 1


async def test_a_screen_that_missed_a_change_catches_up_at_the_version_check(
    screens: Screens, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between processes a change's messages can be lost (Redis pub/sub keeps nothing for
    a connection that dropped): the process's periodic version check finds every screen
    behind, and each gets its whole view."""
    monkeypatch.setattr(liveness, "CHECK", (1.0, 1.5))
    table = await db(started)(("Ada", "Bob"))
    tv = await screens.tv(table)
    ada, bob = await screens.phone(table, 0), await screens.phone(table, 1)
    for screen in (tv, ada, bob):
        await screen.until_version(0)
    with monkeypatch.context() as lost:
        lost.setattr(notices, "publish", lambda *args, **kwargs: None)  # lost on the way
        await db(moves.play)(table.game_id, table.player(0).key, "take:wug", 0)
    for screen in (tv, ada, bob):
        shown = await screen.until_version(1, timeout=WAIT)
    assert 'data-my-turn="1"' in shown  # Bob's phone: his turn now
