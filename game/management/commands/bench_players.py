"""`manage.py bench_players`: the tool lives in game.bench, apart from what the server runs."""

from game.bench.players_page import Command

__all__ = ["Command"]
