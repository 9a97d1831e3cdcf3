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

from functools import lru_cache
from typing import Any

from django.template import engines
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.safestring import SafeString, mark_safe
from jinja2 import ChainableUndefined, Environment, nodes
from jinja2.exceptions import TemplateSyntaxError
from jinja2.ext import Extension
from jinja2.parser import Parser
from markupsafe import Markup

from game.languages import current
from game.templatetags import splendor


def url(name: str, *args: Any) -> str:
    """`{{ url("play", code) }}`: Django's {% url %}."""
    return reverse(name, args=args)


_env: Environment | None = None


def render(template: str, context: dict[str, Any]) -> SafeString:
    """Render a fragment (a name under templates/jinja2/) in the active language.

    The result is HTML (escaped where it must be), safe to put into a page."""
    global _env
    if _env is None:
        _env = engines["jinja2"].env  # type: ignore[attr-defined]
    return mark_safe(_env.get_template(template).render(context))


def environment(**options: Any) -> Environment:
    """The fragments' environment (settings.TEMPLATES, the "jinja2" backend)."""
    # Like Django's templates, a missing value (or a value's missing part) shows as nothing.
    options["undefined"] = ChainableUndefined
    env = Environment(extensions=[DjangoTranslations], **options)
    env.globals.update(
        {
            "url": url,
            "static": static,
            "gem": splendor.gem,
            "plain_gem": splendor.plain_gem,
            "chip": splendor.chip,
        }
    )
    env.filters.update(
        {
            "roman": splendor.roman,
            "colour_label": splendor.colour_label,
            "notation_letter": splendor.notation_letter,
            "gems_html": splendor.gems_html,
            "paid_html": splendor.paid_html,
            "card_html": splendor.card_html_filter,
            "noble_html": splendor.noble_html_filter,
            "contains": splendor.contains,
            "get_item": splendor.get_item,
        }
    )
    return env


class DjangoTranslations(Extension):
    """Django's {% translate %} and {% blocktranslate %} tags in Jinja2.

    As in Django: a translated message is escaped; in a block, the message is
    trusted template text and the values put into it are escaped (a player's
    name cannot inject HTML), and `{{ counter }}` becomes `%(counter)s` in the
    message id.
    """

    tags = {"translate", "blocktranslate"}

    def parse(self, parser: Parser) -> nodes.Node:
        token = next(parser.stream)
        if token.value == "translate":
            message = parser.parse_expression()
            return nodes.Output([self.call_method("_translate", [message])], lineno=token.lineno)
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
            nodes.Const(singular),
            nodes.Const(plural),
            count if count is not None else nodes.Const(None),
            data,
        ]
        return nodes.Output([self.call_method("_block_translate", args)], lineno=lineno)

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

    @staticmethod
    def _translate(message: str) -> str:
        return _gettext(message, current())

    @staticmethod
    def _block_translate(singular: str, plural: str, count: Any, data: dict[str, Any]) -> Markup:
        if plural:
            message = translation.ngettext(singular, plural, count)
        else:
            message = _gettext(singular, current())
        return Markup(message) % data if data else Markup(message.replace("%%", "%"))


@lru_cache(maxsize=4096)
def _gettext(message: str, language: str | None) -> str:
    """A message in `language`, the active one (remembered: the catalogues do not change
    while the server runs)."""
    return translation.gettext(message)


def _trim(message: str) -> str:
    """Django's `trimmed`: the lines stripped and joined by single spaces."""
    return " ".join(line.strip() for line in message.strip().splitlines())
