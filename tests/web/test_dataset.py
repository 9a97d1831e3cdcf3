"""The data migration loads exactly the bundled card and noble dataset."""

import csv
from collections import Counter
from pathlib import Path

import pytest

from game.models import Card, Noble

DATA_DIR = Path(__file__).resolve().parents[2] / "game" / "data"
COLOURS = ("white", "blue", "green", "red", "black")

pytestmark = pytest.mark.django_db


def read_csv(name: str) -> list[dict[str, str]]:
    with (DATA_DIR / name).open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_it_loads_ninety_cards_and_ten_nobles() -> None:
    assert Card.objects.count() == 90
    assert Noble.objects.count() == 10
    assert list(Card.objects.values_list("id", flat=True)) == list(range(1, 91))
    assert list(Noble.objects.values_list("id", flat=True)) == list(range(1, 11))


def test_each_level_has_40_30_20_cards() -> None:
    per_level = Counter(Card.objects.values_list("level", flat=True))
    assert per_level == {1: 40, 2: 30, 3: 20}


def test_each_level_has_8_6_4_cards_of_each_bonus() -> None:
    per_level_and_bonus = Counter(Card.objects.values_list("level", "bonus"))
    for level, count in ((1, 8), (2, 6), (3, 4)):
        for colour in COLOURS:
            assert per_level_and_bonus[(level, colour)] == count, (level, colour)


def test_each_colour_costs_33_41_43_in_total_per_level() -> None:
    for level, total in ((1, 33), (2, 41), (3, 43)):
        cards = Card.objects.filter(level=level)
        for colour in COLOURS:
            assert sum(getattr(card, f"cost_{colour}") for card in cards) == total, (
                level,
                colour,
            )


def test_nobles_are_worth_3_and_need_4_4_or_3_3_3() -> None:
    shapes: Counter[tuple[int, ...]] = Counter()
    for noble in Noble.objects.all():
        assert noble.points == 3
        needs = (getattr(noble, f"req_{colour}") for colour in COLOURS)
        shapes[tuple(sorted((need for need in needs if need), reverse=True))] += 1
    assert shapes == {(4, 4): 5, (3, 3, 3): 5}


def test_cards_csv_matches_the_database_row_for_row() -> None:
    rows = read_csv("cards.csv")
    stored = list(Card.objects.order_by("id"))
    assert len(rows) == len(stored)
    for number, (row, card) in enumerate(zip(rows, stored, strict=True), start=1):
        assert card.id == number
        assert (card.level, card.bonus, card.points) == (
            int(row["level"]),
            row["bonus"],
            int(row["points"]),
        )
        for colour in COLOURS:
            assert getattr(card, f"cost_{colour}") == int(row[colour]), (number, colour)


def test_nobles_csv_matches_the_database_row_for_row() -> None:
    rows = read_csv("nobles.csv")
    stored = list(Noble.objects.order_by("id"))
    for number, (row, noble) in enumerate(zip(rows, stored, strict=True), start=1):
        assert noble.id == number
        assert noble.points == int(row["points"])
        for colour in COLOURS:
            assert getattr(noble, f"req_{colour}") == int(row[colour]), (number, colour)
