"""Work a server process does in threads of its own: delayed jobs, retries, leases, sweeps.

Bot turns (game.writer.bot_turns) and stand-in checks (game.writer.standin) run off the event
loop, in daemon threads, so a slow step blocks no socket. Every job closes its
thread's database connections when it ends (with PostgreSQL's pool: gives them
back).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.db import OperationalError, close_old_connections, connections

log = logging.getLogger(__name__)

T = TypeVar("T")

ATTEMPTS = 5


def retrying(step: Callable[[], T]) -> T:
    """Run one step, again a few times while the database is busy (SQLite's write lock
    held by another writer, or every pooled PostgreSQL connection lent)."""
    for attempt in range(1, ATTEMPTS):
        try:
            return step()
        except OperationalError:
            time.sleep(0.05 * attempt)
    return step()


class Timers:
    """Jobs run once after a delay, each in a daemon thread; tests wait for or cancel them."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._pending: set[threading.Timer] = set()
        self._lock = threading.Lock()
        # Set while `cancel` runs: a job that waits inside (a bot's pause) stops waiting.
        self.stopping = threading.Event()

    def after(self, delay: float, job: Callable[..., object], *args: object) -> None:
        timer = threading.Timer(delay, self._run, (job, args))
        timer.daemon = True
        with self._lock:
            self._pending.add(timer)
        timer.start()

    def _run(self, job: Callable[..., object], args: tuple[object, ...]) -> None:
        try:
            job(*args)
        except Exception:  # a job must never take the server down with it
            log.exception("%s failed: %r", self.what, args)
        finally:
            connections.close_all()  # this thread's connections only
            with self._lock:
                self._pending.difference_update({t for t in self._pending if t.finished.is_set()})

    def timers(self) -> list[threading.Timer]:
        """The jobs scheduled and not yet over (tests)."""
        with self._lock:
            return [t for t in self._pending if not t.finished.is_set()]

    def pending_args(self) -> list[tuple[Any, ...]]:
        """The arguments of the jobs scheduled and not yet over."""
        return [tuple(timer.args)[1] for timer in self.timers()]  # (job, args) of _run

    def wait(self, timeout: float = 30.0) -> None:
        """Wait until every job has run, including the jobs they schedule in turn."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                running = [t for t in self._pending if not t.finished.is_set()]
            if not running:
                return
            if time.monotonic() >= deadline:
                raise TimeoutError(f"{len(running)} {self.what}(s) still running after {timeout} s")
            for timer in running:
                timer.join(max(0.0, deadline - time.monotonic()))

    def cancel(self) -> None:
        """Stop every job not yet started, and wait for the running ones (tests)."""
        self.stopping.set()
        try:
            self._cancel()
        finally:
            self.stopping.clear()

    def _cancel(self) -> None:
        while True:
            with self._lock:
                timers = list(self._pending)
                self._pending.clear()
            if not timers:
                return
            for timer in timers:
                timer.cancel()
            for timer in timers:
                if timer.ident is not None and timer is not threading.current_thread():
                    timer.join(30)  # a running job may schedule another: the loop stops it too


class Lease:
    """Keep a claim alive while its holder works: `renew` every `every` seconds in a
    thread of its own, until the block ends or a renewal fails (another process took
    the claim over: `lost` is then set)."""

    def __init__(self, renew: Callable[[], bool], every: float) -> None:
        self.renew = renew
        self.every = every
        self.lost = threading.Event()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._keep, name="splendor-lease", daemon=True)

    def __enter__(self) -> Lease:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()

    def _keep(self) -> None:
        try:
            while not self._done.wait(self.every):
                try:
                    kept = self.renew()
                except OperationalError:  # the database is busy: the lease has time left
                    continue
                finally:
                    close_old_connections()  # with PostgreSQL's pool: given back until next time
                if not kept:
                    self.lost.set()
                    return
        except Exception:
            log.exception("A lease could not be renewed")
            self.lost.set()
        finally:
            connections.close_all()


def every(seconds: float, job: Callable[[], object], name: str) -> threading.Thread:
    """Run `job` at once, then about every `seconds` (jittered, so that several server
    processes do not all ask at the same moment), in a daemon thread, for good."""

    def loop() -> None:
        while True:
            try:
                job()
            except Exception:  # a sweep must never stop for good
                log.exception("%s failed", name)
            finally:
                close_old_connections()
            time.sleep(seconds * random.uniform(0.5, 1.5))

    thread = threading.Thread(target=loop, name=name, daemon=True)
    thread.start()
    return thread
