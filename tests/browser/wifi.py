"""A phone's own Wi-Fi for the fault tests: a SOCKS5 relay on loopback that its browser
context talks through, which can go down and come back.

Down, it holds what either side sends on a connection already open (a link that has
gone: the server and the page hear nothing, and nothing is closed) and refuses new
connections at once (a page's new socket fails, as with no network). Up again, what it
held flows on. Cut, it also ends every connection open (an access point that dropped the
phone: both sides see their sockets close). The page learns that the network went and
came back from the browser (`navigator.onLine`, its "offline" and "online" events:
DevTools' Network.overrideNetworkState), as a phone's browser tells it.

Why not Playwright's `set_offline`: Chromium's offline emulation holds an open
WebSocket inside its network service, which then spins a whole core for as long as the
page is offline (seen with Chromium 156: 160 CPU-s of a test run, a core lost to the
other tests for minutes at the real timings). A relay holding the bytes costs nothing.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Any

LOOPBACK = "127.0.0.1"
# SOCKS5 (RFC 1928): no authentication; CONNECT's replies.
NO_AUTH = b"\x05\x00"
SUCCEEDED = b"\x05\x00\x00\x01" + bytes(6)
NETWORK_UNREACHABLE = b"\x05\x03\x00\x01" + bytes(6)
IPV4, DOMAIN, IPV6 = 1, 3, 4


class Wifi:
    """The relay; `proxy` is the browser context's proxy option."""

    def __init__(self) -> None:
        self.listener = socket.create_server((LOOPBACK, 0))
        self.port = self.listener.getsockname()[1]
        self.link = threading.Event()  # set: the network is up
        self.link.set()
        self.closed = False
        self.open: set[_Ends] = set()  # the connections it carries
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def proxy(self) -> dict[str, Any]:
        # "<-loopback>": Chromium sends even loopback traffic through the proxy.
        return {"server": f"socks5://{LOOPBACK}:{self.port}", "bypass": "<-loopback>"}

    def down(self) -> None:
        self.link.clear()

    def up(self) -> None:
        self.link.set()

    def cut(self) -> None:
        """Down, and every open connection ended on both sides."""
        self.link.clear()
        with self.lock:
            ends, self.open = list(self.open), set()
        for connection in ends:
            connection.close()

    def close(self) -> None:
        self.closed = True
        self.link.set()  # what it held may go: its connections are ending
        self.listener.close()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._connect, args=(client,), daemon=True).start()

    def _connect(self, client: socket.socket) -> None:
        try:
            host, port = _socks_request(client)
            if not self.link.is_set() or host not in (LOOPBACK, "localhost"):
                client.sendall(NETWORK_UNREACHABLE)
                client.close()
                return
            server = socket.create_connection((host, port))
            client.sendall(SUCCEEDED)
        except (EOFError, OSError):
            client.close()
            return
        ends = _Ends(client, server)
        with self.lock:
            self.open.add(ends)
        for source, target in ((client, server), (server, client)):
            threading.Thread(target=self._carry, args=(ends, source, target), daemon=True).start()

    def _carry(self, ends: _Ends, source: socket.socket, target: socket.socket) -> None:
        """Carry one direction's bytes (and its end), each only while the link is up."""
        try:
            while data := source.recv(65536):
                self.link.wait()
                target.sendall(data)
            self.link.wait()
            target.shutdown(socket.SHUT_WR)
            ends.finished()
        except OSError:
            ends.close()
        with self.lock:
            if ends.done == 2 or ends.closed:
                self.open.discard(ends)


class _Ends:
    """A relayed connection's two sockets, closed once both directions have ended."""

    def __init__(self, client: socket.socket, server: socket.socket) -> None:
        self.sockets = (client, server)
        self.lock = threading.Lock()
        self.done = 0
        self.closed = False

    def finished(self) -> None:
        with self.lock:
            self.done += 1
            if self.done == 2:
                self.close()

    def close(self) -> None:
        self.closed = True
        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # wakes the threads that carry its bytes
            with contextlib.suppress(OSError):
                sock.close()


def _receive(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        more = sock.recv(size - len(data))
        if not more:
            raise EOFError
        data += more
    return data


def _socks_request(client: socket.socket) -> tuple[str, int]:
    """Greet a SOCKS5 client (no authentication) and read its CONNECT's address."""
    _version, methods = _receive(client, 2)
    _receive(client, methods)
    client.sendall(NO_AUTH)
    _version, _command, _reserved, kind = _receive(client, 4)
    if kind == IPV4:
        host = socket.inet_ntoa(_receive(client, 4))
    elif kind == DOMAIN:
        host = _receive(client, _receive(client, 1)[0]).decode()
    else:
        host = socket.inet_ntop(socket.AF_INET6, _receive(client, 16))
    return host, int.from_bytes(_receive(client, 2), "big")
