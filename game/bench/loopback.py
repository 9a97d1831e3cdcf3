"""Loopback tools for the web benchmark and the server tests.

`runserver` starts the real server (Daphne via runserver) on a free 127.0.0.1
port, `daphne` any ASGI application; `cpu_seconds` and `rss_bytes` read what a
server process used from /proc (Linux); `flood` and `raw_flood` are clients that
flood it (game.bench.client's screens, and raw frames).
Nothing here connects anywhere but 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from websockets.frames import Frame, Opcode

from game.bench.client import LOOPBACK, SOCKET_TIMEOUT, Closed, ScreenSocket, clock
from game.web.inbound import MAX_FRAME_BYTES

# Seconds a server may take to listen: importing Django and its checks took over 30 s on
# a 2-core machine running tests in parallel (as the browser tests' server may, 120 s).
STARTUP_TIMEOUT = 120.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True)
class Server:
    """A server process listening on 127.0.0.1."""

    port: int
    pid: int


class ServerProcess:
    """A server command that listens on `port`, which can be killed and started again on
    the same port (a crash and a restart). `cpu` pins it to one core where possible."""

    def __init__(
        self,
        argv: list[str],
        port: int,
        env: dict[str, str],
        log: Path,
        cwd: Path,
        cpu: int | None = None,
    ) -> None:
        self.argv, self.port, self.env, self.log, self.cwd, self.cpu = (
            argv,
            port,
            env,
            log,
            cwd,
            cpu,
        )
        self.process: subprocess.Popen[bytes] | None = None
        self.server: Server | None = None
        self.starts = 0

    def start(self, poll: float = 0.1) -> Server:
        """Start the command and return once it accepts connections (checked every `poll`
        seconds). Raises RuntimeError (with the end of its log) if it exits or does not
        listen within STARTUP_TIMEOUT. A second start appends to the same log."""
        with self.log.open("a" if self.starts else "w") as output:
            self.process = subprocess.Popen(
                self.argv, cwd=self.cwd, env=self.env, stdout=output, stderr=subprocess.STDOUT
            )
        self.starts += 1
        if self.cpu is not None and hasattr(os, "sched_setaffinity"):
            with contextlib.suppress(OSError):
                os.sched_setaffinity(self.process.pid, {self.cpu})
        _wait_until_listening(self.process, self.port, self.log, poll)
        self.server = Server(self.port, self.process.pid)
        return self.server

    def kill(self) -> None:
        """SIGKILL, as a crash: nothing of the process gets to run again."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it has not ended within 5 s."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)


@contextlib.contextmanager
def serve(
    argv: list[str], port: int, env: dict[str, str], log: Path, cwd: Path, cpu: int | None = None
) -> Iterator[Server]:
    """Run a server command that listens on `port` (see ServerProcess); stop it with
    SIGTERM, then SIGKILL."""
    with serve_process(argv, port, env, log, cwd, cpu) as process:
        assert process.server is not None
        yield process.server


@contextlib.contextmanager
def serve_process(
    argv: list[str], port: int, env: dict[str, str], log: Path, cwd: Path, cpu: int | None = None
) -> Iterator[ServerProcess]:
    """The same, yielding the ServerProcess, for a caller that kills and restarts it."""
    process = ServerProcess(argv, port, env, log, cwd, cpu)
    try:
        process.start()
        yield process
    finally:
        process.stop()


@contextlib.contextmanager
def runserver(env: dict[str, str], log: Path, cwd: Path, cpu: int | None = None) -> Iterator[int]:
    """Run `manage.py runserver` on a free loopback port and yield the port (see `serve`)."""
    port = free_port()
    argv = [sys.executable, "manage.py", "runserver", f"{LOOPBACK}:{port}", "--noreload"]
    with serve(argv, port, env, log, cwd, cpu) as server:
        yield server.port


