"""A frozen copy of the rules engine's legal-action generation before it was made
faster (commit 1f68001), kept only so that `bench_engine` can print a speed ratio
measured in the same run on the same positions. Do not use it anywhere else, and
do not edit it: it is the yardstick, and bench_engine checks that it still lists
exactly the actions the engine lists.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations, product

from game.engine.actions import BUY, NOBLE, PASS_ACTION, RESERVE, RETURN, TAKE, Action
from game.engine.cards import COSTS, LEVELS, card
from game.engine.colours import COLOURS, GEMS, GOLD
from game.engine.state import EMPTY, MAX_RESERVED, OVER, GameState, PlayerState
from game.engine.state import NOBLE as NOBLE_PHASE
from game.engine.state import RETURN as RETURN_PHASE

TAKE_TWO_MIN_PILE = 4
MAX_DIFFERENT = 3


def owed(player: PlayerState, card_id: int) -> list[int]:
    cost = card(card_id).cost
    bonuses = player.bonuses
    return [max(0, cost[c] - bonuses[c]) for c in GEMS]


def can_afford(player: PlayerState, card_id: int) -> bool:
    w, u, g, r, k = COSTS[card_id]
    b = player.bonuses
    t = player.tokens
    short = 0
    if (missing := w - b[0] - t[0]) > 0:
        short += missing
    if (missing := u - b[1] - t[1]) > 0:
        short += missing
    if (missing := g - b[2] - t[2]) > 0:
        short += missing
    if (missing := r - b[3] - t[3]) > 0:
        short += missing
    if (missing := k - b[4] - t[4]) > 0:
        short += missing
    return short <= t[5]


def cheapest_payment(player: PlayerState, card_id: int) -> tuple[int, ...] | None:
    due = owed(player, card_id)
    tokens = player.tokens
    paid = [min(o, tokens[c]) for c, o in enumerate(due)]
    gold = sum(due) - sum(paid)
    if gold > tokens[GOLD]:
        return None
    return (*paid, gold)


def payments(player: PlayerState, card_id: int) -> list[tuple[int, ...]]:
    gold = player.tokens[GOLD]
    if gold == 0:
        cheapest = cheapest_payment(player, card_id)
        return [cheapest] if cheapest else []
    due = owed(player, card_id)
    tokens = player.tokens
    choices = []
    for c in GEMS:
        most = min(due[c], tokens[c])
        least = max(0, due[c] - gold)
        if least > most:
            return []
        choices.append(range(most, least - 1, -1))
    total = sum(due)
    found = [(*paid, spent) for paid in product(*choices) if (spent := total - sum(paid)) <= gold]
    found.sort(key=lambda p: p[GOLD])
    return found


def _take_actions(bank: list[int]) -> Iterator[Action]:
    available = [c for c in GEMS if bank[c] > 0]
    size = min(MAX_DIFFERENT, len(available))
    if size:
        for gems in combinations(available, size):
            yield Action(TAKE, gems=gems)
    for c in GEMS:
        if bank[c] >= TAKE_TWO_MIN_PILE:
            yield Action(TAKE, gems=(c, c))


def _reserve_actions(state: GameState, player: PlayerState) -> Iterator[Action]:
    if len(player.reserved) >= MAX_RESERVED:
        return
    for row in state.market:
        for card_id in row:
            if card_id != EMPTY:
                yield Action(RESERVE, card=card_id)
    for level, deck in zip(LEVELS, state.decks, strict=True):
        if deck:
            yield Action(RESERVE, level=level)


def _buyable(state: GameState, player: PlayerState) -> Iterator[int]:
    for row in state.market:
        for card_id in row:
            if card_id != EMPTY:
                yield card_id
    yield from player.reserved


def _buy_actions(state: GameState, player: PlayerState) -> Iterator[Action]:
    for card_id in _buyable(state, player):
        if can_afford(player, card_id):
            for payment in payments(player, card_id):
                yield Action(BUY, card=card_id, payment=payment)


def _return_actions(tokens: list[int], count: int) -> list[Action]:
    held = [c for c in COLOURS for _ in range(tokens[c])]
    return [Action(RETURN, gems) for gems in dict.fromkeys(combinations(held, count))]


def legal_actions(state: GameState) -> list[Action]:
    if state.phase == OVER:
        return []
    player = state.players[state.current]
    if state.phase == RETURN_PHASE:
        return _return_actions(player.tokens, state.to_return)
    if state.phase == NOBLE_PHASE:
        return [Action(NOBLE, noble=n) for n in state.noble_choices]
    actions = [
        *_take_actions(state.bank),
        *_reserve_actions(state, player),
        *_buy_actions(state, player),
    ]
    return actions or [PASS_ACTION]
