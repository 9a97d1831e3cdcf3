"""`manage.py bench_engine`: the tool lives in game.bench, apart from what the server runs."""

from game.bench.engine import Command

__all__ = ["Command"]
