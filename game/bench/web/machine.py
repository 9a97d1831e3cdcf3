"""What the machine did besides the servers: PostgreSQL's, Redis's and the cores' CPU,
the client kept off the servers' core, the servers' logs."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings

from game.bench.loopback import cpu_seconds

if TYPE_CHECKING:
    from game.bench.web.players import Phase


def backends_cpu() -> dict[int, float]:
    """The CPU so far of each PostgreSQL server process (backend) of this database,
    but this process's own; empty where /proc cannot show them (another host)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
            " AND pid <> pg_backend_pid()"
        )
        pids = [pid for (pid,) in cursor.fetchall()]
    seen: dict[int, float] = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            seen[pid] = cpu_seconds(pid)
    return seen


def database_cpu(before: dict[int, float]) -> float | None:
    """PostgreSQL's CPU seconds for this database since `before` (backends_cpu)."""
    now = backends_cpu()
    if not now:
        return None
    return sum(seconds - before.get(pid, 0.0) for pid, seconds in now.items())


def redis_cpu() -> float | None:
    """Redis's CPU seconds so far (its INFO), or None without Redis."""
    import redis

    if not settings.REDIS_URL:
        return None
    client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=5)
    try:
        cpu: dict[str, Any] = client.info("cpu")  # type: ignore[assignment]  # sync client
    except redis.RedisError:
        return None
    finally:
        client.close()
    return float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])


def busy_cpu() -> float:
    """CPU seconds the machine's cores have been busy so far, all together (/proc/stat)."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    idle = fields[3] + fields[4]  # idle and iowait
    return (sum(fields) - idle) / os.sysconf("SC_CLK_TCK")


def two_worker_ceiling(one: Phase, two: Sequence[Phase]) -> float | None:
    """The most two workers could give over one at the CPU costs measured: every action
    costs the servers, PostgreSQL, the client and Redis their CPU per action, and the
    machine's cores are all there is; one worker is held to one core."""
    actions = sum(p.actions for p in two)
    parts = [[p.cpu, p.database_cpu, p.client_cpu, p.redis_cpu] for p in two]
    if not actions or not one.rate or any(x is None for row in parts for x in row):
        return None
    per_action = sum(x or 0.0 for row in parts for x in row) / actions
    return (os.cpu_count() or 1) / per_action / one.rate


@contextlib.contextmanager
def client_cpus(cpus: list[int], server_cpu: int | None) -> Iterator[None]:
    """Keep this process (the client) off the servers' CPU while it runs."""
    if server_cpu is None:
        yield
        return
    os.sched_setaffinity(0, set(cpus) - {server_cpu})
    try:
        yield
    finally:
        os.sched_setaffinity(0, set(cpus))


ACCESS_LINE = re.compile(r"^\S+ - - \[")  # Daphne's access log: one line per connection


def log_tail(log: Path, lines: int = 20) -> str:
    """The end of a server's log without its access lines: errors and tracebacks."""
    kept = [line for line in log.read_text().splitlines() if not ACCESS_LINE.match(line)]
    return "\n".join(kept[-lines:])
