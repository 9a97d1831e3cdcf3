"""The real server for the browser tests: `manage.py runserver --noreload` (Daphne) on
a free loopback port with its own SQLite file, which a test may kill (SIGKILL),
pause (SIGSTOP, as a sleeping laptop), resume and start again on the same port
and file."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.helpers import ARTIFACTS, BASE_DIR, LOOPBACK, Server
from tests.workers import artifact_name, migrated_sqlite

LISTENING = b"Listening on TCP address"  # daphne.server's line once the port is open


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


def _copy_output(proc: subprocess.Popen[bytes], log: Path, ready: threading.Event) -> None:
    """Copy the server's output to its log; set `ready` once it listens (or it ended)."""
    assert proc.stdout is not None
    with log.open("wb") as out:
        for line in proc.stdout:
            out.write(line)
            out.flush()
            if LISTENING in line:
                ready.set()
    ready.set()  # the server ended: the caller finds out why


def wait_for_server(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    """Wait for the server's own word that it listens, then check it answers."""
    ready = threading.Event()
    threading.Thread(target=_copy_output, args=(proc, log, ready), daemon=True).start()
    if not ready.wait(timeout=120) or proc.poll() is not None:
        raise RuntimeError(f"The server did not start:\n{log.read_text()[-3000:]}")
    with urllib.request.urlopen(url, timeout=30) as response:  # loopback only
        assert response.status == 200, f"The server answered {response.status} at {url}"


# The connection's clock of a test server that compresses time (settings.SPLENDOR_CLOCK):
# heartbeats, silences, backoffs, the presence grace and bot leases five times faster.
COMPRESSED = 0.2


class LiveServer:
    """The real server in a subprocess; its database is a migrated one's copy. `clock`
    scales its connection's timings (1: the real ones)."""

    def __init__(self, workdir: Path, clock: float = 1.0, stories: bool = False) -> None:
        self.clock = clock
        self.workdir = workdir
        self.port = free_port()
        self.db = workdir / "db.sqlite3"
        self.server = Server(
            url=f"http://{LOOPBACK}:{self.port}", port=self.port, log=workdir / "server-0.log"
        )
        self.env = {
            key: value
            for key, value in os.environ.items()
            if key not in ("DATABASE_URL", "REDIS_URL", "SPLENDOR_ALLOWED_HOSTS")
        }
        self.env.update(
            SPLENDOR_DB_PATH=str(self.db),
            SPLENDOR_HOST=LOOPBACK,  # the QR code encodes a loopback URL
            SPLENDOR_BOT_DELAY="0.05",
            # A finished game's story is told only by the servers of the tests about it
            # (`stories`): the others end hundreds of games between them. Told on a
            # budget, at once: five test workers leave no idle core.
            SPLENDOR_ANALYSIS="1" if stories else "0",
            SPLENDOR_ANALYSIS_PLAYOUTS="2",
            SPLENDOR_ANALYSIS_LOW_PRIORITY="0",
            SPLENDOR_SECRET_KEY=secrets.token_urlsafe(50),
            # As the README runs it: no query log, no template reloads, no static re-scan
            # on each request (WhiteNoise serves the static files either way).
            SPLENDOR_DEBUG="0",
            SPLENDOR_CLOCK=str(clock),
            PYTHONUNBUFFERED="1",
        )
        self.manage = [sys.executable, str(BASE_DIR / "manage.py")]
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        migrated_sqlite(self.db)

    def start(self) -> None:
        """Start the server on its port and file (again), and wait until it answers."""
        self.server.log = self.workdir / f"server-{self.starts}.log"
        self.starts += 1
        self.proc = subprocess.Popen(
            [*self.manage, "runserver", f"{LOOPBACK}:{self.port}", "--noreload"],
            cwd=BASE_DIR,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        wait_for_server(self.server.url + "/", self.proc, self.server.log)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def pause(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.resume()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def logs(self) -> list[Path]:
        return sorted(self.workdir.glob("server-*.log"))

    def version(self, code: str) -> int:
        """The game's version, as the database says."""
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=30) as db:
            row = db.execute("SELECT version FROM game_game WHERE code = ?", [code]).fetchone()
        return int(row[0])


def serve(
    tmp_path_factory: pytest.TempPathFactory, name: str, clock: float, stories: bool = False
) -> Iterator[LiveServer]:
    """A module's own server (see LiveServer), its logs kept as artifacts named `name`."""
    server = LiveServer(tmp_path_factory.mktemp(name), clock=clock, stories=stories)
    server.start()
    try:
        yield server
    finally:
        server.stop()
        for log in server.logs():
            (ARTIFACTS / artifact_name(f"{name}-{log.name}")).write_bytes(log.read_bytes())
