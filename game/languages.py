"""Pick a screen's language for websocket renders, as LocaleMiddleware does for pages,
and know it cheaply while a screen is built."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any, NamedTuple

from django.conf import settings
from django.utils.functional import Promise
from django.utils.translation import get_language, get_supported_language_variant, pgettext_lazy
from django.utils.translation import gettext_lazy as _
from django.utils.translation.trans_real import parse_accept_lang_header

from game.engine.vocabulary import Colour, SeatRole


class ColourNames(NamedTuple):
    """A colour's name in the screen's language, in the two forms sentences need."""

    alone: Promise  # on its own: a gem's label, a list of gems ("white")
    card: Promise | None  # before "card" (German declines it: "die grüne Karte"); gold has none


# The colours' names, translated when shown (their letters and marks are the
# vocabulary's, the same in every language).
COLOUR_NAMES: dict[Colour, ColourNames] = {
    Colour.WHITE: ColourNames(_("white"), pgettext_lazy("card colour", "white")),
    Colour.BLUE: ColourNames(_("blue"), pgettext_lazy("card colour", "blue")),
    Colour.GREEN: ColourNames(_("green"), pgettext_lazy("card colour", "green")),
    Colour.RED: ColourNames(_("red"), pgettext_lazy("card colour", "red")),
    Colour.BLACK: ColourNames(_("black"), pgettext_lazy("card colour", "black")),
    Colour.GOLD: ColourNames(_("gold"), None),
}
# The names on their own by the colours' slugs, as templates and the engine's
# messages (which name colours in English) give them.
COLOUR_LABELS: dict[str, Promise] = {c.slug: names.alone for c, names in COLOUR_NAMES.items()}

# What the admin calls each seat role.
ROLE_LABELS: dict[SeatRole, Promise] = {
    SeatRole.HUMAN: _("player"),
    SeatRole.BOT: _("bot"),
    SeatRole.STAND_IN: _("stand-in bot"),
}


def _cookie(scope: dict[str, Any]) -> str:
    cookies = scope.get("cookies") or {}
    return str(cookies.get(settings.LANGUAGE_COOKIE_NAME, ""))


def _header(scope: dict[str, Any], name: bytes) -> str:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return ""


def language_from_scope(scope: dict[str, Any]) -> str:
    """Return the language chosen by cookie, else by Accept-Language, else the default."""
    candidates = [_cookie(scope)]
    accepted = parse_accept_lang_header(_header(scope, b"accept-language"))
    candidates += [lang for lang, _q in accepted]
    for code in candidates:
        if not code or code == "*":
            continue
        try:
            return get_supported_language_variant(code)
        except LookupError:
            continue
    return str(settings.LANGUAGE_CODE)


# The language a screen is being built in, looked up once per screen (`in_language`):
# Django's get_language() reads a context-local (asgiref) that costs more than a
# cache hit, and a screen draws ~40 regions and a hundred gems.
_screen = threading.local()


@contextlib.contextmanager
def in_language() -> Iterator[None]:
    """Build one screen (synchronously) in the active language."""
    previous = getattr(_screen, "language", None)
    _screen.language = get_language()
    try:
        yield
    finally:
        _screen.language = previous


def current() -> str | None:
    """The active language: the screen's, while one is being built."""
    language = getattr(_screen, "language", None)
    return language if language is not None else get_language()
