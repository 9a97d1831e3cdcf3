"""Websocket URL patterns, routed by splendor_site.asgi, and the server's start-up step."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

from django.urls import URLPattern, URLResolver, re_path

from game.web.consumers import GameConsumer
from game.writer import events

websocket_urlpatterns: list[URLPattern | URLResolver] = [
    re_path(r"^ws/game/(?P<code>[A-Za-z]{4,8})/(?P<role>table|seat)/$", GameConsumer.as_asgi()),
]


class Starting:
    """Wrap the ASGI application: at its first connection of any kind, learn the event
    loop (writers in other threads publish through it) and settle the interpreter.

    Daphne has no start-up hook that runs on its loop; the first connection is
    the first moment code runs there. (The bots' pending turns are taken up by
    services.start_bot_sweep, started with the application.)
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self.started = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> Any:
        if not self.started:
            self.started = True
            events.serve_from(asyncio.get_running_loop())
            settle_interpreter()
        return await self.app(scope, receive, send)


# Allocations between the collector's runs of its young generation, then how many of
# those runs before each older one (Python's default: 700, 10, 10). Every screen waits
# while it runs, so what counts is how long a run takes and how many changes it
# delays. Measured over 1,541 changes (5 screens each, in one process):
# - 10,000, 10, 10: the young generation ran at 1.4% of changes, 6 ms each (up to
#   29 ms), just where a lone game's p99 latency is read;
# - Python's 700, 10, 10: the middle one ran at 2.1% of changes, 3.5 ms each;
# - 1,000, 200, 10: the young one at 16% of changes, 0.4 ms each (up to 2 ms), the
#   middle one at 0.1% (85 ms), and no more work in all (0.13 ms a change, against
#   0.16 and 0.24).
# The middle generation then every 1,000 young runs, not 200: with 100 games acting
# once a second it walked 75,000-85,000 live objects (the region cache, every socket's
# pending receive) in 80-150 ms about every 15 s, twice in each 30 s of bench_web's
# paced phase, where the p99 latency is read. Its runs are as long, about every 75 s
# there (the objects it walks live seconds, so a longer wait adds few), and its
# collection of cycles waits that much longer: the code makes none per change.
# By turns against Python's defaults in bench_web's paced phase with 100 games
# (docs/performance.md): without them the server's CPU per action was 1.13 times as
# high (median of 5 pairs, 0.85-1.63) and the p99 latency 1.32 times (0.72-1.64); with
# 10-30 games no gain showed. tests/web/test_tuning.py pins the collector they suit.
GC_THRESHOLDS = (1_000, 1_000, 10)


def settle_interpreter() -> None:
    """Tune the interpreter for the server, once, as it serves its first connection.

    The collector runs less often (GC_THRESHOLDS).
    """
    gc.set_threshold(*GC_THRESHOLDS)
