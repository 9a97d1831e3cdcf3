"""Hints: the hard bot's move for a seat, legal, private, and explained by facts that match it."""

from __future__ import annotations

import random

import pytest

from game.engine import card, legal_actions, parse_action
from game.engine.actions import BUY, NOBLE, RESERVE, RETURN, TAKE, Action
from game.engine.colours import NAMES
from game.engine.hints import (
    BUY_CARD,
    CHOOSE_NOBLE,
    PASS_TURN,
    RESERVE_BLIND,
    RESERVE_CARD,
    RETURN_GEMS,
    TAKE_GEMS,
    Reason,
    explain,
    suggest,
)
from tests.engine.builder import position
from tests.engine.test_search import reshuffled, secret_positions

PLAYOUTS = 1  # one round: every candidate played out once

KIND_OF_ACTION = {
    BUY: BUY_CARD,
    TAKE: TAKE_GEMS,
    RETURN: RETURN_GEMS,
    NOBLE: CHOOSE_NOBLE,
    "pass": PASS_TURN,
}


def assert_matches(reason: Reason, action: Action) -> None:
    """The reason describes this very action."""
    if action.kind == RESERVE:
        assert reason.kind == (RESERVE_CARD if action.card else RESERVE_BLIND)
    else:
        assert reason.kind == KIND_OF_ACTION[action.kind]
    if action.card:
        bought = card(action.card)
        assert (reason.card, reason.level) == (bought.id, bought.level)
        assert (reason.colour, reason.points) == (NAMES[bought.bonus], bought.points)
    if action.kind == RESERVE and not action.card:
        assert reason.level == action.level and reason.card == 0
    if action.kind in (TAKE, RETURN):
        assert reason.gems == tuple(NAMES[c] for c in action.gems)


@pytest.mark.parametrize("index", range(2))
def test_hint_is_legal_private_and_explained(index: int) -> None:
    state, seat = secret_positions()[index]
    hint = suggest(state, seat, budget=None, playouts=PLAYOUTS)
    assert hint.action in legal_actions(state)
    assert_matches(hint.reason, hint.action)
    # Dealing the hidden cards anew changes nothing the seat could know.
    other = reshuffled(state, seat, random.Random(index))
    assert other.decks != state.decks
    assert suggest(other, seat, budget=None, playouts=PLAYOUTS) == hint


def test_hint_only_for_the_seat_to_play() -> None:
    state = position(current=0)
    with pytest.raises(ValueError):
        suggest(state, 1, playouts=PLAYOUTS)


def test_hint_buys_the_card_that_brings_the_noble_and_the_win() -> None:
    """11 points, bonuses 3 white 4 blue: card 6 (white, costs 3 blue) is free and
    brings noble 1 (4 white, 4 blue: 3 points), but only 14 points. Card 74 (level 3
    white, 5 points, 3 white 7 black) wins outright with the noble too."""
    state = position(
        seats=[{"tokens": "kkkkkkk", "bonuses": "wwwuuuu", "points": 7}, {"points": 4}],
        market={1: [6, 9, 10], 3: [74]},
        nobles=[1, 5],
    )
    hint = suggest(state, 0, budget=None, playouts=PLAYOUTS)
    assert hint.action.kind == BUY and hint.action.card == 74
    reason = hint.reason
    assert (reason.kind, reason.level, reason.colour, reason.points) == (BUY_CARD, 3, "white", 5)
    assert (reason.noble, reason.noble_missing, reason.wins) == (1, 0, True)


def test_buy_reason_one_step_closer_to_a_noble() -> None:
    # Card 43: level 2, white, 2 points, five red. Noble 1 needs 4 white and 4 blue.
    state = position(
        seats=[{"tokens": "rrrrr", "bonuses": "wwuuuu"}], market={2: [43]}, nobles=[1, 5]
    )
    reason = explain(state, 0, parse_action("buy:43:rrrrr"))
    assert reason == Reason(
        BUY_CARD, card=43, level=2, colour="white", points=2, noble=1, noble_missing=1
    )
    assert reason.closer_to_noble


def test_buy_reason_without_noble_progress() -> None:
    state = position(seats=[{"tokens": "rrrrr"}], market={2: [43]}, nobles=[3])
    reason = explain(state, 0, parse_action("buy:43:rrrrr"))
    assert reason.noble == 0 and not reason.closer_to_noble and not reason.wins


def test_take_reason_names_the_card_it_makes_affordable() -> None:
    # Taking red, green and black makes card 43 (five red, 2 points) and card 1 affordable.
    state = position(seats=[{"tokens": "rrrr"}], market={1: [1], 2: [43]})
    reason = explain(state, 0, parse_action("take:grk"))
    assert reason == Reason(TAKE_GEMS, gems=("green", "red", "black"), next_card=43)


def test_take_reason_without_a_next_card() -> None:
    state = position(market={2: [43]})
    assert explain(state, 0, parse_action("take:wug")).next_card == 0


def test_reserve_reasons() -> None:
    state = position(market={2: [43]}, decks={3: [74]})
    face_up = explain(state, 0, parse_action("reserve:43"))
    assert face_up == Reason(RESERVE_CARD, card=43, level=2, colour="white", points=2, gold=True)
    blind = explain(state, 0, parse_action("reserve:d3"))
    assert blind == Reason(RESERVE_BLIND, level=3, gold=True)
    no_gold = position(market={2: [43]}, bank="wwww")
    assert not explain(no_gold, 0, parse_action("reserve:43")).gold


def test_reserve_for_gold_that_makes_a_card_affordable() -> None:
    state = position(seats=[{"tokens": "rrrr"}], market={2: [43]})
    assert explain(state, 0, parse_action("reserve:43")).next_card == 43


def test_noble_and_return_and_pass_reasons() -> None:
    state = position(seats=[{"tokens": "wwwwwwwwwww", "points": 13}], market={2: [43]})
    assert explain(state, 0, parse_action("noble:1")) == Reason(
        CHOOSE_NOBLE, noble=1, points=3, wins=True
    )
    assert explain(state, 0, parse_action("return:w")) == Reason(RETURN_GEMS, gems=("white",))
    assert explain(state, 0, parse_action("pass")) == Reason(PASS_TURN)
