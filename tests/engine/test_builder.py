"""The position builder itself: what the scenario tests rely on."""

import pytest

from game.engine.state import EMPTY, MAIN
from tests.engine.builder import bank_of, counts, legal, position, seat, tokens_of


def test_token_strings_dicts_and_lists_give_the_same_counts():
    assert counts("wwuy") == counts({"w": 2, "u": 1, "y": 1}) == [2, 1, 0, 0, 0, 1]
    assert counts([2, 1, 0, 0, 0, 1]) == [2, 1, 0, 0, 0, 1]
    assert counts("ggr", size=5) == [0, 0, 2, 1, 0]
    with pytest.raises(ValueError):
        counts("y", size=5)


def test_the_bank_defaults_to_the_starting_bank_less_what_the_seats_hold():
    state = position(3, seats=[{"tokens": "wwy"}, {"tokens": "k"}])
    assert state.bank == [3, 5, 5, 5, 4, 4]
    assert tokens_of(state, 0) == "wwy"
    assert bank_of(position(bank={"r": 2, "y": 1})) == "rry"


def test_bonuses_and_points_default_to_the_seats_cards_and_nobles():
    player = seat({"cards": [1, 8, 49], "nobles": [2]})
    assert player.bonuses == [2, 1, 0, 0, 0]
    assert player.points == 1 + 2 + 3
    direct = seat({"cards": [1], "bonuses": "kk", "points": 9})
    assert direct.bonuses == [0, 0, 0, 0, 2]
    assert direct.points == 9


def test_decks_are_listed_top_first_and_short_rows_are_padded_with_empty_spaces():
    state = position(market={1: [1, 2]}, decks={1: [5, 6, 7]})
    assert state.market == [[1, 2, EMPTY, EMPTY], [EMPTY] * 4, [EMPTY] * 4]
    assert state.decks[0][-1] == 5  # the engine draws from the end
    assert state.phase == MAIN


def test_cards_must_sit_at_their_own_level():
    with pytest.raises(ValueError):
        position(market={2: [1]})
    with pytest.raises(ValueError):
        position(decks={1: [90]})


def test_legal_gives_notations():
    assert legal(position(bank="k")) == {"take:k"}
