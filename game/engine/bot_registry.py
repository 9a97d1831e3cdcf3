"""Every bot by name: the levels the lobby offers and the engine's own bots.

It sits above both bots.py and search.py (the hard bot builds on the greedy
one), so neither has to import the other's way back.
"""

from __future__ import annotations

from collections.abc import Callable

from game.engine.bots import Bot, EasyBot, GreedyBot, RandomBot
from game.engine.search import SearchBot
from game.engine.vocabulary import BotLevel

RANDOM = "random"
GREEDY = "greedy"

# The cheap, always deterministic bots by name; the hard one (the search bot) is
# made by make_bot, which gives it its thinking budget.
BOTS: dict[str, Callable[[int], Bot]] = {
    RANDOM: RandomBot,
    GREEDY: GreedyBot,
    BotLevel.EASY: EasyBot,
    BotLevel.MEDIUM: GreedyBot,
}
BOT_KINDS: tuple[str, ...] = (*BOTS, BotLevel.HARD)  # every name make_bot knows


def make_bot(
    kind: str, seed: int, *, budget: float | None = None, playouts: int | None = None
) -> Bot:
    """Return a new bot: a BotLevel ("easy", "medium", "hard") or "random" / "greedy".

    `budget` (seconds a move) and `playouts` (a cap a move) only concern "hard";
    without either it thinks for search.DEFAULT_BUDGET seconds.
    """
    if kind == BotLevel.HARD:
        return SearchBot(seed, budget=budget, playouts=playouts)
    try:
        return BOTS[kind](seed)
    except KeyError:
        raise ValueError(f"Unknown bot {kind!r}; choose from {', '.join(BOT_KINDS)}.") from None
