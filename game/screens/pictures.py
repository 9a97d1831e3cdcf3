"""The pictures every screen draws the same way: gems, chips, cards, nobles, a turn.

Templates use them as filters (`{{ colour|chip(amount) }}`, game.screens.environment);
the screens' Python uses the same functions.

Each gem colour has its own shape and mark as well as its colour, so the
game stays playable for colour-blind players. The mark is the same in every
language (a table may mix English, German and Finnish phones); the colour's
name in the screen's language is in the gem's label.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from game.engine.projection import CardView, NobleView
from game.engine.vocabulary import Colour
from game.languages import COLOUR_LABELS, current
from game.screens import jinja, regions

# A colour's mark and notation letter by its slug, as templates name colours.
COLOUR_MARKS = {c.slug: c.mark for c in Colour}
NOTATION_LETTERS = {c.slug: c.letter for c in Colour}


def colour_label(colour: str) -> str:
    return str(COLOUR_LABELS.get(colour, colour))


def notation_letter(colour: str) -> str:
    return NOTATION_LETTERS.get(colour, "")


# Cards, nobles and gems look the same wherever they appear, so each is drawn
# once per language and reused: the phone's hand shows dozens of them.
@lru_cache(maxsize=4096)
def _gem_html(colour: str, text: str | None, language: str | None) -> SafeString:
    name = COLOUR_LABELS.get(colour, colour)
    if text is None:
        return format_html(
            '<span class="gem gem-{}" role="img" aria-label="{}" title="{}">'
            '<span class="gem-text gem-mark" aria-hidden="true">{}</span></span>',
            colour,
            name,
            name,
            COLOUR_MARKS.get(colour, "?"),
        )
    return format_html(
        '<span class="gem gem-{}" role="img" aria-label="{} {}" title="{}">'
        '<span class="gem-text" aria-hidden="true">{}</span></span>',
        colour,
        text,
        name,
        name,
        text,
    )


def gem(colour: str, text: Any = None) -> str:
    """Draw a gem: its shape, its colour and its mark (or `text`, e.g. a count)."""
    return _gem_html(colour, None if text is None else str(text), current())


# Inside something labelled as a whole (a chip, a card or a noble: role="img" with
# its own aria-label; a button with its aria-label) a gem is only a picture: no
# label, no title, the same in every language. Half the bytes of a labelled gem,
# and screens send many.
@lru_cache(maxsize=256)
def _plain_gem_html(colour: str, text: str | None) -> SafeString:
    if text is None:
        return format_html(
            '<span class="gem gem-{}" aria-hidden="true">'
            '<span class="gem-text gem-mark">{}</span></span>',
            colour,
            COLOUR_MARKS.get(colour, "?"),
        )
    return format_html(
        '<span class="gem gem-{}" aria-hidden="true"><span class="gem-text">{}</span></span>',
        colour,
        text,
    )


def plain_gem(colour: str, text: Any = None) -> str:
    """Draw a gem inside a labelled whole (see _plain_gem_html)."""
    return _plain_gem_html(colour, None if text is None else str(text))


@lru_cache(maxsize=512)
def _card_html(view: CardView, language: str | None) -> SafeString:
    return mark_safe(jinja.render("parts/card.html", {"card": view}))


@lru_cache(maxsize=64)
def _noble_html(view: NobleView, language: str | None) -> SafeString:
    return mark_safe(jinja.render("parts/noble.html", {"noble": view}))


def card(view: CardView) -> str:
    """Draw a face-up development card."""
    return _card_html(view, current())


def noble(view: NobleView) -> str:
    """Draw a noble tile."""
    return _noble_html(view, current())


def chip(colour: str, amount: int) -> str:
    """Draw a count of tokens or bonuses: the gem, then the number."""
    return _chip_html(colour, amount, current())


@lru_cache(maxsize=1024)
def _chip_html(colour: str, amount: int, language: str | None) -> SafeString:
    return format_html(
        '<span class="chip chip-{}{}" role="img" aria-label="{} {}">'
        '{}<span class="chip-n">{}</span></span>',
        colour,
        " chip-zero" if not amount else "",
        amount,
        COLOUR_LABELS.get(colour, colour),
        plain_gem(colour),
        amount,
    )


# Filters that turn an event's parts into pictures inside a translated sentence.
def gems_html(colours: Any) -> SafeString:
    return mark_safe("".join(gem(c) for c in colours))  # each gem is escaped HTML


def paid_html(paid: Any) -> SafeString:
    chips = "".join(chip(p.colour, p.amount) for p in paid)
    return mark_safe(f'<span class="paid">{chips}</span>')  # each chip is escaped HTML


def turn_html(entry: dict[str, Any]) -> SafeString:
    """A turn (history.named) told in sentences, made once per turn, name and language
    for the log and both last-turn strips."""
    turn, name = entry["turn"], entry["name"]
    # Marked safe here: it goes into templates, and the cache keeps plain text.
    return SafeString(
        regions.render_by(
            ("turn", turn, name), "parts/turn_events.html", lambda: {"turn": turn, "name": name}
        )
    )


ROMAN = {1: "I", 2: "II", 3: "III"}


def roman(level: int) -> str:
    return ROMAN.get(level, str(level))
