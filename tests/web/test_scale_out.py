"""Two server processes share one game through Redis and one PostgreSQL database.

A home server that outgrows one process runs several behind a proxy; screens of
the same game then sit on different processes. An action taken on one process
must reach every screen on the other, and only the Redis channel layer carries
it there (no process polls the database). Real `manage.py runserver` processes
on 127.0.0.1 with a throwaway database and a Redis db of their own; only
loopback is ever contacted.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest

from game.bench.client import ScreenSocket
from game.bench.scratch import postgres_database
from tests.web.test_restart import environment, run_python, server
from tests.web.test_settings import POSTGRES_URL, require_service
from tests.workers import own_redis_db

# Seconds a change may take to reach a screen on the other process.
PROPAGATION = 10.0
VERSION = re.compile(r'id="(?:screen-meta|hand-meta)"[^>]*?data-version="(\d+)"')

SETUP = r"""
import json
import django
django.setup()
from django.contrib.sessions.backends.db import SessionStore
from game.writer import lobby, seating
from game.models import new_player_key

host, ada, bob = new_player_key(), new_player_key(), new_player_key()
game = lobby.create_game(host)
seating.join_game(game.id, ada, "Ada")
seating.join_game(game.id, bob, "Bob")
lobby.start_game(game.id, host, first_player=0)
sessions = []
for key in (host, ada, bob):
    store = SessionStore()
    store["player_key"] = key
    store.create()
    sessions.append(store.session_key)
