"""A bare Channels fan-out server: the yardstick `bench_web` measures the project against.

    python -m daphne -b 127.0.0.1 -p PORT game.bench.bare_fanout:application

It speaks the project's websocket protocol as far as a screen can see it and
does nothing else: a screen connects to /ws/game/<CODE>/table/ or .../seat/
and gets a 3 KB fragment carrying `data-version` on the element with id
"screen" (TV) or "hand" (phone); a phone sends {"action": ..., "version": N}
and every screen of that game gets the fragment of version N + 1 through a
channel-layer group. No database, no templates, no rules: what remains is the
cost of Daphne, Channels and the channel layer. The layer is the in-memory
one, or Redis when REDIS_URL is set, as in the project's settings.
"""

from __future__ import annotations

import json
import os
from typing import Any

import django
from django.conf import settings

if not settings.configured:
    redis_url = os.environ.get("REDIS_URL", "").strip()
    settings.configure(
        CHANNEL_LAYERS={
            "default": (
                {
                    "BACKEND": "channels_redis.core.RedisChannelLayer",
                    "CONFIG": {"hosts": [redis_url]},
                }
                if redis_url
                else {"BACKEND": "channels.layers.InMemoryChannelLayer"}
            )
        },
    )
    django.setup()

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import re_path  # noqa: E402

FRAGMENT_BYTES = 3 * 1024
# Filler the size of a rendered region, so both servers send comparable frames.
_FILLER = '<span class="gem">o</span>' * (FRAGMENT_BYTES // 26)

# The version of each game in this process (one process is the yardstick's configuration).
versions: dict[str, int] = {}


def fragment(element: str, version: int) -> str:
    head = f'<div id="{element}" data-version="{version}" hx-swap-oob="true">'
    return (head + _FILLER)[: FRAGMENT_BYTES - 6] + "</div>"


class Fanout(AsyncWebsocketConsumer):  # type: ignore[misc]  # Channels ships no types
    """One screen: the whole fragment on connect, then one fragment per change."""

    code: str
    element: str

    async def connect(self) -> None:
        kwargs = self.scope["url_route"]["kwargs"]
        self.code = kwargs["code"]
        self.element = "screen" if kwargs["role"] == "table" else "hand"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send(text_data=fragment(self.element, versions.get(self.code, 0)))

    @property
    def group(self) -> str:
        return f"bare-{self.code}"

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            message = json.loads(text_data or "")
            if message.get("ping"):  # the heartbeat, answered as the project answers it
                await self.send(text_data="pong")
                return
            version = int(message["version"])
        except (ValueError, KeyError, TypeError, AttributeError):
            return
        if version < versions.get(self.code, 0):
            return  # built on an old version: refused, like the project refuses it
        versions[self.code] = version + 1
        await self.channel_layer.group_send(
            self.group, {"type": "game.changed", "version": version + 1}
        )

    async def game_changed(self, event: dict[str, Any]) -> None:
        await self.send(text_data=fragment(self.element, event["version"]))


application = ProtocolTypeRouter(
    {
        "websocket": URLRouter(
            [re_path(r"^ws/game/(?P<code>\w+)/(?P<role>table|seat)/$", Fanout.as_asgi())]
        )
    }
)
