"""The memory scenario: what the server holds per connected socket."""

from __future__ import annotations

import math

from game.bench.client import ScreenSocket
from game.bench.web.config import SEATS
from game.bench.web.target import Target, open_screens, release


def memory_per_socket(target: Target, count: int) -> float:
    """The server's RSS growth per socket (bytes) over `count` idle ones, whole games of them."""
    tables = [target.next_table(think=False) for _ in range(math.ceil(count / (SEATS + 1)))]
    before = target.rss()
    games: list[list[ScreenSocket]] = []
    try:
        for slot, table in enumerate(tables):
            games.append(open_screens(target, table, slot))
        grown = (target.rss() - before) / sum(len(screens) for screens in games)
    except BaseException:
        for ws in (ws for screens in games for ws in screens):
            ws.close()
        raise
    release(target, games)
    return grown
