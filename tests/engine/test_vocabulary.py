"""One vocabulary: the engine's constants are the values of game.engine.vocabulary."""

from game.engine import actions, colours, state
from game.engine.vocabulary import (
    COLOUR_LETTERS,
    COLOUR_SLUGS,
    GEM_COLOURS,
    ActionKind,
    Colour,
    Phase,
)


def test_phases_are_the_strings_stored_in_snapshots() -> None:
    assert [p.value for p in Phase] == ["main", "return", "noble", "over"]
    assert tuple(Phase) == (state.MAIN, state.RETURN, state.NOBLE, state.OVER)


def test_action_kinds_are_the_first_word_of_the_notation() -> None:
    assert tuple(ActionKind) == actions.KINDS
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
