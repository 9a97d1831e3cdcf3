"""The engine's modules import each other at the top only: no cycle hidden in a function."""

from __future__ import annotations

import ast
from pathlib import Path

import game.engine

ENGINE = Path(game.engine.__file__).parent


def _imports_inside_functions(source: str) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            inner = (n for n in ast.walk(node) if isinstance(n, ast.Import | ast.ImportFrom))
            lines += [n.lineno for n in inner]
    return lines


def test_no_engine_module_imports_inside_a_function() -> None:
    found = {
        path.name: lines
        for path in sorted(ENGINE.glob("*.py"))
        if (lines := _imports_inside_functions(path.read_text()))
    }
    assert found == {}


def _imported_modules(source: str) -> set[str]:
    return {
        node.module or ""
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom)
    }


def test_the_registry_sits_above_the_bots_and_the_search() -> None:
    """search builds on bots, bot_registry on both: bots imports neither."""
    bots = _imported_modules((ENGINE / "bots.py").read_text())
    search = _imported_modules((ENGINE / "search.py").read_text())
    assert not {"game.engine.search", "game.engine.bot_registry"} & bots
    assert "game.engine.bot_registry" not in search
    registry = _imported_modules((ENGINE / "bot_registry.py").read_text())
    assert {"game.engine.bots", "game.engine.search"} <= registry
