"""The package's shape: the import contract's other half.

`lint-imports` (pyproject.toml, run by the README's test command) checks the layers
and that no package has an import cycle. A cycle can also hide behind an import
written inside a function, which Python runs only when called: none is allowed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

GAME = Path(__file__).resolve().parents[1] / "game"

# Django's documented place to register checks and connect signals: AppConfig.ready,
# once the models load.
ALLOWED = {("apps.py", "game.checks"), ("apps.py", "game.writer")}


def _late_imports(path: Path) -> list[tuple[int, str]]:
    """The game modules `path` imports inside a function or method."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.ImportFrom) and inner.module:
                names = [inner.module]
            elif isinstance(inner, ast.Import):
                names = [alias.name for alias in inner.names]
            else:
                continue
            found += [(inner.lineno, name) for name in names if name.split(".")[0] == "game"]
    return found


def _modules() -> list[Path]:
    return sorted(p for p in GAME.rglob("*.py") if "migrations" not in p.parts)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(GAME)))
def test_no_module_imports_the_game_inside_a_function(path: Path) -> None:
    name = str(path.relative_to(GAME))
    late = [(line, m) for line, m in _late_imports(path) if (name, m) not in ALLOWED]
    assert not late, f"game/{name}: imports inside a function {late}"


def test_the_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    module = tmp_path / "late.py"
    module.write_text("def f():\n    from game.writer import services\n    return services\n")
    assert _late_imports(module) == [(2, "game.writer")]
