"""The project's templates: one Jinja2 environment, Jinja2's i18n extension over Django's
catalogues, and makemessages finding every message."""

from __future__ import annotations

from html import unescape
from pathlib import Path

import pytest
from django.conf import settings
from django.template import engines
from django.template.loader import render_to_string
from django.utils import translation
from jinja2 import TemplateSyntaxError
from jinja2.ext import GETTEXT_FUNCTIONS, babel_extract

from game.management.commands import makemessages
from game.screens import environment, jinja
from tests.web.test_translations import catalogue

TEMPLATES = Path(settings.BASE_DIR) / "templates"


def _render(source: str, **context: object) -> str:
    return str(engines["jinja2"].from_string(source).render(context))


def test_a_message_is_translated_and_trusted_its_values_escaped() -> None:
    """Jinja2's newstyle gettext: the message is template text, a value put in is escaped."""
    with translation.override("de"):
        assert _render('{{ _("Take") }}') == "Nehmen"
    assert _render("{{ _('<b>') }}") == "<b>"
    assert _render('{{ _("%(x)s!", x=y) }}', y="<i>") == "&lt;i&gt;!"


def test_a_template_compiled_in_one_language_renders_in_every_language() -> None:
    """Templates are compiled once; no translation may be folded into them."""
    source = '{{ _("Take") }}|{% trans %}Reserve{% endtrans %}|{{ "gold"|chip(2) }}|{{ "red"|gem }}'
    with translation.override("de"):
        template = engines["jinja2"].from_string(source)
        german = str(template.render({}))
    with translation.override("fi"):
        finnish = str(template.render({}))
    assert german.startswith("Nehmen|Reservieren|"), german
    assert finnish.startswith("Ota|Varaa|"), finnish
    assert 'aria-label="2 kulta"' in finnish and 'aria-label="punainen"' in finnish, finnish
    assert 'aria-label="2 Gold"' in german, german


def test_a_translation_is_called_directly_not_through_the_context() -> None:
    """Context.call cost more than the (remembered) translation: the calls compile to filters."""
    env = engines["jinja2"].env  # type: ignore[attr-defined]
    source = (
        '{% for n in ns %}{{ _("Take") }}{% trans name=n %}{{ name }}’s turn{% endtrans %}'
        "{% trans counter=n %}{{ counter }} point{% pluralize counter %}{{ counter }} points"
        "{% endtrans %}{% endfor %}"
    )
    code = env.compile(source, raw=True)
    assert "context.call" not in code, code
    assert _render(source, ns=[1]) == "Take1’s turn1 point"


@pytest.mark.parametrize(("count", "expected"), [(1, "1 Punkt"), (3, "3 Punkte")])
def test_a_plural_picks_the_form_of_the_language(count: int, expected: str) -> None:
    source = (
        "{% trans counter=n %}{{ counter }} point"
        "{% pluralize counter %}{{ counter }} points{% endtrans %}"
    )
    with translation.override("de"):
        assert _render(source, n=count) == expected


def test_a_trans_block_escapes_the_values_put_into_the_message() -> None:
    source = "{% trans name=who %}{{ name }}’s turn{% endtrans %}"
    assert _render(source, who="<script>Ελένη") == "&lt;script&gt;Ελένη’s turn"
    with translation.override("fi"):
        assert "Łukasz" in _render(source, who="Łukasz")
        assert "turn" not in _render(source, who="Łukasz")


def test_a_trans_block_reads_values_of_the_template_and_keeps_percent_signs() -> None:
    assert _render("{% trans %}A {{ level }} card, 100%{% endtrans %}", level=2) == (
        "A 2 card, 100%"
    )
    assert _render("{% trans %}100%{% endtrans %}") == "100%"
    trimmed = "{% trans trimmed %}\n  one\n  two\n{% endtrans %}"
    assert _render(trimmed) == "one two"


def test_a_tag_inside_a_trans_block_is_refused() -> None:
    with pytest.raises(TemplateSyntaxError):
        _render("{% trans %}{% if x %}y{% endif %}{% endtrans %}")


def test_no_translation_holds_markup() -> None:
    """A message is trusted template text (newstyle gettext) and often sits in an
    attribute: a translation may not bring a tag, an entity or a quote of its own."""
    for language in ("de", "fi"):
        for entry in catalogue(language):
            for text in entry.msgstr.values():
                if entry.msgid:
                    assert not set('<>&"') & set(text), (language, entry.msgid, text)


# ---------------------------------------------------------------- makemessages


