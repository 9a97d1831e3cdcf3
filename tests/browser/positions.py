"""Real positions for the browser tests, found by playing seeded bot games.

Pure engine, no Django: two seats, dealt from a seed with the first player the
seed draws (as the TV's Start button does), played by the engine's own bots
seeded the way the server seeds them. Nothing is edited and nothing is kept on
disk: a position is its seed plus the moves that lead to it, found again on
every run in well under a second, and replayed through the engine before it
is handed out.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from game.engine import GameState, apply_action, legal_actions, new_game, replay
from game.engine.actions import BUY, PASS, PASS_ACTION, buy
from game.engine.bot_registry import make_bot
from game.engine.colours import GOLD
from game.engine.rules import can_afford, payments
from game.engine.state import EMPTY, MAIN, NOBLE

PLAYERS = 2  # the browser tests seat two phones
MAX_MOVES = 600
# Random bots reach the rare phases far more often than greedy ones; the mixes
# are tried in this order for each seed.
BOT_MIXES: tuple[tuple[str, str], ...] = (
    ("random", "random"),
    ("random", "greedy"),
    ("greedy", "random"),
    ("greedy", "greedy"),
)
SEEDS = range(300)


@dataclass(frozen=True)
class Position:
    """Deal `seed` (two seats), replay `moves`: the game is then in `state`."""

    seed: int
    bots: tuple[str, str]
    moves: tuple[str, ...]
    state: GameState
    no_gold_small: bool = False

    @property
    def seat(self) -> int:
        """The seat on turn in this position."""
        return self.state.current


@dataclass(frozen=True)
class NobleChoice:
    """The seat on turn buys `buy`; then the nobles `choices` all qualify."""

    position: Position
    buy: str
    choices: tuple[int, ...]


@dataclass(frozen=True)
class GoldPayment:
    """The seat on turn can buy `card` with gems only or spending gold."""

    position: Position
    card: int
    payments: tuple[str, ...]  # buy notations, least gold first, as the engine lists them
    gold: tuple[int, ...]  # the gold each of those payments spends


def bot_game(
    seed: int, bots: tuple[str, str], *, no_gold_small: bool = False
) -> Iterator[tuple[GameState, list[str]]]:
    """Play a seeded bot game; yield the state before each move with the moves so far.

    The state and the list are the live ones, changed after each yield: copy
    what must be kept. Each move's bot is seeded as moves.play_bot_turn does.
    """
    state = new_game(PLAYERS, seed, None, no_gold_small)
    moves: list[str] = []
    while True:
        yield state, moves
        if state.is_over or len(moves) >= MAX_MOVES:
            return
        seat = state.current
        action = make_bot(bots[seat], seed + state.moves).choose(state, seat)
        apply_action(state, action, seat)
        moves.append(action.notation())


def position(
    seed: int, bots: tuple[str, str], moves: Iterable[str], *, no_gold_small: bool = False
) -> Position:
    """Replay the moves from the deal (the engine checks each one) into a Position."""
    moves = tuple(moves)
    state = replay(PLAYERS, seed, moves, no_gold_small=no_gold_small)
    return Position(seed, bots, moves, state, no_gold_small)


def find_noble_choice(seeds: Iterable[int] = SEEDS) -> NobleChoice | None:
    """A buy after which two or more nobles qualify at once, so the buyer must choose."""
    for seed in seeds:
        for bots in BOT_MIXES:
            for state, moves in bot_game(seed, bots):
                if state.phase == NOBLE and moves[-1].startswith(f"{BUY}:"):
                    return NobleChoice(
                        position(seed, bots, moves[:-1]), moves[-1], tuple(state.noble_choices)
                    )
    return None


def find_forced_pass(seeds: Iterable[int] = SEEDS) -> Position | None:
    """A seat with nothing to do but pass, whose opponent can then act again.

    With the house rule "no gold with two players" the 20 gems can all end up
    in the two hands; a seat holding three reserved cards it cannot pay for is
    then stuck.
    """
    for seed in seeds:
        for bots in BOT_MIXES:
            for state, moves in bot_game(seed, bots, no_gold_small=True):
                # Bots pass only when they must; after it the other seat must not be stuck too.
                if moves and moves[-1] == PASS and not state.is_over:
                    if legal_actions(state) == [PASS_ACTION]:
                        continue
                    found = position(seed, bots, moves[:-1], no_gold_small=True)
                    assert legal_actions(found.state) == [PASS_ACTION]
                    return found
    return None


def _buyable(state: GameState) -> list[int]:
    player = state.players[state.current]
    market = [c for row in state.market for c in row if c != EMPTY]
    return [c for c in market + player.reserved if can_afford(player, c)]


def find_gold_payment(seeds: Iterable[int] = SEEDS) -> GoldPayment | None:
    """A seat holding gold that can pay a card with its gems alone, or with gold instead."""
    for seed in seeds:
        for bots in BOT_MIXES:
            for state, moves in bot_game(seed, bots):
                player = state.players[state.current]
                if state.phase != MAIN or not player.tokens[GOLD]:
                    continue
                for card_id in _buyable(state):
                    options = payments(player, card_id)
                    if len(options) >= 2 and options[0][GOLD] == 0:
                        found = position(seed, bots, moves)
                        return GoldPayment(
                            found,
                            card_id,
                            tuple(buy(card_id, p).notation() for p in options),
                            tuple(p[GOLD] for p in options),
                        )
    return None
