"""Template contexts hold projections only: never the full game state."""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import Callable
from typing import Any

import pytest

from game.engine import GameState
from game.engine.projection import TABLE, CardView, view_for
from game.screens import first_paint, jinja
from game.screens.phone import phone_screen
from game.screens.regions import Shown
from game.screens.table import table_screen
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


def _contexts(game_id: int) -> dict[str, list[Any]]:
    """Every template context used to render each screen (no cached region skipped): the
    fragments' (game.screens.jinja.render_text, which game.screens.jinja.render goes
    through too)."""
    snap = first_paint.read_game(game_id)
    url = first_paint.join_url(snap.code, 8000)
    screens: dict[str, Callable[[], str]] = {
        "host table": lambda: first_paint.render_table(snap, is_host=True, url=url),
        "spectator table": lambda: first_paint.render_table(snap, is_host=False, url=url),
        "seat 0": lambda: first_paint.render_phone_hand(snap, 0),
        "seat 1": lambda: first_paint.render_phone_hand(snap, 1),
        "phones' status": lambda: first_paint.render_phone_status(snap),
    }
    found: dict[str, list[Any]] = {}
    fragment = jinja.render_text
    for name, render in screens.items():
        contexts: list[Any] = []

        def fragment_seen(
            template: str, context: dict[str, Any], contexts: list[Any] = contexts
        ) -> Any:
            contexts.append(dict(context))
            return fragment(template, context)

        first_paint.clear_cache()
        jinja.render_text = fragment_seen  # the screens' fragments (game.screens.jinja)
        try:
            render()
        finally:
            jinja.render_text = fragment
        assert contexts, name
        found[name] = contexts
    return found


def test_no_template_context_contains_the_game_state() -> None:
    table = start(open_lobby(("Ada", "Bob")), first_player=0)
    play_as(table, "reserve:d1")  # a blind card: only Ada may see it
    for name, context in _contexts(table.game_id).items():
        leaks = [v for v in _values(context) if isinstance(v, GameState)]
        assert not leaks, f"the {name} context holds a GameState"


def test_a_blind_card_reaches_only_its_owners_context() -> None:
    table = start(open_lobby(("Ada", "Bob")), first_player=0)
    play_as(table, "reserve:d1")
    snap = first_paint.read_game(table.game_id)
    assert snap.state is not None
    blind = snap.state.players[0].reserved[0]
    for name, context in _contexts(table.game_id).items():
        ids = {v.id for v in _values(context) if isinstance(v, CardView)}
        assert (blind in ids) == (name == "seat 0"), name


def test_rendering_a_change_leaves_no_reference_cycles() -> None:
    """Every screen's objects are freed as soon as they go (reference counting alone).

    A cycle per screen left thousands of objects to the garbage collector at each
    change, and its runs held every screen of the server for 10-30 ms.
    """
    table = start(open_lobby(("Ada", "Bob", "Cy")), first_player=0)
    play_as(table, "reserve:d1")
    snap = first_paint.read_game(table.game_id)
    room, state = snap.room, snap.state
    assert state is not None
    url = first_paint.join_url(snap.code, 8000)
    views = {seat: view_for(state, seat) for seat in (TABLE, 0, 1, 2)}

    def change() -> None:
        for position in range(3):
            Shown().frame(phone_screen(room, views[position], position, snap.log))
        Shown().frame(table_screen(room, views[TABLE], log=snap.log, is_host=True, url=url))

    change()  # the first time fills caches and imports, once per process
    gc.collect()
    gc.disable()
    try:
        change()
        assert gc.collect() == 0, "rendering the screens left reference cycles"
    finally:
        gc.enable()
