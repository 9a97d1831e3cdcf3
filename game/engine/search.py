"""The strong bot: determinised Monte Carlo search with greedy playouts.

For each move the bot keeps a short list of promising actions (everything the
greedy player would consider: its own choice, every affordable card, the best
gem takes and reserves) and compares them by playing the game out many times.
Each playout starts from a determinisation: the cards this seat cannot see (the
decks and the other seats' blind-reserved cards) are dealt at random from the
cards still unknown to it, so the search never uses the real deck order or
anyone else's secret. The same determinisation is used for every candidate of a
round (common random numbers), so candidates are compared on equal luck, and
the weaker half is dropped after a few rounds (successive halving).

Every seat in a playout is played by the greedy bot: it is a fair model of a
sensible opponent and cheap enough to play thousands of moves a second.

The budget is a wall-clock time (default 1 s) and/or a number of playouts; with
only a playout cap the bot is deterministic for a seed.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from game.engine.actions import BUY, NOBLE, RESERVE, RETURN, TAKE, Action
from game.engine.bots import GreedyBot, Target
from game.engine.cards import CARDS, LEVELS, card
from game.engine.rules import apply_action, apply_legal_action, legal_actions, outcome
from game.engine.state import EMPTY, MAX_RESERVED, GameState, PlayerState

DEFAULT_BUDGET = 1.0  # seconds a move, when neither a budget nor a playout cap is given
MAX_TAKES = 4  # gem takes kept as candidates, best first by the greedy player's hand score
MAX_RESERVES = 3  # face-up reserves kept: the greedy player's best targets
PLAYOUT_MOVES = 400  # a playout stops after this many actions (it never needs that many)
MARGIN_WEIGHT = 0.02  # reward per point of lead over the best opponent, besides winning
HALVING_ROUNDS = (4, 8, 16, 32)  # after these rounds the weaker half of the candidates goes
MIN_CANDIDATES = 2

# Card ids of each level, in id order (the pool a determinisation deals from).
LEVEL_CARDS: dict[int, tuple[int, ...]] = {
    level: tuple(c.id for c in CARDS if c.level == level) for level in LEVELS
}


# ---------------------------------------------------------------- what the seat may see


def unseen_cards(state: GameState, seat: int) -> dict[int, list[int]]:
    """Per level, the cards `seat` cannot see: in decks or in others' blind reserves.

    Computed from what is visible only (market, bought cards, own reserves and
    others' face-up reserves), in id order, so the hidden order cannot leak.
    """
    seen: set[int] = {c for row in state.market for c in row if c != EMPTY}
    for s, player in enumerate(state.players):
        seen.update(player.cards)
        for card_id, blind in zip(player.reserved, player.blind, strict=True):
            if s == seat or not blind:
                seen.add(card_id)
    return {level: [c for c in LEVEL_CARDS[level] if c not in seen] for level in LEVELS}


def determinise(state: GameState, seat: int, rng: random.Random) -> GameState:
    """A copy of the game where every card hidden from `seat` is dealt anew at random.

    Deck sizes and the levels of others' blind reserves are public; which cards
    they are is drawn from the unseen pool. Nothing of the hidden order is kept.
    """
    pool = unseen_cards(state, seat)
    for cards in pool.values():
        rng.shuffle(cards)
    sample = state.copy()
    for s, player in enumerate(sample.players):
        if s == seat:
            continue
        for i, blind in enumerate(player.blind):
            if blind:
                player.reserved[i] = pool[card(player.reserved[i]).level].pop()
    sample.decks = [pool[level][: len(state.decks[level - 1])] for level in LEVELS]
    return sample


# ---------------------------------------------------------------- candidates


def candidates(state: GameState, seat: int, greedy: GreedyBot) -> list[Action]:
    """The actions worth searching, the greedy player's own choice first."""
    legal = legal_actions(state)
    if len(legal) <= 1:
        return legal
    kinds = {a.kind for a in legal}
    if NOBLE in kinds:
        return legal
    if RETURN in kinds:
        return [greedy.choose(state, seat)]  # returning well is the greedy player's forte
    found = [greedy.choose(state, seat)]
    targets = greedy.targets(state, seat)
    found += _buys(legal)
    found += _takes(state, seat, legal, targets, greedy)
    found += _reserves(state.players[seat], legal, targets)
    return list(dict.fromkeys(found))


def _buys(legal: Sequence[Action]) -> list[Action]:
    """One purchase per affordable card: the payment spending least gold (listed first)."""
    first: dict[int, Action] = {}
    for action in legal:
        if action.kind == BUY:
            first.setdefault(action.card, action)
    return list(first.values())


def _takes(
    state: GameState, seat: int, legal: Sequence[Action], targets: list[Target], greedy: GreedyBot
) -> list[Action]:
    takes = [a for a in legal if a.kind == TAKE]
    ranked = [t for t in targets if t.turns > 0]
    scored = greedy.scored_takes(state.players[seat].tokens, takes, ranked or targets)
    scored.sort(key=lambda entry: -entry[0])
    return [action for _, action, _ in scored[:MAX_TAKES]]


def _reserves(player: PlayerState, legal: Sequence[Action], targets: list[Target]) -> list[Action]:
    if len(player.reserved) >= MAX_RESERVED:
        return []
    open_cards = {a.card for a in legal if a.kind == RESERVE and a.card}
    wanted = [t.card for t in targets if t.card in open_cards][:MAX_RESERVES]
    return [Action(RESERVE, card=c) for c in wanted]


# ---------------------------------------------------------------- playouts


def playout(state: GameState, seat: int, bots: Sequence[GreedyBot]) -> float:
    """Play the (determinised) game out with greedy players; score it for `seat`.

    1 for a win (shared wins split), plus a small reward for the lead in points,
    so that even lost playouts tell a close game from a rout.
    """
    limit = state.moves + PLAYOUT_MOVES
    while not state.is_over and state.moves < limit:
        current = state.current
        # The greedy players choose from legal_actions: the trusted path applies them.
        apply_legal_action(state, bots[current].choose(state, current))
    points = [p.points for p in state.players]
    lead = points[seat] - max(p for s, p in enumerate(points) if s != seat)
    result = outcome(state)
    won = 0.0
    if result is not None and seat in result.winners:
        won = 1.0 / len(result.winners)
    return won + MARGIN_WEIGHT * lead


@dataclass(slots=True)
class Tally:
    """The playouts of one candidate action."""

    action: Action
    total: float = 0.0
    playouts: int = 0

    @property
    def mean(self) -> float:
        return self.total / self.playouts if self.playouts else float("-inf")


@dataclass(slots=True)
class SearchResult:
    """What the search found: the best action, and every candidate's tally."""

    action: Action
    tallies: list[Tally] = field(default_factory=list)
    playouts: int = 0
    seconds: float = 0.0


class SearchBot:
    """The hard bot. `budget` seconds a move (wall clock) and/or `playouts` per move.

    With neither given, the budget is DEFAULT_BUDGET. With a playout cap alone
    the choices depend only on the seed and on what the seat may see.
    """

    def __init__(
        self,
        seed: int,
        budget: float | None = None,
        playouts: int | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if budget is None and playouts is None:
            budget = DEFAULT_BUDGET
        self.rng = random.Random(seed)
        self.budget = budget
        self.playouts = playouts
        self.clock = clock  # time.thread_time measures thinking on a busy machine fairly
        self.last: SearchResult | None = None

    def choose(self, state: GameState, seat: int) -> Action:
        self.last = self.search(state, seat)
        return self.last.action

    def search(self, state: GameState, seat: int) -> SearchResult:
        start = self.clock()
        greedy = GreedyBot(self.rng.randrange(2**32))
        # Candidates come from a determinisation too: nothing hidden is ever read.
        root = determinise(state, seat, self.rng)
        options = candidates(root, seat, greedy)
        tallies = [Tally(a) for a in options]
        result = SearchResult(options[0], tallies)
        if len(options) == 1:
            return result
        alive = list(tallies)
        rounds = 0
        while not self._capped(result.playouts) and not self._late(start):
            sample = determinise(state, seat, self.rng) if rounds else root
            luck = self.rng.randrange(2**32)
            for tally in alive:
                if self._late(start):  # a slow machine must not keep the players waiting
                    break
                trial = sample.copy()
                apply_action(trial, tally.action, seat)
                bots = [GreedyBot(luck + s) for s in range(state.num_players)]
                tally.total += playout(trial, seat, bots)
                tally.playouts += 1
                result.playouts += 1
            rounds += 1
            if rounds in HALVING_ROUNDS and len(alive) > MIN_CANDIDATES:
                alive.sort(key=lambda t: -t.mean)
                alive = alive[: max(MIN_CANDIDATES, (len(alive) + 1) // 2)]
        result.action = max(alive, key=lambda t: t.mean).action
        result.seconds = self.clock() - start
        return result

    def _capped(self, playouts: int) -> bool:
        """The playout cap ends the search between rounds, so every candidate gets its turn."""
        return self.playouts is not None and playouts >= self.playouts

    def _late(self, start: float) -> bool:
        return self.budget is not None and self.clock() - start >= self.budget
