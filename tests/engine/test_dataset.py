"""The bundled dataset, as the engine loads it (game.engine.cards): pinned and sound.

The sha256 pins the exact files: a changed CSV fails here first, and then needs
a data migration for the Card and Noble tables (game.checks compares them).
"""

import hashlib
from collections import Counter

import pytest

from game.engine.cards import CARDS, DATA_DIR, NOBLES, card, noble
from game.engine.colours import GEMS

PINNED_SHA256 = {
    "cards.csv": "6e05f04516dfeddf568adb83c65c79d375b18b101148f6246b8d27d93dd5cbf4",
    "nobles.csv": "ea9be564a39a3d5553176a6f706944e715b398d21717c43a44a1a71ddf5eccb2",
}


@pytest.mark.parametrize("name", sorted(PINNED_SHA256))
def test_the_files_the_engine_reads_are_the_pinned_ones(name: str) -> None:
    digest = hashlib.sha256((DATA_DIR / name).read_bytes()).hexdigest()
    assert digest == PINNED_SHA256[name], f"{name} changed: update the pin and add a migration"


def test_the_data_lives_inside_the_engine_package() -> None:
    assert DATA_DIR.parent.name == "engine"
    assert sorted(p.name for p in DATA_DIR.iterdir()) == ["SOURCES.md", "cards.csv", "nobles.csv"]


def test_ninety_cards_and_ten_nobles_with_ids_in_row_order() -> None:
    assert [c.id for c in CARDS] == list(range(1, 91))
    assert [n.id for n in NOBLES] == list(range(1, 11))
    assert all(card(c.id) is c for c in CARDS)
    assert all(noble(n.id) is n for n in NOBLES)


def test_each_level_has_40_30_20_cards() -> None:
    assert Counter(c.level for c in CARDS) == {1: 40, 2: 30, 3: 20}


def test_each_level_has_8_6_4_cards_of_each_bonus() -> None:
    per_level_and_bonus = Counter((c.level, c.bonus) for c in CARDS)
    assert per_level_and_bonus == {
        (level, colour): count for level, count in ((1, 8), (2, 6), (3, 4)) for colour in GEMS
    }


def test_each_colour_costs_33_41_43_in_total_per_level() -> None:
    for level, total in ((1, 33), (2, 41), (3, 43)):
        for colour in GEMS:
            spent = sum(c.cost[colour] for c in CARDS if c.level == level)
            assert spent == total, (level, colour)


def test_points_per_level() -> None:
    points = Counter((c.level, c.points) for c in CARDS)
    assert points == {
        (1, 0): 35,
        (1, 1): 5,
        (2, 1): 10,
        (2, 2): 15,
        (2, 3): 5,
        (3, 3): 5,
        (3, 4): 10,
        (3, 5): 5,
    }


def test_nobles_are_worth_3_and_need_4_4_or_3_3_3() -> None:
    assert all(n.points == 3 for n in NOBLES)
    shapes = Counter(
        tuple(sorted((need for need in n.requires if need), reverse=True)) for n in NOBLES
    )
    assert shapes == {(4, 4): 5, (3, 3, 3): 5}


def test_no_two_cards_or_nobles_are_the_same() -> None:
    assert len({(c.level, c.bonus, c.points, c.cost) for c in CARDS}) == 90
    assert len({n.requires for n in NOBLES}) == 10