@contextlib.contextmanager
def daphne(
    application: str, env: dict[str, str], log: Path, cwd: Path, cpu: int | None = None
) -> Iterator[Server]:
    """Run Daphne itself with an ASGI application ("module:attribute") on a free loopback port."""
    with daphne_process(application, env, log, cwd, cpu) as process:
        assert process.server is not None
        yield process.server


@contextlib.contextmanager
def daphne_process(
    application: str, env: dict[str, str], log: Path, cwd: Path, cpu: int | None = None
) -> Iterator[ServerProcess]:
    """The same, yielding the ServerProcess (to kill it and start it again on its port)."""
    port = free_port()
    argv = [sys.executable, "-m", "daphne", "-b", LOOPBACK, "-p", str(port)]
    # Daphne drops a socket its application has not accepted within 5 s, and one that has
    # not answered a ping for 30 s (a client busy connecting 100 games reads late): a
    # server under a benchmark should be measured as slow, not as broken.
    argv += ["--websocket_connect_timeout", "120", "--ping-interval", "300"]
    argv += ["--ping-timeout", "300"]
    # The project's largest message and frame, as runserver reads them from its settings.
    limit = str(MAX_FRAME_BYTES)
    argv += ["--websocket-max-message-size", limit, "--websocket-max-frame-size", limit]
    argv.append(application)
    with serve_process(argv, port, env, log, cwd, cpu) as process:
        yield process


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process (all its threads) so far, from /proc."""
    return _stat_cpu(Path(f"/proc/{pid}/stat"))


def main_thread_cpu_seconds(pid: int) -> float:
    """The same for the process's first thread only (a server's event loop): what the
    other threads (its database thread) used is the difference. Samplers that see only
    the thread holding Python's lock (py-spy --gil) missed most of the database
    thread's CPU: SQLite's work and handing the lock back and forth."""
    return _stat_cpu(Path(f"/proc/{pid}/task/{pid}/stat"))


def _stat_cpu(stat: Path) -> float:
    fields = stat.read_text().rsplit(")", 1)[1].split()
    # After the name: state is field 3 of stat(5); utime and stime are fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_bytes(pid: int) -> int:
    """Resident memory of a process now, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def _wait_until_listening(
    process: subprocess.Popen[bytes], port: int, log: Path, poll: float = 0.1
) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited:\n{log.read_text()[-3000:]}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the server did not start:\n{log.read_text()[-3000:]}")
        with contextlib.suppress(OSError), socket.create_connection((LOOPBACK, port), 0.2):
            return
        time.sleep(poll)


def run_child(
    argv: list[str], env: dict[str, str], cwd: Path, limit: float, write: Callable[[str], None]
) -> int:
    """Run a command, passing each line of its output to `write`; return its exit code.

    The command gets its own process group, killed as a whole (servers it started
    included) when it ends or after `limit` seconds.
    """
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )

    def stop() -> None:
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)

    watchdog = threading.Timer(limit, stop)
    watchdog.start()
    try:
        assert process.stdout is not None
        for text in process.stdout:
            write(text.rstrip("\n"))
        return process.wait(timeout=limit)
    finally:
        watchdog.cancel()
        stop()
        process.wait()


def flood(
    port: int,
    path: str,
    session: str,
    version: int,
    sockets: int,
    rate: float,
    stop: Any,
    out: Any,
) -> None:
    """One phone flooding the server: `sockets` sockets with its cookie, each sending hint
    and full-view requests, `rate` messages a second, and reading what comes back, until
    `stop` (a multiprocessing Event) is set or the server closes it; puts (sent,
    answered, sockets still open, {close code: sockets the server closed with it}) on
    `out`.

    Run in a process of its own, so that the flood's client work does not slow the
    measuring client's threads (they would share one interpreter lock)."""
    counts: list[tuple[int, int, int]] = []
    closes: dict[int, int] = {}
    lock = threading.Lock()

    def run(ws: ScreenSocket) -> None:
        sent, answered, kept, code = flood_socket(ws, version, rate, stop)
        with lock:
            counts.append((sent, answered, kept))
            if code is not None:
                closes[code] = closes.get(code, 0) + 1

    phones = [ScreenSocket(port, path, session) for _ in range(sockets)]
    in_threads(run, [(ws,) for ws in phones])
    for ws in phones:
        ws.close()
    out.put((*(sum(c[i] for c in counts) for i in range(3)), closes))