def _messages_in_templates() -> set[str]:
    """Every message Jinja2's extractor finds in the project's templates."""
    found: set[str] = set()
    for template in sorted(TEMPLATES.rglob("*.html")):
        with template.open("rb") as source:
            for _line, _function, message, _comments in babel_extract(
                source, GETTEXT_FUNCTIONS, [], makemessages.OPTIONS
            ):
                texts = message if isinstance(message, tuple) else (message,)
                found.update(text for text in texts if text is not None)
    return found


def test_every_message_of_the_templates_is_in_the_catalogues() -> None:
    messages = _messages_in_templates()
    assert len(messages) > 150
    assert "%(counter)s point" in messages and "Your hand" in messages
    for language in ("de", "fi"):
        known = {entry.msgid for entry in catalogue(language)}
        known |= {entry.msgid_plural for entry in catalogue(language) if entry.msgid_plural}
        assert messages <= known, (language, sorted(messages - known))


def test_makemessages_reads_a_template_as_gettext_calls_on_its_own_lines() -> None:
    source = (
        '<p>{{ _("Take") }} {{ _(\'It\\\'s "x"\') }}</p>\n'
        "{# Translators: a seat's turn #}\n"
        "{% trans name=n %}{{ name }}’s turn, 100%{% endtrans %}\n"
        "{% trans counter=c %}{{ counter }} point{% pluralize counter %}"
        "{{ counter }} points{% endtrans %}\n"
        "{{ _(variable) }}"
    )
    assert makemessages.as_python(source).split("\n") == [
        'gettext("Take"); gettext("It\'s \\"x\\"")',
        "  # Translators: a seat's turn",
        'gettext("%(name)s’s turn, 100%%", n)',
        'ngettext("%(counter)s point", "%(counter)s points", n, n)',
        "",
    ]


def test_the_makemessages_command_is_the_projects() -> None:
    from django.core.management import get_commands

    assert get_commands()["makemessages"] == "game"


# ---------------------------------------------------------------- pages and fragments


@pytest.mark.parametrize("page", ["400.html", "403.html", "403_csrf.html", "404.html", "500.html"])
def test_an_error_page_renders_without_a_request_in_its_language(page: str) -> None:
    with translation.override("fi"):
        html = render_to_string(page, {})
    assert '<html lang="fi">' in html and "Splendor kotona" in html
    assert 'href="/"' in html


def test_a_fragment_keeps_its_globals_as_one_plain_dict() -> None:
    """Copying a ChainMap of globals into every render's context cost more than a small
    fragment's render; the fragments get them as a dict, the same globals."""
    env = engines["jinja2"].env  # type: ignore[attr-defined]
    html = jinja.render("parts/log_empty.html", {})
    assert isinstance(html, str)
    template = jinja._templates["parts/log_empty.html"]
    assert type(template.globals) is dict
    assert template.globals == env.globals
    assert {"url", "static", "range"} <= set(template.globals)


def test_a_fragment_past_latin_1_is_written_with_character_references() -> None:
    """One wide character makes Python store a whole string two or four bytes a
    character: the fragments a server remembers stay one byte a character."""
    wide = '<p title="Ελένη’s ★">♠ ♥ ◇ ♣ ≈ Łukasz 👨‍👩‍👧 Jyväskylä Straße</p>'
    narrowed = jinja.narrow(wide)
    narrowed.encode("latin-1")  # raises if a character past Latin-1 is left
    assert "Jyväskylä Straße" in narrowed  # Finnish and German letters stay as they are
    assert unescape(narrowed) == wide
    with translation.override("fi"):
        rendered = jinja.render("parts/flash.html", {"message": "Ελένη ★ ♠", "oob": True})
    rendered.encode("latin-1")
    assert "Ελένη ★ ♠" in unescape(rendered)


def test_no_fragment_holds_a_script_or_style() -> None:
    """There a character reference (jinja.narrow) would be read as text, not a character."""
    fragments = sorted((Path(settings.BASE_DIR) / "templates" / "jinja2").rglob("*.html"))
    assert len(fragments) > 30
    for fragment in fragments:
        text = fragment.read_text().lower()
        assert "<script" not in text and "<style" not in text, fragment


def test_a_dict_key_a_dict_method_and_a_missing_key_read_as_jinja2_reads_them() -> None:
    """The fragments' environment looks a dict's key up first (no exception per value),
    with Jinja2's meaning: a dict method stays the method, a missing key shows nothing."""
    source = "{{ d.seat }}|{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}|{{ d.gone }}|"
    assert _render(source, d={"seat": "<b>"}) == "&lt;b&gt;|seat=&lt;b&gt;;||"
    assert _render("{{ d.items }}", d={"items": 3}) != "3"  # the method, as in Jinja2
    assert _render("{{ d.gone.deeper }}", d={}) == ""  # chainable, as Django shows it
    assert type(engines["jinja2"].env) is environment.FragmentEnvironment  # type: ignore[attr-defined]
