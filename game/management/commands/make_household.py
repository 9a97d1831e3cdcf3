"""`manage.py make_household --games 1000 [--players 6] [--seed N]`: a household's
finished games, played by the engine's bots and stored as the server keeps them
(game.bench.household), in the configured database."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from game.bench.household import NAMES, make_games


class Command(BaseCommand):
    help = "Store a household's finished games (to try or benchmark the Players page)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--games", type=int, default=1000, help="finished games to store")
        parser.add_argument(
            "--players", type=int, default=6, help=f"people in the household (2-{len(NAMES)})"
        )
        parser.add_argument("--seed", type=int, default=0, help="the same seed, the same games")

    def handle(self, *args: Any, **options: Any) -> None:
        start = time.perf_counter()
        ids = make_games(options["games"], options["players"], options["seed"])
        self.stdout.write(
            f"Stored {len(ids)} finished games among {options['players']} players "
            f"in {time.perf_counter() - start:.1f} s."
        )
