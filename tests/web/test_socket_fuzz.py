"""Protocol fuzz: over a thousand generated hostile frames over real websockets.

A game with a TV and three seated phones runs on the full ASGI application
(channels' WebsocketCommunicator). Hypothesis generates frames (any text, JSON
of any shape, deep nesting, huge numbers, oversized and binary frames, near-real
actions on a wrong version) sent by the player to move, a waiting player and a
spectator TV. Afterwards: no exception in the server or its log, the game's rows
are byte for byte unchanged, every other screen is still connected and receives
the next real move, and presence is right.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from game.models import Seat
from game.storage import presence
from tests.web.helpers import Screens, Table, fingerprint, legal, play_as, started, version_of

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLES = 50
FRAMES_PER_EXAMPLE = 21  # at least 1,050 frames a run
MIN_FRAMES = 1000
TIMEOUT = 30  # generous: CI is a busy 2-core machine


@dataclass
class Live:
    """One open socket and whether the server closed it."""

    name: str
    communicator: WebsocketCommunicator
    closed_by_server: bool = False
    received: list[str] = field(default_factory=list)

    def crashed(self) -> BaseException | None:
        future = self.communicator.future
        if future.done() and not future.cancelled():
            return future.exception()
        return None

    def drain(self) -> None:
        """Take what already arrived, without waiting for more."""
        queue = self.communicator.output_queue
        while not queue.empty():
            message = queue.get_nowait()
            if message["type"] == "websocket.close":
                self.closed_by_server = True
            elif message.get("text"):
                self.received.append(message["text"])

    async def until_version(self, version: int) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while not any(version_of(text) == version for text in self.received[-3:]):
            assert not self.closed_by_server, f"{self.name} was closed"
            left = deadline - loop.time()
            assert left > 0, f"{self.name} never received version {version}"
            message = await self.communicator.receive_output(left)
            if message["type"] == "websocket.close":
                self.closed_by_server = True
            elif message.get("text"):
                self.received.append(message["text"])


def text_frames(version: int, notations: list[str]) -> st.SearchStrategy[str]:
    """Hostile text frames; none is a real action on the current version."""
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(st.text(max_size=8), children, max_size=4)
        ),
        max_leaves=12,
    )
    wrong_versions = st.integers().filter(lambda v: v != version) | st.sampled_from(
        [str(version + 1), f" {version}", f"{version}.0", "", None, True, [version]]
    )
    actions = st.sampled_from(notations) | st.text(max_size=80) | json_values
    near_real = st.builds(
        lambda action, v: json.dumps({"action": action, "version": v}), actions, wrong_versions
    )
    keys = st.sampled_from(["action", "version", "sync", "ping", "HEADERS"]) | st.text(max_size=5)
    objects = st.dictionaries(keys, json_values, max_size=5).map(json.dumps)
    deep = st.integers(1, 5000).map(lambda n: "[" * n + "]" * n)
    deep_objects = st.integers(1, 3000).map(lambda n: '{"a":' * n + "1" + "}" * n)
    big_numbers = st.integers(1, 6000).map(
        lambda n: '{"action": "take:wug", "version": ' + "9" * n + "}"
    )
    oversized = st.integers(4000, 300_000).map(lambda n: '{"action": "' + "x" * n + '"}')
    return st.one_of(
        st.text(max_size=200),
        json_values.map(json.dumps),
        objects,
        near_real,
        deep,
        deep_objects,
        big_numbers,
        oversized,
        st.sampled_from(['{"sync": true}', '{"ping": true}', "NaN", '{"sync": 1e999}']),
    )


def frames(version: int, notations: list[str]) -> st.SearchStrategy[tuple[int, dict[str, Any]]]:
    """(which hostile screen, the frame it sends)."""
    text = text_frames(version, notations).map(lambda t: {"text": t})
    binary = st.binary(max_size=300).map(lambda b: {"bytes": b})
    both = st.tuples(st.text(max_size=10), st.binary(max_size=10)).map(
        lambda tb: {"text": tb[0], "bytes": tb[1]}
    )
    return st.tuples(st.integers(0, 2), st.one_of(text, text, text, binary, both))


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """An event loop driven from this sync test (Hypothesis runs sync examples)."""
    loop = asyncio.new_event_loop()
    yield loop
    pending = asyncio.all_tasks(loop)
    for task in pending:
        task.cancel()
    loop.run_until_complete(_finish(pending))
    loop.close()


async def _finish(tasks: set[asyncio.Task[Any]]) -> None:
    await asyncio.gather(*tasks, return_exceptions=True)


def test_hostile_frames_change_nothing_and_break_no_screen(
    loop: asyncio.AbstractEventLoop, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    table = started(("Ada", "Bob", "Cy"))
    version = play_as(table, legal(table.game_id)[0])  # a game under way, Bob to play
    before = fingerprint(table.game_id)
    seats = {s.position: s.pk for s in Seat.objects.filter(game_id=table.game_id)}
    opener = Screens()
    run = loop.run_until_complete
    try:
        fuzz_table(table, version, run, opener, seats, before)
    finally:
        run(opener.close_all())
    assert presence.connected(table.game_id) == frozenset()
    problems = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert problems == [], [r.getMessage() for r in problems]


def fuzz_table(
    table: Table,
    version: int,
    run: Any,
    opener: Screens,
    seats: dict[int, int],
    before: tuple[Any, ...],
) -> None:
    async def open_screen(role: str, session: str | None, name: str) -> Live:
        connected, detail, screen = await opener.try_open(table.code, role, session)
        assert connected, f"{name} refused: {detail}"
        live = Live(name, screen.communicator)
        await live.until_version(version)
        return live

    def phone(position: int) -> Live:
        player = table.player(position)
        return run(open_screen("seat", player.session, player.name))

    tv, ada = run(open_screen("table", table.host_session, "tv")), phone(0)
    bob, cy = phone(1), phone(2)  # Bob is to play
    spectator = run(open_screen("table", None, "spectator"))
    hostile = [bob, cy, spectator]
    sent = 0

    async def send(batch: list[tuple[int, dict[str, Any]]]) -> None:
        nonlocal sent
        for who, frame in batch:
            await hostile[who].communicator.send_input({"type": "websocket.receive", **frame})
            sent += 1
        # What arrived so far; a consumer that failed on a frame shows here or, at the
        # latest, when its socket is closed at the end.
        for live in [tv, ada, *hostile]:
            live.drain()
            assert live.crashed() is None, f"{live.name}'s consumer crashed: {live.crashed()!r}"

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        phases=[Phase.generate],  # the sockets carry state: no shrinking on them
        suppress_health_check=list(HealthCheck),
    )
    @given(st.lists(frames(version, legal(table.game_id)), min_size=FRAMES_PER_EXAMPLE))
    def fuzz(batch: list[tuple[int, dict[str, Any]]]) -> None:
        run(send(batch))

    fuzz()
    assert sent >= MIN_FRAMES
    # Closing a socket is handled after every frame it sent; a consumer that
    # failed on any of them raises its exception here.
    for live in hostile:
        run(live.communicator.disconnect(timeout=TIMEOUT))
    assert fingerprint(table.game_id) == before
    # The hostile phones are away now; Ada's stays present.
    assert presence.connected(table.game_id) == {seats[0]}
    # The next real move (Bob's, from another phone) reaches the other screens.
    moved = run(database_sync_to_async(play_as)(table, legal(table.game_id)[0]))
    assert moved == version + 1
    for live in (tv, ada):
        run(live.until_version(moved))
        assert not live.closed_by_server and live.crashed() is None
