"""Check a game record by replaying it, then store it as a new game.

    python manage.py import_game FILE

A record whose moves do not replay is refused with the move number and the
reason, and nothing is stored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from game.models import Analysis, Game
from game.records import archive
from game.writer.analyst import analyse_now


def read_record(path: str) -> archive.Record:
    """Read a record file; any problem becomes a CommandError naming it."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # a BOM from Windows editors
    except (OSError, UnicodeDecodeError) as error:
        raise CommandError(f"{path}: {error}") from None
    try:
        return archive.read(text)
    except archive.RecordError as error:
        raise CommandError(f"{path}: {error.message}") from None


class Command(BaseCommand):
    help = "Check a game record (docs/records.md) by replaying it, then store it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the game record to import")
        parser.add_argument(
            "--no-analysis",
            action="store_true",
            help="store a finished game without telling its story now (the server will)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        record = read_record(options["file"])
        try:
            game = archive.store(record)
        except archive.RecordError as error:
            raise CommandError(f"{options['file']}: {error.message}") from None
        self.stdout.write(
            f"Imported game {game.code}: {game.moves.count()} moves, {game.get_status_display()}."
        )
        if game.status == Game.Status.OVER:
            self.analyse(game, wait=not options["no_analysis"])

    def analyse(self, game: Game, wait: bool) -> None:
        """Tell a finished game's story as a game played here gets it, or leave its row
        waiting for the server to take up at its next start."""
        if not wait:
            Analysis.objects.get_or_create(
                game=game, defaults={"playouts": settings.SPLENDOR_ANALYSIS_PLAYOUTS}
            )
            return
        self.stdout.write("Telling the story of the game (each player's chances, turn by turn)…")
        self.stdout.write(f"Analysis: {analyse_now(game.pk)}.")
