"""Taking gems: three different, or two of a kind from a pile of four (RULES.md 1 and 2)."""

from itertools import combinations

import pytest

from game.engine import IllegalActionError, MalformedActionError, NotationError
from game.engine.actions import Action
from game.engine.colours import GOLD, WHITE
from tests.engine.builder import (
    assert_refused,
    bank_of,
    legal,
    play,
    position,
    tokens_of,
    total_tokens,
)


def test_three_different_gems_move_from_the_bank_to_the_player():
    state = position(bank="wwwwuuuuggggrrrrkkkkyyyyy")
    play(state, "take:wug")
    assert tokens_of(state, 0) == "wug"
    assert bank_of(state) == "wwwuuugggrrrrkkkkyyyyy"
    assert state.current == 1


def test_with_a_full_bank_the_takes_are_ten_triples_and_five_pairs():
    state = position(bank="wwwwuuuuggggrrrrkkkkyyyyy")
    triples = {"take:" + "".join(t) for t in combinations("wugrk", 3)}
    pairs = {f"take:{c}{c}" for c in "wugrk"}
    assert legal(state) == triples | pairs


@pytest.mark.parametrize("text", ["take:w", "take:wu", "take:rk"])
def test_taking_one_or_two_different_gems_is_refused_while_three_colours_are_available(text: str):
    state = position(bank="wuuugggrrkk")
    assert_refused(state, text, IllegalActionError, "Take three gems")


def test_taking_two_different_gems_is_allowed_only_when_two_colours_are_left():
    state = position(bank="wwuuu")
    assert legal(state) == {"take:wu"}
    assert_refused(state, "take:w", IllegalActionError, "Only two colours are left")
    assert_refused(state, "take:u", IllegalActionError, "Only two colours are left")
    play(state, "take:wu")
    assert tokens_of(state, 0) == "wu"
    assert bank_of(state) == "wuu"


def test_taking_one_gem_is_allowed_only_when_one_colour_is_left():
    state = position(bank="kkk")
    assert legal(state) == {"take:k"}
    play(state, "take:k")
    assert tokens_of(state, 0) == "k"
    assert bank_of(state) == "kk"


def test_with_two_colours_left_two_of_a_kind_is_still_offered_from_a_pile_of_four():
    state = position(bank="wuuuu")
    assert legal(state) == {"take:wu", "take:uu"}


def test_four_different_gems_are_refused():
    state = position(bank="wwwwuuuuggggrrrrkkkk")
    assert_refused(state, "take:wugr", IllegalActionError, "Take three gems")


def test_five_different_gems_are_refused():
    state = position(bank="wwwwuuuuggggrrrrkkkk")
    assert_refused(state, "take:wugrk", IllegalActionError, "Take three gems")


def test_a_colour_the_bank_has_run_out_of_is_refused():
    state = position(bank="wwwwuuuugggg")
    assert_refused(state, "take:wur", IllegalActionError, "no red gems left")


def test_the_same_colour_twice_among_three_is_refused():
    state = position(bank="wwwwuuuugggg")
    assert_refused(state, "take:wwu", IllegalActionError, "different colours")


def test_two_of_a_kind_is_taken_from_a_pile_of_four():
    state = position(bank="wwwwuuuu")
    play(state, "take:ww")
    assert tokens_of(state, 0) == "ww"
    assert bank_of(state) == "wwuuuu"


def test_two_of_a_kind_is_refused_from_a_pile_of_three():
    state = position(bank="wwwuuuuggg")
    assert "take:ww" not in legal(state)
    assert_refused(state, "take:ww", IllegalActionError, "pile of at least four")


def test_two_of_a_kind_is_refused_from_a_pile_of_three_even_with_one_colour_left():
    state = position(bank="www")
    assert legal(state) == {"take:w"}
    assert_refused(state, "take:ww", IllegalActionError, "pile of at least four")


def test_three_or_four_of_a_kind_are_refused():
    state = position(bank="wwwwwww")
    assert_refused(state, "take:www", IllegalActionError)
    assert_refused(state, "take:wwww", IllegalActionError)


def test_gold_cannot_be_taken_by_notation():
    state = position(bank="wwwwyyyyy")
    assert_refused(state, "take:y", NotationError, "not a gem colour")
    assert_refused(state, "take:wy", NotationError, "not a gem colour")


def test_gold_cannot_be_taken_by_a_hand_built_action():
    state = position(bank="wwwwyyyyy")
    assert_refused(state, Action("take", gems=(GOLD,)), IllegalActionError, "Gold cannot be taken")
    assert_refused(state, Action("take", gems=(GOLD, GOLD)), IllegalActionError, "Gold")
    assert_refused(state, Action("take", gems=(WHITE, GOLD)), IllegalActionError, "Gold")


def test_an_empty_take_is_refused():
    state = position(bank="wwwwuuuugggg")
    assert_refused(state, "take:", NotationError)
    assert_refused(state, Action("take", gems=()), MalformedActionError)


def test_no_take_is_offered_when_the_bank_has_only_gold():
    state = position(bank="yyyyy", decks={1: [1]})
    assert legal(state) == {"reserve:d1"}


def test_taking_gems_conserves_the_tokens():
    state = position(3, seats=[{"tokens": "wug"}, {"tokens": "rrk"}])
    before = total_tokens(state)
    play(state, "take:grk", "take:ww", "take:wug")
    assert total_tokens(state) == before == [5, 5, 5, 5, 5, 5]
