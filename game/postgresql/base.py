"""Django's PostgreSQL backend, with a connection health check that costs no round trip.

With CONN_HEALTH_CHECKS, Django sends `SELECT 1` before the first query of each
request, and Channels makes every database call a request: every action paid a
round trip for it, one in five of its statements. A connection that went bad
while it sat idle (the server restarted, or an administrator ended its session)
was closed by the server, which first says why: its socket has something to
read. An idle healthy connection has nothing to read. So the socket is looked at
first, and only a connection with something to read gets Django's `SELECT 1`
(and is replaced if that fails).
"""

from __future__ import annotations

import select

from django.db.backends.postgresql.base import DatabaseWrapper as PostgresWrapper


class DatabaseWrapper(PostgresWrapper):
    def close_if_health_check_failed(self) -> None:
        checking = self.health_check_enabled and not self.health_check_done  # type: ignore[attr-defined,has-type]
        if checking and self._quiet():
            self.health_check_done = True
            return
        super().close_if_health_check_failed()

    def _quiet(self) -> bool:
        """Whether the open connection has nothing to read (the server has said nothing)."""
        connection = self.connection
        if connection is None or connection.closed or connection.broken:
            return False
        readable, _, _ = select.select([connection.fileno()], [], [], 0)
        return not readable
