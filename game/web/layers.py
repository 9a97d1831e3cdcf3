"""The channel layers: in one server process (runserver), Channels' in-memory layer,
without deep copies of the game's messages, without a task per member of a group, and
with its clean-up walk at most once a second; across processes, channels-redis's
pub/sub layer, with rooms and projections sent as JSON (game.storage.readmodel.to_wire).

The stock layer deep-copies every message it queues, once for each screen of a group.
The game's messages (game.writer.notices.encode) are flat dicts of strings, numbers and
frozen rooms and projections, which a shallow copy copies whole; deep-copying the projections
made the server's CPU per action 3.2-4 times as high. A task per member of a group
made it 1.07-1.34 times as high (5 of 6 pairs). It also walks every channel and
group for expired messages at each receive and group send; with 500 sockets that walk
made the CPU per action of bench_web's paced games 1.3-1.7 times as high. Messages
expire after a minute, so walking once a second changes nothing a screen can notice.
Each measured by turns against the stock behaviour (docs/performance.md).
"""

from __future__ import annotations

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

# Frozen all the way down: every screen of the process may share one.
_IMMUTABLE = frozenset({str, int, float, bool, type(None), bytes, Room, GameView})


class _Flat(dict[str, Any]):
    """A message whose values are all immutable: its deep copy is a shallow one."""

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return dict(self)


class InMemoryChannelLayer(StockInMemoryChannelLayer):  # type: ignore[misc]  # Channels ships no types
    """Channels' in-memory layer, sending a flat message as a shallow copy, a group's
    message to its members one after another, and walking for expired messages at most
    every CLEAN_EVERY seconds.

    Relies on the stock send copying each message with copy.deepcopy, which asks the
    message's own __deepcopy__; on the stock groups, {group: {channel: time joined}};
    and on the stock receive walking in _clean_expired (pinned by
    tests/web/test_tuning.py)."""

    CLEAN_EVERY = 1.0  # seconds between walks over all channels and groups

    _cleaned_at = 0.0

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._cleaned_at < self.CLEAN_EVERY:
            return
        self._cleaned_at = now
        super()._clean_expired()

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        if all(type(value) in _IMMUTABLE for value in message.values()):
            message = _Flat(message)
        await super().send(channel, message)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        """The stock group_send without a task per member: putting a message on a queue
        never waits, so the members are sent to one after another."""
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        for channel in list(self.groups.get(group, {})):
            with contextlib.suppress(ChannelFull):  # as the stock layer: a full one misses it
                await self.send(channel, message)


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
