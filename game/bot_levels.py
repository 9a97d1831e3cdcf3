"""Bot levels the host picks in the lobby, and bot names in each screen's language.

A bot seat (SeatRole.BOT) stores its level (a vocabulary.BotLevel) and its
number; its name is rendered in the language of whoever looks, so a German TV
and a Finnish phone both read the name in their own language. A stand-in
(SeatRole.STAND_IN) plays at the default level under its player's name.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.formats import number_format
from django.utils.functional import lazy
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from game.engine.bot_registry import make_bot
from game.engine.bots import Bot
from game.engine.vocabulary import BotLevel, SeatRole

LEVELS: tuple[BotLevel, ...] = tuple(BotLevel)
DEFAULT_LEVEL = BotLevel.MEDIUM
# The waits (seconds away on one's turn) the host may choose before a stand-in plays.
STAND_IN_CHOICES = (15, 30, 60, 120)
# The seconds a hard bot may think about each move that the host may choose: quick
# to strong. A new game starts with settings.SPLENDOR_HARD_BOT_SECONDS (1 s).
HARD_BOT_CHOICES = (0.5, 1.0, 2.0, 4.0)

# The engine's bot names a host command may still give; they play as these levels.
ENGINE_BOTS = {"random": BotLevel.EASY, "greedy": BotLevel.MEDIUM}


def level_of(kind: str) -> BotLevel:
    """Return the level a bot kind plays at: a level, an engine bot's name, or "" (a
    stand-in, which plays at the default level)."""
    return BotLevel(kind) if kind in LEVELS else ENGINE_BOTS.get(kind, DEFAULT_LEVEL)


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
    """Return the bot that plays a seat of this stored level (any kind level_of reads).

    The hard bot searches for `seconds` a move, the game's Game.hard_bot_seconds
    (settings.SPLENDOR_HARD_BOT_SECONDS when not given), in the bot worker
    thread, never on the event loop. The other levels do not search.
    """
    level = level_of(kind)
    if level == BotLevel.HARD:
        budget = default_hard_bot_seconds() if seconds is None else seconds
        return make_bot(level, seed, budget=budget)
    return make_bot(level, seed)


def _bot_name(level: str, number: int) -> str:
    names = {
        BotLevel.EASY: _("Bot %(number)s (easy)"),
        BotLevel.MEDIUM: _("Bot %(number)s (medium)"),
        BotLevel.HARD: _("Bot %(number)s (hard)"),
    }
    return names[level_of(level)] % {"number": number}


# Evaluated when a template prints it, in the language of that screen.
bot_name: Any = lazy(_bot_name, str)


def seat_name(name: str, role: str, bot_level: str, bot_number: int) -> str:
    """Return what screens call a seat: a bot by its level and number, a player by name.

    A stand-in keeps the name of the player it plays for; bots stored before
    levels existed (number 0) keep their stored name.
    """
    if role == SeatRole.BOT and bot_number:
        return bot_name(bot_level, bot_number)  # type: ignore[no-any-return]
    return name
