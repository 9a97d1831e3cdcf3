"""The game's vocabulary in every page: PHASE, ACTION, COLOUR, ROLE, LEVEL and STATUS
(game.screens.words), and JS_VOCABULARY, the JSON base.html hands the JavaScript."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from game.screens.words import JS_VOCABULARY, TEMPLATE_WORDS

VOCABULARY_CONTEXT: dict[str, Any] = {**TEMPLATE_WORDS, "JS_VOCABULARY": JS_VOCABULARY}


def vocabulary(request: HttpRequest) -> dict[str, Any]:
    """Context processor: the vocabulary's names in every page."""
    return VOCABULARY_CONTEXT
