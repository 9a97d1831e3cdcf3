"""What one test process has of its own when pytest-xdist runs the suite in several.

`pytest -n 4` runs the tests in worker processes gw0 … gw3. pytest-django gives each
worker its own test database (an SQLite file under the worker's own tmp_path, see
tests/web/conftest.py), pytest gives it its own tmp_path, each process has its own
in-memory channel layer, and servers listen on free ports the kernel hands out. What
the workers would otherwise share is here:

- a Redis database for a test's servers, claimed for the test and emptied after it
  (`own_redis_db`). The channel layer's pub/sub names ignore Redis's database number
  and carry it in their prefix instead (`splendor<n>:`, splendor_site/settings.py), so
  servers on different databases never hear each other's games, whose ids start at 1 in
  every throwaway PostgreSQL database. The claim works across test runs too: two
  developers (or a run and a benchmark) on one machine share one Redis.
- the names of files a test keeps in test-artifacts/ (`artifact_name`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import redis

# "gw0", "gw1", … under pytest-xdist; "" in a run without it.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")

REDIS_HOST = "127.0.0.1"
REDIS_PORT = 6379
# Database 0 is where a developer's own server keeps its rows (a REDIS_URL without a
# number) and 8 is bench_web's (game.bench.web.REDIS_DB): the tests claim the others,
# the highest first. Redis has 16 unless configured otherwise.
BENCH_DB = 8
FOR_TESTS = tuple(index for index in range(15, 0, -1) if index != BENCH_DB)
CLAIM = "splendor-tests:claimed-by"
CLAIM_SECONDS = 3600  # a claim left by a killed run frees its database after this


@dataclass(frozen=True)
class RedisDb:
    """A Redis database a test has to itself: its number, its URL for REDIS_URL, a client."""

    index: int
    url: str
    client: redis.Redis

    @property
    def prefix(self) -> str:
        """The channel layer's prefix of a server on this database (its pub/sub names)."""
        return f"splendor{self.index}:"


def _free(client: redis.Redis, index: int) -> bool:
    """Nothing in the database, and no server listening on its channel layer's names."""
    return client.dbsize() == 0 and not client.pubsub_channels(f"splendor{index}:*")


@contextlib.contextmanager
def own_redis_db() -> Iterator[RedisDb]:
    """Claim an empty Redis database nobody listens on; yield it; empty it afterwards.

    The claim is a key set only if absent (SET NX), so two processes asking at once take
    different databases; one that holds anything, or whose channel names a server
    listens on, is someone else's and is never flushed.
    """
    owner = f"{WORKER or 'pytest'} pid {os.getpid()}"
    for index in FOR_TESTS:
        client = redis.Redis(host=REDIS_HOST, port=REDIS_PORT, db=index, socket_timeout=5)
        try:
            claimed = _free(client, index) and client.set(CLAIM, owner, nx=True, ex=CLAIM_SECONDS)
        except redis.ResponseError:  # "DB index is out of range": fewer databases
            claimed = False
        if claimed:
            break
        client.close()
    else:
        pytest.fail(f"No free Redis database among {FOR_TESTS} on {REDIS_HOST}:{REDIS_PORT}")
    try:
        yield RedisDb(index, f"redis://{REDIS_HOST}:{REDIS_PORT}/{index}", client)
    finally:
        with contextlib.suppress(redis.RedisError):
            client.flushdb()  # the claim too
        client.close()


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
