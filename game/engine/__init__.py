"""The Splendor rules engine: pure Python, standard library only.

Django and Channels are the shell around it; nothing here imports them.
"""

from game.engine.actions import (
    Action,
    ActionError,
    IllegalActionError,
    MalformedActionError,
    NotationError,
    parse_action,
)
from game.engine.cards import CARDS, NOBLES, Card, Noble, card, noble
from game.engine.colours import COLOURS, GEMS, GOLD
from game.engine.rules import apply_action, legal_actions, outcome, replay
from game.engine.setup import new_game
from game.engine.state import GameState, Outcome, PlayerState

__all__ = [
    "CARDS",
    "COLOURS",
    "GEMS",
    "GOLD",
    "NOBLES",
    "Action",
    "ActionError",
    "Card",
    "GameState",
    "IllegalActionError",
    "MalformedActionError",
    "Noble",
    "NotationError",
    "Outcome",
    "PlayerState",
    "apply_action",
    "card",
    "legal_actions",
    "new_game",
    "noble",
    "outcome",
    "parse_action",
    "replay",
]
