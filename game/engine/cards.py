"""The bundled development cards and nobles: the engine's package data in game/engine/data/.

This is the one parser of the dataset; the database's Card and Noble rows are
loaded from it (migration 0002) and checked against it (game.checks).
"""

import csv
from dataclasses import dataclass
from pathlib import Path

from game.engine.colours import GEMS, NAME_TO_COLOUR, NAMES

DATA_DIR = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True, slots=True)
class Card:
    """A development card: its level, the bonus it gives, points and cost."""

    id: int
    level: int
    bonus: int
    points: int
    cost: tuple[int, int, int, int, int]


@dataclass(frozen=True, slots=True)
class Noble:
    """A noble tile: the bonuses it requires and its points."""

    id: int
    points: int
    requires: tuple[int, int, int, int, int]


def _cost(row: dict[str, str]) -> tuple[int, int, int, int, int]:
    w, u, g, r, k = (int(row[NAMES[c]]) for c in GEMS)
    return (w, u, g, r, k)


def load_cards(path: Path = DATA_DIR / "cards.csv") -> tuple[Card, ...]:
    """Read the cards; ids are 1-based row numbers, as in the database."""
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return tuple(
        Card(i, int(row["level"]), NAME_TO_COLOUR[row["bonus"]], int(row["points"]), _cost(row))
        for i, row in enumerate(rows, start=1)
    )


def load_nobles(path: Path = DATA_DIR / "nobles.csv") -> tuple[Noble, ...]:
    """Read the nobles; ids are 1-based row numbers, as in the database."""
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return tuple(Noble(i, int(row["points"]), _cost(row)) for i, row in enumerate(rows, start=1))


CARDS: tuple[Card, ...] = load_cards()
NOBLES: tuple[Noble, ...] = load_nobles()
# Costs indexed by card id (slot 0 unused), for the affordability hot path.
COSTS: tuple[tuple[int, int, int, int, int], ...] = ((0, 0, 0, 0, 0), *(c.cost for c in CARDS))
LEVELS: tuple[int, ...] = (1, 2, 3)
CARDS_PER_LEVEL_FACE_UP = 4


def card(card_id: int) -> Card:
    """Return the card with this id."""
    return CARDS[card_id - 1]


def noble(noble_id: int) -> Noble:
    """Return the noble with this id."""
    return NOBLES[noble_id - 1]
