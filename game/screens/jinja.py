"""Jinja2 for the fragments a change renders (templates/jinja2/): the live path's hot loop.

The screens' regions are re-rendered at every change for every language, and
Django's template engine spent most of a change's server time on them; Jinja2
compiles a template to Python and renders the same fragment several times faster.
Pages (home, join, help, the archive) stay Django templates.

The fragments keep Django's translation tags, `{% translate "..." %}` and
`{% blocktranslate [count counter=n] [with name=value ...] [trimmed] %}...
{% plural %}...{% endblocktranslate %}`, with Django's meaning (see
`DjangoTranslations`). So `makemessages` still finds every string, the message
ids stay the ones translators already have, and adding a language stays only
translation work.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from django.template import engines
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.safestring import SafeString
from jinja2 import ChainableUndefined, Environment, Template, nodes, pass_context
from jinja2.exceptions import TemplateSyntaxError
from jinja2.ext import Extension
from jinja2.parser import Parser
from markupsafe import Markup, escape

from game.languages import current
from game.screens import words
from game.templatetags import splendor


def url(name: str, *args: Any) -> str:
    """`{{ url("play", code) }}`: Django's {% url %}."""
    return reverse(name, args=args)


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


def environment(**options: Any) -> Environment:
    """The fragments' environment (settings.TEMPLATES, the "jinja2" backend)."""
    # Like Django's templates, a missing value (or a value's missing part) shows as nothing.
    options["undefined"] = ChainableUndefined
    # Every template kept in a plain dict: Jinja2's default (400 in a least-recently-used
    # cache) takes a lock at each {% include %}, and the fragments are a fixed few dozen.
    options.setdefault("cache_size", -1)
    env = FragmentEnvironment(extensions=[DjangoTranslations], **options)
    env.globals.update({"url": url, "static": static, **words.TEMPLATE_WORDS})
    # Pictures are filters, `{{ colour|chip(amount) }}`: Jinja2 calls a filter directly,
    # a function through Context.call, which cost more than drawing the (remembered) chip.
    env.filters.update(
        {
            "gem": at_render(splendor.gem),
            "plain_gem": splendor.plain_gem,
            "chip": at_render(splendor.chip),
            "roman": splendor.roman,
            "colour_label": at_render(splendor.colour_label),
            "notation_letter": splendor.notation_letter,
            "gems_html": at_render(splendor.gems_html),
            "paid_html": at_render(splendor.paid_html),
            "card_html": at_render(splendor.card_html_filter),
            "noble_html": at_render(splendor.noble_html_filter),
            "turn_html": at_render(turn_html),
            "contains": splendor.contains,
            "get_item": splendor.get_item,
        }
    )
    return env


def turn_html(entry: dict[str, Any]) -> SafeString:
    """`{{ entry|turn_html }}`: a turn (history.named) told in sentences, made once per
    turn, name and language for the log and both last-turn strips."""
    from game.screens import regions  # game.screens.regions renders with this module

    turn, name = entry["turn"], entry["name"]
    # Marked safe here: it goes into templates, and the cache keeps plain text.
    return SafeString(
        regions.render_by(
            ("turn", turn, name), "parts/turn_events.html", lambda: {"turn": turn, "name": name}
        )
    )


def at_render(function: Callable[..., Any]) -> Callable[..., Any]:
    """A filter whose result depends on the language: Jinja2 must call it as it renders.

    Jinja2 folds a filter of constants into the compiled template, which is compiled
    once for every language; only a filter that takes the context is never folded.
    """

    @pass_context
    def filtered(_context: Any, *args: Any) -> Any:
        return function(*args)

    return filtered


