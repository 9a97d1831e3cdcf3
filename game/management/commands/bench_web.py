"""`manage.py bench_web`: the tool lives in game.bench, apart from what the server runs."""

from game.bench.web.command import Command

__all__ = ["Command"]
