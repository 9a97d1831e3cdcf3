"""The engine's bundled cards and nobles as rows of the Card and Noble tables.

The system check (game.checks) compares the tables with these rows; a data
migration that reloads the tables for today's models can create them from here.
(Migration 0002 writes its own mapping: it must keep the schema of its time.)
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
