"""What one test process has of its own when pytest-xdist runs the suite in several.

`pytest -n 5` runs the tests in worker processes gw0 … gw4. pytest-django gives each
worker its own test database (an SQLite file under the worker's own tmp_path, see
tests/web/conftest.py), pytest gives it its own tmp_path, each process has its own
in-memory channel layer, servers listen on free ports the kernel hands out, and
throwaway PostgreSQL databases have random names. What the workers would otherwise
share is here:

- a Redis database for a test's servers, claimed for the test and emptied after it
  (`own_redis_db`, game.bench.scratch's, which bench_web claims its own with). The
  channel layer's pub/sub names ignore Redis's database number and carry it in their
  prefix instead (`splendor<n>:`, splendor_site/settings.py), so servers on different
  databases never hear each other's games, whose ids start at 1 in every throwaway
  PostgreSQL database. The claim works across test runs too: two developers (or a run
  and a benchmark) on one machine share one Redis.
- the names of files a test keeps in test-artifacts/ (`artifact_name`).
- a migrated SQLite database, copied for each test server (`migrated_sqlite`).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from game.bench import scratch
from game.bench.scratch import RedisDb

# "gw0", "gw1", … under pytest-xdist; "" in a run without it.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
BASE_DIR = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def own_redis_db() -> Iterator[RedisDb]:
    """Claim an empty Redis database nobody uses for this test; yield it (its `url` for
    the servers' REDIS_URL, its `prefix`, a `client`); empty it afterwards."""
    try:
        with scratch.own_redis_db(f"{WORKER or 'pytest'} pid {os.getpid()}") as database:
            yield database
    except scratch.NoFreeRedisDb as error:
        pytest.fail(str(error))


def artifact_name(name: str) -> str:
    """`name` for a file in test-artifacts/ that every worker writes (a server's log):
    `server.log` in a plain run, `server-gw1.log` in worker gw1's."""
    if not WORKER:
        return name
    stem, dot, suffix = name.partition(".")
    return f"{stem}-{WORKER}{dot}{suffix}"


# Tests that run a benchmark (bench_web, soak: CPU and memory figures) run one after
# another on one worker, never two at once (`--dist loadgroup`). Other tests still run
# beside them: they check the figures' shape, never a value.
BENCHMARK = pytest.mark.xdist_group("benchmarks")


def migrated_sqlite(db: Path) -> None:
    """Make `db`, a new SQLite file, a database as `manage.py migrate` leaves it (the
    tables, the cards and nobles): a copy (SQLite's backup API) of one this process
    migrated the first time, so a test server starts without running the migrations."""
    source, copy = sqlite3.connect(_migrated()), sqlite3.connect(db)
    with contextlib.closing(source), contextlib.closing(copy):
        source.backup(copy)


@functools.cache
def _migrated() -> Path:
    """This process's migrated database (a Python of a second's CPU, once)."""
    folder = Path(tempfile.mkdtemp(prefix="splendor-migrated-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(DJANGO_SETTINGS_MODULE="splendor_site.settings")
    env.update(SPLENDOR_DB_PATH=str(folder / "migrated.sqlite3"))
    migrate = [sys.executable, str(BASE_DIR / "manage.py"), "migrate", "--noinput", "-v", "0"]
    subprocess.run(migrate, cwd=BASE_DIR, env=env, check=True, timeout=120)
    return folder / "migrated.sqlite3"
