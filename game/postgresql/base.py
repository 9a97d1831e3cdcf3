"""Django's PostgreSQL backend with its connection pool, checking what the pool lends
without a round trip.

The pool's own check (CONN_HEALTH_CHECKS with a pool) sends an empty query each
time a connection is lent, and every request, every screen's database call and
every bot step borrows one: on a loopback server that doubled the round trips of
a lend and its query. A connection that went bad while it sat in the pool (the
server restarted, or an administrator ended its session) was closed by the
server, which first says why: its socket has something to read. An idle
healthy connection has nothing to read. So the socket is looked at first, and
only a connection with something to read gets the pool's check; a broken one
goes back to the pool, which drops it and opens another.
"""

from __future__ import annotations

import select
from typing import Any

import psycopg
from django.db.backends.postgresql.base import DatabaseWrapper as PostgresWrapper
from psycopg_pool import ConnectionPool


class DatabaseWrapper(PostgresWrapper):
    def get_new_connection(self, conn_params: Any) -> Any:
        connection = super().get_new_connection(conn_params)
        pool: ConnectionPool | None = self.pool  # type: ignore[attr-defined]  # Django 5.1+
        if pool is None:
            return connection
        # After a restart of PostgreSQL every connection in the pool is broken.
        for _ in range(pool.max_size):
            if _quiet(connection):
                return connection
            try:
                ConnectionPool.check_connection(connection)
                return connection
            except psycopg.Error:
                pool.putconn(connection)  # broken: the pool drops it and opens another
            connection = super().get_new_connection(conn_params)
        return connection


def _quiet(connection: psycopg.Connection[Any]) -> bool:
    """Whether the connection has nothing to read (the server has said nothing)."""
    if connection.closed or connection.broken:
        return False
    readable, _, _ = select.select([connection.fileno()], [], [], 0)
    return not readable
