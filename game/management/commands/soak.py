"""`manage.py soak`: the tool lives in game.bench, apart from what the server runs."""

from game.bench.soak import Command

__all__ = ["Command"]
