"""One vocabulary: the engine's constants are the values of game.engine.vocabulary."""

from game.engine import actions, colours, state
from game.engine.bot_registry import BOT_KINDS
from game.engine.hints import (
    BUY_CARD,
    CHOOSE_NOBLE,
    PASS_TURN,
    RESERVE_BLIND,
    RESERVE_CARD,
    RETURN_GEMS,
    TAKE_GEMS,
)
from game.engine.vocabulary import (
    BOT_ROLES,
    COLOUR_LETTERS,
    COLOUR_MARKS,
    COLOUR_SLUGS,
    GEM_COLOURS,
    ActionKind,
    BotLevel,
    Colour,
    Phase,
    SeatRole,
)


def test_phases_are_the_strings_stored_in_snapshots() -> None:
    assert [p.value for p in Phase] == ["main", "return", "noble", "over"]
    assert tuple(Phase) == (state.MAIN, state.RETURN, state.NOBLE, state.OVER)
    assert all(type(p) is Phase for p in (state.MAIN, state.RETURN, state.NOBLE, state.OVER))


def test_action_kinds_are_the_first_word_of_the_notation() -> None:
    assert tuple(ActionKind) == actions.KINDS
    assert all(type(kind) is ActionKind for kind in actions.KINDS)
    assert {actions.parse_action(text).kind for text in ("take:wug", "pass", "noble:3")} == {
        ActionKind.TAKE,
        ActionKind.PASS,
        ActionKind.NOBLE,
    }


def test_colours_index_the_engines_lists_and_name_the_css_classes() -> None:
    assert tuple(Colour) == colours.COLOURS
    assert GEM_COLOURS == colours.GEMS
    assert (Colour.WHITE, Colour.GOLD) == (colours.WHITE, colours.GOLD)
    assert colours.NAMES == COLOUR_SLUGS == ("white", "blue", "green", "red", "black", "gold")
    assert colours.LETTERS == COLOUR_LETTERS == "".join(c.letter for c in Colour) == "wugrky"


def test_the_engines_colour_constants_stay_plain_ints() -> None:
    # They index lists on the hot path: an enum member there would only cost time.
    assert {type(c) for c in colours.COLOURS} == {int}


def test_enum_members_compare_and_serialise_as_their_plain_values() -> None:
    assert Phase.RETURN == "return" and f"{Phase.RETURN}" == "return"
    assert ActionKind.BUY == "buy"
    assert Colour.BLACK == 4 and Colour.BLACK.slug == "black" and Colour.BLACK.letter == "k"


def test_each_colour_has_its_letter_and_mark() -> None:
    assert [c.letter for c in Colour] == list(COLOUR_LETTERS)
    assert [c.mark for c in Colour] == list(COLOUR_MARKS)
    assert len(set(COLOUR_MARKS)) == len(Colour)  # told apart without their colour
    assert Colour.of_slug("black") is Colour.BLACK


def test_hint_reasons_are_action_kinds_but_a_blind_reserve() -> None:
    kinds = (BUY_CARD, RESERVE_CARD, TAKE_GEMS, RETURN_GEMS, CHOOSE_NOBLE, PASS_TURN)
    assert set(kinds) == set(ActionKind)
    assert RESERVE_BLIND not in set(ActionKind)


def test_bot_levels_and_seat_roles_are_the_words_stored_and_written_in_records() -> None:
    assert [level.value for level in BotLevel] == ["easy", "medium", "hard"]
    assert [role.value for role in SeatRole] == ["human", "bot", "stand_in"]
    assert set(BOT_ROLES) == {SeatRole.BOT, SeatRole.STAND_IN}
    assert set(BOT_KINDS) == {*BotLevel, "random", "greedy"}