def flood_socket(
    ws: ScreenSocket, version: int, rate: float, stop: Any
) -> tuple[int, int, int, int | None]:
    """Flood from one socket until `stop` or the server ends it: messages sent, replies
    read, whether it is still open (1 or 0), and the code the server closed it with."""
    sent = answered = 0
    began = time.monotonic()
    try:
        while not stop.is_set():
            ws.send_json({"hint": True, "version": version})
            ws.send_json({"sync": True})
            sent += 2
            # Read what came back until the next pair is due.
            due = began + sent / rate
            while ws.readable(due - time.monotonic()):
                ws.receive()
                answered += 1
                if not ws.pending and time.monotonic() >= due:
                    break
    except (Closed, OSError):
        return sent, answered, 0, ws.close_code
    return sent, answered, 1, None


def in_threads(run: Callable[..., None], args: list[tuple[Any, ...]]) -> None:
    """Run `run` once for each arguments, each in a thread of its own; wait for all."""
    threads = [threading.Thread(target=run, args=arguments, daemon=True) for arguments in args]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


# What a raw flood writes, frame after frame, as fast as the socket takes them:
# "sync", the smallest message the server answers with a full view; "big", frames just
# under a size limit (`big` bytes: Daphne's default message limit is 1 MiB);
# "unread", at `rate` messages a second (under the phone's rate limit), a screen that
# asks but never reads its answers (the server's write buffer).
RAW_KINDS = ("sync", "big", "unread")


