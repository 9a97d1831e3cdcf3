"""The loopback client: a screen's websocket, as a phone or TV talks to the server.

A session cookie and an Origin header; the protocol (handshake, framing, masking,
answering pings, closing) is the `websockets` package's Sans-I/O `ClientProtocol`, on
a plain blocking socket the caller can wait on with select(). Nothing here connects
anywhere but 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import json
import re
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.typing import Origin
from websockets.uri import parse_uri

from game.screens.wire import HEARTBEAT, PONG

PONG_BYTES = PONG.encode()

LOOPBACK = "127.0.0.1"
SOCKET_TIMEOUT = 10.0  # seconds a screen may take to show an action before it counts as lost
VERSION = re.compile(r'id="(?:screen|hand)(?:-meta)?"[^>]*?data-version="(\d+)"')
HAND_VERSION = re.compile(r'id="hand(?:-meta)?"[^>]*?data-version="(\d+)"')
clock = time.perf_counter


class Closed(Exception):
    """The server closed the websocket (`code`: the code of its close frame, one of
    game.screens.wire's for the project's own reasons), or it broke (`code` None)."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


class ScreenSocket:
    """A blocking loopback websocket client, as a phone or TV talks to the server (a
    session cookie, an Origin header), on a plain socket the caller can wait on with
    select(). The protocol (handshake, framing, masking, answering pings, closing) is
    the `websockets` package's (its Sans-I/O ClientProtocol), with no thread of its own:
    a benchmark holds hundreds of these. One thread reads; any thread may send."""

    def __init__(self, port: int, path: str, session: str) -> None:
        self.sock = socket.create_connection((LOOPBACK, port), timeout=SOCKET_TIMEOUT)
        # What the server sent since the last reset: text messages and their bytes.
        self.messages = 0
        self.received = 0
        self.pongs = 0  # heartbeat answers, counted apart from the traffic above
        self.protocol = ClientProtocol(
            parse_uri(f"ws://{LOOPBACK}:{port}{path}"), origin=Origin(f"http://{LOOPBACK}:{port}")
        )
        self.frames: deque[Frame] = deque()  # received, not yet read
        self.ended = False
        self.lock = threading.Lock()  # the protocol's state, shared by reader and senders
        request = self.protocol.connect()
        request.headers["Cookie"] = f"sessionid={session}"
        with self.lock:
            self.protocol.send_request(request)
            self._flush()
        try:
            for _read in range(1000):
                if self.protocol.handshake_exc is not None:
                    raise Closed(f"handshake refused: {self.protocol.handshake_exc}")
                if self.protocol.state is not State.CONNECTING:
                    break
                self._pull()
            else:
                raise Closed("no handshake answer")
        except BaseException:
            with contextlib.suppress(OSError):
                self.sock.close()
            raise

    @property
    def close_code(self) -> int | None:
        """The code of the close frame the server sent, once one arrived (else None)."""
        received = self.protocol.close_rcvd
        return None if received is None else received.code

    @property
    def pending(self) -> bool:
        """Whether frames already received wait to be read (select() would not show them)."""
        return bool(self.frames)

    def _flush(self) -> None:
        """Write what the protocol has to send (the caller holds the lock)."""
        for data in self.protocol.data_to_send():
            if data:
                self.sock.sendall(data)
            else:  # the protocol's end of stream: half-close
                with contextlib.suppress(OSError):
                    self.sock.shutdown(socket.SHUT_WR)

    def _pull(self) -> None:
        """Read once from the socket and keep the frames it completed."""
        if self.ended:
            raise Closed("connection ended")
        data = self.sock.recv(65536)
        with self.lock:
            if data:
                self.protocol.receive_data(data)
            else:
                self.ended = True
                self.protocol.receive_eof()
            self._flush()  # a pong for a ping, the answer to a close
            events = self.protocol.events_received()
        self.frames.extend(event for event in events if isinstance(event, Frame))
        if not data and not self.frames:
            raise Closed("connection ended")

    def send_json(self, message: Any) -> None:
        self.send_text(json.dumps(message))

    def send_text(self, text: str) -> None:
        with self.lock:
            if self.protocol.state is not State.OPEN:
                raise Closed("the connection is closing")
            self.protocol.send_text(text.encode())
            self._flush()

    def heartbeat(self) -> None:
        """The page's heartbeat, as it sends it (game.screens.wire)."""
        self.send_text(HEARTBEAT)

    def receive(self) -> str:
        parts: list[bytes] = []
        for _frame in range(10_000):
            while not self.frames:
                self._pull()
            frame = self.frames.popleft()
            if frame.opcode is Opcode.CLOSE:
                code = self.close_code
                raise Closed(f"closed by the server with code {code}", code)
            if frame.opcode in (Opcode.TEXT, Opcode.CONT):
                parts.append(frame.data)
                if frame.fin:
                    message = b"".join(parts)
                    if message == PONG_BYTES:
                        self.pongs += 1
                    else:
                        self.messages += 1
                        self.received += len(message)
                    return message.decode()
        raise Closed("endless fragments")

    def read_until(self, found: Callable[[str], bool], until: float, what: str) -> None:
        """Read messages until one is `found`; Closed if none is by `until`."""
        for _message in range(1000):
            left = until - clock()
            if left <= 0:
                break
            self.sock.settimeout(left)
            try:
                if found(self.receive()):
                    return
            except TimeoutError:
                break
        raise Closed(f"{what} did not arrive in time")

    def wait_version(self, version: int, until: float) -> None:
        """Read messages until one shows this version or a later one."""

        def shows(message: str) -> bool:
            match = VERSION.search(message)
            return match is not None and int(match.group(1)) >= version

        self.read_until(shows, until, f"version {version}")

    def settle(self, until: float) -> None:
        """Send a heartbeat and read until its answer: whatever the server had queued for
        this screen before it (a newly connected phone shown on the TV) has arrived."""
        self.heartbeat()
        self.read_until(lambda message: message == PONG, until, "the heartbeat's answer")

    def until_version(self, version: int) -> str:
        """Return the first message whose phone hand shows exactly this version."""
        for _ in range(50):
            message = self.receive()
            match = HAND_VERSION.search(message)
            if match and int(match.group(1)) == version:
                return message
        raise AssertionError(f"version {version} never arrived")

    def readable(self, wait: float) -> bool:
        """Whether a message can be read now, or within `wait` seconds."""
        return self.pending or bool(select.select([self.sock], [], [], max(0.0, wait))[0])

    def abort(self) -> None:
        """End the connection at once both ways (a page that goes away), then close."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.close()

    def close(self) -> None:
        with contextlib.suppress(OSError), self.lock:
            if self.protocol.state is State.OPEN:
                self.protocol.send_close(1000)
                self._flush()
        with contextlib.suppress(OSError):
            self.sock.close()
