"""Replay a game record and print its final position and result.

python manage.py replay_game FILE
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from game.management.commands.import_game import read_record
from game.records import archive


class Command(BaseCommand):
    help = "Replay a game record (docs/records.md); print the final position and result."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the game record to replay")

    def handle(self, *args: Any, **options: Any) -> None:
        record = read_record(options["file"])
        try:
            self.stdout.write(archive.final_position(record))
        except archive.RecordError as error:
            raise CommandError(f"{options['file']}: {error.message}") from None
