"""python manage.py cleanup: delete old finished games, abandoned lobbies, expired sessions."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from game.writer import housekeeping


class Command(BaseCommand):
    help = (
        "Delete finished games older than --finished-days, unfinished ones untouched for "
        "--unfinished-days, lobbies nobody started within --lobby-hours, and expired sessions."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        ages = housekeeping.Ages.from_settings()
        parser.add_argument(
            "--finished-days",
            type=float,
            default=ages.finished_days,
            help="keep finished games this many days (SPLENDOR_KEEP_FINISHED_DAYS)",
        )
        parser.add_argument(
            "--unfinished-days",
            type=float,
            default=ages.unfinished_days,
            help="keep running games untouched this many days (SPLENDOR_KEEP_UNFINISHED_DAYS)",
        )
        parser.add_argument(
            "--lobby-hours",
            type=float,
            default=ages.lobby_hours,
            help="keep lobbies nobody started this many hours (SPLENDOR_KEEP_LOBBY_HOURS)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        ages = housekeeping.Ages(
            options["finished_days"], options["unfinished_days"], options["lobby_hours"]
        )
        removed = housekeeping.cleanup(ages)
        self.stdout.write(
            f"Deleted {removed.finished} finished games, {removed.unfinished} unfinished "
            f"games and {removed.lobbies} lobbies; expired sessions cleared."
        )
