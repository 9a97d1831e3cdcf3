"""When the server itself stumbles: crashes, dead workers, busy PostgreSQL.

Real `manage.py runserver` processes on 127.0.0.1, killed with SIGKILL as a
crash would; SQLite for the living room's single server, a throwaway PostgreSQL
database and a Redis db of their own for two workers. Waits are for the
version or condition expected, with generous timeouts; the times measured are
printed, not asserted.

A crashed process's bot turn waits for its lease to run out: the servers run on a
compressed clock (settings.SPLENDOR_CLOCK: the lease, its renewal and the sweep five
times shorter), and one test crashes a server a few times at the real lease
(`real_clock`).
"""

from __future__ import annotations

import contextlib
import ctypes
import http.client
import json
import math
import os
import re
import select
import signal
import sqlite3
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import psycopg
import pytest

from game.bench.client import LOOPBACK, ScreenSocket
from game.bench.loopback import Server, free_port, serve
from tests.web.test_restart import BASE_DIR, environment, run_python
from tests.web.test_scale_out import next_message, throwaway_database, version_of
from tests.web.test_settings import POSTGRES_URL, require_service
from tests.workers import migrated_sqlite, own_redis_db

# Seconds a crashed server's bot turn may take to be played again: the target is 10
# (a 5 s lease, a sweep every ~2 s, a restart); this only catches a turn never played.
RESUME_TIMEOUT = 60.0
# The servers' clock (settings.SPLENDOR_CLOCK) in the crash tests: a 1 s lease renewed
# every 0.3 s, a sweep every 0.2-0.6 s.
CLOCK = 0.2
POOL_SIZE = 6  # SPLENDOR_DB_POOL_SIZE of each worker in the load test

