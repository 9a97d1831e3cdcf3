"""Write a stored game as a game record.

python manage.py export_game ROOM_CODE [--output FILE]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from game.models import Game
from game.records import archive


class Command(BaseCommand):
    help = "Write a started game as a game record (docs/records.md)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("code", help="the game's room code")
        parser.add_argument("--output", "-o", help="write to this file instead of stdout")

    def handle(self, *args: Any, **options: Any) -> None:
        game = Game.objects.filter(code=options["code"].upper()).first()
        if game is None:
            raise CommandError(f"There is no game with the code {options['code']}.")
        try:
            text = archive.write(archive.record_of(game))
        except archive.RecordError as error:
            raise CommandError(error.message) from None
        if options["output"]:
            Path(options["output"]).write_text(text, encoding="utf-8")
        else:
            self.stdout.write(text, ending="")
