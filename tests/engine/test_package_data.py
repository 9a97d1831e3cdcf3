"""A non-editable install carries the dataset, and the installed engine loads it."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

BASE_DIR = Path(__file__).resolve().parents[2]
SHIPPED = (
    "game/engine/data/cards.csv",
    "game/engine/data/nobles.csv",
    "game/engine/data/SOURCES.md",
)
LOAD = "import game.engine.cards as c; print(c.DATA_DIR, len(c.CARDS), len(c.NOBLES))"


def run(*args: str | Path, cwd: Path) -> str:
    result = subprocess.run(
        [str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


@pytest.mark.slow
def test_the_wheel_ships_the_dataset_and_the_engine_loads_it_from_there(tmp_path: Path) -> None:
    # Build from a copy: an in-tree build would leave build/ and egg-info in the project.
    source = tmp_path / "source"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for part in ("game", "splendor_site"):
        shutil.copytree(BASE_DIR / part, source / part, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(BASE_DIR / name, source / name)
    run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "-q",
        "--no-deps",
        "-w",
        tmp_path,
        source,
        cwd=tmp_path,
    )
    (wheel,) = tmp_path.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert set(SHIPPED) <= set(archive.namelist())
        archive.extractall(tmp_path / "site")
    # Only the installed copy is importable: run from elsewhere, with it on the path.
    out = run(
        sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, 'site'); {LOAD}", cwd=tmp_path
    )
    assert out.split() == [str(tmp_path / "site" / "game" / "engine" / "data"), "90", "10"]
