"""The fragments' Jinja2 templates keep Django's translation tags and their meaning."""

from __future__ import annotations

from html import unescape
from pathlib import Path

import pytest
from django.conf import settings
from django.template import engines
from django.utils import translation
from jinja2 import TemplateSyntaxError

from game.screens import jinja


def _render(source: str, **context: object) -> str:
    return str(engines["jinja2"].from_string(source).render(context))


def test_translate_is_translated_and_escaped() -> None:
    with translation.override("de"):
        assert _render('{% translate "Take" %}') == "Nehmen"
    assert _render("{% translate '<b>' %}") == "&lt;b&gt;"


def test_a_template_compiled_in_one_language_renders_in_every_language() -> None:
    """Templates are compiled once; no translation may be folded into them."""
    source = (
        '{% translate "Take" %}|{% blocktranslate %}Reserve{% endblocktranslate %}|'
        '{{ "gold"|chip(2) }}|{{ "red"|gem }}'
    )
    with translation.override("de"):
        template = engines["jinja2"].from_string(source)
        german = str(template.render({}))
    with translation.override("fi"):
        finnish = str(template.render({}))
    assert german.startswith("Nehmen|Reservieren|"), german
    assert finnish.startswith("Ota|Varaa|"), finnish
    assert 'aria-label="2 kulta"' in finnish and 'aria-label="punainen"' in finnish, finnish
    assert 'aria-label="2 Gold"' in german, german


@pytest.mark.parametrize(("count", "expected"), [(1, "1 Punkt"), (3, "3 Punkte")])
def test_blocktranslate_count_picks_the_plural_form_of_the_language(
    count: int, expected: str
) -> None:
    source = (
        "{% blocktranslate count counter=n %}{{ counter }} point"
        "{% plural %}{{ counter }} points{% endblocktranslate %}"
    )
    with translation.override("de"):
        assert _render(source, n=count) == expected


def test_blocktranslate_escapes_the_values_put_into_the_message() -> None:
    source = "{% blocktranslate with name=who %}{{ name }}’s turn{% endblocktranslate %}"
    assert _render(source, who="<script>Ελένη") == "&lt;script&gt;Ελένη’s turn"
    with translation.override("fi"):
        assert "Łukasz" in _render(source, who="Łukasz")
        assert "turn" not in _render(source, who="Łukasz")


def test_blocktranslate_reads_values_of_the_template_and_keeps_percent_signs() -> None:
    assert _render(
        "{% blocktranslate %}A {{ level }} card, 100%{% endblocktranslate %}", level=2
    ) == ("A 2 card, 100%")
    trimmed = "{% blocktranslate trimmed %}\n  one\n  two\n{% endblocktranslate %}"
    assert _render(trimmed) == "one two"


def test_a_tag_inside_a_blocktranslate_is_refused() -> None:
    with pytest.raises(TemplateSyntaxError):
        _render("{% blocktranslate %}{% if x %}y{% endif %}{% endblocktranslate %}")


def test_a_fragment_keeps_its_globals_as_one_plain_dict() -> None:
    """Copying a ChainMap of globals into every render's context cost more than a small
    fragment's render; the fragments get them as a dict, the same globals."""
    from game.screens import jinja

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
    assert type(engines["jinja2"].env) is jinja.FragmentEnvironment  # type: ignore[attr-defined]
