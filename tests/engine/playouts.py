"""Seeded random games, to collect many real positions for property-style tests."""

from __future__ import annotations

import random
from collections.abc import Iterator

from game.engine import GameState, apply_action, legal_actions, new_game


def playout(
    players: int, seed: int, *, max_moves: int = 400, no_gold_small: bool = False
) -> tuple[list[GameState], list[str]]:
    """Play one random game that buys when it can; return every position and every move."""
    rng = random.Random(seed)
    state = new_game(players, seed, no_gold_small=no_gold_small)
    states = [state.copy()]
    moves: list[str] = []
    for _ in range(max_moves):
        actions = legal_actions(state)
        if not actions:
            break
        buys = [a for a in actions if a.kind == "buy"]
        action = rng.choice(buys if buys and rng.random() < 0.8 else actions)
        apply_action(state, action)
        moves.append(action.notation())
        states.append(state.copy())
    return states, moves


def many_positions(games: int = 6, max_moves: int = 400) -> Iterator[GameState]:
    """Positions from games at every player count, with and without the gold house rule."""
    for seed in range(games):
        players = 2 + seed % 3
        states, _ = playout(players, seed, max_moves=max_moves, no_gold_small=seed % 4 == 3)
        yield from states
