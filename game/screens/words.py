"""The game's vocabulary as templates read it: compare with PHASE.RETURN, not with "return".

Every template (pages and fragments) has these names as globals of its environment
(game.screens.environment). The JavaScript gets JS_VOCABULARY as JSON from base.html.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from game.engine.projection import BLIND_BUY
from game.engine.vocabulary import COLOUR_LETTERS, ActionKind, BotLevel, Colour, Phase, SeatRole
from game.models import Game
from game.screens.wire import CLOSES, HEARTBEAT, PONG
from game.storage.history import TAKE_FEWER, TAKE_THREE, TAKE_TWO

# Plain dicts, so a template reads PHASE.RETURN (an Enum class would be called).
PHASE: dict[str, str] = {phase.name: phase.value for phase in Phase}
ACTION: dict[str, str] = {kind.name: kind.value for kind in ActionKind}
COLOUR: dict[str, str] = {colour.name: colour.slug for colour in Colour}
ROLE: dict[str, str] = {role.name: role.value for role in SeatRole}
LEVEL: dict[str, str] = {level.name: level.value for level in BotLevel}
# The game log tells takes apart (game.storage.history): three colours, two of one, fewer.
TAKE_FORM: dict[str, str] = {"THREE": TAKE_THREE, "TWO": TAKE_TWO, "FEWER": TAKE_FEWER}
# A game's status (lobby, playing, over) is the web side's word, kept by the model.
STATUS: dict[str, str] = {status.name: status.value for status in Game.Status}


def _milliseconds(seconds: float) -> int:
    return max(1, round(seconds * 1000))


# The connection's clock as the page runs it (settings, "The live connection's clock"),
# in milliseconds; `clock` scales the page's own small steps (its first retry, its tick).
TIMINGS: dict[str, float] = {
    "clock": settings.SPLENDOR_CLOCK,
    "heartbeat": _milliseconds(settings.SPLENDOR_HEARTBEAT),
    "silentAfter": _milliseconds(settings.SPLENDOR_SILENT_AFTER),
    "deadAfter": _milliseconds(settings.SPLENDOR_DEAD_AFTER),
    "openWithin": _milliseconds(settings.SPLENDOR_OPEN_WITHIN),
    "checkWithin": _milliseconds(settings.SPLENDOR_CHECK_WITHIN),
    "backoffCap": _milliseconds(settings.SPLENDOR_BACKOFF_CAP),
    "holdMove": _milliseconds(settings.SPLENDOR_HOLD_MOVE),
    "restRetry": _milliseconds(settings.SPLENDOR_REST_RETRY),
}

# What base.html hands the JavaScript as JSON, read by static/js/page.js for the other
# scripts (the colour letters in the engine's order; the phases it compares a hand's
# data-phase with; the connection's timings; its heartbeat, the server's answer to it
# and the codes the server closes a socket with, game.screens.wire).
JS_VOCABULARY: dict[str, Any] = {
    "letters": COLOUR_LETTERS,
    "phases": PHASE,
    "timings": TIMINGS,
    "heartbeat": HEARTBEAT,
    "pong": PONG,
    "closes": CLOSES,
}

TEMPLATE_WORDS: dict[str, Any] = {
    "PHASE": PHASE,
    "ACTION": ACTION,
    "COLOUR": COLOUR,
    "ROLE": ROLE,
    "LEVEL": LEVEL,
    "TAKE_FORM": TAKE_FORM,
    "STATUS": STATUS,
    # A seat played on the TV buys its face-down card by place (game.engine.projection).
    "BLIND_BUY": BLIND_BUY,
}
