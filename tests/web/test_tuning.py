"""Pins for the tuning kept beyond the libraries' defaults (docs/performance.md): each test
fails if a library upgrade changes what the tuning relies on."""

from __future__ import annotations

from typing import Any

from channels.layers import InMemoryChannelLayer as StockInMemoryChannelLayer

from game.engine import new_game
from game.engine.projection import TABLE, view_for
from game.web.layers import InMemoryChannelLayer


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
