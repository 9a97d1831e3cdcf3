"""A flooding socket on the real server (`manage.py runserver`, Daphne) is closed with the
project's own close code, and the server stays quiet and keeps serving the phone.

Channels' WebsocketCommunicator accepts any close code; Autobahn under Daphne accepts
only 1000 and 3000-4999 from an application. A close it refuses raises "invalid close
code" in the consumer, the socket stays open, and every further message of the flood
logged the same traceback: so this runs against a real server on 127.0.0.1, with the
`websockets` package's client, as a script on a phone would.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from game.bench.client import LOOPBACK
from game.screens.wire import Close
from game.web import limits
from tests.web.test_restart import SETUP, environment, run_python, server
from tests.workers import migrated_sqlite

# {"sync": true} from one seated phone's socket, as fast as it can send: seven times what
# crosses its limit, and few enough bytes (about 8 KB) that the kernel's buffers hold them
# all once the server stops reading the socket. 3,000 (48 KB) sometimes filled them on a
# busy machine: the client then waited in a send while the server dropped the socket
# (closeHandshakeTimeout), and the reset took the unread close frame with it.
FLOOD = 500
WAIT = 30.0  # seconds for anything to arrive (a busy machine), never a figure


@dataclass
class Live:
    port: int
    log: Path
    code: str
    sessions: list[str]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    folder = tmp_path_factory.mktemp("flood")
    env = environment(folder / "splendor.sqlite3")
    migrated_sqlite(folder / "splendor.sqlite3")
    game = json.loads(run_python(env, "-c", SETUP))
    log = folder / "server.log"
    with server(env, log) as port:
        yield Live(port, log, game["code"], game["sessions"])


def phone(live: Live, session: str) -> ClientConnection:
    """A socket of the phone with this session, as its page opens it."""
    return connect(
        f"ws://{LOOPBACK}:{live.port}/ws/game/{live.code}/seat/",
        origin=Origin(f"http://{LOOPBACK}:{live.port}"),
        additional_headers={"Cookie": f"sessionid={session}"},
        open_timeout=WAIT,
    )


def pong(ws: ClientConnection, wait: float = WAIT) -> list[str]:
    """Send a heartbeat and read until its answer; return what came before it."""
    ws.send(json.dumps({"ping": True}))
    before = []
    deadline = time.monotonic() + wait
    while (message := ws.recv(timeout=max(0.0, deadline - time.monotonic()))) != "pong":
        before.append(str(message))
    return before


def answered(live: Live, ws: ClientConnection) -> list[str]:
    """A heartbeat answered within WAIT, tried again each second (one over the phone's
    rate is dropped); what came before its answer."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            return pong(ws, wait=1.0)
        except TimeoutError:
            continue
    log = live.log.read_text(errors="replace")[-4000:]
    pytest.fail(f"the phone's other socket never answered; the server's log:\n{log}")


def test_a_flooding_socket_is_closed_with_the_projects_code_and_the_phone_served(
    live: Live,
) -> None:
    bob = live.sessions[1]
    # The same phone twice: its session, its seat, its shared rate.
    with phone(live, bob) as calm, phone(live, bob) as flooding:
        for ws in (calm, flooding):
            assert 'id="hand"' in str(ws.recv(timeout=WAIT))  # its full view
        began = time.monotonic()
        sent = 0
        answers: list[str] = []
        with pytest.raises(ConnectionClosed) as ended:
            for _ in range(FLOOD):
                flooding.send(json.dumps({"sync": True}))
                sent += 1
            while True:  # what the server answered, until its close
                answers.append(str(flooding.recv(timeout=WAIT)))
        closed_after = time.monotonic() - began
        received = ended.value.rcvd
        assert received is not None, f"no close frame from the server: {ended.value}"
        assert received.code == Close.FLOOD, received
        print(
            f"{sent} of {FLOOD} messages sent before the close, {len(answers)} answered; "
            f"closed {closed_after:.2f} s after the flood began (its limit is crossed "
            f"after about {2 * 10 + 1 + limits.FLOOD_DROPPED} messages at the default rate)"
        )

        # The phone's other socket still answers (once its shared rate has room again:
        # a heartbeat over the rate is dropped, and the next one tried), and then with
        # nothing else pending: a plain answer.
        answered(live, calm)
        assert answered(live, calm) == []

    text = live.log.read_text()
    assert "Traceback" not in text and "invalid close code" not in text, text[-3000:]
    assert " ERROR " not in text, text[-3000:]
