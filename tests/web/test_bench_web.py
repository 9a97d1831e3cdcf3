"""`manage.py bench_web` runs on a throwaway database and prints its figures (timings unchecked)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[2]


def test_bench_web_prints_its_figures() -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env["DJANGO_SETTINGS_MODULE"] = "splendor_site.settings"
    result = subprocess.run(
        [sys.executable, "manage.py", "bench_web", "--games=2", "--seconds=1", "--no-sockets"],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    lines = result.stdout.splitlines()
    for start in (
        "Python 3.",
        "Cores: ",
        "Database: ",
        "(a) play(): ",
        "(a) play() CPU: ",
        "(b) render per change (5 screens, ",
        "(b) per screen kind: table (host) ",
        "(b) shared cache: ",
        "(b) render CPU: ",
        "(c) fan-out: skipped",
    ):
        assert any(line.startswith(start) for line in lines), (start, result.stdout)
    database = next(line for line in lines if line.startswith("Database: "))
    assert str(BASE_DIR / "db.sqlite3") not in database
    assert "actions/s" in result.stdout and "SQL statements a play" in result.stdout