# A game of bots and people (argv[1], "hard,medium" or "human,hard"), started unless
# argv[2] is "lobby"; sessions for the host (the TV) and each person.
SETUP = r"""
import json, sys
import django
django.setup()
from django.contrib.sessions.backends.db import SessionStore
from game.writer import lobby, seating
from game.models import new_player_key

kinds = sys.argv[1].split(",")
host = new_player_key()
game = lobby.create_game(host)
keys = [host]
for kind in kinds:
    if kind == "human":
        key = new_player_key()
        seating.join_game(game.id, key, "Ada")
        keys.append(key)
    else:
        lobby.add_bot(game.id, host, kind)
if sys.argv[2:] != ["lobby"]:
    lobby.start_game(game.id, host, first_player=0)
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
from game.writer import games
from game.models import Game

found = {}
for pk in sys.argv[1:]:
    game = Game.objects.get(pk=int(pk))
    indexes = list(game.moves.order_by("index").values_list("index", flat=True))
    found[pk] = {
        "version": game.version,
        "once": indexes == list(range(game.version)),
        "replays": game.state == games.replay_game(game).to_dict(),
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


IN_MODIFY = 0x2  # <sys/inotify.h>


def stored_after(log: Path, code: str, version: int, timeout: float) -> None:
    """Wait until the server's output says it stored a version of the game after `version`
    (game.writer.changes, at SPLENDOR_LOG_LEVEL=DEBUG): read the log again each time the
    server writes it (the kernel's word, inotify), not every so often."""
    stored = re.compile(rf"Game {code}: version (\d+) stored")
    libc = ctypes.CDLL(None, use_errno=True)
    watch = libc.inotify_init1(os.O_CLOEXEC)
    if watch < 0 or libc.inotify_add_watch(watch, bytes(log), IN_MODIFY) < 0:
        raise OSError(ctypes.get_errno(), "inotify")
    deadline = time.monotonic() + timeout
    try:
        while not any(int(n) > version for n in stored.findall(log.read_text())):
            written, _, _ = select.select([watch], [], [], max(0.0, deadline - time.monotonic()))
            assert written, f"game {code}: no version after {version} stored within {timeout} s"
            os.read(watch, 64 * 1024)  # every write so far: the log is read anew
    finally:
        os.close(watch)


class Tv:
    """A table screen: every version it is shown, in the order shown."""

    def __init__(self, port: int, code: str, session: str) -> None:
        self.socket = ScreenSocket(port, f"/ws/game/{code}/table/", session)
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


def crashes(tmp_path: Path, count: int, clock: float) -> None:
    """kill -9 `count` times while a bot holds its turn (hard and medium bots, moving
    fast), on a server whose clock is `clock`, start again, a TV connected at once (or
    once the bots play again): the game moves every time, each move once, the moves
    replay, and the TV is shown every version in order (one channel layer;
    announcements from the bots' threads reach it)."""
    db_path = tmp_path / "splendor.sqlite3"
    env = environment(db_path)
    # The hard bot thinks 0.2 s: a search that holds the turn's lease while the server
    # is killed, not a strong move (twenty crashes of 0.5 s searches were a minute of CPU).
    env.update(
        SPLENDOR_BOT_DELAY="0.05",
        SPLENDOR_HARD_BOT_SECONDS="0.2",
        SPLENDOR_CLOCK=str(clock),
        SPLENDOR_LOG_LEVEL="DEBUG",  # each stored version, for stored_after
    )
    migrated_sqlite(db_path)
    db = Sqlite(db_path)
    games: list[int] = []
    times: list[float] = []
    claimed = 0
    game: dict[str, Any] = {}
    for restart in range(count):
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
                stored_after(tmp_path / f"run{restart}.log", game["code"], stalled, RESUME_TIMEOUT)
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
    print(f"crashes while a bot held its turn: {claimed} of {count}")
    assert claimed >= math.ceil(0.75 * count)
    checked = replayed(env, games)
    assert all(g["once"] and g["replays"] and g["version"] > 0 for g in checked.values()), checked


@pytest.mark.slow
def test_bot_turns_and_the_table_survive_twenty_crashes(tmp_path: Path) -> None:
    crashes(tmp_path, 20, CLOCK)


@pytest.mark.slow
@pytest.mark.real_clock
def test_bot_turns_survive_crashes_at_the_real_lease(tmp_path: Path) -> None:
    """The same at the real timings (a 5 s lease renewed every 1.5 s, a sweep every
    1-3 s): a few crashes."""
    crashes(tmp_path, 4, 1.0)


# ---------------------------------------------------------------- two workers


@contextlib.contextmanager
def two_workers(tmp_path: Path, **settings: str) -> Iterator[tuple[dict[str, str], str]]:
    """A throwaway PostgreSQL database and a Redis db of these tests' own, migrated;
    yield the workers' environment and the database's name."""
    require_service(5432, "PostgreSQL")
    require_service(6379, "Redis")
    with own_redis_db() as layer, throwaway_database() as url:
        env = environment(tmp_path / "unused.sqlite3")  # DATABASE_URL wins over it
        env.update(DATABASE_URL=url, REDIS_URL=layer.url, SPLENDOR_HOST=LOOPBACK, **settings)
        run_python(env, "manage.py", "migrate", "--noinput", "--verbosity", "0")
        yield env, url.rsplit("/", 1)[1]


# Told on the channel "lease" whenever a game's bot lease is taken or renewed: the game,
# its version, the claimed version and when (a trigger of the test's own, in its
# throwaway database, so the test waits for the workers' writes instead of polling).
LEASE_TRIGGER = """
CREATE FUNCTION tell_lease() RETURNS trigger AS $$
BEGIN
  IF NEW.bot_claimed_at IS DISTINCT FROM OLD.bot_claimed_at THEN
    PERFORM pg_notify('lease', json_build_object('game', NEW.id, 'version', NEW.version,
      'claim', NEW.bot_claim, 'at', NEW.bot_claimed_at)::text);
  END IF;
  RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER tell_lease AFTER UPDATE ON game_game FOR EACH ROW EXECUTE FUNCTION tell_lease();
"""


@contextlib.contextmanager
def lease_news(database: str) -> Iterator[psycopg.Connection[Any]]:
    """A connection listening to LEASE_TRIGGER's news (the trigger made first)."""
    url = POSTGRES_URL.rsplit("/", 1)[0] + "/" + database
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(LEASE_TRIGGER)
        db.execute("LISTEN lease")
        yield db


def renewals(news: psycopg.Connection[Any], game_id: int, version: int, count: int) -> None:
    """Wait until the lease on `version`'s bot turn has been taken or renewed `count`
    times (distinct moments), the game still at `version`."""
    seen: set[str] = set()
    for note in news.notifies(timeout=RESUME_TIMEOUT):
        lease = json.loads(note.payload)
        if lease["game"] != game_id or lease["version"] < version:
            continue
        assert lease["version"] == version, f"the bot moved before {count} leases: {lease}"
        if lease["claim"] == version:
            seen.add(lease["at"])
        if len(seen) >= count:
            return
    raise AssertionError(f"game {game_id}: {len(seen)} of {count} leases within {RESUME_TIMEOUT} s")


@pytest.mark.slow
def test_a_dead_workers_bot_turn_is_played_by_the_other_worker(tmp_path: Path) -> None:
    # The lease on the compressed clock; the hard bot thinks 2 s a move, some six of
    # its holder's renewals: long enough to be killed in the middle of it.
    with two_workers(
        tmp_path,
        SPLENDOR_BOT_DELAY="0.05",
        SPLENDOR_HARD_BOT_SECONDS="2",
        SPLENDOR_CLOCK=str(CLOCK),
    ) as (env, database):
        game = json.loads(run_python(env, "-c", SETUP, "human,hard"))
        gid, code = game["id"], game["code"]
        host_session, ada_session = game["sessions"]
        logs = (tmp_path / "a.log", tmp_path / "b.log")
        with lease_news(database) as news, worker(env, logs[0]) as a, worker(env, logs[1]) as b:
            tv = Tv(b.port, code, host_session)
            ada = ScreenSocket(a.port, f"/ws/game/{code}/seat/", ada_session)
            try:
                tv.until(0)
                ada.until_version(0)
                ada.send_json({"action": "take:wug", "version": 0})
                tv.until(1)
                # Worker A committed Ada's move and claimed the hard bot's turn; it renews
                # its lease while the bot thinks (B leaves the turn alone meanwhile).
                renewals(news, gid, 1, 2)
                crash(a)
                killed = time.monotonic()
                tv.until(2)  # B takes the turn over once A's lease runs out
                print(f"\nthe bot moved {time.monotonic() - killed:.1f} s after its worker died")
            finally:
                tv.close()
                ada.close()
            assert tv.versions == [0, 1, 2]
        checked = replayed(env, [gid])
        assert checked[str(gid)] == {"version": 2, "once": True, "replays": True}
        assert not tracebacks(*logs)


class Visitor:
    """A phone or laptop browsing one worker: its own cookies, plain HTTP/1.1."""

    CSRF = "loadtestloadtestloadtestloadtest"  # a CSRF secret (32 characters) as cookie and field

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookies = {"csrftoken": self.CSRF}
        self.statuses: list[int] = []

    def request(self, method: str, path: str, form: dict[str, str] | None = None) -> str:
        connection = http.client.HTTPConnection(LOOPBACK, self.port, timeout=60)
        origin = f"http://{LOOPBACK}:{self.port}"
        headers = {
            "Host": f"{LOOPBACK}:{self.port}",
            "Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items()),
            "Origin": origin,
            "Referer": origin + "/",
        }
        body = None
        if form is not None:
            body = urllib.parse.urlencode({**form, "csrfmiddlewaretoken": self.CSRF})
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            response.read()
            for cookie in response.msg.get_all("Set-Cookie") or []:
                name, _, rest = cookie.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
            self.statuses.append(response.status)
            return response.getheader("Location") or ""
        finally:
            connection.close()

    def visit(self, lobby: str, other_port: int, number: int) -> None:
        """Ten requests and one table socket, as someone setting up a game does."""
        self.request("GET", "/")
        host = self.request("POST", "/new/", {})
        found = re.search(r"/host/([A-Za-z]+)/", host)
        assert found, (host, self.statuses)
        code = found.group(1)
        self.request("GET", f"/host/{code}/")
        self.request("POST", f"/host/{code}/bot/", {"kind": "medium"})
        self.request("GET", f"/join/{lobby}/")
        self.request("POST", f"/join/{lobby}/", {"name": f"Guest {number}"})  # most: full
        self.request("GET", "/games/")
        self.request("GET", "/how-to-play/")
        self.request("GET", f"/play/{lobby}/")
        self.request("GET", f"/join/{code}/")
        table = ScreenSocket(other_port, f"/ws/game/{code}/table/", self.cookies["sessionid"])
        try:
            assert 'id="screen"' in table.receive()
        finally:
            table.close()


@pytest.mark.slow
def test_two_busy_workers_keep_to_their_connection_bound(tmp_path: Path) -> None:
    """1,000 mixed requests and 100 sockets on two workers: never more PostgreSQL
    connections than the two pools hold, no answer of 500, no traceback."""
    with two_workers(tmp_path, SPLENDOR_DB_POOL_SIZE=str(POOL_SIZE)) as (env, database):
        logs = (tmp_path / "a.log", tmp_path / "b.log")
        counts: list[int] = []
        done = threading.Event()

        def connections() -> int:
            with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
                row = admin.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [database]
                ).fetchone()
            assert row is not None
            return int(row[0])

        def sample() -> None:
            while not done.wait(1 / 5):  # a sampling period, not a wait for a condition
                counts.append(connections())

        with worker(env, logs[0]) as a, worker(env, logs[1]) as b:
            lobby = json.loads(run_python(env, "-c", SETUP, "human", "lobby"))["code"]
            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            visitors = [Visitor((a, b)[n % 2].port) for n in range(100)]
            try:
                with ThreadPoolExecutor(max_workers=24) as pool:
                    runs = [
                        pool.submit(v.visit, lobby, (b, a)[n % 2].port, n)
                        for n, v in enumerate(visitors)
                    ]
                    for run in runs:
                        run.result()
            finally:
                done.set()
                sampler.join()
            counts.append(connections())  # after: what the pools keep open
        statuses = [status for v in visitors for status in v.statuses]
        print(
            f"\nPostgreSQL connections: at most {max(counts)} during {len(counts)} samples, "
            f"{counts[-1]} after (bound {2 * POOL_SIZE}); answers: "
            f"{ {s: statuses.count(s) for s in sorted(set(statuses))} }"
        )
        assert len(statuses) == 1000
        assert max(counts) <= 2 * POOL_SIZE
        assert not [s for s in statuses if s >= 500]
        assert statuses.count(302) >= 200  # games made, bots added: the posts were real
        assert not tracebacks(*logs)
