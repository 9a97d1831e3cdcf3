"""A seat played in the open (on the TV, which everyone sees): its actions and payments,
and never the face of a card it reserved blind."""

from __future__ import annotations

import pytest

from game.engine import GameState
from game.engine.actions import BUY
from game.engine.projection import TABLE, blind_reserve, view_for, view_in_the_open
from tests.engine.builder import position
from tests.engine.playouts import many_positions
from tests.engine.test_projection import allowed_card_ids, card_views


def rich_position() -> GameState:
    """Seat 0, to play, reserved card 41 blind and card 21 face up, and can afford both."""
    return position(
        players=2,
        seats=[{"reserved": [41, 21], "blind": [True, False], "tokens": "wuggrrkky"}],
        market={1: [1, 2, 3, 4], 2: [45, 46, 47, 48], 3: [71, 72, 73, 74]},
        decks={1: [5, 6], 2: [50, 51], 3: [75]},
        nobles=[1, 2, 3],
        current=0,
    )


def test_the_open_view_plays_the_seat_but_keeps_its_blind_card_face_down() -> None:
    state = rich_position()
    assert 41 in view_for(state, 0).affordable  # as its own phone would see it
    view = view_in_the_open(state, 0)
    assert view.viewer == 0 and view.me is not None and view.legal
    assert 41 not in {v.id for v in card_views(view)}
    assert view.me.reserved[0].card is None and view.me.reserved[0].blind
    assert view.me.reserved[1].card is not None and view.me.reserved[1].card.id == 21
    assert 41 not in view.affordable and 41 not in dict(view.payments)
    assert not [a for a in view.legal if a.kind == BUY and a.card == 41]
    assert [a for a in view.legal if a.kind == BUY and a.card == 21]  # face up: offered


def test_the_open_view_has_no_actions_off_its_turn() -> None:
    state = rich_position()
    assert view_in_the_open(state, 1).legal == ()


def test_a_look_finds_only_a_blind_reserve_the_seat_holds() -> None:
    state = rich_position()
    assert blind_reserve(state, 0, 0) == 41
    for seat, slot in ((0, 1), (0, 2), (0, -1), (1, 0), (5, 0)):
        assert blind_reserve(state, seat, slot) is None


@pytest.mark.parametrize("viewer", [TABLE, "0", True])
def test_the_open_view_is_for_a_seat_only(viewer: object) -> None:
    with pytest.raises(ValueError):
        view_in_the_open(rich_position(), viewer)  # type: ignore[arg-type]


def test_no_open_view_ever_shows_what_the_table_may_not_see() -> None:
    checked = 0
    for state in many_positions(games=3, max_moves=150):
        for seat in range(state.num_players):
            view = view_in_the_open(state, seat)
            shown = {v.id for v in card_views(view)} | set(view.affordable)
            shown |= {a.card for a in view.legal if a.card} | {c for c, _ in view.payments}
            assert shown <= allowed_card_ids(state, TABLE), seat
            checked += 1
    assert checked > 300
