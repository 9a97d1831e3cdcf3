"""The analysis's own process: the engine's story of one game, told back as lines of JSON.

    python -m game.writer.analysis_process < game.json

game.writer.analyst starts it with the game on its standard input (one JSON object:
players, seed, moves, first_player, no_gold_small, playouts, seed of the search, and
whether to step aside for everything else, as it does unless told not to). It
imports the engine only: no Django, no settings, no database. It writes
{"done": n, "total": m} lines as it goes ({"done": 0, "total": 0} first), then
{"story": Story.to_dict()}.
A process of its own, not a thread: the analysis is pure CPU, and in the server's
process it would hold the interpreter's lock the event loop needs.
"""

from __future__ import annotations

import json
import os
import sys
from typing import IO, Any

from game.engine.story import PlayedGame, analyse

# The lowest priority: the games being played, and their server, come first. Niceness
# alone let the analysis keep the server's core for a while when the server woke (p99
# latency of 10 busy games 3.98x in one bench_web run); SCHED_IDLE runs it only on a core
# nothing else wants (0.85x), where the kernel has it.
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

    progress(0, 0)  # at work (and, as main runs it, already stepped aside)
    story = analyse(game, int(order["playouts"]), int(order["search_seed"]), progress)
    out.write(json.dumps({"story": story.to_dict()}) + "\n")
    out.flush()


def step_aside() -> None:
    """Run at the lowest priority this system has."""
    if hasattr(os, "nice"):
        os.nice(NICENESS)
    if hasattr(os, "sched_setscheduler") and hasattr(os, "SCHED_IDLE"):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


def main() -> None:
    line = sys.stdin.readline()
    if not line:
        # The server that started this process went away (killed) before it sent the
        # game: its row is taken up again after a restart. Nothing to say.
        sys.exit(1)
    order = json.loads(line)
    if order.get("low_priority", True):
        step_aside()
    try:
        tell(order, sys.stdout)
    except BrokenPipeError:
        # The server that asked went away (stopped, or killed): its row is taken up again
        # after a restart. Nothing to say, and nothing more to write at exit either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


if __name__ == "__main__":
    main()
