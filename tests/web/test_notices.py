"""game.writer.notices: every notice becomes the channel layer's dict and back, in this
process and across processes (the Redis layer's bytes), and nothing else is taken for one."""

from __future__ import annotations

import pytest

from game.engine import new_game
from game.engine.projection import TABLE, view_for
from game.engine.vocabulary import SeatRole
from game.storage import presence
from game.storage.readmodel import Room, SeatInfo
from game.web.layers import RedisChannelLayer
from game.writer import notices

ROOM = Room(
    3,
    "ABCDEF",
    "playing",
    0,
    False,
    "",
    (
        SeatInfo(0, "Ελένη 🦊", SeatRole.HUMAN, True, "r1", id=5),
        SeatInfo(1, "", SeatRole.BOT, False, "r2", id=6),
    ),
)
STATE = new_game(2, 7, 0)

EVERY_KIND: list[notices.Notice] = [
    notices.TableChanged(ROOM, view_for(STATE, TABLE), "log"),
    notices.TableChanged(ROOM, None, ""),
    notices.SeatChanged(ROOM, view_for(STATE, 0), "log", "holder", 0),
    notices.SeatChanged(ROOM, None, "", "", -1),
    notices.presence_changed(3),
    notices.presence_shown(presence.Here(frozenset({6, 5}), frozenset({7})), 12.5),
    notices.ScreenBehind(4),
    notices.SocketReplaced(),
]


@pytest.mark.parametrize("notice", EVERY_KIND, ids=lambda n: type(n).__name__)
def test_a_notice_is_decoded_as_it_was_built(notice: notices.Notice) -> None:
    message = notices.encode(notice)
    assert message["type"] == notice.TYPE
    assert notices.decode(message) == notice


@pytest.mark.parametrize("notice", EVERY_KIND, ids=lambda n: type(n).__name__)
def test_a_notice_crosses_processes_as_it_was_built(notice: notices.Notice) -> None:
    layer = RedisChannelLayer(hosts=["redis://127.0.0.1:6379"])  # not connected: bytes only
    received = layer.deserialize(layer.serialize(notices.encode(notice)))
    assert notices.decode(received) == notice


def test_the_sockets_own_messages_are_no_notices() -> None:
    assert notices.decode({"type": "websocket.receive", "text": '{"ping":true}'}) is None
    assert notices.decode({"type": "websocket.disconnect", "code": 1000}) is None


def test_a_presence_shown_says_which_seats_have_a_phone() -> None:
    here = presence.Here(frozenset({6, 5}), frozenset({7}))
    shown = notices.presence_shown(here, 1.0)
    assert shown.connected == (5, 6) and shown.here == here


def test_a_change_tells_the_table_and_each_held_seat_only_its_own_view() -> None:
    sent = notices.notices_for(ROOM, {5: "ada", 6: "bot"}, STATE, gone=(9,), log="log")
    assert [group for group, _ in sent] == [
        "game-3",
        "game-3-seat-5",
        "game-3-seat-6",
        "game-3-seat-9",
    ]
    table, ada, bot, gone = (notice for _, notice in sent)
    assert isinstance(table, notices.TableChanged) and table.view == view_for(STATE, TABLE)
    assert isinstance(ada, notices.SeatChanged) and ada.view == view_for(STATE, 0)
    assert (ada.holder, ada.position) == ("ada", 0)
    assert isinstance(bot, notices.SeatChanged) and (bot.view, bot.holder) == (None, "")
    assert isinstance(gone, notices.SeatChanged) and (gone.holder, gone.position) == ("", -1)
