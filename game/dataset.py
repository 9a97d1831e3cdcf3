"""The engine's bundled cards and nobles as rows of the Card and Noble tables.

One mapping, used by the data migration that fills the tables and by the
system check (game.checks) that keeps them equal to what the engine plays with.
Migration 0002 imports it: the keys must stay the tables' fields as of 0002
(a later schema change needs its own data migration, not an edit here).
"""

from __future__ import annotations

from typing import Any

from game.engine.cards import CARDS, NOBLES
from game.engine.colours import GEMS, NAMES


def card_rows() -> list[dict[str, Any]]:
    """Return every card as the Card model's field values, in id order."""
    return [
        {
            "id": card.id,
            "level": card.level,
            "bonus": NAMES[card.bonus],
            "points": card.points,
            **{f"cost_{NAMES[c]}": card.cost[c] for c in GEMS},
        }
        for card in CARDS
    ]


def noble_rows() -> list[dict[str, Any]]:
    """Return every noble as the Noble model's field values, in id order."""
    return [
        {
            "id": noble.id,
            "points": noble.points,
            **{f"req_{NAMES[c]}": noble.requires[c] for c in GEMS},
        }
        for noble in NOBLES
    ]
