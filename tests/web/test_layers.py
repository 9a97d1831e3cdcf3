"""The in-memory channel layer of a single process (game.web.layers)."""

from __future__ import annotations

import pytest
from channels.exceptions import ChannelFull

from game.engine import new_game
from game.engine.projection import TABLE, view_for
from game.engine.vocabulary import SeatRole
from game.storage.readmodel import Room, SeatInfo
from game.web.layers import InMemoryChannelLayer


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


async def test_rooms_and_projections_are_shared_not_copied() -> None:
    """They are frozen: every screen of the process gets the writer's own objects."""
    layer = InMemoryChannelLayer()
    names = [await layer.new_channel() for _ in range(2)]
    for name in names:
        await layer.group_add("game-3", name)
    room = Room(
        3, "ABCDEF", "playing", 0, False, "", (SeatInfo(0, "Ada", SeatRole.HUMAN, True, "r"),)
    )
    view = view_for(new_game(2, 7, 0), TABLE)
    await layer.group_send("game-3", {"type": "table.changed", "room": room, "view": view})
    for name in names:
        received = await layer.receive(name)
        assert received["room"] is room and received["view"] is view


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