@dataclass
class RawFlood:
    """What a raw flood did: bytes and frames written, connections the server dropped or
    closed (and how often the client came back), handshakes it refused."""

    written: int = 0
    frames: int = 0
    opened: int = 0
    ended: int = 0
    refused: int = 0

    def add(self, other: RawFlood) -> None:
        for name in ("written", "frames", "opened", "ended", "refused"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def write_raw(
    ws: ScreenSocket,
    chunk: bytes,
    per_chunk: int,
    pace: float | None,
    ends: float,
    done: RawFlood,
) -> bool:
    """Write `chunk` (`per_chunk` frames) again and again until `ends`, unpaced or at
    `pace` frames a second, counting in `done`; close the socket. False if the server
    stopped reading and the time is over."""
    ws.sock.settimeout(max(0.1, ends - time.monotonic()))
    began = time.monotonic()
    try:
        while (now := time.monotonic()) < ends:
            if pace is not None:
                time.sleep(max(0.0, began + done.frames / pace - now))
            ws.sock.sendall(chunk)
            done.written += len(chunk)
            done.frames += per_chunk
    except TimeoutError:
        return False
    except OSError:
        done.ended += 1
    finally:
        with contextlib.suppress(OSError):
            ws.sock.close()
    return True


def raw_frames(kind: str, big: int = 1024 * 1024 - 64) -> bytes:
    """The bytes a raw flood writes again and again (masked client frames)."""
    if kind == "big":
        payload = b'{"sync": true, "pad": "' + b"x" * max(0, big - 26) + b'"}'
        return Frame(Opcode.TEXT, payload).serialize(mask=True)
    frame = Frame(Opcode.TEXT, b'{"sync": true}').serialize(mask=True)
    return frame if kind == "unread" else frame * (65536 // len(frame))


def raw_flood(
    port: int,
    targets: list[tuple[str, str]],
    kind: str,
    sockets: int,
    seconds: float,
    out: Any,
    rate: float = 5.0,
    big: int = 1024 * 1024 - 64,
) -> None:
    """A client that writes websocket frames and never reads what comes back.

    `sockets` sockets (spread over `targets`, (path, session cookie) pairs) each write
    `raw_frames(kind)` for `seconds`: unpaced (the kernel's buffers and the server's
    reading are the only brake) but for "unread", paced at `rate` messages a second. A
    socket the server closes or drops is opened again at once (a script would), until
    the time is over. Puts a RawFlood on `out`. Run it in a process of its own."""
    chunk = raw_frames(kind, big)
    per_chunk = 1 if kind in ("big", "unread") else 65536 // len(raw_frames("unread"))
    pace = rate if kind == "unread" else None
    ends = time.monotonic() + seconds
    total = RawFlood()
    lock = threading.Lock()

    def run(path: str, session: str) -> None:
        done = RawFlood()
        while time.monotonic() < ends:
            try:
                ws = ScreenSocket(port, path, session)
            except (Closed, OSError):
                done.refused += 1
                time.sleep(0.05)
                continue
            done.opened += 1
            if not write_raw(ws, chunk, per_chunk, pace, ends, done):
                break
        with lock:
            total.add(done)

    in_threads(run, [targets[i % len(targets)] for i in range(sockets)])
    out.put(total)


@dataclass
class RawFloodRun:
    """Another screen's heartbeat round trips (s) quiet and during a raw flood, the
    server's memory before it and at its highest during it and just after, and what
    the flood did."""

    quiet: list[float]
    busy: list[float]
    rss_before: int
    rss_peak: int
    flood: RawFlood
    cpu: float = 0.0  # the server's CPU seconds over the flood's seconds, during it

    @property
    def growth(self) -> int:
        return max(0, self.rss_peak - self.rss_before)


def round_trip_times(ws: ScreenSocket, count: int, until: float = math.inf) -> list[float]:
    """Time up to `count` heartbeats of a screen, a tenth of a second apart (within a
    screen's rate), stopping at `until`; a heartbeat that takes SOCKET_TIMEOUT raises."""
    times = []
    for _ in range(count):
        if clock() >= until:
            break
        start = clock()
        ws.settle(start + SOCKET_TIMEOUT)
        times.append(clock() - start)
        time.sleep(0.1)
    return times


def measure_raw_flood(
    pid: int,
    port: int,
    screen: ScreenSocket,
    targets: list[tuple[str, str]],
    kind: str,
    sockets: int,
    seconds: float,
    quiet_trips: int = 40,
) -> RawFloodRun:
    """Time `screen`'s heartbeats quiet, then during a raw flood (raw_flood, in a process
    of its own) for `seconds`, sampling the server's memory (process `pid`) every tenth
    of a second until a second after the flood."""
    quiet = round_trip_times(screen, quiet_trips)
    before = rss_bytes(pid)
    peak = [before]
    sampling = threading.Event()

    def sample() -> None:
        while not sampling.wait(0.1):
            with contextlib.suppress(OSError, RuntimeError):
                peak[0] = max(peak[0], rss_bytes(pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    spawn = multiprocessing.get_context("spawn")
    out = spawn.Queue()
    flooder = spawn.Process(
        target=raw_flood, args=(port, targets, kind, sockets, seconds, out), daemon=True
    )
    try:
        flooder.start()
        cpu_before, began = cpu_seconds(pid), clock()
        ends = began + seconds
        time.sleep(min(2.0, seconds / 4))  # the flood under way
        busy = round_trip_times(screen, 10**6, until=ends)
        done = out.get(timeout=seconds + 60)
        cpu = (cpu_seconds(pid) - cpu_before) / max(1e-9, clock() - began)
        time.sleep(1.0)
    finally:
        flooder.join(timeout=10)
        if flooder.is_alive():
            flooder.kill()
        sampling.set()
        sampler.join()
    return RawFloodRun(quiet, busy, before, peak[0], done, cpu)
