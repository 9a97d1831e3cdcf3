"""When the server itself stumbles: crashes, dead workers, busy PostgreSQL.

Real `manage.py runserver` processes on 127.0.0.1, killed with SIGKILL as a
crash would; SQLite for the living room's single server, a throwaway PostgreSQL
database and a Redis db of their own for two workers. Waits are for the
version or condition expected, with generous timeouts; the times measured are
printed, not asserted.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from game.management.loopback import LOOPBACK, MiniWebSocket, Server, free_port, serve
from tests.web.test_restart import BASE_DIR, environment, run_python
from tests.web.test_scale_out import next_message, version_of

# A Redis db index of these tests' own, emptied afterwards.
REDIS_DB = 10
REDIS_URL = f"redis://127.0.0.1:6379/{REDIS_DB}"
# Seconds a crashed server's bot turn may take to be played again: the target is 10
# (a 5 s lease, a sweep every ~2 s, a restart); this only catches a turn never played.
RESUME_TIMEOUT = 60.0
POOL_SIZE = 6  # SPLENDOR_DB_POOL_SIZE of each worker in the load test

# Two bots (or a phone and a bot); sessions for the host (the TV) and each person.
SETUP = r"""
import json, sys
import django
django.setup()
from django.contrib.sessions.backends.db import SessionStore
from game import services
from game.models import new_player_key

kinds = sys.argv[1].split(",")
host = new_player_key()
game = services.create_game(host)
keys = [host]
for kind in kinds:
    if kind == "human":
        key = new_player_key()
        services.join_game(game.id, key, "Ada")
        keys.append(key)
    else:
        services.add_bot(game.id, host, kind)
services.start_game(game.id, host, first_player=0)
sessions = []
for key in keys:
    store = SessionStore()
    store["player_key"] = key
    store.create()
    sessions.append(store.session_key)
print(json.dumps({"code": game.code, "id": game.id, "sessions": sessions}))
"""

CHECK = r"""
import json, sys
import django
django.setup()
from game import services
from game.models import Game

found = {}
for pk in sys.argv[1:]:
    game = Game.objects.get(pk=int(pk))
    indexes = list(game.moves.order_by("index").values_list("index", flat=True))
    found[pk] = {
        "version": game.version,
        "once": indexes == list(range(game.version)),
        "replays": game.state == services.replay_game(game).to_dict(),
    }
print(json.dumps(found))
"""


@contextlib.contextmanager
def worker(env: dict[str, str], log: Path) -> Iterator[Server]:
    """One real server process (runserver, Daphne) on a free loopback port."""
    port = free_port()
    argv = [sys.executable, "manage.py", "runserver", f"{LOOPBACK}:{port}", "--noreload"]
    with serve(argv, port, env, log, BASE_DIR) as server:
        yield server


def crash(server: Server) -> None:
    """SIGKILL: no clean-up of any kind, as a laptop that loses power."""
    os.kill(server.pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(server.pid, 0)


def tracebacks(*logs: Path) -> list[str]:
    return [
        f"{log.name}: {log.read_text()[-3000:]}" for log in logs if "Traceback" in log.read_text()
    ]


def replayed(env: dict[str, str], games: list[int]) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(run_python(env, "-c", CHECK, *map(str, games)))
    return found


# ---------------------------------------------------------------- one server, crashes


class Sqlite:
    """Read the server's SQLite file as another process would (WAL: never blocks it)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def row(self, game_id: int) -> tuple[int, int | None, str | None, str]:
        with contextlib.closing(sqlite3.connect(self.path, timeout=30)) as db:
            found = db.execute(
                "SELECT version, bot_claim, bot_claimed_at, status FROM game_game WHERE id = ?",
                (game_id,),
            ).fetchone()
        assert found is not None
        return found[0], found[1], found[2], found[3]

    def wait(self, game_id: int, what: str, until: Any, timeout: float) -> tuple[Any, ...]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            row = self.row(game_id)
            if until(row):
                return row
            time.sleep(1)
        raise AssertionError(f"game {game_id}: {what} within {timeout} s (last {row})")


class Tv:
    """A table screen: every version it is shown, in the order shown."""

    def __init__(self, port: int, code: str, session: str) -> None:
        self.socket = MiniWebSocket(port, f"/ws/game/{code}/table/", session)
        self.versions: list[int] = []

    def until(self, version: int, timeout: float = RESUME_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while not self.versions or self.versions[-1] < version:
            message = next_message(self.socket, deadline - time.monotonic())
            assert message is not None, f"the TV never showed version {version}: {self.versions}"
            shown = version_of(message)
            if shown is not None and (not self.versions or shown != self.versions[-1]):
                self.versions.append(shown)

    def close(self) -> None:
        self.socket.close()


def every_version_in_order(versions: list[int]) -> bool:
    return versions == list(range(versions[0], versions[0] + len(versions)))


@pytest.mark.slow
def test_bot_turns_and_the_table_survive_twenty_crashes(tmp_path: Path) -> None:
    """kill -9 while a bot holds its turn (hard and medium bots, moving fast), start
    again, a TV connected at once (or once the bots play again): the game moves
    every time, each move once, the moves replay, and the TV is shown every version
    in order (one channel layer; announcements from the bots' threads reach it)."""
    db_path = tmp_path / "splendor.sqlite3"
    env = environment(db_path)
    env.update(SPLENDOR_BOT_DELAY="0.05", SPLENDOR_HARD_BOT_SECONDS="0.5")
    run_python(env, "manage.py", "migrate", "--noinput", "--verbosity", "0")
    db = Sqlite(db_path)
    games: list[int] = []
    times: list[float] = []
    claimed = 0
    game: dict[str, Any] = {}
    for restart in range(20):
        # A game between bots lasts some 60 moves: a new one now and then.
        if restart % 4 == 0 or db.row(games[-1])[3] != "playing":
            game = json.loads(run_python(env, "-c", SETUP, "hard,medium"))
            games.append(game["id"])
        gid = game["id"]
        stalled = db.row(gid)[0]
        with worker(env, tmp_path / f"run{restart}.log") as server:
            started = time.monotonic()
            late = restart % 2 == 1  # the bots play again before any screen connects
            if late:
                db.wait(
                    gid, "a move after the restart", lambda r, s=stalled: r[0] > s, RESUME_TIMEOUT
                )
            tv = Tv(server.port, game["code"], game["sessions"][0])
            try:
                tv.until(stalled + 1)
                if not late:
                    times.append(time.monotonic() - started)
                tv.until(tv.versions[-1] + 3)
                # Crash while a bot holds the turn (its lease is in the game's row): it
                # nearly always does, as each move's writer claims the next at once.
                for _ in range(20):
                    version, claim, _at, _status = db.row(gid)
                    if claim == version:
                        break
                    tv.until(version + 1)
                crash(server)
            finally:
                tv.close()
            assert every_version_in_order(tv.versions), tv.versions
            version, claim, _at, status = db.row(gid)
            claimed += claim == version and status == "playing"
    assert not tracebacks(*tmp_path.glob("run*.log"))
    print(f"\nfirst move after a crash and restart, seconds: {[round(t, 1) for t in times]}")
    print(f"crashes while a bot held its turn: {claimed} of 20")
    assert claimed >= 15
    checked = replayed(env, games)
    assert all(g["once"] and g["replays"] and g["version"] > 0 for g in checked.values()), checked