seat_ids = [seat.id for seat in game.seats.all()]
print(json.dumps({"code": game.code, "id": game.id, "sessions": sessions, "seats": seat_ids}))
"""


def throwaway_database() -> contextlib.AbstractContextManager[str]:
    """An empty PostgreSQL database on the test server, dropped afterwards."""
    return postgres_database(POSTGRES_URL, prefix="splendor_scale_")


def version_of(message: str) -> int | None:
    match = VERSION.search(message)
    return int(match.group(1)) if match else None


def next_message(screen: ScreenSocket, timeout: float) -> str | None:
    """Return the next message, or None if none starts within `timeout` seconds.

    Waiting happens in select(), after the frames already received are read.
    """
    if not screen.readable(timeout):
        return None
    screen.sock.settimeout(10)
    return screen.receive()


def barrier(screen: ScreenSocket) -> list[str]:
    """Ping and read up to the answer; return what the server sent before it."""
    screen.send_json({"ping": True})
    before: list[str] = []
    deadline = time.monotonic() + PROPAGATION
    while (message := next_message(screen, deadline - time.monotonic())) != "pong":
        assert message is not None, "no answer to a ping"
        before.append(message)
    return before


def wait_present(tv: ScreenSocket, positions: range) -> None:
    """Read the TV until every seat's panel header (where "away" shows), as last sent
    (in a whole panel, or alone when only it changed), shows its phone connected."""
    panels: dict[int, str] = {}
    deadline = time.monotonic() + PROPAGATION
    while not (len(panels) == len(positions) and all("tag away" not in p for p in panels.values())):
        message = next_message(tv, deadline - time.monotonic())
        assert message is not None, f"the TV never showed every phone present: {panels}"
        for position in positions:
            found = re.search(rf'<header id="player-{position}-head".*?</header>', message, re.S)
            if found:
                panels[position] = found.group(0)


def wait_for_version(screen: ScreenSocket, version: int, who: str) -> str:
    """Read messages until one shows `version`; fail after PROPAGATION seconds."""
    deadline = time.monotonic() + PROPAGATION
    seen: list[int | None] = []
    while (message := next_message(screen, deadline - time.monotonic())) is not None:
        seen.append(version_of(message))
        if seen[-1] == version:
            return message
    raise AssertionError(f"{who} never got version {version} (saw {seen})")


def first_view(screen: ScreenSocket) -> tuple[int, str]:
    message = screen.receive()
    version = version_of(message)
    assert version is not None, message[:500]
    return version, message


@pytest.mark.slow
def test_an_action_on_one_server_reaches_screens_on_another(tmp_path: Path) -> None:
    require_service(5432, "PostgreSQL")
    require_service(6379, "Redis")
    with own_redis_db() as layer_db, throwaway_database() as database_url:
        env = environment(tmp_path / "unused.sqlite3")  # DATABASE_URL wins over it
        env.update(DATABASE_URL=database_url, REDIS_URL=layer_db.url, SPLENDOR_HOST="127.0.0.1")
        run_python(env, "manage.py", "migrate", "--noinput", "--verbosity", "0")
        game = json.loads(run_python(env, "-c", SETUP))
        code: str = game["code"]
        host_session, ada_session, bob_session = game["sessions"]

        opened: list[ScreenSocket] = []
        with server(env, tmp_path / "a.log") as port_a, server(env, tmp_path / "b.log") as port_b:
            try:
                tv = ScreenSocket(port_b, f"/ws/game/{code}/table/", host_session)
                opened.append(tv)
                ada = ScreenSocket(port_a, f"/ws/game/{code}/seat/", ada_session)
                opened.append(ada)
                bob = ScreenSocket(port_b, f"/ws/game/{code}/seat/", bob_session)
                opened.append(bob)

                version, table = first_view(tv)
                assert 'id="screen"' in table and 'data-status="playing"' in table
                ada_version, hand = first_view(ada)
                assert ada_version == version and 'data-my-turn="1"' in hand
                bob_version, hand = first_view(bob)
                assert bob_version == version and 'data-my-turn="0"' in hand

                # The TV's process listens to the game's audience; each phone's process only
                # to its own seat's. Pub/sub channel names are global to the Redis server:
                # they carry the database number.
                prefix = f"{layer_db.prefix}__group__game-{game['id']}"
                groups = sorted(
                    name.decode()
                    for name in cast(list[bytes], layer_db.client.pubsub_channels(prefix + "*"))
                )
                seats = [f"{prefix}-seat-{seat}" for seat in game["seats"]]
                assert groups == sorted([prefix, *seats]), groups
                listeners = cast(list[tuple[bytes, int]], layer_db.client.pubsub_numsub(*groups))
                assert [count for _name, count in listeners] == [1, 1, 1], listeners

                # Presence is shared: the TV on B shows Ada, connected to A, as present.
                wait_present(tv, range(2))
                for screen in (tv, ada, bob):
                    barrier(screen)

                # Ada plays on server A; the TV and Bob on server B see it.
                ada.send_json({"action": "take:wug", "version": version})
                assert 'data-status="playing"' in wait_for_version(tv, version + 1, "TV on B")
                hand = wait_for_version(bob, version + 1, "Bob on B")
                assert 'data-my-turn="1"' in hand

                # Bob plays on server B; Ada on server A sees it.
                bob.send_json({"action": "take:rkw", "version": version + 1})
                hand = wait_for_version(ada, version + 2, "Ada on A")
                assert 'data-my-turn="1"' in hand
                wait_for_version(tv, version + 2, "TV on B")
            finally:
                for screen in opened:
                    screen.close()

        check = (
            "import json, django; django.setup(); from game.models import Game; "
            f"g = Game.objects.get(pk={game['id']}); "
            "print(json.dumps([g.version, [m.notation for m in g.moves.order_by('index')]]))"
        )
        # Stored once each, in canonical notation, by whichever process took the action.
        assert json.loads(run_python(env, "-c", check)) == [version + 2, ["take:wug", "take:wrk"]]


# The servers' clock in the presence test (settings.SPLENDOR_CLOCK): a phone is silent
# after about a second, not five; a page pings every HEARTBEAT seconds on that clock.
CLOCK = 0.2
HEARTBEAT = 2.0 * CLOCK


@contextlib.contextmanager
def heartbeats(phone: ScreenSocket) -> Iterator[None]:
    """The phone pings every heartbeat, as a page does, until the block ends (from a
    thread of its own: the test's thread reads the TV)."""
    stop = threading.Event()

    def beat() -> None:
        while True:
            phone.send_json({"ping": True})
            if stop.wait(HEARTBEAT):
                return

    thread = threading.Thread(target=beat, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def wait_head(tv: ScreenSocket, position: int, shows: str, timeout: float = 60) -> str:
    """Read the TV until the seat's panel header, as last sent, holds `shows` (or, with
    `shows` empty, neither "away" nor "reconnecting"); return that header."""
    deadline = time.monotonic() + timeout
    last = ""
    while True:
        if last and (shows in last if shows else not re.search(r"tag (away|reconnecting)", last)):
            return last
        message = next_message(tv, deadline - time.monotonic())
        assert message is not None, f"seat {position} never showed {shows!r}: {last[-300:]}"
        found = re.search(rf'<header id="player-{position}-head".*?</header>', message, re.S)
        if found:
            last = found.group(0)


@pytest.mark.slow
def test_a_phone_on_one_server_is_reconnecting_then_away_on_a_tv_on_another(
    tmp_path: Path,
) -> None:
    require_service(5432, "PostgreSQL")
    require_service(6379, "Redis")
    with own_redis_db() as layer_db, throwaway_database() as database_url:
        env = environment(tmp_path / "unused.sqlite3")  # DATABASE_URL wins over it
        env.update(DATABASE_URL=database_url, REDIS_URL=layer_db.url, SPLENDOR_HOST="127.0.0.1")
        env.update(SPLENDOR_CLOCK=str(CLOCK), SPLENDOR_PRESENCE_GRACE="3")
        run_python(env, "manage.py", "migrate", "--noinput", "--verbosity", "0")
        game = json.loads(run_python(env, "-c", SETUP))
        code: str = game["code"]
        host_session, ada_session, bob_session = game["sessions"]
        opened: list[ScreenSocket] = []
        with server(env, tmp_path / "a.log") as port_a, server(env, tmp_path / "b.log") as port_b:
            try:
                tv = ScreenSocket(port_b, f"/ws/game/{code}/table/", host_session)
                opened.append(tv)
                first_view(tv)
                # Ada's phone on A pings until the TV shows it connected, then goes
                # silent: reconnecting, then away.
                ada = ScreenSocket(port_a, f"/ws/game/{code}/seat/", ada_session)
                opened.append(ada)
                with heartbeats(ada):
                    wait_head(tv, 0, "")
                assert "rejoin" not in wait_head(tv, 0, "tag reconnecting")
                assert "rejoin" in wait_head(tv, 0, "tag away")
                # Bob's phone on A closes its socket: reconnecting at once, then away.
                bob = ScreenSocket(port_a, f"/ws/game/{code}/seat/", bob_session)
                opened.append(bob)
                with heartbeats(bob):
                    wait_head(tv, 1, "")
                bob.close()
                assert "rejoin" not in wait_head(tv, 1, "tag reconnecting")
                assert "rejoin" in wait_head(tv, 1, "tag away")
            finally:
                for screen in opened:
                    screen.close()
