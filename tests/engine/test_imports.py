"""The bot registry sits above the bots and the search (tests/test_architecture.py
refuses the function-level import that hid the cycle between them)."""

from __future__ import annotations

import ast
from pathlib import Path

import game.engine

ENGINE = Path(game.engine.__file__).parent


def _imported_modules(name: str) -> set[str]:
    tree = ast.parse((ENGINE / name).read_text())
    return {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}


def test_the_registry_sits_above_the_bots_and_the_search() -> None:
    """search builds on bots, bot_registry on both: bots imports neither."""
    assert not {"game.engine.search", "game.engine.bot_registry"} & _imported_modules("bots.py")
    assert "game.engine.bot_registry" not in _imported_modules("search.py")
    assert {"game.engine.bots", "game.engine.search"} <= _imported_modules("bot_registry.py")
