"""The engine refuses, never breaks: action objects built in code with wrong types,
shapes or ranges raise an ActionError and leave the state exactly as it was.

Text from a screen always parses into a well-formed Action (see test_notation);
these are values a caller builds by hand, or anything else passed instead.
"""

from __future__ import annotations

import contextlib
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.engine import (
    ActionError,
    GameState,
    MalformedActionError,
    apply_action,
    legal_actions,
    parse_action,
)
from game.engine.actions import KINDS, Action
from game.engine.rules import validate
from tests.engine.builder import position
from tests.engine.playouts import many_positions

# Seat 0 holds red tokens and gold; card 17 (level 1, costs r3) is on the table.
RICH = {"tokens": "rrrrwwuyy", "reserved": [31]}


def rich() -> GameState:
    return position(2, seats=[RICH], market={1: [17, 1], 2: [49]}, decks={1: [5], 2: [50]})


def assert_malformed(state: GameState, action: object, seat: object = None) -> None:
    before = state.to_dict()
    with pytest.raises(MalformedActionError) as caught:
        apply_action(state, action, seat)  # type: ignore[arg-type]
    assert caught.value.template  # translatable, like every engine error
    assert state.to_dict() == before
    with pytest.raises(MalformedActionError):
        validate(state, action, seat)  # type: ignore[arg-type]


def raw(*fields: object) -> Action:
    """An Action whose fields are whatever the caller says, as NamedTuple allows."""
    return Action(*fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "action",
    [
        raw("buy", (), 17.0, 0, (0, 0, 0, 3, 0, 0)),  # a float card id
        raw("buy", (), True, 0, (0, 0, 0, 3, 0, 0)),  # a bool card id
        raw("buy", (), "17", 0, (0, 0, 0, 3, 0, 0)),  # a string card id
        raw("buy", (), 17, 0, (0, 0, 0, 2.5, 0, Fraction(1, 2))),  # fractional payment
        raw("buy", (), 17, 0, (0, 0, 0, 3.0, 0, 0)),  # a float that equals an int
        raw("buy", (), 17, 0, (0, 0, 0, 4, 0, -1)),  # negative payment
        raw("buy", (), 17, 0, (0, 0, 0, 3, 0)),  # five counts
        raw("buy", (), 17, 0, (0, 0, 0, 3, 0, 0, 0)),  # seven counts
        raw("buy", (), 17, 0, [0, 0, 0, 3, 0, 0]),  # a list, not a tuple
        raw("buy", (), 17, 0, None),
        raw("buy", (), 17, 1, (0, 0, 0, 3, 0, 0)),  # a level on a buy
        raw("buy", (), -17, 0, (0, 0, 0, 3, 0, 0)),
        raw("take", (0.0, 1, 2)),  # a float colour
        raw("take", (False, 1, 2)),  # a bool colour
        raw("take", [0, 1, 2]),  # a list
        raw("take", (2, 1, 0)),  # not sorted: its notation would not replay the same
        raw("take", (0, 1, 7)),  # no such colour
        raw("take", (-1, 0, 1)),
        raw("take", ()),
        raw("take", "wug"),
        raw("take", (0, 1, 2), 17),  # a card on a take
        raw("return", (0.5,)),
        raw("reserve", (), 17, 1),  # both a card and a deck
        raw("reserve", (), 1.0),
        raw("reserve", (), 0, 1.0),
        raw("reserve", (), 0, -1),
        raw("reserve", (), None, 1),
        raw("noble", (), 0, 0, (), 1.0),
        raw("noble", (), 0, 0, (), -3),
        raw("pass", (), 1),  # a pass with a card
        raw("pass", (0,)),
        raw("steal"),  # an unknown kind
        raw(""),
        raw(None),
        raw(["take"], (0, 1, 2)),  # an unhashable kind
        raw(b"take", (0, 1, 2)),
    ],
    ids=repr,
)
def test_a_hand_built_action_of_the_wrong_shape_is_refused(action: Action):
    assert_malformed(rich(), action)


@pytest.mark.parametrize(
    "thing",
    ["take:wug", None, 17, ("take", (0, 1, 2), 0, 0, (), 0), {"kind": "pass"}, object()],
    # The same ids in every pytest-xdist worker: a bare object's repr is its address.
    ids=lambda thing: "object()" if type(thing) is object else repr(thing),
)
def test_anything_but_an_action_is_refused(thing: object):
    assert_malformed(rich(), thing)


