"""`manage.py bench_web`: its options; the parts and their scenarios do the work
(docs/benchmarks.md)."""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from game.bench.web import parts
from game.bench.web.config import (
    ANALYSIS_PERIOD,
    ANALYSIS_SECONDS,
    CHILD_ENV,
    PING_EVERY,
    POSTGRES_URL,
    QUICK,
    RAW_FLOOD_SECONDS,
    RESTART_DOWN,
)


class Command(BaseCommand):
    help = "Benchmark the server against bare Channels fan-out over real websockets."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--seconds", type=float, default=10.0, help="time per measurement")
        parser.add_argument(
            "--paced-seconds",
            type=float,
            default=30.0,
            help="time of the paced measurement (--games acting once a second)",
        )
        parser.add_argument(
            "--games", type=int, default=100, help="games acting once a second each"
        )
        parser.add_argument(
            "--busy-games", type=int, default=10, help="games acting back to back (throughput)"
        )
        parser.add_argument(
            "--idle-sockets", type=int, default=200, help="extra sockets for memory per socket"
        )
        parser.add_argument(
            "--quick", action="store_true", help="a smoke test: tiny sizes, about a minute"
        )
        parser.add_argument(
            "--no-scale", action="store_true", help="skip the two-worker Redis + PostgreSQL run"
        )
        parser.add_argument(
            "--scale-only",
            action="store_true",
            help="only the two-worker Redis + PostgreSQL run",
        )
        parser.add_argument(
            "--ping-every",
            type=float,
            default=PING_EVERY,
            help='seconds between {"ping": true} heartbeats from every screen, as the page '
            f"sends them (default {PING_EVERY:g})",
        )
        parser.add_argument(
            "--no-heartbeats",
            action="store_true",
            help="screens send no heartbeat (for comparison with the default)",
        )
        parser.add_argument(
            "--restart-after",
            type=float,
            default=60.0,
            help="seconds of play measured after a restart, once every screen is current",
        )
        parser.add_argument(
            "--restart-down",
            type=float,
            default=RESTART_DOWN,
            help="seconds the killed server stays down before it is started again",
        )
        parser.add_argument("--no-restart", action="store_true", help="skip the restart phase")
        parser.add_argument("--no-flood", action="store_true", help="skip the flood phase")
        parser.add_argument(
            "--flood-only", action="store_true", help="only the flood phase (SQLite, one server)"
        )
        parser.add_argument(
            "--raw-flood-seconds",
            type=float,
            default=RAW_FLOOD_SECONDS,
            help="seconds of the flood phase's raw flood (frames written unread, unpaced)",
        )
        parser.add_argument(
            "--analysis-seconds",
            type=float,
            default=ANALYSIS_SECONDS,
            help="seconds the --busy-games are measured each way, with a game's analysis "
            "running beside them and without (over 3 rounds by turns)",
        )
        parser.add_argument(
            "--analysis-period",
            type=float,
            default=ANALYSIS_PERIOD,
            help="seconds between a game's actions in the analysis phase (0: back to back, "
            f"as the busy games; default {ANALYSIS_PERIOD:g})",
        )
        parser.add_argument("--no-analysis", action="store_true", help="skip the analysis phase")
        parser.add_argument(
            "--analysis-only",
            action="store_true",
            help="only the analysis phase (SQLite, the project's server)",
        )
        parser.add_argument(
            "--postgres-url",
            default=POSTGRES_URL,
            help="PostgreSQL server for the two-worker run (a throwaway database is made on it)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["quick"]:
            options.update(QUICK)
        if options["no_heartbeats"]:
            options["ping_every"] = 0.0
        check(options)
        part = os.environ.get(CHILD_ENV)
        if part == "sqlite":
            parts.sqlite_part(options, self.stdout.write)
        elif part == "scale":
            parts.scale_part(options, self.stdout.write)
        else:
            parts.parent(options, self.stdout.write)


def check(options: dict[str, Any]) -> None:
    if options["ping_every"] < 0 or options["restart_after"] <= 0:
        raise CommandError("--ping-every must be at least 0 and --restart-after above 0.")
    if options["restart_down"] < 0:
        raise CommandError("--restart-down must be at least 0.")
    if min(options["games"], options["busy_games"], options["idle_sockets"]) < 1:
        raise CommandError("--games, --busy-games and --idle-sockets must be at least 1.")
    if not min(options["seconds"], options["paced_seconds"], options["analysis_seconds"]) > 0:
        raise CommandError("--seconds, --paced-seconds and --analysis-seconds must be above 0.")
    if options["analysis_period"] < 0:
        raise CommandError("--analysis-period must be at least 0.")
    if options["analysis_only"] and (options["no_analysis"] or options["flood_only"]):
        raise CommandError("--analysis-only goes with neither --no-analysis nor --flood-only.")
    if options["scale_only"] and options["no_scale"]:
        raise CommandError("--scale-only and --no-scale leave nothing to run.")
