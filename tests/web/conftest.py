"""Fixtures for the web layer: fresh process-wide state and live websocket screens."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from pytest_django.fixtures import Settings

from game import consumers, presence, rendering
from tests.web.helpers import Screens


def _flush_channel_layer() -> None:
    layer = get_channel_layer()
    if layer is not None and hasattr(layer, "flush"):
        async_to_sync(layer.flush)()


@pytest.fixture(autouse=True)
def fresh_process_state(settings: Settings) -> Iterator[None]:
    """Forget what an earlier test left in this process: sockets, presence, caches, bots."""
    settings.SPLENDOR_BOT_DELAY = 0.01
    _flush_channel_layer()
    presence.reset()
    rendering.clear_cache()
    consumers._bot_drivers.clear()
    yield
    consumers._bot_drivers.clear()
    presence.reset()
    rendering.clear_cache()
    _flush_channel_layer()


@pytest.fixture
async def screens() -> AsyncIterator[Screens]:
    """Open websockets against the full ASGI application; all are closed after the test."""
    opened = Screens()
    try:
        yield opened
    finally:
        await opened.close_all()
        drivers = [task for task in consumers._bot_drivers.values() if not task.done()]
        for task in drivers:
            task.cancel()
        await asyncio.gather(*drivers, return_exceptions=True)
