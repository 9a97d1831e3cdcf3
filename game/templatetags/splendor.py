"""Template helpers for gems, so every screen draws them the same way.

Each gem colour has its own shape and letter as well as its colour, so the
game stays playable for colour-blind players.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django import template
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from game.engine.projection import CardView, NobleView

register = template.Library()

COLOUR_LABELS = {
    "white": _("white"),
    "blue": _("blue"),
    "green": _("green"),
    "red": _("red"),
    "black": _("black"),
    "gold": _("gold"),
}
# One letter drawn inside each gem; translators pick letters that differ.
COLOUR_LETTERS = {
    "white": pgettext_lazy("gem letter for white", "W"),
    "blue": pgettext_lazy("gem letter for blue", "B"),
    "green": pgettext_lazy("gem letter for green", "G"),
    "red": pgettext_lazy("gem letter for red", "R"),
    "black": pgettext_lazy("gem letter for black", "K"),
    "gold": pgettext_lazy("gem letter for gold", "$"),
}
NOTATION_LETTERS = {"white": "w", "blue": "u", "green": "g", "red": "r", "black": "k", "gold": "y"}


@register.filter
def colour_label(colour: str) -> str:
    return str(COLOUR_LABELS.get(colour, colour))


@register.filter
def notation_letter(colour: str) -> str:
    return NOTATION_LETTERS.get(colour, "")


# Cards, nobles and gems look the same wherever they appear, so each is drawn
# once per language and reused: the phone's hand shows dozens of them.
@lru_cache(maxsize=4096)
def _gem_html(colour: str, text: str | None, language: str | None) -> SafeString:
    shown = COLOUR_LETTERS.get(colour, "?") if text is None else text
    return format_html(
        '<span class="gem gem-{}" title="{}"><span class="gem-text">{}</span></span>',
        colour,
        COLOUR_LABELS.get(colour, colour),
        shown,
    )


@register.simple_tag
def gem(colour: str, text: Any = None) -> str:
    """Draw a gem: its shape, its colour and its letter (or `text`, e.g. a count)."""
    return _gem_html(colour, None if text is None else str(text), get_language())


@lru_cache(maxsize=512)
def _card_html(view: CardView, language: str | None) -> SafeString:
    return mark_safe(render_to_string("parts/card.html", {"card": view}))


@lru_cache(maxsize=64)
def _noble_html(view: NobleView, language: str | None) -> SafeString:
    return mark_safe(render_to_string("parts/noble.html", {"noble": view}))


@register.simple_tag
def card(view: CardView) -> str:
    """Draw a face-up development card."""
    return _card_html(view, get_language())


@register.simple_tag
def noble(view: NobleView) -> str:
    """Draw a noble tile."""
    return _noble_html(view, get_language())


@register.simple_tag
def chip(colour: str, amount: int) -> str:
    """Draw a count of tokens or bonuses: the gem, then the number."""
    return format_html(
        '<span class="chip chip-{}{}" aria-label="{} {}">{}<span class="chip-n">{}</span></span>',
        colour,
        " chip-zero" if not amount else "",
        amount,
        COLOUR_LABELS.get(colour, colour),
        gem(colour),
        amount,
    )


@register.filter
def get_item(mapping: dict[Any, Any], key: Any) -> Any:
    return mapping.get(key) if mapping else None


@register.filter
def contains(collection: Any, item: Any) -> bool:
    return bool(collection) and item in collection
