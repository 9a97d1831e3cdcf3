"""Pick a screen's language for websocket renders, as LocaleMiddleware does for pages."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import get_supported_language_variant
from django.utils.translation.trans_real import parse_accept_lang_header


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