class DjangoTranslations(Extension):
    """Django's {% translate %} and {% blocktranslate %} tags in Jinja2.

    As in Django: a translated message is escaped; in a block, the message is
    trusted template text and the values put into it are escaped (a player's
    name cannot inject HTML), and `{{ counter }}` becomes `%(counter)s` in the
    message id.
    """

    tags = {"translate", "blocktranslate"}

    # The tags compile to filters: Jinja2 calls a filter directly, a method of the
    # extension through Context.call, which cost more than the translation itself.
    TRANSLATE = "_django_translate"
    BLOCK = "_django_blocktranslate"

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        environment.filters[self.TRANSLATE] = at_render(_translate)
        environment.filters[self.BLOCK] = at_render(_block_translate)

    def parse(self, parser: Parser) -> nodes.Node:
        token = next(parser.stream)
        if token.value == "translate":
            message = parser.parse_expression()
            translated = nodes.Filter(message, self.TRANSLATE, [], [], None, None)
            return nodes.Output([translated], lineno=token.lineno)
        return self._block(parser, token.lineno)

    def _block(self, parser: Parser, lineno: int) -> nodes.Node:
        values: dict[str, nodes.Expr] = {}
        count: nodes.Expr | None = None
        counter = ""
        trimmed = False
        while parser.stream.current.type != "block_end":
            option = parser.stream.expect("name").value
            if option == "trimmed":
                trimmed = True
            elif option == "with":
                while parser.stream.look().type == "assign":
                    name = parser.stream.expect("name").value
                    parser.stream.expect("assign")
                    values[name] = parser.parse_expression()
            elif option == "count":
                counter = parser.stream.expect("name").value
                parser.stream.expect("assign")
                count = parser.parse_expression()
                values[counter] = count
            else:
                raise TemplateSyntaxError(
                    f"blocktranslate: unknown option {option!r}", lineno, parser.name
                )
        parser.stream.expect("block_end")
        names: set[str] = set()
        singular, ended = self._message(parser, names, allow_plural=count is not None)
        plural = ""
        if ended == "plural":
            parser.stream.expect("block_end")
            plural, _ended = self._message(parser, names, allow_plural=False)
        # The parser itself reads the block_end of {% endblocktranslate %}.
        for name in sorted(names - values.keys()):  # as in Django: the template's own values
            values[name] = nodes.Name(name, "load")
        if trimmed:
            singular, plural = _trim(singular), _trim(plural)
        data = nodes.Dict([nodes.Pair(nodes.Const(k), v) for k, v in values.items()])
        args: list[nodes.Expr] = [
            nodes.Const(plural),
            count if count is not None else nodes.Const(None),
            data,
        ]
        translated = nodes.Filter(nodes.Const(singular), self.BLOCK, args, [], None, None)
        return nodes.Output([translated], lineno=lineno)

    def _message(self, parser: Parser, names: set[str], allow_plural: bool) -> tuple[str, str]:
        """Read a block's text up to {% plural %} or {% endblocktranslate %}, in Django's
        message id form; return it and the tag that ended it."""
        parts: list[str] = []
        stream = parser.stream
        while True:
            current = stream.current
            if current.type == "data":
                parts.append(current.value.replace("%", "%%"))
                next(stream)
            elif current.type == "variable_begin":
                next(stream)
                name = stream.expect("name").value
                names.add(name)
                parts.append(f"%({name})s")
                stream.expect("variable_end")
            elif current.type == "block_begin":
                next(stream)
                tag = stream.expect("name").value
                if tag == "endblocktranslate" or (tag == "plural" and allow_plural):
                    return "".join(parts), tag
                raise TemplateSyntaxError(
                    f"blocktranslate: only text and {{{{ name }}}} inside, not {tag!r}",
                    current.lineno,
                    parser.name,
                )
            else:
                raise TemplateSyntaxError(
                    "blocktranslate: missing {% endblocktranslate %}", current.lineno, parser.name
                )


def _translate(message: str) -> str:
    """{% translate %}: the message in the active language (escaped by the template)."""
    return _gettext(message, current())


def _block_translate(singular: str, plural: str, count: Any, data: dict[str, Any]) -> Markup:
    """{% blocktranslate %}: the message is trusted text, the values put in it escaped."""
    language = current()
    if plural:
        message = _ngettext(singular, plural, count, language)
    else:
        message = _gettext(singular, language)
    if not data:
        return Markup(message.replace("%%", "%"))
    return Markup(message % {name: escape(value) for name, value in data.items()})


@lru_cache(maxsize=4096)
def _gettext(message: str, language: str | None) -> str:
    """A message in `language`, the active one (remembered: the catalogues do not change
    while the server runs)."""
    return translation.gettext(message)


@lru_cache(maxsize=4096)
def _ngettext(singular: str, plural: str, count: int, language: str | None) -> str:
    """The form of a message for `count` in `language`, the active one (remembered)."""
    return translation.ngettext(singular, plural, count)


def _trim(message: str) -> str:
    """Django's `trimmed`: the lines stripped and joined by single spaces."""
    return " ".join(line.strip() for line in message.strip().splitlines())
