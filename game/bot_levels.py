"""Bot levels the host picks in the lobby, and bot names in each screen's language.

A bot seat stores its level ("easy", "medium", "hard") and its number; its name
is rendered in the language of whoever looks, so a German TV and a Finnish
phone both read the name in their own language.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.formats import number_format
from django.utils.functional import lazy
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from game.engine.bots import Bot, make_bot

EASY = "easy"
MEDIUM = "medium"
HARD = "hard"
LEVELS = (EASY, MEDIUM, HARD)
DEFAULT_LEVEL = MEDIUM
# A bot playing for a human who left mid-game; their rejoin code takes the seat back.
STAND_IN = "stand-in"
# The waits (seconds away on one's turn) the host may choose before a stand-in plays.
STAND_IN_CHOICES = (15, 30, 60, 120)
# The seconds a hard bot may think about each move that the host may choose: quick
# to strong. A new game starts with settings.SPLENDOR_HARD_BOT_SECONDS (1 s).
HARD_BOT_CHOICES = (0.5, 1.0, 2.0, 4.0)

# Older games stored the engine's bot names; they read as these levels.
LEGACY_KINDS = {"random": EASY, "greedy": MEDIUM, "": MEDIUM, STAND_IN: MEDIUM}


def level_of(kind: str) -> str:
    """Return the level of a stored bot kind (a level, or an older engine bot name)."""
    return kind if kind in LEVELS else LEGACY_KINDS.get(kind, DEFAULT_LEVEL)


def default_hard_bot_seconds() -> float:
    """The think time a new game starts with: settings.SPLENDOR_HARD_BOT_SECONDS.

    Read when the game is created, so the setting is the default for new games
    and the host's choice in the lobby (Game.hard_bot_seconds) is what plays.
    """
    return float(settings.SPLENDOR_HARD_BOT_SECONDS)


def hard_bot_choices() -> tuple[float, ...]:
    """The think times the host may pick: HARD_BOT_CHOICES and this server's default.

    The default is one of the choices unless the setting names another time;
    offering it too lets the host go back to it after trying another.
    """
    return tuple(sorted({*HARD_BOT_CHOICES, default_hard_bot_seconds()}))


def seconds_label(seconds: float) -> str:
    """Say a think time in the language being rendered: "1 second", "0.5 seconds"."""
    if seconds == int(seconds):
        whole = int(seconds)
        return ngettext("%(counter)s second", "%(counter)s seconds", whole) % {"counter": whole}
    # Fractions read in the plural in every language we have.
    return _("%(seconds)s seconds") % {"seconds": number_format(seconds)}


def make_level_bot(kind: str, seed: int, seconds: float | None = None) -> Bot:
    """Return the bot that plays a seat of this stored kind.

    The hard bot searches for `seconds` a move, the game's Game.hard_bot_seconds
    (settings.SPLENDOR_HARD_BOT_SECONDS when not given), in the bot worker
    thread, never on the event loop. The other levels do not search.
    """
    level = level_of(kind)
    if level == HARD:
        budget = default_hard_bot_seconds() if seconds is None else seconds
        return make_bot(level, seed, budget=budget)
    return make_bot(level, seed)


def _bot_name(level: str, number: int) -> str:
    names = {
        EASY: _("Bot %(number)s (easy)"),
        MEDIUM: _("Bot %(number)s (medium)"),
        HARD: _("Bot %(number)s (hard)"),
    }
    return names[level_of(level)] % {"number": number}


# Evaluated when a template prints it, in the language of that screen.
bot_name: Any = lazy(_bot_name, str)


def seat_name(name: str, is_bot: bool, bot_kind: str, bot_number: int) -> str:
    """Return what screens call a seat: a bot by its level and number, a player by name.

    A stand-in keeps the name of the player it plays for; bots stored before
    levels existed (number 0) keep their stored name.
    """
    if is_bot and bot_kind != STAND_IN and bot_number:
        return bot_name(bot_kind, bot_number)  # type: ignore[no-any-return]
    return name
