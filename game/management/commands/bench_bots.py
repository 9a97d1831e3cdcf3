"""`manage.py bench_bots`: the tool lives in game.bench, apart from what the server runs."""

from game.bench.bots import Command

__all__ = ["Command"]
