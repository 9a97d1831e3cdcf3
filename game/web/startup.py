"""The server's start-up step, at its first connection: the event loop the writers publish
through, and the interpreter's collector tuned for a server."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

from game.writer import notices


class Starting:
    """Wrap the ASGI application: at its first connection of any kind, learn the event
    loop (writers in other threads publish through it) and settle the interpreter.

    Daphne has no start-up hook that runs on its loop; the first connection is
    the first moment code runs there. (The bots' pending turns are taken up by
    bot_turns.scheduler.start_sweep, started with the application.)
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self.started = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> Any:
        if not self.started:
            self.started = True
            notices.serve_from(asyncio.get_running_loop())
            settle_interpreter()
        return await self.app(scope, receive, send)


# The collector's thresholds (Python's default: 700, 10, 10). Every screen waits while
# it runs; with 100 games its middle generation walked the region cache and every
# socket's pending receive (80-150 ms) every ~15 s. Running that generation a hundred
# times less often lowered the server's CPU per action and its p99 latency with 100
# paced games (docs/performance.md has the figures; tests/web/test_tuning.py pins the
# collector they suit).
GC_THRESHOLDS = (1_000, 1_000, 10)


def settle_interpreter() -> None:
    """Tune the interpreter for the server, once, as it serves its first connection.

    The collector runs less often (GC_THRESHOLDS).
    """
    gc.set_threshold(*GC_THRESHOLDS)
