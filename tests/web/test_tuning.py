"""Pins for the tuning kept beyond the libraries' defaults (docs/performance.md): each test
fails if a library upgrade changes what the tuning relies on."""

from __future__ import annotations

import gc
import subprocess
import sys
import time
from typing import Any

import channels.consumer
import channels.db
import pytest
from channels.consumer import AsyncConsumer, get_handler_name
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer as StockInMemoryChannelLayer

from game.engine import new_game
from game.engine.projection import TABLE, view_for
from game.web.layers import InMemoryChannelLayer
from game.web.startup import GC_THRESHOLDS, settle_interpreter


async def test_channels_in_memory_layer_copies_each_message_it_queues_with_deepcopy() -> None:
    """InMemoryChannelLayer hands Channels' send a flat message whose __deepcopy__ makes a
    shallow copy: Channels must copy each queued message with copy.deepcopy, once."""
    copied = []

    class Marked(dict[str, Any]):
        def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
            copied.append(self)
            return dict(self)

    stock = StockInMemoryChannelLayer()
    name = await stock.new_channel()
    message = Marked(type="table.changed", version=3)
    await stock.send(name, message)
    received = await stock.receive(name)
    assert copied == [message]
    assert received == {"type": "table.changed", "version": 3} and type(received) is dict


async def test_a_group_message_s_projection_reaches_every_member_uncopied() -> None:
    """Channels' group_send passes the message to the layer's send once per member; a
    projection then reaches every screen as the writer's own object."""
    layer = InMemoryChannelLayer()
    names = [await layer.new_channel() for _ in range(3)]
    for name in names:
        await layer.group_add("game-1", name)
    view = view_for(new_game(2, 7, 0), TABLE)
    await layer.group_send("game-1", {"type": "table.changed", "view": view, "version": 1})
    for name in names:
        assert (await layer.receive(name))["view"] is view


async def test_channels_in_memory_layer_cleans_up_at_each_receive_and_group_send() -> None:
    """InMemoryChannelLayer runs the clean-up walk at most once a second: Channels' layer
    must walk in _clean_expired, called from receive and group_send."""
    calls = []

    class Counted(StockInMemoryChannelLayer):
        def _clean_expired(self) -> None:
            calls.append("clean")
            super()._clean_expired()  # type: ignore[no-untyped-call]

    layer = Counted()
    name = await layer.new_channel()
    await layer.group_add("game-2", name)
    await layer.group_send("game-2", {"type": "x"})
    assert calls == ["clean"]
    await layer.receive(name)
    assert calls == ["clean", "clean"]


async def test_channels_clean_up_drops_expired_messages_their_queues_and_memberships() -> None:
    """What the once-a-second walk is relied on to do: drop a message past its expiry,
    the queue it leaves empty and its channel's group memberships."""
    stock = StockInMemoryChannelLayer()
    old, other = await stock.new_channel(), await stock.new_channel()
    for channel in (old, other):
        await stock.group_add("game-3", channel)
    await stock.send(old, {"type": "x"})
    _, message = stock.channels[old].get_nowait()
    stock.channels[old].put_nowait((time.time() - 1, message))  # as if a minute went by
    stock._clean_expired()  # type: ignore[no-untyped-call]
    assert old not in stock.channels
    assert set(stock.groups["game-3"]) == {other}


async def test_the_layer_walks_again_once_its_interval_is_over() -> None:
    layer = InMemoryChannelLayer()
    name = await layer.new_channel()
    await layer.group_add("game-4", name)
    await layer.send(name, {"type": "x"})
    _, message = layer.channels[name].get_nowait()
    layer.channels[name].put_nowait((time.time() - 1, message))
    layer._cleaned_at = time.monotonic()  # walked just now: not yet again
    await layer.group_send("game-5", {"type": "y"})
    assert name in layer.channels
    layer._cleaned_at -= layer.CLEAN_EVERY
    await layer.group_send("game-5", {"type": "y"})
    assert name not in layer.channels and not layer.groups.get("game-4")


