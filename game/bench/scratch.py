"""Throwaway databases for the benchmarks and the tests: an empty PostgreSQL database
made and dropped, a Redis database claimed and emptied. Nothing here connects anywhere
but 127.0.0.1."""

from __future__ import annotations

import contextlib
import secrets
import socket
from collections.abc import Iterator
from dataclasses import dataclass

import redis

from game.bench.client import LOOPBACK

REDIS_PORT = 6379
# The Redis databases a benchmark or a test may claim for its servers, the highest first:
# 0 is a developer's own server's (a REDIS_URL without a number). Redis has 16 unless
# configured otherwise.
REDIS_DBS = tuple(range(15, 0, -1))
REDIS_CLAIM = "splendor-claimed-by"  # the key that claims a database
REDIS_CLAIM_SECONDS = 3600  # a claim left by a killed run frees its database after this


@dataclass(frozen=True)
class RedisDb:
    """A Redis database claimed for one run: its number, its URL for REDIS_URL, a client."""

    index: int
    url: str
    client: redis.Redis

    @property
    def prefix(self) -> str:
        """The channel layer's prefix of a server on this database: its pub/sub names
        (splendor_site.settings; pub/sub ignores database numbers)."""
        return f"splendor{self.index}:"


class NoFreeRedisDb(RuntimeError):
    """Every database of REDIS_DBS holds data or is in use."""


@contextlib.contextmanager
def own_redis_db(owner: str) -> Iterator[RedisDb]:
    """Claim an empty Redis database nobody uses; yield it; empty it afterwards.

    Servers on different databases never hear each other's games (the channel layer's
    names carry the number), whose ids start at 1 in every throwaway database: parallel
    tests, two test runs and a benchmark can share one Redis. A database that holds
    anything, or on whose channel names a server listens, is someone else's and is never
    flushed; the claim is a key set only if absent (SET NX), so two processes asking at
    once take different ones. Raises NoFreeRedisDb if none is free.
    """
    for index in REDIS_DBS:
        client = redis.Redis(host=LOOPBACK, port=REDIS_PORT, db=index, socket_timeout=5)
        try:
            free = client.dbsize() == 0 and not client.pubsub_channels(f"splendor{index}:*")
            claimed = free and client.set(REDIS_CLAIM, owner, nx=True, ex=REDIS_CLAIM_SECONDS)
        except redis.ResponseError:  # "DB index is out of range": fewer databases
            claimed = False
        if claimed:
            break
        client.close()
    else:
        raise NoFreeRedisDb(f"no free Redis database among {REDIS_DBS} on port {REDIS_PORT}")
    try:
        yield RedisDb(index, f"redis://{LOOPBACK}:{REDIS_PORT}/{index}", client)
    finally:
        with contextlib.suppress(redis.RedisError):
            client.flushdb()  # the claim too
        client.close()


@contextlib.contextmanager
def postgres_database(admin_url: str, prefix: str = "splendor_bench_") -> Iterator[str]:
    """Create an empty PostgreSQL database (its name `prefix` and a random tail) on the
    server of `admin_url`, yield its URL, drop it afterwards."""
    import psycopg
    from psycopg import sql

    name = f"{prefix}{secrets.token_hex(4)}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield admin_url.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def listening(port: int) -> bool:
    """Whether a server (PostgreSQL, Redis) listens on this loopback port."""
    try:
        with socket.create_connection((LOOPBACK, port), timeout=1):
            return True
    except OSError:
        return False
