"""`manage.py soak` plays games through the real consumers and prints its memory figures.

Only the output's shape is checked: how much memory may grow is for a person to judge.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.workers import BENCHMARK

BASE_DIR = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@BENCHMARK
def test_soak_plays_its_games_and_prints_the_growth() -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env["DJANGO_SETTINGS_MODULE"] = "splendor_site.settings"
    # Four games: one to warm up, one measured by RSS, then one before and one after the
    # tracemalloc baseline.
    # Three bot seats: the server plays most turns, the one phone the rest.
    result = subprocess.run(
        [sys.executable, "manage.py", "soak", "--games=4", "--bots=3", "--tables=1"],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    out = result.stdout
    assert "Soak: 4 games of 1 phone(s) and 3 server bot(s)" in out, out
    assert re.search(r"^RSS at start: [\d.,]+ MB$", out, re.M), out
    played = re.findall(r"^\s+(\d+) games,\s+(\d+) changes", out, re.M)
    assert [games for games, _changes in played] == ["2", "3", "4"], out
    # Every game was played to its end: Splendor takes dozens of changes.
    assert int(played[-1][1]) > 4 * 20, out
    growth = r"^Growth after the warm-up, without tracemalloc: RSS -?[\d.,]+ MB over 1 games"
    assert re.search(growth, out, re.M), out
    assert re.search(r"^tracemalloc, .* per 100 games\); the lines that grew most:$", out, re.M)
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
