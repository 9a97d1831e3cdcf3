"""Loopback tools for the web benchmark and the server tests.

`runserver` starts the real server (Daphne via runserver) on a free 127.0.0.1
port; `MiniWebSocket` is just enough of RFC 6455 (text frames, ping, close) to
talk to it as a phone or TV would, with a session cookie and an Origin header,
using only the standard library. Nothing here connects anywhere but 127.0.0.1.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import re
import secrets
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

LOOPBACK = "127.0.0.1"
SOCKET_TIMEOUT = 10.0  # seconds a screen may take to show an action before it counts as lost
WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
VERSION = re.compile(r'id="(?:screen-meta|hand-meta)"[^>]*?data-version="(\d+)"')
HAND_VERSION = re.compile(r'id="hand-meta"[^>]*?data-version="(\d+)"')
clock = time.perf_counter


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def runserver(env: dict[str, str], log: Path, cwd: Path, cpu: int | None = None) -> Iterator[int]:
    """Run `manage.py runserver` on a free loopback port; stop it with SIGTERM, then SIGKILL.

    Raises RuntimeError (with the end of the server's log) if it exits or does
    not listen within 30 s. `cpu` pins the server to one core where possible.
    """
    port = free_port()
    with log.open("w") as output:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"{LOOPBACK}:{port}", "--noreload"],
            cwd=cwd,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
        try:
            if cpu is not None and hasattr(os, "sched_setaffinity"):
                with contextlib.suppress(OSError):
                    os.sched_setaffinity(process.pid, {cpu})
            _wait_until_listening(process, port, log)
            yield port
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)


def _wait_until_listening(process: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited:\n{log.read_text()[-3000:]}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the server did not start:\n{log.read_text()[-3000:]}")
        with contextlib.suppress(OSError), socket.create_connection((LOOPBACK, port), 0.2):
            return
        time.sleep(0.1)


class Closed(Exception):
    """The server closed the websocket, or it broke."""


class MiniWebSocket:
    """Just enough of RFC 6455 for a loopback client: text frames, ping, close."""

    def __init__(self, port: int, path: str, session: str) -> None:
        self.sock = socket.create_connection((LOOPBACK, port), timeout=SOCKET_TIMEOUT)
        self.buffer = b""
        key = base64.b64encode(secrets.token_bytes(16)).decode()
        request = (
            f"GET {path} HTTP/1.1\r\nHost: {LOOPBACK}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: http://{LOOPBACK}:{port}\r\nCookie: sessionid={session}\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk or len(head) > 65536:
                raise Closed(f"no handshake answer: {head[:200]!r}")
            head += chunk
        head, self.buffer = head.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n", 1)[0] + b" ":
            raise Closed(f"handshake refused: {head[:200]!r}")
        accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
        if f"sec-websocket-accept: {accept}".lower() not in head.decode("latin-1").lower():
            raise Closed("bad Sec-WebSocket-Accept")

    def _read(self, count: int) -> bytes:
        while len(self.buffer) < count:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise Closed("connection ended")
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def _frame(self, opcode: int, payload: bytes) -> None:
        mask = secrets.token_bytes(4)
        length = len(payload)
        if length < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | length)
        elif length < 65536:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, length)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, length)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def send_json(self, message: Any) -> None:
        self._frame(0x1, json.dumps(message).encode())

    def receive(self) -> str:
        parts: list[bytes] = []
        for _frame in range(10_000):
            first, second = self._read(2)
            opcode, length = first & 0x0F, second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", self._read(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", self._read(8))
            payload = self._read(length)  # servers do not mask
            if opcode == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                raise Closed(f"closed by the server with code {code}")
            if opcode == 0x9:
                self._frame(0xA, payload)
            elif opcode in (0x0, 0x1):
                parts.append(payload)
                if first & 0x80:
                    return b"".join(parts).decode()
        raise Closed("endless fragments")

    def wait_version(self, version: int, until: float) -> None:
        """Read messages until one shows this version or a later one."""
        for _message in range(1000):
            left = until - clock()
            if left <= 0:
                break
            self.sock.settimeout(left)
            try:
                match = VERSION.search(self.receive())
            except TimeoutError:
                break
            if match and int(match.group(1)) >= version:
                return
        raise Closed(f"version {version} did not arrive in time")

    def until_version(self, version: int) -> str:
        """Return the first message whose phone hand shows exactly this version."""
        for _ in range(50):
            message = self.receive()
            match = HAND_VERSION.search(message)
            if match and int(match.group(1)) == version:
                return message
        raise AssertionError(f"version {version} never arrived")

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._frame(0x8, struct.pack("!H", 1000))
        with contextlib.suppress(OSError):
            self.sock.close()
