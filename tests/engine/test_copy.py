"""GameState.copy(): cheap, complete and independent of the original (the search
bot plays out many copies of one position)."""

from __future__ import annotations

import dataclasses
import random

from game.engine import GameState, PlayerState, apply_action, legal_actions
from tests.engine.playouts import playout

NESTED = {"players", "decks", "market"}


def mid_game() -> GameState:
    states, _ = playout(4, seed=11)
    state = states[len(states) // 2]
    assert not state.is_over
    return state


def with_every_field_set(state: GameState) -> GameState:
    """Give every flat field a value that no default has, so a forgotten one shows."""
    marker = object()
    for f in dataclasses.fields(GameState):
        value = getattr(state, f.name)
        if f.name in NESTED:
            continue
        if isinstance(value, list):
            setattr(state, f.name, [*value, marker])
        elif isinstance(value, bool):
            setattr(state, f.name, not value)
        elif isinstance(value, int):
            setattr(state, f.name, value + 1000)
        else:
            setattr(state, f.name, f"{value}-marked")
    return state


def test_a_copy_equals_the_original_in_every_field():
    state = with_every_field_set(mid_game())
    copied = state.copy()
    for f in dataclasses.fields(GameState):
        assert getattr(copied, f.name) == getattr(state, f.name), f.name
    for original, player in zip(state.players, copied.players, strict=True):
        for f in dataclasses.fields(PlayerState):
            assert getattr(player, f.name) == getattr(original, f.name), f.name


def lists_in(value: object) -> list[list[object]]:
    """Every list inside a state: its fields, its players' fields, nested lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        found = []
        for f in dataclasses.fields(value):
            found += lists_in(getattr(value, f.name))
        return found
    if isinstance(value, list):
        return [value, *(inner for item in value for inner in lists_in(item))]
    return []


def test_a_copy_shares_no_list_with_the_original():
    state = mid_game()
    originals = {id(x) for x in lists_in(state)}
    copies = {id(x) for x in lists_in(state.copy())}
    assert len(originals) == len(copies) > 20
    assert not originals & copies


def test_playing_on_a_copy_leaves_the_original_untouched():
    state = mid_game()
    before = state.to_dict()
    copied = state.copy()
    rng = random.Random(5)
    while not copied.is_over:
        apply_action(copied, rng.choice(legal_actions(copied)))
    assert state.to_dict() == before
    assert copied.to_dict() != before


def test_playing_on_the_original_leaves_a_copy_untouched():
    state = mid_game()
    copied = state.copy()
    before = copied.to_dict()
    rng = random.Random(6)
    for _ in range(40):
        if state.is_over:
            break
        apply_action(state, rng.choice(legal_actions(state)))
    assert copied.to_dict() == before
