"""The flood scenarios: another game's TV timed quiet, then while one phone floods the
server (paced, from many sockets) or one client writes frames it never reads."""

from __future__ import annotations

import multiprocessing
import time
from dataclasses import dataclass

from game.bench.client import ScreenSocket, clock
from game.bench.loopback import RawFloodRun, measure_raw_flood
from game.bench.loopback import flood as loopback_flood
from game.bench.web.config import (
    FLOOD_RATE,
    FLOOD_ROUND_TRIPS,
    FLOOD_SOCKETS,
    RAW_FLOOD_SOCKETS,
    WAIT,
)
from game.bench.web.figures import percentile
from game.bench.web.target import Target, screen_path


@dataclass
class Flood:
    """Another game's TV, quiet and while one phone floods the server from many sockets."""

    quiet: list[float]  # the TV's heartbeat round trips (s) before the flood
    busy: list[float]  # and during it
    kept: int  # of the phone's sockets, those the server kept open to the end
    sent: int  # messages the phone's sockets sent
    answered: int  # and the replies they got
    closes: dict[int, int]  # the sockets the server closed, by close code (game.screens.wire)

    def quiet_at(self, fraction: float) -> float:
        return percentile(self.quiet, fraction)

    def busy_at(self, fraction: float) -> float:
        return percentile(self.busy, fraction)


def round_trips(tv: ScreenSocket, count: int) -> list[float]:
    """Time `count` heartbeats of a TV, a tenth of a second apart (the page's own rate
    is one every PING_EVERY; this one stays within the TV's message rate)."""
    times = []
    for _ in range(count):
        start = clock()
        tv.settle(start + WAIT)
        times.append(clock() - start)
        time.sleep(0.1)
    return times


def flood(target: Target) -> Flood:
    """Time another game's TV quiet, then while one phone floods from FLOOD_SOCKETS sockets
    (in a process of its own: see loopback.flood)."""
    tv_table, phone_table = target.next_table(think=False), target.next_table(think=False)
    port = target.servers[0].port
    tv = ScreenSocket(port, screen_path(tv_table, 0), tv_table.cookies[0])
    spawn = multiprocessing.get_context("spawn")
    stop, out = spawn.Event(), spawn.Queue()
    flooder = spawn.Process(
        target=loopback_flood,
        args=(port, screen_path(phone_table, 1), phone_table.cookies[1]),
        kwargs={
            "version": phone_table.version,
            "sockets": FLOOD_SOCKETS,
            "rate": FLOOD_RATE,
            "stop": stop,
            "out": out,
        },
        daemon=True,
    )
    try:
        tv.wait_version(tv_table.version, clock() + WAIT)
        quiet = round_trips(tv, FLOOD_ROUND_TRIPS)
        flooder.start()
        time.sleep(2.0)  # the flood under way, its sockets open and their first bursts spent
        busy = round_trips(tv, FLOOD_ROUND_TRIPS)
        stop.set()
        sent, answered, kept, closes = out.get(timeout=WAIT)
    finally:
        stop.set()
        flooder.join(timeout=WAIT)
        if flooder.is_alive():
            flooder.kill()
        tv.close()
    return Flood(quiet=quiet, busy=busy, kept=kept, sent=sent, answered=answered, closes=closes)


def raw_flood(target: Target, seconds: float) -> RawFloodRun:
    """Time another game's TV quiet, then while one phone writes {"sync": true} frames
    unpaced from RAW_FLOOD_SOCKETS sockets and reads nothing (loopback.measure_raw_flood)."""
    tv_table, phone_table = target.next_table(think=False), target.next_table(think=False)
    server = target.servers[0]
    tv = ScreenSocket(server.port, screen_path(tv_table, 0), tv_table.cookies[0])
    try:
        tv.wait_version(tv_table.version, clock() + WAIT)
        seat = (screen_path(phone_table, 1), phone_table.cookies[1])
        return measure_raw_flood(
            server.pid,
            server.port,
            tv,
            [seat],
            "sync",
            RAW_FLOOD_SOCKETS,
            seconds,
            quiet_trips=FLOOD_ROUND_TRIPS,
        )
    finally:
        tv.close()
