"""The wire format of projections: what a screen decodes is what the writer projected."""

from __future__ import annotations

import pytest

from game.engine import new_game
from game.engine.bots import make_bot
from game.engine.projection import TABLE, view_for
from game.engine.rules import apply_action
from game.readmodel import decode_view, encode_view


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
