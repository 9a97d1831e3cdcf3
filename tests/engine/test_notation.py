"""The action notation, the two kinds of refusal, and whose turn it is."""

import pytest

from game.engine import (
    ActionError,
    GameState,
    IllegalActionError,
    NotationError,
    legal_actions,
    parse_action,
    replay,
)
from game.engine.actions import Action
from game.engine.colours import BLUE, GOLD, GREEN, RED, WHITE
from tests.engine.builder import assert_refused, play, position
from tests.engine.playouts import many_positions, playout

# ---------------------------------------------------------------- reading actions


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("take:wug", Action("take", gems=(WHITE, BLUE, GREEN))),
        ("take:rr", Action("take", gems=(RED, RED))),
        ("take:k", Action("take", gems=(4,))),
        ("reserve:17", Action("reserve", card=17)),
        ("reserve:d2", Action("reserve", level=2)),
        ("buy:17:wwuy", Action("buy", card=17, payment=(2, 1, 0, 0, 0, 1))),
        ("buy:17:-", Action("buy", card=17, payment=(0, 0, 0, 0, 0, 0))),
        ("return:wy", Action("return", gems=(WHITE, GOLD))),
        ("noble:3", Action("noble", noble=3)),
        ("pass", Action("pass")),
    ],
)
def test_each_kind_of_action_reads_and_writes_its_notation(text: str, action: Action):
    assert parse_action(text) == action
    assert action.notation() == text
    assert str(action) == text


def test_gems_are_read_in_any_order_and_written_in_colour_order():
    assert parse_action("take:guw").notation() == "take:wug"
    assert parse_action("buy:17:ywuw").notation() == "buy:17:wwuy"


def test_notation_errors_and_illegal_actions_are_different_kinds_of_action_error():
    assert issubclass(NotationError, ActionError)
    assert issubclass(IllegalActionError, ActionError)
    assert not issubclass(NotationError, IllegalActionError)
    assert not issubclass(IllegalActionError, NotationError)


MALFORMED = [
    "take:wxz",
    "take:",
    "take:y",
    "take",
    "buy:abc",
    "buy:17",
    "buy:17:",
    "buy:abc:ww",
    "buy:17:wz",
    "buy:17:ww:u",
    "buy:-1:-",
    "buy:1000:-",
    "reserve:",
    "reserve:d",
    "reserve:x",
    "reserve:dd1",
    "reserve:1.5",
    "reserve:17:w",
    "return:",
    "return:x",
    "noble:",
    "noble:a",
    "pass:now",
    "fly:1",
    ":",
    "",
    "   ",
    "x" * 65,
    None,
    123,
    b"take:wug",
    ["take:wug"],
]


@pytest.mark.parametrize("text", MALFORMED, ids=repr)
def test_malformed_text_is_a_notation_error(text: object):
    with pytest.raises(NotationError):
        parse_action(text)


@pytest.mark.parametrize("text", MALFORMED, ids=repr)
def test_malformed_text_is_refused_without_changing_the_state(text: object):
    state = position(bank="wwwwuuuu", market={1: [1]}, decks={1: [2]})
    assert_refused(state, text, NotationError)


@pytest.mark.parametrize(
    "text",
    [
        "reserve:d9",
        "reserve:d0",
        "reserve:90",
        "take:wugr",
        "take:wwww",
        "take:www",
        "buy:90:-",
        "buy:1:rrk",
        "return:w",
        "noble:3",
        "pass",
    ],
)
def test_well_formed_but_illegal_text_is_an_illegal_action_error(text: str):
    state = position(bank="wwwwuuuu", market={1: [1]}, decks={1: [2]})
    parse_action(text)  # reads fine
    assert_refused(state, text, IllegalActionError)


@pytest.mark.parametrize("text", ["reserve:²", "reserve:d²", "buy:²:-", "noble:²"])
def test_digits_that_int_cannot_read_are_a_notation_error_not_a_crash(text: str):
    with pytest.raises(NotationError):
        parse_action(text)


@pytest.mark.parametrize("text", ["reserve:٣", "reserve:１", "noble:３"])
def test_only_ascii_digits_are_read_as_numbers(text: str):
    with pytest.raises(NotationError):
        parse_action(text)


# ---------------------------------------------------------------- whose turn


def test_an_action_out_of_turn_is_refused():
    state = position(3, current=1)
    assert_refused(state, "take:wug", IllegalActionError, "not your turn", seat=0)
    assert_refused(state, "take:wug", IllegalActionError, "not your turn", seat=2)


def test_the_current_seat_may_name_itself():
    state = position(3, current=1)
    play(state, "take:wug", seat=1)
    assert state.current == 2


def test_an_out_of_turn_action_is_refused_even_when_it_would_be_legal_for_that_seat():
    state = position(seats=[{}, {"tokens": "rrk"}], market={1: [1]})
    assert_refused(state, "buy:1:rrk", IllegalActionError, "not your turn", seat=1)


# ---------------------------------------------------------------- round trip


def special_positions() -> list[GameState]:
    """Positions in the return and noble phases, and a stuck one."""
    returning = position(seats=[{"tokens": "wwuuggrkyy"}])
    play(returning, "take:wug")
    choosing = position(seats=[{"bonuses": "wwwuugggrrrkkk"}], market={1: [12]}, nobles=[6, 7, 9])
    play(choosing, "buy:12:-")
    stuck = position(bank="y", seats=[{"reserved": [72, 73, 74]}], decks={1: [5]})
    return [returning, choosing, stuck]


def test_every_legal_action_round_trips_through_its_notation():
    checked = 0
    kinds = set()
    for state in [*special_positions(), *many_positions(games=30)]:
        for action in legal_actions(state):
            text = action.notation()
            assert parse_action(text) == action, text
            assert parse_action(text).notation() == text
            kinds.add(action.kind)
            checked += 1
    assert kinds == {"take", "reserve", "buy", "return", "noble", "pass"}
    assert checked > 10_000


def test_a_whole_game_replays_from_its_seed_and_its_moves_in_notation():
    states, moves = playout(3, seed=17)
    assert states[-1].is_over
    assert replay(3, 17, moves).to_dict() == states[-1].to_dict()
