"""Computer players (random, greedy, easy; the hard one is in search.py) and a game runner.

A bot is handed the full GameState (the engine's own object, for speed) but
must read only what its seat may see: the bank, the market, the nobles, deck
sizes, everyone's tokens, bonuses, points and face-up reserved cards, and its
own hand including its blind-reserved cards. It never reads deck contents or
another seat's blind-reserved cards. `legal_actions` only tells it whether a
deck is empty, which every screen shows too.

These bots are deterministic: the same seed and the same states give the same
choices. Levels for the lobby: easy (EasyBot), medium (the greedy bot) and hard
(search.SearchBot); bot_registry.make_bot makes any of them by name.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from game.engine.actions import BUY, NOBLE, RESERVE, RETURN, TAKE, Action
from game.engine.cards import COSTS, card, noble
from game.engine.colours import GEMS, GOLD
from game.engine.rules import (
    apply_action,
    apply_legal_action,
    legal_actions,
    legal_actions_of_kind,
    legal_kinds,
)
from game.engine.setup import new_game
from game.engine.state import (
    EMPTY,
    MAX_RESERVED,
    TOKEN_LIMIT,
    WINNING_POINTS,
    GameState,
    PlayerState,
)

# A game of Splendor takes well under 200 actions a seat; anything near this is a loop.
MAX_MOVES = 2000

# GreedyBot's weights (points are worth 1).
NOBLE_WEIGHT = 0.5  # share of a noble's points credited to a bonus that brings it closer
BONUS_WEIGHT = 0.05  # per visible card that the bonus makes cheaper, early in the game
SECONDARY_WEIGHT = 0.2  # how much the runner-up targets count when choosing tokens
SECONDARY_TARGETS = 3
WIN_BONUS = 10.0  # for a card that reaches the winning points
RESERVE_CLOSE = 3  # reserve the target for gold only when it lacks at most this many tokens
GOLD_KEEP = 0.05  # gold is the most flexible token: keep it when all else is equal
VARIETY = 0.01  # three different gems leave more choice than two alike at equal value
TIE_NOISE = 1e-6  # seeded jitter so equal choices are broken by the seed, not by order
EASY_CARELESSNESS = 0.5  # share of the easy bot's moves played at random


class Bot(Protocol):
    """A player: chooses one legal action for `seat`, whose turn it is."""

    def choose(self, state: GameState, seat: int) -> Action: ...


# ---------------------------------------------------------------- random


class RandomBot:
    """Picks a kind of action uniformly, then an action of that kind uniformly.

    Choosing the kind first keeps random games short (there are many more
    ways to take or reserve than to buy) while staying random.
    """

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: GameState, seat: int) -> Action:
        kinds = legal_kinds(state)  # in a fixed order; only the chosen kind is listed
        kind = self.rng.choice(kinds) if len(kinds) > 1 else kinds[0]
        return self.rng.choice(legal_actions_of_kind(state, kind))


# ---------------------------------------------------------------- greedy


@dataclass(frozen=True, slots=True)
class Target:
    """A card the greedy player is working towards."""

    card: int
    value: float
    need: tuple[int, ...]  # per gem colour, cost left after bonuses
    turns: int  # estimated turns of taking gems before it can be bought

    @property
    def score(self) -> float:
        return self.value / (self.turns + 1)


def shortfall(need: Sequence[int], hand: Sequence[int]) -> int:
    """Return how many tokens the hand lacks for this need, gold filling gaps."""
    missing = 0
    for c in GEMS:
        if need[c] > hand[c]:
            missing += need[c] - hand[c]
    return max(0, missing - hand[GOLD])


def turns_needed(need: Sequence[int], hand: Sequence[int], bank: Sequence[int]) -> int:
    """Estimate the turns of gem taking before a card with this need is affordable."""
    total = scarce = pairs = 0
    for c in GEMS:
        missing = need[c] - hand[c]
        if missing > 0:
            total += missing
            if missing > bank[c]:
                scarce += missing - bank[c]
            if (missing + 1) // 2 > pairs:
                pairs = (missing + 1) // 2
    total -= hand[GOLD]
    if total <= 0:
        return 0
    overflow = max(0, sum(hand) + total - TOKEN_LIMIT)
    return max((total + 2) // 3, pairs) + 2 * scarce + overflow


class CardValues:
    """Values cards for one seat against one set of visible cards.

    What every card shares (noble gaps, how many visible cards each colour's
    bonus makes cheaper) is worked out once, as valuing is the greedy player's
    hottest loop.
    """

    __slots__ = ("bonuses", "cheaper", "nobles", "points", "stage")

    def __init__(self, state: GameState, player: PlayerState, visible: Sequence[int]) -> None:
        bonuses = player.bonuses
        self.bonuses = bonuses
        self.points = player.points
        self.stage = max(0.0, 1 - player.points / WINNING_POINTS)
        self.nobles = []
        for noble_id in state.nobles:
            tile = noble(noble_id)
            gap = sum(max(0, tile.requires[c] - bonuses[c]) for c in GEMS)
            self.nobles.append((tile.requires, gap, tile.points))
        self.cheaper = [0] * len(GEMS)
        for v in visible:
            cost = COSTS[v]
            for c in GEMS:
                if cost[c] > bonuses[c]:
                    self.cheaper[c] += 1

    def value(self, card_id: int) -> float:
        """Points, plus noble progress, plus the usefulness of the card's bonus.

        A card that would bring the seat to the winning points beats everything.
        """
        bought = card(card_id)
        colour, have = bought.bonus, self.bonuses[bought.bonus]
        value = float(bought.points)
        gain = bought.points
        for requires, gap, points in self.nobles:
            if requires[colour] > have:
                value += NOBLE_WEIGHT * points / gap
                if gap == 1:
                    gain = bought.points + points
        if self.points + gain >= WINNING_POINTS:
            value += WIN_BONUS
        cheaper = self.cheaper[colour] - (COSTS[card_id][colour] > have)
        return value + BONUS_WEIGHT * cheaper * self.stage


class GreedyBot:
    """A sensible player.

    Buys the most valuable affordable card (cheapest payment) when that beats
    working towards something better; otherwise picks a target among the
    market and its own reserved cards (value over turns needed) and takes the
    gems that bring it closest, reserving when gems cannot help (or for gold).
    A card's value: its points, the help its bonus gives towards nobles, and
    how many visible cards its bonus makes cheaper.
    """

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: GameState, seat: int) -> Action:
        legal = legal_actions(state)
        kinds = {a.kind for a in legal}
        if NOBLE in kinds:
            return legal[0]
        targets = self.targets(state, seat)
        if RETURN in kinds:
            return self.best_return(state, seat, legal, targets)
        if BUY in kinds or TAKE in kinds or RESERVE in kinds:
            return self.main_action(state, seat, legal, targets)
        return legal[0]  # the pass

    # ------------------------------------------------ valuing cards

    def targets(self, state: GameState, seat: int) -> list[Target]:
        """Rank every card this seat could buy some day, best first."""
        player = state.players[seat]
        visible = [c for row in state.market for c in row if c != EMPTY] + player.reserved
        bonuses = player.bonuses
        values = CardValues(state, player, visible)
        found = []
        b0, b1, b2, b3, b4 = bonuses
        for card_id in visible:
            w, u, g, r, k = COSTS[card_id]
            need = (max(0, w - b0), max(0, u - b1), max(0, g - b2), max(0, r - b3), max(0, k - b4))
            value = values.value(card_id) + self.jitter()
            turns = turns_needed(need, player.tokens, state.bank)
            found.append(Target(card_id, value, need, turns))
        found.sort(key=lambda t: -t.score)
        return found

    def card_value(self, state: GameState, seat: int, card_id: int, visible: list[int]) -> float:
        """See CardValues.value."""
        return CardValues(state, state.players[seat], visible).value(card_id)

    def jitter(self) -> float:
        return self.rng.random() * TIE_NOISE

    # ------------------------------------------------ valuing tokens

    def hand_score(self, hand: Sequence[int], targets: list[Target]) -> float:
        """How good a hand of tokens is: near the main target, then the runners-up."""
        if not targets:
            return GOLD_KEEP * hand[GOLD]
        score = -float(shortfall(targets[0].need, hand))
        for target in targets[1 : 1 + SECONDARY_TARGETS]:
            score -= SECONDARY_WEIGHT * shortfall(target.need, hand)
        return score + GOLD_KEEP * hand[GOLD]

    def keep_best(self, hand: list[int], targets: list[Target]) -> list[int]:
        """Give back the least useful tokens, one at a time, down to ten."""
        hand = list(hand)
        while sum(hand) > TOKEN_LIMIT:
            options = [c for c in range(len(hand)) if hand[c]]
            best = max(options, key=lambda c: self.hand_score(_without(hand, c), targets))
            hand[best] -= 1
        return hand

    def best_return(
        self, state: GameState, seat: int, legal: list[Action], targets: list[Target]
    ) -> Action:
        """Return the tokens needed least."""
        hand = state.players[seat].tokens

        def kept(action: Action) -> float:
            left = list(hand)
            for c in action.gems:
                left[c] -= 1
            return self.hand_score(left, targets) + self.jitter()

        return max(legal, key=kept)

    # ------------------------------------------------ the main action

    def main_action(
        self, state: GameState, seat: int, legal: list[Action], targets: list[Target]
    ) -> Action:
        """Buy, take gems towards the best target, or reserve."""
        hand = state.players[seat].tokens
        buy = self.best_buy(state, seat, legal)
        ranked = [t for t in targets if t.turns > 0]  # the others are affordable now
        if buy is not None and (not ranked or self.buy_value(state, seat, buy) >= ranked[0].score):
            return buy
        takes = [a for a in legal if a.kind == TAKE]
        if not ranked:
            return takes[0] if takes else legal[0]
        goal = ranked[0]
        take, after = self.best_take(hand, takes, ranked)
        short = shortfall(goal.need, hand)
        progress = short - shortfall(goal.need, after)
        if take is not None and (progress >= 2 or progress >= short):
            return take
        reserve = self.best_reserve(state, seat, legal, goal, progress)
        if reserve is not None:
            return reserve
        if take is not None and self.hand_score(after, ranked) > self.hand_score(hand, ranked):
            return take
        return buy or take or legal[0]

    def best_buy(self, state: GameState, seat: int, legal: list[Action]) -> Action | None:
        """The most valuable affordable card, paid with the least gold."""
        buys: dict[int, Action] = {}
        for action in legal:
            if action.kind == BUY and action.card not in buys:
                buys[action.card] = action  # payments come least gold first
        if not buys:
            return None
        values = self.values(state, seat)
        return max(buys.values(), key=lambda a: self.buy_value(state, seat, a, values))

    def values(self, state: GameState, seat: int) -> CardValues:
        """Card values for this seat against every card it sees (market and own reserves)."""
        player = state.players[seat]
        visible = [c for row in state.market for c in row if c != EMPTY] + player.reserved
        return CardValues(state, player, visible)

    def buy_value(
        self, state: GameState, seat: int, action: Action, values: CardValues | None = None
    ) -> float:
        value = (values or self.values(state, seat)).value(action.card)
        return value - GOLD_KEEP * action.payment[GOLD] + self.jitter()

    def best_take(
        self, hand: list[int], takes: list[Action], targets: list[Target]
    ) -> tuple[Action | None, list[int]]:
        """The gems that leave the best hand (after giving back any excess)."""
        best: tuple[Action | None, list[int]] = (None, hand)
        best_score = float("-inf")
        for score, action, after in self.scored_takes(hand, takes, targets):
            if score > best_score:
                best, best_score = (action, after), score
        return best

    def scored_takes(
        self, hand: list[int], takes: list[Action], targets: list[Target]
    ) -> list[tuple[float, Action, list[int]]]:
        """Every take with the hand it leaves (after giving back any excess) and its score."""
        scored = []
        for action in takes:
            after = list(hand)
            for c in action.gems:
                after[c] += 1
            after = self.keep_best(after, targets)
            score = self.hand_score(after, targets) + VARIETY * len(set(action.gems))
            scored.append((score + self.jitter(), action, after))
        return scored

    def best_reserve(
        self, state: GameState, seat: int, legal: list[Action], goal: Target, progress: int
    ) -> Action | None:
        """Reserve when gems cannot help, or for gold when gems help little."""
        player = state.players[seat]
        if len(player.reserved) >= MAX_RESERVED:
            return None
        gold = state.bank[GOLD] > 0
        on_market = goal.card not in player.reserved
        close = shortfall(goal.need, player.tokens) <= RESERVE_CLOSE
        if on_market and (progress == 0 or (gold and close)):
            return Action(RESERVE, card=goal.card)
        if progress > 0 or (not gold and len(player.reserved) >= MAX_RESERVED - 1):
            return None
        faces = [a for a in legal if a.kind == RESERVE and a.card]
        if not faces:
            return next((a for a in legal if a.kind == RESERVE), None)
        values = CardValues(state, player, [a.card for a in faces] + player.reserved)
        return max(faces, key=lambda a: values.value(a.card))


def _without(hand: list[int], colour: int) -> list[int]:
    left = list(hand)
    left[colour] -= 1
    return left


# ---------------------------------------------------------------- playing


# ---------------------------------------------------------------- easy


class EasyBot:
    """A beginner's opponent: plays like the greedy bot, but often picks at random.

    It still buys a card that is right in front of it some of the time, so a
    ten-year-old can beat it without it looking silly.
    """

    def __init__(self, seed: int, carelessness: float = EASY_CARELESSNESS) -> None:
        self.rng = random.Random(seed)
        self.greedy = GreedyBot(seed)
        self.random = RandomBot(seed + 1)
        self.carelessness = carelessness

    def choose(self, state: GameState, seat: int) -> Action:
        if self.rng.random() < self.carelessness:
            return self.random.choose(state, seat)
        return self.greedy.choose(state, seat)


# ---------------------------------------------------------------- playing


def play_game(
    players: int,
    seed: int,
    bots: Sequence[Bot],
    *,
    first_player: int | None = None,
    no_gold_small: bool = False,
    max_moves: int = MAX_MOVES,
    trust_bots: bool = False,
) -> GameState:
    """Deal a game from the seed and let the bots (one per seat) play it to the end.

    trust_bots: the bots are the engine's own, whose choices come from legal_actions,
    so their actions are applied without validating them again (apply_legal_action).
    """
    if len(bots) != players:
        raise ValueError(f"{players} players need {players} bots, not {len(bots)}.")
    state = new_game(players, seed, first_player, no_gold_small)
    while not state.is_over:
        if state.moves >= max_moves:
            raise RuntimeError(f"Game {seed} did not end within {max_moves} moves.")
        seat = state.current
        action = bots[seat].choose(state, seat)
        if trust_bots:
            apply_legal_action(state, action)
        else:
            apply_action(state, action, seat)
    return state
