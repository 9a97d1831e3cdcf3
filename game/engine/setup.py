"""Setting up a new game from a seed."""

import random

from game.engine.cards import CARDS, CARDS_PER_LEVEL_FACE_UP, LEVELS, NOBLES
from game.engine.colours import GOLD
from game.engine.state import GameState, PlayerState

MIN_PLAYERS = 2
MAX_PLAYERS = 4
GEMS_PER_COLOUR = {2: 4, 3: 5, 4: 7}
GOLD_TOKENS = 5


def starting_bank(players: int, no_gold_small: bool = False) -> list[int]:
    """Return the bank for this many players.

    The house rule reads the printed summaries literally: no gold at all with
    two or three players. Off by default (see RULES.md).
    """
    gems = GEMS_PER_COLOUR[players]
    bank = [gems] * 5 + [GOLD_TOKENS]
    if no_gold_small and players < 4:
        bank[GOLD] = 0
    return bank


def new_game(
    players: int,
    seed: int,
    first_player: int | None = None,
    no_gold_small: bool = False,
) -> GameState:
    """Shuffle and deal a new game; the same seed always deals the same game."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"Splendor is for 2 to 4 players, not {players}.")
    rng = random.Random(seed)
    decks = []
    for level in LEVELS:
        deck = [c.id for c in CARDS if c.level == level]
        rng.shuffle(deck)
        decks.append(deck)
    nobles = [n.id for n in NOBLES]
    rng.shuffle(nobles)
    # Draw the first player even when the host names one, so the deal stays
    # the same for a seed whoever starts.
    drawn_first = rng.randrange(players)
    if first_player is None:
        first_player = drawn_first
    elif not 0 <= first_player < players:
        raise ValueError(f"There is no seat {first_player}.")
    market = [[deck.pop() for _ in range(CARDS_PER_LEVEL_FACE_UP)] for deck in decks]
    return GameState(
        seed=seed,
        first_player=first_player,
        no_gold_small=no_gold_small,
        bank=starting_bank(players, no_gold_small),
        decks=decks,
        market=market,
        nobles=sorted(nobles[: players + 1]),
        players=[PlayerState() for _ in range(players)],
        current=first_player,
    )
