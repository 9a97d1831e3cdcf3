"""The wire format of projections: what a screen decodes is what the writer projected."""

from __future__ import annotations

import dataclasses

import pytest

from game.engine import new_game
from game.engine.bot_registry import make_bot
from game.engine.projection import TABLE, card_view, noble_view, view_for
from game.engine.rules import apply_action
from game.engine.vocabulary import SeatRole
from game.storage.readmodel import Room, SeatInfo, decode_view, encode_view


@pytest.mark.parametrize("seed", [1, 7, 2024])
def test_every_projection_survives_the_wire_through_a_whole_game(seed: int) -> None:
    state = new_game(3, seed, 0)
    bots = [make_bot("greedy", seed + seat) for seat in range(3)]
    checked = 0
    while not state.is_over and checked < 400:
        for viewer in (TABLE, 0, 1, 2):
            view = view_for(state, viewer)
            assert decode_view(encode_view(view)) == view
        seat = state.current
        apply_action(state, bots[seat].choose(state, seat), seat)
        checked += 1
    view = view_for(state, TABLE)
    assert decode_view(encode_view(view)) == view  # the end, with its outcome
    assert state.is_over


def test_a_room_with_presence_changes_only_who_is_connected() -> None:
    seats = (
        SeatInfo(0, "Ada", SeatRole.HUMAN, False, "AAAA", id=11),
        SeatInfo(1, "Bot", SeatRole.BOT, True, "", id=12, bot_level="medium", bot_number=1),
        SeatInfo(2, "Cy", SeatRole.STAND_IN, False, "CCCC", id=13),
        SeatInfo(3, "Dee", SeatRole.HUMAN, True, "DDDD", id=14),
    )
    room = Room(5, "ABCD", "playing", 17, True, "EFGH", seats, 30, 2.5)
    shown = room.with_presence(frozenset({14}))
    # Every field as it was, but each seat's connected: a bot always, a human if here.
    expected = dataclasses.replace(
        room,
        seats=tuple(
            dataclasses.replace(s, connected=s.bot_plays or s.id == 14) for s in room.seats
        ),
    )
    assert shown == expected
    assert [s.connected for s in shown.seats] == [False, True, True, True]


def test_a_card_s_view_is_one_object_so_views_compare_by_identity() -> None:
    assert card_view(7) is card_view(7) and noble_view(3) is noble_view(3)
    assert card_view(7) == card_view(7) and card_view(7) != card_view(8)
    state = new_game(2, 11, 0)
    assert view_for(state, TABLE) == view_for(state, TABLE)  # equal views, as before
    assert hash(view_for(state, 0).market) == hash(view_for(state, 0).market)
