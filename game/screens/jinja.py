"""Rendering the fragments a change renders (templates/jinja2/): the live path's hot loop.

The screens' regions are re-rendered at every change for every language, and
Django's template engine spent most of a change's server time on them; Jinja2
compiles a template to Python and renders the same fragment several times faster.
The environment (filters, translations) is game.screens.environment's.
"""

from __future__ import annotations

from typing import Any

from django.template import engines
from django.utils.safestring import SafeString
from jinja2 import Environment, Template

_env: Environment | None = None
_templates: dict[str, Template] = {}


def _template(name: str) -> Template:
    """The compiled fragment, its globals one plain dict.

    A template's globals are a ChainMap over the environment's, which Jinja2 copies
    into every render's context: 7 µs a render, against under 3 µs for the rest of a
    small fragment's render. They never change once the server runs, so each template
    gets them as a dict, once (unless templates reload as they are edited: DEBUG)."""
    global _env
    if _env is None:
        _env = engines["jinja2"].env  # type: ignore[attr-defined]
    found = _templates.get(name)
    if found is None:
        found = _env.get_template(name)
        if not _env.auto_reload:
            found.globals = dict(found.globals)
            _templates[name] = found
    return found


def render(template: str, context: dict[str, Any]) -> SafeString:
    """Render a fragment (a name under templates/jinja2/) in the active language.

    The result is HTML (escaped where it must be), safe to put into a page."""
    return SafeString(render_text(template, context))


def render_text(template: str, context: dict[str, Any]) -> str:
    """`render` as a plain str: for the screens' regions (game.screens.regions), which the
    cache keeps as plain text, an object the garbage collector does not track."""
    return narrow(_template(template).render(context))


def narrow(html: str) -> str:
    """HTML with every character past Latin-1 written as a character reference.

    Python stores a string in one byte a character only while every character fits
    in Latin-1; one colour mark made a whole card sheet two bytes a character. The
    fragments a server remembers for its screens (game.screens.regions) took twice the
    memory, and every join and send of them copied twice the bytes. The browser
    shows the same text. Fragments hold no <script> or <style>, where a reference
    would not be read as a character.
    """
    if html.isascii():
        return html
    # The codec writes each such character as a decimal reference, in C: a regular
    # expression calling back for each one took 4-5% of a change's rendering.
    return html.encode("latin-1", "xmlcharrefreplace").decode("latin-1")
