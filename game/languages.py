"""Pick a screen's language for websocket renders, as LocaleMiddleware does for pages,
and know it cheaply while a screen is built."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.utils.translation import get_language, get_supported_language_variant
from django.utils.translation import gettext_lazy as _
from django.utils.translation.trans_real import parse_accept_lang_header

# The colours' names, translated when shown: the pictures' labels and the engine's
# messages (which name colours in English) both use them.
COLOUR_LABELS = {
    "white": _("white"),
    "blue": _("blue"),
    "green": _("green"),
    "red": _("red"),
    "black": _("black"),
    "gold": _("gold"),
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