def test_an_action_tuple_of_the_wrong_length_is_refused():
    assert_malformed(rich(), tuple.__new__(Action, ("pass",)))
    assert_malformed(rich(), tuple.__new__(Action, ("pass", (), 0, 0, (), 0, 0)))


@pytest.mark.parametrize("seat", [True, False, 1.0, 0.0, "0", -1, 2, 99, (0,)], ids=repr)
def test_a_seat_that_is_not_an_int_in_range_is_refused(seat: object):
    state = rich()
    assert_malformed(state, parse_action("take:wug"), seat)


def test_a_well_formed_action_for_the_seat_to_play_still_applies():
    state = rich()
    apply_action(state, parse_action("buy:17:rrr"), 0)
    assert state.players[0].cards == [17]


# ---------------------------------------------------------------- generated


POSITIONS = list(many_positions(games=4, max_moves=200))
LOOSE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.fractions(),
    st.text(max_size=4),
    st.binary(max_size=2),
    st.lists(st.integers(-2, 8), max_size=3),
)
# Mostly plausible values, with a wrong one now and then.
NUMBER = st.one_of(
    st.integers(-2, 95),
    st.integers(-2, 95).map(float),
    st.integers(0, 3).map(lambda n: Fraction(2 * n + 1, 2)),
    LOOSE,
)
COLOURS = st.one_of(st.lists(NUMBER, max_size=4).map(tuple), st.lists(st.integers(0, 5)), LOOSE)
PAYMENTS = st.one_of(
    st.lists(st.integers(-1, 6), min_size=6, max_size=6).map(tuple),
    st.lists(NUMBER, min_size=4, max_size=8).map(tuple),
    LOOSE,
)
KIND = st.one_of(st.sampled_from(KINDS), st.text(max_size=8), LOOSE)
ACTIONS = st.builds(Action, KIND, COLOURS, NUMBER, NUMBER, PAYMENTS, NUMBER)
THINGS = st.one_of(ACTIONS, LOOSE, st.tuples(KIND, COLOURS, NUMBER))
SEATS = st.one_of(st.none(), st.integers(-1, 4), LOOSE)
FUZZ = settings(
    max_examples=400,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@FUZZ
@given(st.sampled_from(POSITIONS), THINGS, SEATS)
def test_generated_actions_raise_only_action_errors_and_change_nothing_when_refused(
    start: GameState, action: Any, seat: Any
):
    state = start.copy()
    before = state.to_dict()
    try:
        apply_action(state, action, seat)
    except ActionError as error:
        assert error.template
        assert state.to_dict() == before
        return
    # Accepted: then it was one of the legal actions, in its canonical form.
    assert action in legal_actions(start)
    assert parse_action(action.notation()) == action
    assert type(action.card) is int and type(action.level) is int


@FUZZ
@given(st.sampled_from(POSITIONS), THINGS, SEATS)
def test_validate_raises_only_action_errors_and_never_changes_the_state(
    start: GameState, action: Any, seat: Any
):
    state = start.copy()
    before = state.to_dict()
    with contextlib.suppress(ActionError):
        validate(state, action, seat)
    assert state.to_dict() == before


@FUZZ
@given(st.sampled_from(POSITIONS), st.data())
def test_a_legal_action_with_one_field_made_wrong_is_refused(start: GameState, data: Any):
    legal = legal_actions(start)
    if not legal:
        return
    action = data.draw(st.sampled_from(legal))
    field = data.draw(st.integers(0, len(Action._fields) - 1))
    value = action[field]
    wrong = data.draw(
        st.sampled_from(
            [
                float(value) if type(value) is int else (0.5,),
                bool(value) if type(value) is int else [],
                value.upper() if isinstance(value, str) else str(value),
                None,
                tuple(float(v) for v in value) if type(value) is tuple and value else 1.5,
                list(value) if type(value) is tuple else -1,
            ]
        )
    )
    spoiled = action._replace(**{Action._fields[field]: wrong})
    state = start.copy()
    before = state.to_dict()
    with pytest.raises(MalformedActionError):
        apply_action(state, spoiled)
    assert state.to_dict() == before
