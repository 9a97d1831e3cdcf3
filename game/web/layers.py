"""The channel layers: in one server process (runserver), Channels' in-memory layer,
with its housekeeping done at most once a second and no copying or task per
message that it does not need; across processes, channels-redis's pub/sub layer,
with rooms and projections sent as JSON (game.storage.readmodel.to_wire).

The stock layer walks every channel and every group to drop expired messages on
each send and each receive; with a few hundred sockets that walk costs more
than delivering the message. Messages expire after a minute, so doing it once a
second changes nothing a screen can notice. It also deep-copies every message
and starts a task for every member of a group; the game's messages (game.writer.events)
are flat dicts of strings, numbers and immutable rooms and projections, which a
shallow copy copies whole, and putting a message on a queue never waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer as StockInMemoryChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer

from game.engine.projection import GameView
from game.storage.readmodel import Room, from_wire, to_wire
from game.tuning_off import off

# Frozen all the way down: every screen of the process may share one.
_IMMUTABLE = frozenset({str, int, float, bool, type(None), bytes, Room, GameView})


class InMemoryChannelLayer(StockInMemoryChannelLayer):
    CLEAN_EVERY = 1.0  # seconds between walks over all channels and groups

    _cleaned_at = 0.0

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._cleaned_at < self.CLEAN_EVERY:
            return
        self._cleaned_at = now
        super()._clean_expired()  # type: ignore[no-untyped-call]

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        if any(type(value) not in _IMMUTABLE for value in message.values()):
            await super().send(channel, message)  # nested values: the stock deep copy
            return
        assert "__asgi_channel__" not in message
        self.require_valid_channel_name(channel)
        queue = self.channels.get(channel)
        if queue is None:  # made as the stock layer makes it
            queue = self.channels.setdefault(
                channel, asyncio.Queue(maxsize=self.get_capacity(channel))
            )
        try:
            queue.put_nowait((time.time() + self.expiry, dict(message)))
        except asyncio.QueueFull:
            raise ChannelFull(channel) from None

    async def receive(self, channel: str) -> dict[str, Any]:
        """The stock receive, keeping a socket's queue while the socket listens.

        The stock layer drops a queue as soon as it is empty and makes a new one (with
        its event and deques) at the next call, so a screen made one for each message:
        objects that lived until its next change, for the garbage collector's middle
        generation to walk. Here a queue goes when its socket stops listening (the
        wait is cancelled as the socket closes); one nobody listens to any more is
        dropped by the clean-up once its messages expire, as in the stock layer.
        """
        self._clean_expired()
        queue = self.channels.get(channel)
        if queue is None:
            queue = self.channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
        try:
            _, message = await queue.get()
        except BaseException:
            if queue.empty() and self.channels.get(channel) is queue:
                del self.channels[channel]
            raise
        return message  # type: ignore[no-any-return]

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        for channel in list(self.groups.get(group, {})):
            with contextlib.suppress(ChannelFull):  # as the stock layer: a full one misses it
                await self.send(channel, message)


if off("layers"):
    InMemoryChannelLayer = StockInMemoryChannelLayer  # type: ignore[misc]


class RedisChannelLayer(RedisPubSubChannelLayer):  # type: ignore[misc]
    """channels-redis's pub/sub layer, with rooms and projections crossing processes as JSON.

    Why pub/sub and not channels-redis's list layer: a change is one PUBLISH per
    audience, pushed to every process that has a screen in that audience, where the
    list layer spends about four Redis round trips on each group send and four more
    on each message received (its lock, pop, backup and clean-up), and silently
    drops messages once a process's inbox holds 100 (every screen of a process shares
    one inbox). Screens do not need messages kept for them: a screen that connects
    or reconnects is sent the whole game (game.web.consumers.send_full), and one that
    missed a change catches up at its process's periodic version check (game.writer.liveness).

    Every screen of this process in an audience receives the same bytes: they are
    decoded once and each screen gets its own shallow copy of the message.
    """

    _decoded: tuple[bytes, dict[str, Any]] | None = None

    def serialize(self, message: dict[str, Any]) -> bytes:
        return super().serialize(to_wire(message))  # type: ignore[no-any-return]

    def deserialize(self, message: bytes) -> dict[str, Any]:
        decoded = self._decoded
        if decoded is None or decoded[0] is not message:
            decoded = (message, from_wire(super().deserialize(message)))
            self._decoded = decoded
        return dict(decoded[1])

    async def group_send_many(self, sent: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Send a change's messages, one per audience, in one round trip to Redis (the
        stock layer awaits one PUBLISH after another); in order, as group_send would."""
        layer = self._get_layer()
        by_shard: dict[Any, list[tuple[str, bytes]]] = defaultdict(list)
        for group, message in sent:
            name = layer._get_group_channel_name(group)
            by_shard[layer._get_shard(name)].append((name, self.serialize(message)))
        for shard, published in by_shard.items():
            async with shard._lock:  # the shard's own: its connection is made under it
                shard._ensure_redis()
                pipe = shard._redis.pipeline(transaction=False)
                for name, data in published:
                    pipe.publish(name, data)
                await pipe.execute()
