"""The game's words, defined once: the phases of a turn, the kinds of action, the colours.

Everything else (the engine's constants, templates through a context
processor, the JavaScript through base.html) takes them from here. The values
are the strings already used in the action notation, the JSON snapshots, the
CSS classes and the data files, so stored games read the same as before.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum


class Phase(StrEnum):
    """Where the player to act is within their turn."""

    MAIN = "main"  # choose one of the four actions (or pass)
    RETURN = "return"  # give back tokens above ten
    NOBLE = "noble"  # choose among several qualifying nobles
    OVER = "over"  # the game has ended


class ActionKind(StrEnum):
    """The first word of an action's notation (take:wug, buy:17:wwy …)."""

    TAKE = "take"
    RESERVE = "reserve"
    BUY = "buy"
    RETURN = "return"
    NOBLE = "noble"
    PASS = "pass"


# One letter per colour for the notation; black is "k" so blue can be "u".
COLOUR_LETTERS = "wugrky"


class Colour(IntEnum):
    """A token colour; the value indexes every per-colour list (tokens, costs, bonuses)."""

    WHITE = 0
    BLUE = 1
    GREEN = 2
    RED = 3
    BLACK = 4
    GOLD = 5

    @property
    def slug(self) -> str:
        """The colour as written in the data files, templates and CSS classes ("white")."""
        return self.name.lower()

    @property
    def letter(self) -> str:
        """The colour's letter in the action notation ("w")."""
        return COLOUR_LETTERS[self]


GEM_COLOURS: tuple[Colour, ...] = tuple(c for c in Colour if c is not Colour.GOLD)
COLOUR_SLUGS: tuple[str, ...] = tuple(c.slug for c in Colour)
