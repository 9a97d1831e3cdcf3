"""The game's words, defined once: phases, action kinds, colours, bot levels, seat roles.

Everything else (the engine's constants, templates through a context
processor and the fragments' globals, the JavaScript through base.html) takes
them from here. The values are the strings already used in the action
notation, the JSON snapshots, the CSS classes, the data files and the game
records, so stored games read the same as before. What a word is called on a
screen (a translated label) is the web side's: game.languages.
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


# Per colour, in Colour order. One letter each for the notation; black is "k" so
# blue can be "u".
COLOUR_LETTERS = "wugrky"
# One mark drawn inside each gem, never translated (a red gem looks the same on an
# English TV and a Finnish phone), so the game stays playable for the colour-blind.
COLOUR_MARKS = (
    "\u25c7",  # white: white diamond
    "\u2248",  # blue: water
    "\u2663",  # green: leaf (club)
    "\u2665",  # red: heart
    "\u2660",  # black: spade
    "\u2605",  # gold: star
)


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

    @property
    def mark(self) -> str:
        """The mark drawn inside the colour's gems ("\u25c7")."""
        return COLOUR_MARKS[self]

    @classmethod
    def of_slug(cls, slug: str) -> Colour:
        """The colour a slug names ("white"); KeyError for any other word."""
        return cls[slug.upper()]


GEM_COLOURS: tuple[Colour, ...] = tuple(c for c in Colour if c is not Colour.GOLD)
COLOUR_SLUGS: tuple[str, ...] = tuple(c.slug for c in Colour)


class BotLevel(StrEnum):
    """How well a bot plays: what the host picks in the lobby, weakest first.

    The values are stored with a bot's seat and written in game records.
    """

    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


class SeatRole(StrEnum):
    """Who plays a seat."""

    HUMAN = "human"  # a phone
    BOT = "bot"  # a bot of a level the host added in the lobby
    STAND_IN = "stand_in"  # a bot playing for a player who is away; their phone takes it back


class PlayedOn(StrEnum):
    """Where a human seat's turns are played."""

    PHONE = "phone"  # its own phone (or a stand-in while that phone is away)
    TV = "tv"  # the host screen: a player without a phone, playing in the open


# The roles whose moves a bot chooses.
BOT_ROLES: tuple[SeatRole, ...] = (SeatRole.BOT, SeatRole.STAND_IN)
