"""Fixtures for the web layer: fresh process-wide state and live websocket screens."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.utils import translation
from pytest_django.fixtures import Settings

from game.screens import first_paint
from game.storage import presence
from game.writer import bot_turns
from tests.web.helpers import Screens


def _flush_channel_layer() -> None:
    layer = get_channel_layer()
    if layer is not None and hasattr(layer, "flush"):
        async_to_sync(layer.flush)()


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    django_db_modify_db_settings_parallel_suffix: None, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Test on an SQLite file, as the server runs, not on shared-cache memory.

    Bot turns run in their own threads; on a shared-cache in-memory database a
    reader and a writer collide at once ("database table is locked"), while a
    file in WAL mode lets readers read and makes writers wait (the busy timeout).
    """
    database = settings.DATABASES["default"]
    if database["ENGINE"].endswith("sqlite3"):
        database.setdefault("TEST", {})["NAME"] = str(
            tmp_path_factory.mktemp("db") / "test.sqlite3"
        )


@pytest.fixture(autouse=True)
def fresh_process_state(
    request: pytest.FixtureRequest, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Forget what an earlier test left in this process: sockets, caches, bot turns, the
    active language (a request in Finnish leaves Finnish active in its thread, and the
    next test on this worker would read its refusals in Finnish).

    Presence lives in the database, which every test gets fresh. A test's screens
    send no heartbeat of their own, so on a busy machine (parallel tests on two cores)
    a phone would go silent (its seat "reconnecting" on the TV) in the middle of a test
    about something else, as test_socket_fuzz's phone did after 83 s: here a phone is
    silent only after as long as a test may run (pytest's timeout), unless the test is
    about that (tests/web/test_presence.py).
    """
    settings.SPLENDOR_BOT_DELAY = 0.01
    # A finished game's story (import_game tells it at once) on a test's budget.
    settings.SPLENDOR_ANALYSIS_PLAYOUTS = 2
    settings.SPLENDOR_ANALYSIS_LOW_PRIORITY = False  # a busy test machine has no idle core
    monkeypatch.setattr(presence, "LIVE", float(request.config.getini("timeout") or 600))
    _flush_channel_layer()
    first_paint.clear_cache()
    yield
    bot_turns.scheduler.cancel()
    first_paint.clear_cache()
    _flush_channel_layer()
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture
async def screens() -> AsyncIterator[Screens]:
    """Open websockets against the full ASGI application; all are closed after the test."""
    opened = Screens()
    try:
        yield opened
    finally:
        await opened.close_all()
