"""Last-action markers: the market spaces that got a new card from the deck in the
last complete turn, public in every viewer's projection, for the TV to highlight.

Card 17 (level 1) costs r3; card 49 (level 2) costs u5; cards 1-4 are level 1.
"""

from __future__ import annotations

from typing import Any

from game.engine import GameState
from game.engine.projection import SPECTATOR, TABLE, view_for
from game.engine.state import EMPTY, RETURN
from tests.engine.builder import play, position


def table(**kwargs: Any) -> GameState:
    return position(
        3,
        market={1: [1, 17, 3, 4], 2: [49]},
        decks={1: [5, 6], 2: []},
        **kwargs,
    )


def everyone_sees(state: GameState) -> set[tuple[tuple[int, int], ...]]:
    viewers = [TABLE, SPECTATOR, *range(state.num_players)]
    return {view_for(state, v).last_refills for v in viewers}


def test_buying_a_face_up_card_marks_its_space_once_the_turn_ends():
    state = table(seats=[{"tokens": "rrr"}])
    play(state, "buy:17:rrr")
    assert state.market[0] == [1, 5, 3, 4]
    assert state.last_refills == [(1, 1)]
    assert everyone_sees(state) == {((1, 1),)}


def test_reserving_a_face_up_card_marks_its_space():
    state = table()
    play(state, "reserve:4")
    assert state.market[0] == [1, 17, 3, 5]
    assert everyone_sees(state) == {((1, 3),)}


def test_a_blind_reserve_or_a_take_marks_nothing_and_clears_the_last_marks():
    state = table()
    play(state, "reserve:1")
    assert state.last_refills == [(1, 0)]
    play(state, "reserve:d1")
    assert state.last_refills == []
    play(state, "take:wug")
    assert everyone_sees(state) == {()}


def test_a_space_left_empty_by_an_empty_deck_is_not_a_refill():
    state = table()
    play(state, "reserve:49")
    assert state.market[1][0] == EMPTY
    assert state.last_refills == []


def test_the_marks_wait_for_the_end_of_the_turn():
    # Seat 2 reserves card 1; then seat 0, holding ten tokens, reserves card 17 and
    # its gold makes eleven: the turn ends only after one token goes back.
    state = table(seats=[{"tokens": "wwuuggrrkk"}], current=2, first=0)
    play(state, "reserve:1")
    assert state.last_refills == [(1, 0)]
    play(state, "reserve:17")
    assert state.phase == RETURN
    assert state.turn_refills == [(1, 1)]
    assert everyone_sees(state) == {((1, 0),)}  # still the previous turn's
    play(state, "return:y")
    assert state.last_refills == [(1, 1)]
    assert state.turn_refills == []


def test_the_marks_survive_a_snapshot_and_old_snapshots_load_without_them():
    state = table()
    play(state, "reserve:1")
    assert GameState.from_json(state.to_json()) == state
    data = state.to_dict()
    assert data["last_refills"] == [[1, 0]]
    del data["last_refills"], data["turn_refills"]
    assert GameState.from_dict(data).last_refills == []
