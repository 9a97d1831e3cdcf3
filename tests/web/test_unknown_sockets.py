"""Websockets on paths the game does not serve are refused politely (no server error)."""

from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator

from splendor_site.asgi import application
from tests.web.helpers import HOST, ORIGIN

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/ws/",
        "/ws/nope/",
        "/ws/game/ABCDEF/",
        "/ws/game/ABCDEF/kitchen/",
        "/ws/game/AB/seat/",
        "/ws/game/ÄÖÜÄÖÜ/seat/",
        "/ws/game/%00/table/",
        "/ws/game/ABCDEF/table/extra/",
        "/static/css/splendor.css",
        "/" + "x" * 5000,
    ],
)
async def test_an_unknown_path_is_closed_cleanly(path: str) -> None:
    headers = [(b"host", HOST.encode()), (b"origin", ORIGIN.encode())]
    communicator = WebsocketCommunicator(application, path, headers)
    connected, code = await communicator.connect(timeout=5)
    assert (connected, code) == (False, 4404)
    await communicator.disconnect(timeout=5)  # raises if the app failed


async def test_an_unknown_game_is_closed_cleanly() -> None:
    headers = [(b"host", HOST.encode()), (b"origin", ORIGIN.encode())]
    communicator = WebsocketCommunicator(application, "/ws/game/ZZZZZZ/table/", headers)
    connected, _subprotocol = await communicator.connect(timeout=5)
    assert connected  # accepted, then closed with the code, so that the page hears it
    closed = await communicator.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 4404}
    await communicator.disconnect(timeout=5)
