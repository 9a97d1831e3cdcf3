"""Template contexts hold projections only: never the full game state."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from game import rendering
from game.engine import GameState
from game.engine.projection import CardView
from tests.web.helpers import open_lobby, play_as, start

pytestmark = pytest.mark.django_db


def _values(value: Any, depth: int = 0) -> list[Any]:
    """Walk dicts, sequences and dataclasses, returning every value found."""
    if depth > 12:
        return []
    found = [value]
    if isinstance(value, dict):
        children = list(value.values())
    elif isinstance(value, list | tuple | set | frozenset):
        children = list(value)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        children = [getattr(value, f.name) for f in dataclasses.fields(value)]
    else:
        children = []
    for child in children:
        found += _values(child, depth + 1)
    return found


def _contexts(game_id: int) -> dict[str, dict[str, Any]]:
    snap = rendering.load_snapshot(game_id)
    url = rendering.join_url(snap.code, 8000)
    return {
        "host table": rendering.table_context(snap, is_host=True, url=url),
        "spectator table": rendering.table_context(snap, is_host=False, url=url),
        "seat 0": rendering.phone_context(snap, 0),
        "seat 1": rendering.phone_context(snap, 1),
    }


def test_no_template_context_contains_the_game_state() -> None:
    table = start(open_lobby(("Ada", "Bob")), first_player=0)
    play_as(table, "reserve:d1")  # a blind card: only Ada may see it
    for name, context in _contexts(table.game_id).items():
        leaks = [v for v in _values(context) if isinstance(v, GameState)]
        assert not leaks, f"the {name} context holds a GameState"


def test_a_blind_card_reaches_only_its_owners_context() -> None:
    table = start(open_lobby(("Ada", "Bob")), first_player=0)
    play_as(table, "reserve:d1")
    snap = rendering.load_snapshot(table.game_id)
    assert snap.state is not None
    blind = snap.state.players[0].reserved[0]
    for name, context in _contexts(table.game_id).items():
        ids = {v.id for v in _values(context) if isinstance(v, CardView)}
        assert (blind in ids) == (name == "seat 0"), name
