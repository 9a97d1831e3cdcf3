"""The Jinja2 environment of the project's templates (settings.TEMPLATES, "jinja2").

Pages (templates/*.html, archive/, replay/) and the fragments a change renders
(templates/jinja2/) share it; only the admin keeps Django's engine.

Translations are Jinja2's i18n extension over Django's catalogues:
`{{ _("Take") }}`, `{% trans name=seat.name %}{{ name }}’s turn{% endtrans %}`,
`{% trans counter=n %}{{ counter }} point{% pluralize counter %}{{ counter }} points
{% endtrans %}`. Newstyle gettext: a message is trusted template text, the values put
into it are escaped (a player's name cannot inject HTML), and a message is always
formatted (`_("100%%")`; a `{% trans %}` block doubles its `%` itself).
`python manage.py makemessages` finds them with the extension's own
extractor (game/management/commands/makemessages.py), with the message ids Django's
tags had, so the catalogues stay as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.template.defaultfilters import date as django_date
from django.template.defaultfilters import floatformat
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.html import json_script
from django.utils.timezone import template_localtime  # type: ignore[attr-defined]
from django_htmx.jinja import htmx_script
from jinja2 import ChainableUndefined, Environment, nodes, pass_context
from jinja2.visitor import NodeTransformer
from markupsafe import Markup, escape

from game.languages import current
from game.screens import charts, pictures, words


def url(name: str, *args: Any) -> str:
    """`{{ url("play", code) }}`: Django's {% url %}."""
    return reverse(name, args=args)


def date(value: Any, format: str | None = None) -> str:
    """`{{ when|date("SHORT_DATETIME_FORMAT") }}`: Django's date filter, in local time."""
    return django_date(template_localtime(value), format)


def available_languages() -> list[tuple[str, str]]:
    """Django's {% get_available_languages %}: each language's code and its name."""
    return [(code, translation.gettext(name)) for code, name in settings.LANGUAGES]


def get_item(mapping: dict[Any, Any], key: Any) -> Any:
    return mapping.get(key) if mapping else None


def contains(collection: Any, item: Any) -> bool:
    return bool(collection) and item in collection


# Names that getattr finds on any dict (its methods): `{{ d.items() }}` means the method.
_DICT_ATTRIBUTES = frozenset(dir(dict))


class FragmentEnvironment(Environment):
    """Jinja2's environment, looking a dict's key up first.

    `{{ p.seat }}` on a dict made Jinja2 try the attribute, catch the AttributeError
    and then look the key up: an exception for most values a fragment shows. A name
    that is not a dict attribute can only be a key, so the result is the same."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)

    def compile(
        self,
        source: str | nodes.Template,
        name: str | None = None,
        filename: str | None = None,
        raw: bool = False,
        defer_init: bool = False,
    ) -> Any:
        """Compile a template with its translations called directly (`DirectTranslations`)."""
        if isinstance(source, str):
            source = DirectTranslations().visit(self.parse(source, name, filename))
        return super().compile(source, name, filename, raw, defer_init)  # type: ignore[call-overload]


def environment(**options: Any) -> Environment:
    """The templates' environment (settings.TEMPLATES, the "jinja2" backend)."""
    # Like Django's templates, a missing value (or a value's missing part) shows as nothing.
    options["undefined"] = ChainableUndefined
    # Every template kept in a plain dict: Jinja2's default (400 in a least-recently-used
    # cache) takes a lock at each {% include %}, and the templates are a fixed few dozen.
    options.setdefault("cache_size", -1)
    env = FragmentEnvironment(extensions=["jinja2.ext.i18n"], **options)
    install_translations(env)
    env.globals.update(
        {
            "url": url,
            "static": static,
            "htmx_script": htmx_script,
            "get_current_language": translation.get_language,
            "get_available_languages": available_languages,
            # The game's words (PHASE.RETURN, not "return"), and what base.html hands
            # the JavaScript.
            **words.TEMPLATE_WORDS,
            "JS_VOCABULARY": words.JS_VOCABULARY,
        }
    )
    # Pictures are filters, `{{ colour|chip(amount) }}`: Jinja2 calls a filter directly,
    # a function through Context.call, which cost more than drawing the (remembered) chip.
    env.filters.update(
        {
            "gem": at_render(pictures.gem),
            "plain_gem": pictures.plain_gem,
            "chip": at_render(pictures.chip),
            "roman": pictures.roman,
            "colour_label": at_render(pictures.colour_label),
            "notation_letter": pictures.notation_letter,
            "gems_html": at_render(pictures.gems_html),
            "paid_html": at_render(pictures.paid_html),
            "card_html": at_render(pictures.card),
            "noble_html": at_render(pictures.noble),
            "turn_html": at_render(pictures.turn_html),
            "seat_mark": charts.seat_mark,
            "contains": contains,
            "get_item": get_item,
            "date": at_render(date),
            "floatformat": at_render(floatformat),
            "json_script": json_script,
        }
    )
    return env


