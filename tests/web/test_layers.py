"""The in-memory channel layer of a single process (game.layers)."""

from __future__ import annotations

import pytest
from channels.exceptions import ChannelFull

from game.layers import InMemoryChannelLayer


async def test_a_group_message_reaches_every_member_as_its_own_copy() -> None:
    layer = InMemoryChannelLayer()
    names = [await layer.new_channel() for _ in range(3)]
    for name in names:
        await layer.group_add("game-1", name)
    message = {"type": "table.changed", "room": "{}", "view": "", "version": 3}
    await layer.group_send("game-1", message)
    received = [await layer.receive(name) for name in names]
    assert received == [message] * 3
    assert all(r is not message for r in received)
    assert len({id(r) for r in received}) == 3


async def test_a_nested_message_is_still_copied_deeply() -> None:
    layer = InMemoryChannelLayer()
    name = await layer.new_channel()
    items = [1, 2]
    await layer.send(name, {"type": "x", "items": items})
    items.append(3)  # the sender changes its own list afterwards
    assert (await layer.receive(name))["items"] == [1, 2]


async def test_a_full_channel_refuses_a_send_and_misses_a_group_message() -> None:
    layer = InMemoryChannelLayer(capacity=1)
    full, other = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("game-2", full)
    await layer.group_add("game-2", other)
    await layer.send(full, {"type": "first"})
    with pytest.raises(ChannelFull):
        await layer.send(full, {"type": "second"})
    await layer.group_send("game-2", {"type": "third"})
    assert (await layer.receive(full))["type"] == "first"
    assert (await layer.receive(other))["type"] == "third"
