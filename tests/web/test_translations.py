"""Finnish and German: pages and refusals are translated, and the catalogues are complete."""

from __future__ import annotations

import ast
import gettext
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation

from game.engine.actions import IllegalActionError
from game.screens.pictures import COLOUR_MARKS, colour_label, gem
from game.writer import moves
from tests.web.helpers import started

LANGUAGES = ("de", "fi")
LOCALE = Path(settings.LOCALE_PATHS[0])
# %(name)s and %(name)d, bare %s/%d, and {{ name }} (a template variable left untouched).
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]|\{\{.*?\}\}")
COLOURS = ("white", "blue", "green", "red", "black", "gold")


@dataclass
class Entry:
    msgid: str = ""
    msgctxt: str | None = None
    msgid_plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)

    def __str__(self) -> str:
        return f"{self.msgctxt}|{self.msgid}" if self.msgctxt else self.msgid


def parse_po(path: Path) -> list[Entry]:
    """Read a .po file: just enough of the format for makemessages' output."""
    entries: list[Entry] = []
    entry = Entry()
    key: tuple[str, int] | None = None

    def finish() -> None:
        nonlocal entry, key
        if key is not None:
            entries.append(entry)
        entry, key = Entry(), None

    def append(target: tuple[str, int], text: str) -> None:
        name, index = target
        if name == "msgstr":
            entry.msgstr[index] = entry.msgstr.get(index, "") + text
        else:
            setattr(entry, name, (getattr(entry, name) or "") + text)

    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line:
            finish()
        elif line.startswith("#,"):
            if key is not None and key[0] == "msgstr":
                finish()
            entry.flags |= {flag.strip() for flag in line[2:].split(",")}
        elif line.startswith("#"):
            if key is not None and key[0] == "msgstr":
                finish()
        elif line.startswith('"'):
            assert key is not None, f"{path}: a string continues nothing: {raw}"
            append(key, ast.literal_eval(line))
        else:
            keyword, _, rest = line.partition(" ")
            if keyword == "msgctxt" and key is not None:
                finish()
            match = re.fullmatch(r"msgstr\[(\d+)\]", keyword)
            if match:
                key = ("msgstr", int(match.group(1)))
            elif keyword in ("msgctxt", "msgid", "msgid_plural", "msgstr"):
                key = (keyword, 0)
            else:
                raise AssertionError(f"{path}: unexpected line: {raw}")
            append(key, ast.literal_eval(rest))
    finish()
    return entries


def catalogue(language: str) -> list[Entry]:
    return parse_po(LOCALE / language / "LC_MESSAGES" / "django.po")


def messages(language: str) -> list[Entry]:
    """Every entry but the header."""
    return [e for e in catalogue(language) if e.msgid]


def placeholders(text: str) -> list[str]:
    return sorted(PLACEHOLDER.findall(text))


@pytest.fixture(autouse=True)
def back_to_english() -> Iterator[None]:
    yield
    translation.activate(settings.LANGUAGE_CODE)


# ---------------------------------------------------------------- pages


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "texts"),
    [
        ("de", ["Splendor zu Hause", "Neues Spiel", "Hausregel", "Beitreten"]),
        ("fi", ["Splendor kotona", "Uusi peli", "Kotisääntö", "Liity"]),
    ],
)
def test_home_page_speaks_the_browser_language(language: str, texts: list[str]) -> None:
    response = Client().get("/", HTTP_HOST="localhost:8000", HTTP_ACCEPT_LANGUAGE=language)
    page = response.content.decode()
    assert response.status_code == 200
    assert f'<html lang="{language}">' in page
    for text in texts:
        assert text in page
    assert "New game" not in page


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "texts"),
    [
        ("de", ["Du bist dran", "Edelsteine nehmen", 'title="Rot"', "0 Punkte"]),
        ("fi", ["Sinun vuorosi", "Ota jalokiviä", 'title="punainen"', "0 pistettä"]),
    ],
)
def test_a_phone_hand_is_translated(language: str, texts: list[str]) -> None:
    table = started()
    client = Client()
    client.cookies["sessionid"] = table.player(0).session
    response = client.get(
        f"/play/{table.code}/", HTTP_HOST="localhost:8000", HTTP_ACCEPT_LANGUAGE=language
    )
    page = response.content.decode()
    assert response.status_code == 200
    for text in texts:
        assert text in page
    assert "Your turn" not in page