def test_python_s_collector_is_the_one_the_thresholds_were_measured_against() -> None:
    """GC_THRESHOLDS (game.web.startup) replaces the thresholds of a collector with three
    generations whose defaults are 700, 10, 10; another collector needs measuring again."""
    found = subprocess.run(
        [sys.executable, "-c", "import gc; print(gc.get_threshold(), len(gc.get_count()))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert found == "(700, 10, 10) 3"


def test_the_server_sets_the_collector_s_thresholds_as_it_starts() -> None:
    before = gc.get_threshold()
    try:
        settle_interpreter()
        assert gc.get_threshold() == GC_THRESHOLDS
    finally:
        gc.set_threshold(*before)


async def test_channels_groups_are_the_dict_of_members_the_layer_s_group_send_reads() -> None:
    """InMemoryChannelLayer.group_send sends to each member itself (Channels starts a task
    per member): it reads Channels' groups, {group: {channel: time joined}}."""
    stock = StockInMemoryChannelLayer()
    first, second = await stock.new_channel(), await stock.new_channel()
    for channel in (first, second):
        await stock.group_add("game-6", channel)
    assert list(stock.groups) == ["game-6"]
    assert list(stock.groups["game-6"]) == [first, second]
    assert all(isinstance(joined, float) for joined in stock.groups["game-6"].values())
    await stock.group_discard("game-6", first)
    assert list(stock.groups["game-6"]) == [second]


async def test_the_layer_s_group_send_delivers_as_channels_group_send_does() -> None:
    """The same joins, leaves and sends, one member full: the same messages arrive."""
    received = []
    for layer in (StockInMemoryChannelLayer(capacity=2), InMemoryChannelLayer(capacity=2)):
        names = [f"specific.screen!{index}" for index in range(3)]
        for name in names:
            await layer.group_add("game-7", name)
        await layer.group_discard("game-7", names[2])
        await layer.send(names[0], {"type": "before"})
        for version in (1, 2):
            await layer.group_send("game-7", {"type": "changed", "version": version})
        await layer.group_send("game-8", {"type": "nobody"})
        received.append(
            [
                [(await layer.receive(n))["type"] for _ in range(layer.channels[n].qsize())]
                for n in names[:2]
            ]
        )
    assert received[0] == received[1] == [["before", "changed"], ["changed", "changed"]]


async def test_channels_dispatch_checks_the_database_connections_before_every_handler(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """GameConsumer.dispatch leaves out what Channels' dispatch does before every handler:
    await aclose_old_connections (a database-thread trip), then the handler by type."""
    calls: list[str] = []

    async def counted() -> None:
        calls.append("check")

    class Echo(AsyncConsumer):  # type: ignore[misc]  # Channels ships no types
        async def websocket_receive(self, message: dict[str, Any]) -> None:
            calls.append(message["text"])

    monkeypatch.setattr(channels.consumer, "aclose_old_connections", counted)
    await Echo().dispatch({"type": "websocket.receive", "text": "x"})
    assert calls == ["check", "x"]
    assert get_handler_name({"type": "game.table_changed"}) == "game_table_changed"


@pytest.mark.django_db(transaction=True)
async def test_database_sync_to_async_checks_the_connections_around_each_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What makes leaving out the dispatch's check safe: every database call of the
    consumer goes through database_sync_to_async, which checks before and after."""
    calls: list[str] = []
    monkeypatch.setattr(channels.db, "close_old_connections", lambda: calls.append("check"))
    await database_sync_to_async(lambda: calls.append("call"))()
    assert calls == ["check", "call", "check"]


def test_daphne_queues_every_websocket_message_for_its_application_unread() -> None:
    """game.web.flow pauses reading when the queue Daphne's protocol fills is long: each
    message must go into `application_queue` as it is read (put_nowait), so its qsize()
    is what the application has not read yet."""
    import asyncio

    from daphne.ws_protocol import WebSocketProtocol

    protocol = WebSocketProtocol()
    protocol.application_queue = asyncio.Queue()
    protocol.client_addr = None
    protocol.onMessage(b'{"sync": true}', False)
    protocol.onMessage(b"\x00", True)
    assert protocol.application_queue.qsize() == 2
    assert protocol.application_queue.get_nowait() == {
        "type": "websocket.receive",
        "text": '{"sync": true}',
    }


def test_daphne_builds_each_websocket_with_its_factory_s_protocol_class() -> None:
    """game.web.flow.install sets WebSocketFactory.protocol: Daphne's server must make its
    factory from that class, and Twisted's factory build `self.protocol()`."""
    import inspect

    import daphne.server
    from daphne.ws_protocol import WebSocketFactory
    from twisted.internet.protocol import Factory

    from game.web.flow import FlowControlledProtocol, install

    assert "WebSocketFactory(self" in inspect.getsource(daphne.server.Server.run)
    assert "self.protocol()" in inspect.getsource(Factory.buildProtocol)
    assert "super().buildProtocol(addr)" in inspect.getsource(WebSocketFactory.buildProtocol)
    install()
    assert WebSocketFactory.protocol is FlowControlledProtocol


def test_daphne_closes_a_socket_through_serverclose_with_the_application_s_code() -> None:
    """FlowControlledProtocol stops reading a socket closed with Close.FLOOD in its
    serverClose: Daphne must close an application's websocket.close there, with its code."""
    from daphne.ws_protocol import WebSocketProtocol

    calls: list[int | None] = []

    class Seen(WebSocketProtocol):  # type: ignore[misc]
        def serverClose(self, code: int | None = None) -> None:  # noqa: N802
            calls.append(code)

    protocol = Seen()
    protocol.state = protocol.STATE_OPEN
    protocol.handle_reply({"type": "websocket.close", "code": 4008})
    assert calls == [4008]
