"""The benchmark's parts: the parent makes throwaway databases and runs each part in a
child process on them; part 1 (SQLite, the project against the bare server) and part 2
(PostgreSQL and Redis, two workers against one) run the scenarios and print their
reports."""

from __future__ import annotations

import contextlib
import os
import platform
import secrets
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from game.bench.client import Closed
from game.bench.loopback import ServerProcess, daphne_process, run_child
from game.bench.scratch import NoFreeRedisDb, listening, own_redis_db, postgres_database
from game.bench.web import report
from game.bench.web.config import (
    ANALYSIS_WARM_WAIT,
    BARE_APP,
    CHILD_ENV,
    PROJECT_APP,
    RESTART_BEFORE,
    RESTART_WAIT,
    ROUNDS,
    WAIT,
)
from game.bench.web.figures import load
from game.bench.web.flood import flood, raw_flood
from game.bench.web.machine import client_cpus, log_tail
from game.bench.web.restart import Restart, restart
from game.bench.web.scale import scale
from game.bench.web.tables import bare_table, project_table, project_table_in_play
from game.bench.web.target import Target, phones_shown_away
from game.bench.web.turns import ServerFigures, analysis_alone, compare

Write = Callable[[str], None]
# The sizes passed on to a part's child process.
SIZES = (
    "seconds",
    "paced_seconds",
    "games",
    "busy_games",
    "idle_sockets",
    "ping_every",
    "restart_after",
    "restart_down",
    "raw_flood_seconds",
    "analysis_seconds",
    "analysis_period",
)
SWITCHES = ("no_restart", "no_flood", "flood_only", "no_analysis", "analysis_only")


def printer(write: Write) -> Callable[[object], None]:
    """Print each result as it is measured (report.lines)."""

    def show(result: object) -> None:
        for line in report.lines(result):
            write(line)

    return show


# ---------------------------------------------------------------- parent: throwaway databases


def parent(options: dict[str, Any], write: Write) -> None:
    write(f"Python {sys.version.split()[0]} ({platform.python_implementation()})")
    write(f"Platform {platform.platform()}, {platform.machine()}")
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    write(f"Cores: {os.cpu_count()} ({usable} usable); load average {load()} (1/5/15 min)")
    write(
        f"Sizes: {options['seconds']:g} s a measurement ({options['paced_seconds']:g} s "
        f"paced); 1 game, {options['busy_games']} busy games, {options['games']} games at "
        f"1 action/s, {options['idle_sockets']} idle sockets (whole games); 5 screens a "
        "game (TV + 4 phones)"
    )
    with tempfile.TemporaryDirectory(prefix="splendor-bench-") as tmp:
        db_path = Path(tmp) / "bench.sqlite3"
        if not options["scale_only"]:
            child("sqlite", options, {"SPLENDOR_DB_PATH": str(db_path)}, Path(tmp), write)
        alone = [name for name in ("no_scale", "flood_only", "analysis_only") if options[name]]
        if alone:
            why = "--" + alone[0].replace("_", "-")
            write(f"Two workers: skipped ({why})")
            return
        missing = [
            name for name, port in (("PostgreSQL", 5432), ("Redis", 6379)) if not listening(port)
        ]
        if missing:
            write(f"Two workers: skipped ({' and '.join(missing)} not on 127.0.0.1)")
            return
        with postgres_database(options["postgres_url"]) as url, redis_db() as redis:
            extra = {"DATABASE_URL": url, "REDIS_URL": redis}
            child("scale", options, extra, Path(tmp), write)


@contextlib.contextmanager
def redis_db() -> Iterator[str]:
    """Yield the URL of a Redis database of the benchmark's own for the channel layer,
    claimed as the tests claim theirs (scratch.own_redis_db: never one in use, so a
    test run may go on beside it) and emptied afterwards."""
    try:
        with own_redis_db(f"bench_web pid {os.getpid()}") as db:
            yield db.url
    except NoFreeRedisDb as error:
        raise CommandError(str(error)) from None


