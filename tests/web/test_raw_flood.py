"""A client that writes frames without reading any answer, on the real server
(`manage.py runserver`, Daphne): the server ends its sockets, keeps serving another
game's screen, and logs no traceback (game.web.flow bounds what it reads and keeps).

Memory and latency are the benchmark's figures (`bench_web`'s raw flood line): printed
here, never asserted, but for a bound on memory no busy machine can reach.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect
from websockets.typing import Origin

from game.bench.client import LOOPBACK, ScreenSocket
from game.bench.loopback import (
    RawFlood,
    Server,
    free_port,
    raw_flood,
    round_trip_times,
    rss_bytes,
    serve,
)
from game.web.inbound import MAX_FRAME_BYTES
from tests.web.test_restart import BASE_DIR, SETUP, environment, run_python
from tests.workers import migrated_sqlite

SECONDS = 5.0  # of raw flood
WAIT = 30.0  # seconds for anything to arrive (a busy machine), never a figure
MB = 1024 * 1024


@dataclass
class Live:
    server: Server
    log: Path
    games: list[dict[str, Any]]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    folder = tmp_path_factory.mktemp("raw-flood")
    env = environment(folder / "splendor.sqlite3")
    migrated_sqlite(folder / "splendor.sqlite3")
    games = [json.loads(run_python(env, "-c", SETUP)) for _ in range(2)]
    log = folder / "server.log"
    port = free_port()
    argv = [sys.executable, "manage.py", "runserver", f"{LOOPBACK}:{port}", "--noreload"]
    with serve(argv, port, env, log, BASE_DIR) as server:
        yield Live(server, log, games)


def flood_in_thread(
    live: Live, kind: str, sockets: int
) -> tuple[threading.Thread, queue.Queue[RawFlood]]:
    game = live.games[1]
    targets = [(f"/ws/game/{game['code']}/seat/", str(game["sessions"][1]))]
    out: queue.Queue[RawFlood] = queue.Queue()
    thread = threading.Thread(
        target=raw_flood,
        args=(live.server.port, targets, kind, sockets, SECONDS, out),
        daemon=True,
    )
    thread.start()
    return thread, out


def test_a_raw_flood_is_ended_and_another_game_served(live: Live) -> None:
    tv_game = live.games[0]
    tv = ScreenSocket(
        live.server.port, f"/ws/game/{tv_game['code']}/table/", str(tv_game["sessions"][0])
    )
    try:
        quiet = round_trip_times(tv, 10)
        before = rss_bytes(live.server.pid)
        thread, out = flood_in_thread(live, "sync", 2)
        # Another game's TV answers all along (each heartbeat within WAIT, or Closed).
        busy = round_trip_times(tv, 1000, until=time.perf_counter() + SECONDS)
        flood = out.get(timeout=SECONDS + WAIT)
        thread.join(timeout=WAIT)
        grown = rss_bytes(live.server.pid) - before
        after = round_trip_times(tv, 5)
    finally:
        tv.close()
    print(
        f"raw flood {SECONDS:g} s from 2 sockets: {flood}; TV round trip median "
        f"{sorted(quiet)[len(quiet) // 2] * 1000:.2f} ms quiet, "
        f"{sorted(busy)[len(busy) // 2] * 1000:.2f} ms flooded; server memory "
        f"+{grown / MB:.1f} MB"
    )
    assert flood.frames > 0 and len(busy) > 0 and len(after) == 5
    # The server ended the flooding sockets (closed them for flooding, then dropped them).
    assert flood.ended >= 1, flood
    # Memory is a benchmark figure; this bound only catches a read without end (the
    # flood wrote far more than this, GBs before game.web.flow).
    assert grown < 300 * MB, grown
    text = live.log.read_text()
    assert "Traceback" not in text and " ERROR " not in text, text[-3000:]


def test_a_message_over_the_frame_limit_closes_its_socket_unread(live: Live) -> None:
    game = live.games[1]
    with connect(
        f"ws://{LOOPBACK}:{live.server.port}/ws/game/{game['code']}/seat/",
        origin=Origin(f"http://{LOOPBACK}:{live.server.port}"),
        additional_headers={"Cookie": f"sessionid={game['sessions'][1]}"},
        open_timeout=WAIT,
        max_size=None,
    ) as ws:
        assert 'id="hand"' in str(ws.recv(timeout=WAIT))  # its full view
        with pytest.raises(ConnectionClosed) as ended:
            ws.send("x" * (MAX_FRAME_BYTES + 1))
            while True:
                ws.recv(timeout=WAIT)
        # Autobahn fails such a connection by dropping it (its failByDrop), or closes it
        # with 1009 ("message too big").
        received = ended.value.rcvd
        assert received is None or received.code == 1009, ended.value
    text = live.log.read_text()
    assert "Traceback" not in text and " ERROR " not in text, text[-3000:]
