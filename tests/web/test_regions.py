"""game.screens.regions: a region's skeleton, filled with its parts, is the region itself;
regions are remembered by their keys, per language."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation
from django.utils.safestring import mark_safe

from game.screens import jinja, regions

# Parts are HTML already (rendered regions, past Latin-1 as character references), as
# the screens hand them over.
PARTS = {
    "first": mark_safe(jinja.narrow('<p id="first">Ελένη &amp; <b>Łukasz</b> 🦊</p>')),
    "second": mark_safe('<p id="second">x\x01y</p>'),
    "third": mark_safe(""),
}


@pytest.fixture(autouse=True)
def empty_cache() -> None:
    regions.clear()


def whole(template: str, context: dict[str, Any]) -> str:
    return str(jinja.render(template, context))


def test_a_filled_skeleton_is_what_the_template_renders_with_the_parts() -> None:
    def context(parts: dict[str, Any]) -> dict[str, Any]:
        return {"position": 2, "parts": tuple(parts.values())}

    filled = regions.around("parts/player.html", 2, context, PARTS)
    assert filled == whole("parts/player.html", context(PARTS))
    changed = {**PARTS, "second": mark_safe('<p id="second">changed</p>')}
    assert regions.around("parts/player.html", 2, context, changed) == whole(
        "parts/player.html", context(changed)
    )


def test_a_part_set_of_its_own_and_a_language_of_its_own_get_their_own_skeleton() -> None:
    def context(parts: dict[str, Any]) -> dict[str, Any]:
        return {"items": parts}

    hand = {
        iid: mark_safe(f"<i>{iid}</i>")
        for iid in ("my-score", "my-tokens", "my-bonuses", "my-reserved-count", "my-reserved")
    }
    english = regions.around("phone/regions/my_hand.html", (), context, hand)
    assert "Nobles" not in english and english == whole("phone/regions/my_hand.html", context(hand))
    with_nobles = {**hand, "my-nobles": mark_safe("<i>n</i>")}
    assert regions.around("phone/regions/my_hand.html", (), context, with_nobles) == whole(
        "phone/regions/my_hand.html", context(with_nobles)
    )
    with translation.override("de"):
        german = regions.around("phone/regions/my_hand.html", (), context, hand)
        assert german == whole("phone/regions/my_hand.html", context(hand))
    assert german != english


def test_the_cache_keeps_each_language_apart_and_stays_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(regions, "_CACHE_SIZE", 8)
    made: list[str] = []

    def make(key: int) -> str:
        text = f"{key} {translation.get_language()}"
        made.append(text)
        return text

    with translation.override("en"):
        assert regions.remember(1, lambda: make(1)) == "1 en"
    with translation.override("fi"):
        assert regions.remember(1, lambda: make(1)) == "1 fi"
    with translation.override("en"):
        assert regions.remember(1, lambda: make(1)) == "1 en"  # remembered, not made again
        for key in range(2, 40):
            regions.remember(key, lambda key=key: make(key))  # type: ignore[misc]
            regions.remember(1, lambda: make(1))  # used at every step: never dropped
        entries = sum(len(d) for gen in (regions._young, regions._old) for d in gen.values())
        assert entries <= 8
        assert made.count("1 en") == 1
        assert regions.remember(2, lambda: make(2)) == "2 en" and made.count("2 en") == 2


def test_a_declared_region_is_made_once_per_key_and_kept_apart_from_others() -> None:
    made: list[str] = []

    @regions.remembered_by(lambda seat, name: (seat,))
    def line(seat: int, name: str) -> str:
        made.append(f"line {seat} {name}")
        return f"line {seat} {name}"

    @regions.remembered_by(lambda seat, name: (seat,))
    def score(seat: int, name: str) -> str:
        made.append(f"score {seat} {name}")
        return f"score {seat} {name}"

    with translation.override("en"):
        assert line(1, "Ada") == "line 1 Ada"
        assert line(1, name="Bob") == "line 1 Ada"  # the key says the name is not shown
        assert score(1, "Ada") == "score 1 Ada"  # the same key, another region
        assert line(2, "Ada") == "line 2 Ada"
    with translation.override("fi"):
        assert line(1, "Ada") == "line 1 Ada"
    assert made == ["line 1 Ada", "score 1 Ada", "line 2 Ada", "line 1 Ada"]
    assert line.__name__ == "line"
