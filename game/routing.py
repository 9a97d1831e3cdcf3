"""Websocket URL patterns, routed by splendor_site.asgi, and the server's start-up step."""

from __future__ import annotations

import asyncio
import gc
import sys
from typing import Any

from django.urls import URLPattern, URLResolver, re_path

from game import events, services
from game.consumers import GameConsumer

websocket_urlpatterns: list[URLPattern | URLResolver] = [
    re_path(r"^ws/game/(?P<code>[A-Za-z]{4,8})/(?P<role>table|seat)/$", GameConsumer.as_asgi()),
]


class Starting:
    """Wrap the ASGI application: at its first connection of any kind, learn the event
    loop (bots publish through it) and resume the bots' pending turns.

    Daphne has no start-up hook; after a restart the screens reconnect by
    themselves within seconds, so the first of them starts it.
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self.started = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> Any:
        if not self.started:
            self.started = True
            events.serve_from(asyncio.get_running_loop())
            services.resume_bot_turns_once()
            settle_interpreter()
        return await self.app(scope, receive, send)


# Allocations between the collector's runs of its young generation, then how many of
# those runs before each older one (Python's default: 700, 10, 10). A change allocates
# thousands of objects; a young generation of 10,000 ran the collector a tenth as
# often for about as much work in all (a run takes a few milliseconds).
GC_THRESHOLDS = (10_000, 10, 10)


# Seconds a thread may hold the interpreter while another waits for it (Python's
# default: 0.005). The server runs two threads at once: the event loop (screens,
# sockets) and the database thread (the writer). The writer lets go at every SQL
# statement and then waited up to 5 ms to get back in; at 0.5 ms, bench_web's
# 100 paced games went from a p99 of 96 ms to 41 ms, and a lone game's from 13 to 8.
SWITCH_INTERVAL = 0.0005


def settle_interpreter() -> None:
    """Tune the interpreter for the server, once, as it serves its first connection.

    What the server made to start up stays for good: the collector stops walking it
    (gc.freeze), and it runs less often. Every screen waits while it runs; a full
    collection took half as long frozen (55 ms against 111, 20 games in play). The
    two threads hand the interpreter to each other sooner (SWITCH_INTERVAL).
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    sys.setswitchinterval(SWITCH_INTERVAL)
