"""The game's vocabulary for templates: compare with PHASE.RETURN, not with "return".

Pages rendered for a request get it through the context processor below.
Fragments rendered without a request (websocket updates) do not run context
processors: their contexts merge VOCABULARY_CONTEXT themselves.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from game.engine.vocabulary import COLOUR_LETTERS, ActionKind, Colour, Phase
from game.models import Game

# Plain dicts, so a template reads PHASE.RETURN (an Enum class would be called).
PHASE: dict[str, str] = {phase.name: phase.value for phase in Phase}
ACTION: dict[str, str] = {kind.name: kind.value for kind in ActionKind}
COLOUR: dict[str, str] = {colour.name: colour.slug for colour in Colour}
# A game's status (lobby, playing, over) is the web side's word, kept by the model.
STATUS: dict[str, str] = {status.name: status.value for status in Game.Status}

# What base.html hands the JavaScript as JSON (the colour order replaces a hard-coded "wugrky").
JS_VOCABULARY: dict[str, Any] = {
    "letters": COLOUR_LETTERS,
    "colours": list(COLOUR.values()),
    "phases": PHASE,
    "actions": ACTION,
    "statuses": STATUS,
}

VOCABULARY_CONTEXT: dict[str, Any] = {
    "PHASE": PHASE,
    "ACTION": ACTION,
    "COLOUR": COLOUR,
    "STATUS": STATUS,
    "JS_VOCABULARY": JS_VOCABULARY,
}


def vocabulary(request: HttpRequest) -> dict[str, Any]:
    """Context processor: PHASE, ACTION, COLOUR, STATUS and JS_VOCABULARY in every page."""
    return VOCABULARY_CONTEXT
