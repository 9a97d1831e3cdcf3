"""A game in progress survives the server being stopped and started again.

Real `manage.py runserver` processes (Daphne) on 127.0.0.1 share one SQLite
file; phones reconnect with their session cookie and play on. Only loopback
is ever contacted. A tiny standard-library websocket client keeps this test
free of extra dependencies.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from game.bench.client import LOOPBACK, Closed, ScreenSocket
from game.bench.loopback import runserver
from tests.workers import migrated_sqlite

BASE_DIR = Path(__file__).resolve().parents[2]

SETUP = r"""
import json
import django
django.setup()
from django.contrib.sessions.backends.db import SessionStore
from game.writer import lobby, moves, seating
from game.models import Game, new_player_key

host = new_player_key()
game = lobby.create_game(host)
keys = [new_player_key(), new_player_key()]
for key, name in zip(keys, ("Ada", "Bob")):
    seating.join_game(game.id, key, name)
lobby.start_game(game.id, host, first_player=0)
for text in ("take:wug", "reserve:d1", "take:urk"):
    current = Game.objects.get(pk=game.id)
    moves.play(game.id, keys[current.state["current"]], text, current.version)
sessions = []
for key in keys:
    store = SessionStore()
    store["player_key"] = key
    store.create()
    sessions.append(store.session_key)
state = Game.objects.get(pk=game.id).state
print(json.dumps({
    "code": game.code,
    "id": game.id,
    "sessions": sessions,
    "bob_blind": state["players"][1]["reserved"][0],
}))
"""

CHECK = r"""
import json, sys
import django
django.setup()
from game.writer import games
from game.models import Game

game = Game.objects.get(pk=int(sys.argv[1]))
print(json.dumps({
    "version": game.version,
    "moves": list(game.moves.order_by("index").values_list("notation", flat=True)),
    "replays": game.state == games.replay_game(game).to_dict(),
}))
"""


def environment(db_path: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(
        DJANGO_SETTINGS_MODULE="splendor_site.settings",
        SPLENDOR_DB_PATH=str(db_path),
        # The same key in every process, so a session made here is valid there.
        SPLENDOR_SECRET_KEY="restart-test-" + secrets.token_urlsafe(16),
        SPLENDOR_BOT_DELAY="0.01",
        SPLENDOR_ANALYSIS_PLAYOUTS="2",  # a finished game's story, cheaply
        SPLENDOR_ANALYSIS_LOW_PRIORITY="0",  # and soon: the tests leave no idle core
        SPLENDOR_DEBUG="0",
        PYTHONUNBUFFERED="1",
    )
    return env


def run_python(env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [sys.executable, *args],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def server(env: dict[str, str], log: Path) -> contextlib.AbstractContextManager[int]:
    """Run the real server on a free loopback port (see game.bench.loopback)."""
    return runserver(env, log, BASE_DIR)


def http_get(port: int, path: str, session: str) -> str:
    connection = http.client.HTTPConnection(LOOPBACK, port, timeout=10)
    try:
        connection.request(
            "GET", path, headers={"Host": f"{LOOPBACK}:{port}", "Cookie": f"sessionid={session}"}
        )
        response = connection.getresponse()
        assert response.status == 200, response.status
        return response.read().decode()
    finally:
        connection.close()


def test_a_game_survives_a_server_restart(tmp_path: Path) -> None:
    env = environment(tmp_path / "splendor.sqlite3")
    migrated_sqlite(tmp_path / "splendor.sqlite3")
    game = json.loads(run_python(env, "-c", SETUP))
    code: str = game["code"]
    ada_session, bob_session = game["sessions"]
    path = f"/ws/game/{code}/seat/"

    with server(env, tmp_path / "first.log") as port:
        ada = ScreenSocket(port, path, ada_session)
        bob = ScreenSocket(port, path, bob_session)
        first = bob.receive()
        assert 'data-version="3"' in first and 'data-my-turn="1"' in first
        assert f'data-card="{game["bob_blind"]}"' in first
        assert f'data-card="{game["bob_blind"]}"' not in ada.receive()
        bob.send_json({"action": "take:wgr", "version": 3})
        assert 'data-my-turn="1"' in ada.until_version(4)
    # The server is gone: its sockets are closed.
    for phone in (ada, bob):
        with pytest.raises((Closed, OSError)):
            for _ in range(10):
                phone.receive()
        phone.close()

    with server(env, tmp_path / "second.log") as port:
        page = http_get(port, f"/play/{code}/", ada_session)
        assert 'data-version="4"' in page and f'data-ws="/ws/game/{code}/seat/"' in page
        ada = ScreenSocket(port, path, ada_session)
        first = ada.receive()  # the full current view comes first
        assert 'id="status"' in first and 'id="hand"' in first
        assert 'data-version="4"' in first and 'data-my-turn="1"' in first
        bob = ScreenSocket(port, path, bob_session)
        assert f'data-card="{game["bob_blind"]}"' in bob.until_version(4)
        ada.send_json({"action": "take:wug", "version": "4"})
        assert 'data-my-turn="1"' in bob.until_version(5)
        ada.close()
        bob.close()

    stored = json.loads(run_python(env, "-c", CHECK, str(game["id"])))
    assert stored["version"] == 5
    assert stored["moves"] == ["take:wug", "reserve:d1", "take:urk", "take:wgr", "take:wug"]
    assert stored["replays"] is True