def at_render(function: Callable[..., Any]) -> Callable[..., Any]:
    """A filter whose result depends on the language: Jinja2 must call it as it renders.

    Jinja2 folds a filter of constants into the compiled template, which is compiled
    once for every language; only a filter that takes the context is never folded.
    """

    @pass_context
    def filtered(_context: Any, *args: Any) -> Any:
        return function(*args)

    return filtered


def install_translations(env: Environment) -> None:
    """Django's catalogues as the i18n extension's newstyle gettext and ngettext.

    With newstyle's meaning (the message trusted, the values escaped, always
    formatted with `%`), but not its wrappers, which take the context and call
    through Context.call twice more for each message (and `_` would look `gettext`
    up at each call): the templates call them as filters (`DirectTranslations`).
    """
    env.newstyle_gettext = True  # type: ignore[attr-defined]
    env.globals.update({"_": gettext, "gettext": gettext, "ngettext": ngettext})
    env.filters.update({"_gettext": translated, "_ngettext": translated_plural})


@pass_context
def translated(_context: Any, message: str, **values: Any) -> Markup:
    """`{{ _("Take") }}` and `{% trans %}`: the message in the screen's language."""
    if values:
        return _filled(_translated(message, current()), values)
    return _formatted(message, current())


@pass_context
def translated_plural(
    _context: Any, singular: str, plural: str, count: int, **values: Any
) -> Markup:
    """`{% trans counter=n %}...{% pluralize counter %}...`: the form for `count`."""
    values.setdefault("num", count)
    return _filled(_plural(singular, plural, count, current()), values)


def gettext(message: str, **values: Any) -> Markup:
    """`translated` for a call Jinja2 does not compile to a filter (`DirectTranslations`)."""
    return translated(None, message, **values)


def ngettext(singular: str, plural: str, count: int, **values: Any) -> Markup:
    return translated_plural(None, singular, plural, count, **values)


# The functions `_("...")` and `{% trans %}` call, and the filters they become.
DIRECT = {"_": "_gettext", "gettext": "_gettext", "ngettext": "_ngettext"}


class DirectTranslations(NodeTransformer):
    """`_("...")`, and the gettext and ngettext calls `{% trans %}` compiles to, become
    filters: Jinja2 calls a filter directly, a function through Context.call, which
    cost more than the (remembered) translation: 76 messages a change for a TV and
    three phones in two languages. The extension's extractor reads the templates as
    written (game/management/commands/makemessages.py). Taking the context, the filters
    are never folded into a template, which is compiled once for every language."""

    def visit_Call(self, node: nodes.Call) -> nodes.Node:
        self.generic_visit(node)
        function = node.node
        if (
            not isinstance(function, nodes.Name)
            or function.name not in DIRECT
            or not node.args
            or node.dyn_args is not None
            or node.dyn_kwargs is not None
        ):
            return node
        message, *rest = node.args
        return nodes.Filter(
            message, DIRECT[function.name], rest, node.kwargs, None, None, lineno=node.lineno
        )


def _filled(message: Markup, values: dict[str, Any]) -> Markup:
    """newstyle's `message % values`: each value escaped (numbers stay numbers, for
    `%(n)d`), without Markup's slower formatting helper."""
    return Markup(
        str.__mod__(
            message, {k: v if type(v) in _NUMBERS else escape(v) for k, v in values.items()}
        )
    )


_NUMBERS = frozenset({int, float})


@lru_cache(maxsize=4096)
def _translated(message: str, language: str | None) -> Markup:
    """A message in `language`, the active one (remembered: the catalogues do not change
    while the server runs)."""
    return Markup(translation.gettext(message))


@lru_cache(maxsize=4096)
def _formatted(message: str, language: str | None) -> Markup:
    """A message without values, as newstyle gettext formats it (`%%` is `%`)."""
    return _translated(message, language) % {}


@lru_cache(maxsize=4096)
def _plural(singular: str, plural: str, count: int, language: str | None) -> Markup:
    """The form of a message for `count` in `language`, the active one (remembered)."""
    return Markup(translation.ngettext(singular, plural, count))