def test_an_engine_refusal_is_translated_with_its_colour() -> None:
    error = IllegalActionError(
        "You can take two %(colour)s gems only from a pile of at least four.", colour="red"
    )
    with translation.override("de"):
        german = moves.explain(error)
    with translation.override("fi"):
        finnish = moves.explain(error)
    assert german == (
        "Zwei Edelsteine der Farbe Rot darfst du nur von einem Stapel mit mindestens vier nehmen."
    )
    assert "(punainen)" in finnish and "jalokiveä" in finnish


# ---------------------------------------------------------------- catalogues


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_header_names_the_language_and_its_plurals(language: str) -> None:
    header = next(e for e in catalogue(language) if not e.msgid)
    text = header.msgstr[0]
    assert f"Language: {language}\n" in text
    assert "charset=UTF-8" in text
    assert "Plural-Forms: nplurals=2; plural=(n != 1);" in text
    assert "fuzzy" not in header.flags


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_is_translated(language: str) -> None:
    entries = messages(language)
    assert len(entries) > 150
    for entry in entries:
        assert "fuzzy" not in entry.flags, f"fuzzy: {entry}"
        expected = [0, 1] if entry.msgid_plural is not None else [0]
        assert sorted(entry.msgstr) == expected, f"wrong msgstr forms: {entry}"
        for index, text in entry.msgstr.items():
            assert text.strip(), f"untranslated ({language}, form {index}): {entry}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_placeholders_survive_translation(language: str) -> None:
    for entry in messages(language):
        for index, text in entry.msgstr.items():
            source = entry.msgid_plural if index and entry.msgid_plural else entry.msgid
            assert placeholders(text) == placeholders(source), f"{language} form {index}: {entry}"


@pytest.mark.parametrize("language", ("en", *LANGUAGES))
def test_a_colour_has_one_mark_in_every_language_and_its_name_in_its_label(
    language: str,
) -> None:
    """A mixed-language table sees the same gems; each screen names them in its language."""
    with translation.override(language):
        drawn = {colour: gem(colour) for colour in COLOURS}
        names = {colour: colour_label(colour) for colour in COLOURS}
    marks = {
        colour: re.search(r'gem-mark" aria-hidden="true">(.*?)<', html).group(1)  # type: ignore[union-attr]
        for colour, html in drawn.items()
    }
    assert marks == COLOUR_MARKS
    assert len(set(marks.values())) == len(COLOURS), marks
    assert all(not mark.isalpha() for mark in marks.values()), f"a mark is a letter: {marks}"
    for colour, html in drawn.items():
        assert f'aria-label="{names[colour]}"' in html, html
        assert f'title="{names[colour]}"' in html, html
    if language != "en":
        assert names["black"] != "black", "the colour names are not translated"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_committed_mo_file_matches_the_po_file(language: str) -> None:
    """A stale django.mo would show old text: compilemessages must have run after editing."""
    with (LOCALE / language / "LC_MESSAGES" / "django.mo").open("rb") as mo:
        compiled = gettext.GNUTranslations(mo)
    for entry in messages(language):
        if entry.msgid_plural is not None:
            for n, index in ((1, 0), (2, 1)):
                got = compiled.ngettext(entry.msgid, entry.msgid_plural, n)
                assert got == entry.msgstr[index], f"stale .mo: {entry}"
        elif entry.msgctxt is not None:
            assert compiled.pgettext(entry.msgctxt, entry.msgid) == entry.msgstr[0], entry
        else:
            assert compiled.gettext(entry.msgid) == entry.msgstr[0], f"stale .mo: {entry}"