def child_env(part: str, extra: dict[str, str], tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(extra)
    env.update(
        {
            CHILD_ENV: part,
            "SPLENDOR_BENCH_WEB_TMP": str(tmp),
            # Shared with the servers, so the sessions the child makes are valid there;
            # also keeps anyone from writing a .secret_key.
            "SPLENDOR_SECRET_KEY": "bench-" + secrets.token_urlsafe(24),
            "SPLENDOR_DEBUG": "0",  # as a server should run: no query log, no debug pages
            "SPLENDOR_BOT_DELAY": "0",
            # The servers tell no finished game's story: the busy games end several a
            # second, and each would queue an analysis process (a core's half-minute) on
            # the server's core. The analysis phase runs one itself, by turns with none.
            "SPLENDOR_ANALYSIS": "0",
            # The client acts as soon as the screens show a change: a phone may
            # send 30 actions a second, which the flood guard would slow down.
            "SPLENDOR_SOCKET_RATE": "1000",
            "DJANGO_SETTINGS_MODULE": os.environ.get(
                "DJANGO_SETTINGS_MODULE", "splendor_site.settings"
            ),
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def child_limit(options: dict[str, Any]) -> float:
    """Four measurements a server, two servers, connecting, start-up; then it is stopped."""
    return float(
        10 * options["seconds"]
        + 2 * options["paced_seconds"]
        + 6 * WAIT
        + 300
        + 3 * options["games"]
        # The paced games without heartbeats, the heartbeats alone and two restarts.
        + options["paced_seconds"]
        + 2 * options["seconds"]
        + 2 * (options["restart_after"] + options["restart_down"] + RESTART_BEFORE)
        + 2 * (RESTART_WAIT + 3 * WAIT + 60)
        # The analysis phase: both ways, each round's process warming up.
        + 2 * options["analysis_seconds"]
        + ROUNDS * (ANALYSIS_WARM_WAIT + 10)
        + 2 * WAIT
    )


def child(
    part: str, options: dict[str, Any], extra: dict[str, str], tmp: Path, write: Write
) -> None:
    """Run one part in a child process on its own database; stop it if it overruns."""
    command = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), "bench_web"]
    command += [f"--{name.replace('_', '-')}={options[name]}" for name in SIZES]
    command += [f"--{name.replace('_', '-')}" for name in SWITCHES if options[name]]
    env = child_env(part, extra, tmp)
    code = run_child(command, env, Path(settings.BASE_DIR), child_limit(options), write)
    if code != 0:
        raise CommandError(f"the benchmark's {part} part failed (exit code {code}).")


# ---------------------------------------------------------------- part 1: SQLite, project vs bare


def server_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != CHILD_ENV}


def sqlite_part(options: dict[str, Any], write: Write) -> None:
    database = settings.DATABASES["default"]
    if database["ENGINE"] != "django.db.backends.sqlite3" or not str(database["NAME"]).startswith(
        os.environ["SPLENDOR_BENCH_WEB_TMP"]
    ):
        raise CommandError("Refusing to run: the database is not the throwaway file.")
    call_command("migrate", interactive=False, verbosity=0)
    cpus, server_cpu = pinning()
    where = (
        f"each server pinned to CPU {server_cpu}, the client on the others"
        if server_cpu is not None
        else "servers and client share the CPUs"
    )
    layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
    write(f"Part 1: one Daphne process, throwaway SQLite, {layer}, DEBUG {settings.DEBUG}; {where}")
    tmp = Path(os.environ["SPLENDOR_BENCH_WEB_TMP"])
    logs = {name: tmp / f"{name}.log" for name in ("project", "bare")}
    with client_cpus(cpus, server_cpu), contextlib.ExitStack() as servers:
        processes = {
            name: servers.enter_context(
                daphne_process(app, env, logs[name], Path(settings.BASE_DIR), server_cpu)
            )
            for name, app, env in (
                ("project", PROJECT_APP, server_env()),
                ("bare", BARE_APP, bare_env()),
            )
        }
        done = sqlite_scenarios(processes, logs, options, write)
    if done is not None:
        print_part_1(*done, options["restart_after"], write)


