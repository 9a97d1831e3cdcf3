"""The analysis's own process: the engine's story of one game, told back as lines of JSON.

    python -m game.writer.analysis_process < game.json

game.writer.analyst starts it with the game on its standard input (one JSON object:
players, seed, moves, first_player, no_gold_small, playouts, seed of the search). It
imports the engine only: no Django, no settings, no database. It writes
{"done": n, "total": m} lines as it goes, then {"story": Story.to_dict()}.
A process of its own, not a thread: the analysis is pure CPU, and in the server's
process it would hold the interpreter's lock the event loop needs.
"""

from __future__ import annotations

import json
import os
import sys
from typing import IO, Any

from game.engine.story import PlayedGame, analyse

# The lowest priority: the games being played, and their server, come first.
NICENESS = 19


def tell(order: dict[str, Any], out: IO[str]) -> None:
    """Analyse the game `order` describes, writing its progress and its story to `out`."""
    game = PlayedGame(
        players=int(order["players"]),
        seed=int(order["seed"]),
        moves=tuple(str(m) for m in order["moves"]),
        first_player=order["first_player"],
        no_gold_small=bool(order["no_gold_small"]),
    )

    def progress(done: int, total: int) -> None:
        out.write(json.dumps({"done": done, "total": total}) + "\n")
        out.flush()

    story = analyse(game, int(order["playouts"]), int(order["search_seed"]), progress)
    out.write(json.dumps({"story": story.to_dict()}) + "\n")
    out.flush()


if __name__ == "__main__":
    if hasattr(os, "nice"):
        os.nice(NICENESS)
    tell(json.loads(sys.stdin.readline()), sys.stdout)