def pinning() -> tuple[list[int], int | None]:
    """The CPUs this process may use, and the one the servers are pinned to (None with
    fewer than two)."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    return cpus, cpus[0] if len(cpus) >= 2 else None


def print_part_1(
    figures: dict[str, ServerFigures], restarts: dict[str, Restart], after: float, write: Write
) -> None:
    for line in report.figures(figures["project"], figures["bare"]):
        write(line)
    if not restarts:
        write("Restart: skipped (--no-restart)")
        return
    for line in report.restarts(restarts["project"], restarts["bare"], after):
        write(line)


def bare_env() -> dict[str, str]:
    env = server_env()
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return env


def sqlite_targets(processes: dict[str, ServerProcess], ping_every: float) -> dict[str, Target]:
    """The project (its games part-played when paced, its phones let go of when shown
    away) and the bare server, whose cost does not change with the stage of a game."""
    project, bare = processes["project"].server, processes["bare"].server
    assert project is not None and bare is not None
    return {
        "project": Target(
            "project",
            [project],
            project_table,
            ping_every,
            released=phones_shown_away,
            deal_in_play=project_table_in_play,
        ),
        "bare": Target("bare", [bare], bare_table, ping_every),
    }


def sqlite_scenarios(
    processes: dict[str, ServerProcess],
    logs: dict[str, Path],
    options: dict[str, Any],
    write: Write,
) -> tuple[dict[str, ServerFigures], dict[str, Restart]] | None:
    """Part 1's scenarios in order; None after the floods alone (--flood-only) or the
    analysis phase alone (--analysis-only). A
    server's log is printed (without its access lines) if its games stopped."""
    targets = sqlite_targets(processes, options["ping_every"])
    try:
        if options["flood_only"]:
            floods(targets["project"], options, write)
            return None
        if options["analysis_only"]:
            left = analysis_alone(targets["project"], options, printer(write))
            if left:
                write(f"project: {len(left)} games left out: {left[0]}")
            return None
        figures = compare(targets, options, printer(write))
        for line in report.left_out(figures):
            write(line)
        if not options["no_flood"]:
            floods(targets["project"], options, write)
        restarts = {}
        if not options["no_restart"]:
            for name, target in targets.items():
                restarts[name] = restart_target(name, target, processes[name], options, write)
    except (Closed, OSError) as error:
        tails = "\n".join(f"{name}: {log_tail(log)}" for name, log in logs.items())
        raise CommandError(f"{error}\n{tails}") from None
    for name, log in logs.items():
        tail = log_tail(log)
        if figures[name].errors and tail:
            write(f"{name} server log, without access lines:\n{tail}")
    return figures, restarts


def floods(target: Target, options: dict[str, Any], write: Write) -> None:
    """The flood phase, its figure the project's own, quiet against flooded; then the
    raw flood (frames written unread) and the server's memory growth."""
    printer(write)(flood(target))
    seconds = options["raw_flood_seconds"]
    for line in report.raw_flood(raw_flood(target, seconds), seconds):
        write(line)


def restart_target(
    name: str, target: Target, process: ServerProcess, options: dict[str, Any], write: Write
) -> Restart:
    """The restart phase on one server (the project keeps its games in the database;
    the bare server forgets them, so any view after its restart counts as current)."""
    before = min(RESTART_BEFORE, options["restart_after"])
    result = restart(
        target,
        process,
        options["games"],
        options["restart_after"],
        name != "bare",
        before,
        options["restart_down"],
    )
    for line in report.restart(name, result, target.ping_every):
        write(line)
    return result


# ---------------------------------------------------------------- part 2: two workers


def scale_part(options: dict[str, Any], write: Write) -> None:
    database = settings.DATABASES["default"]
    postgres = database["ENGINE"] == "game.postgresql"
    if not postgres or not str(database["NAME"]).startswith("splendor_bench_"):
        raise CommandError("Refusing to run: the database is not the throwaway one.")
    call_command("migrate", interactive=False, verbosity=0)
    tmp = Path(os.environ["SPLENDOR_BENCH_WEB_TMP"])
    write(
        f"Part 2: the project on PostgreSQL + Redis, {options['busy_games']} busy games, "
        "nothing pinned; two workers with each game's screens spread over both (a balancer "
        "that knows nothing of games), then with each game's screens on one worker (routed "
        "by room code, as the README's proxy configuration does)"
    )
    for line in report.scale(scale(options, server_env(), tmp, printer(write))):
        write(line)
