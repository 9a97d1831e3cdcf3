"""Hints: the move the hard bot would play now, with a reason in plain facts.

`suggest` runs the search bot for the seat (it reads only what that seat may
see) and explains its choice as a `Reason`: numbers, ids and colour names, no
words, so the web layer can turn it into one translated sentence such as "Buy
the level-2 green card: 2 points, and one step closer to the noble". Nothing is
played; the player still confirms the action like any other.
"""

from __future__ import annotations

from dataclasses import dataclass

from game.engine.actions import BUY, NOBLE, PASS, RESERVE, RETURN, TAKE, Action
from game.engine.cards import COSTS, card, noble
from game.engine.colours import GEMS, GOLD, NAMES
from game.engine.rules import can_afford
from game.engine.search import SearchBot
from game.engine.state import EMPTY, WINNING_POINTS, GameState, PlayerState
from game.engine.vocabulary import ActionKind

DEFAULT_HINT_BUDGET = 1.0  # seconds of thinking for a hint

# Reason kinds: one per sentence the web layer needs. They are the action's kind,
# except that a reserve from a deck (blind) has its own.
BUY_CARD = ActionKind.BUY
RESERVE_CARD = ActionKind.RESERVE
RESERVE_BLIND = "reserve_blind"
TAKE_GEMS = ActionKind.TAKE
RETURN_GEMS = ActionKind.RETURN
CHOOSE_NOBLE = ActionKind.NOBLE
PASS_TURN = ActionKind.PASS


@dataclass(frozen=True, slots=True)
class Reason:
    """Why the hinted action is good, as facts about the action itself.

    kind: one of the kinds above. card/level/colour/points: the card bought or
    reserved (colour is its bonus; level alone for a blind reserve); for a noble
    choice, points are the noble's. gems: colour names taken or given back.
    gold: a reserve that brings a gold token. noble/noble_missing: the noble on
    the table the action brings closest (bonuses still missing after it; 0 means
    it visits at the end of this turn). next_card: a visible card the seat can
    afford next turn thanks to this action (0 if none). wins: the action brings
    the seat to the winning points.
    """

    kind: str
    card: int = 0
    level: int = 0
    colour: str = ""
    points: int = 0
    gems: tuple[str, ...] = ()
    gold: bool = False
    noble: int = 0
    noble_missing: int = 0
    next_card: int = 0
    wins: bool = False

    @property
    def closer_to_noble(self) -> bool:
        return self.noble != 0


@dataclass(frozen=True, slots=True)
class Hint:
    action: Action
    reason: Reason


def suggest(
    state: GameState,
    seat: int,
    *,
    budget: float | None = DEFAULT_HINT_BUDGET,
    playouts: int | None = None,
    seed: int | None = None,
) -> Hint:
    """What the hard bot would play for `seat` (whose turn it is), and why.

    The seed defaults to the game's seed and version, so asking twice at the
    same moment (with a playout cap) gives the same hint.
    """
    if seat != state.current or state.is_over:
        raise ValueError(f"Seat {seat} is not to play.")
    bot = SearchBot(
        state.seed * 1_000 + state.moves if seed is None else seed,
        budget=budget,
        playouts=playouts,
    )
    action = bot.choose(state, seat)
    return Hint(action, explain(state, seat, action))


def explain(state: GameState, seat: int, action: Action) -> Reason:
    """The facts behind an action for `seat`, read before it is played.

    Only what the seat may see is read: a blind reserve names its level only.
    """
    player = state.players[seat]
    kind = action.kind
    if kind == BUY:
        return _explain_buy(state, player, action)
    if kind == RESERVE and action.card:
        bought = card(action.card)
        return Reason(
            RESERVE_CARD,
            card=bought.id,
            level=bought.level,
            colour=NAMES[bought.bonus],
            points=bought.points,
            gold=state.bank[GOLD] > 0,
            next_card=_next_card(state, player, _plus(player.tokens, GOLD, state.bank[GOLD] > 0)),
        )
    if kind == RESERVE:
        return Reason(RESERVE_BLIND, level=action.level, gold=state.bank[GOLD] > 0)
    if kind in (TAKE, RETURN):
        tokens = list(player.tokens)
        for c in action.gems:
            tokens[c] += 1 if kind == TAKE else -1
        return Reason(
            TAKE_GEMS if kind == TAKE else RETURN_GEMS,
            gems=tuple(NAMES[c] for c in action.gems),
            next_card=_next_card(state, player, tokens),
        )
    if kind == NOBLE:
        visitor = noble(action.noble)
        wins = player.points + visitor.points >= WINNING_POINTS
        return Reason(CHOOSE_NOBLE, noble=visitor.id, points=visitor.points, wins=wins)
    assert kind == PASS, kind
    return Reason(PASS_TURN)


def _explain_buy(state: GameState, player: PlayerState, action: Action) -> Reason:
    bought = card(action.card)
    bonuses = list(player.bonuses)
    bonuses[bought.bonus] += 1
    noble_id, missing = _closest_noble(state, player.bonuses, bonuses)
    gained = bought.points + (noble(noble_id).points if noble_id and missing == 0 else 0)
    return Reason(
        BUY_CARD,
        card=bought.id,
        level=bought.level,
        colour=NAMES[bought.bonus],
        points=bought.points,
        noble=noble_id,
        noble_missing=missing,
        wins=player.points + gained >= WINNING_POINTS,
    )


def _closest_noble(state: GameState, before: list[int], after: list[int]) -> tuple[int, int]:
    """The noble on the table that the new bonus brings closest: (id, still missing).

    (0, 0) when the bonus helps no noble.
    """
    best = (0, 0)
    for noble_id in state.nobles:
        requires = noble(noble_id).requires
        was = sum(max(0, requires[c] - before[c]) for c in GEMS)
        now = sum(max(0, requires[c] - after[c]) for c in GEMS)
        if now < was and (best[0] == 0 or now < best[1]):
            best = (noble_id, now)
    return best


def _plus(tokens: list[int], colour: int, gained: bool) -> list[int]:
    more = list(tokens)
    more[colour] += gained
    return more


def _next_card(state: GameState, player: PlayerState, tokens: list[int]) -> int:
    """The best visible card (most points, then cheapest) these tokens newly afford.

    Visible means the market and the seat's own reserved cards.
    """
    after = PlayerState(tokens=tokens, bonuses=player.bonuses)
    offered = [c for row in state.market for c in row if c != EMPTY] + player.reserved
    newly = [c for c in offered if can_afford(after, c) and not can_afford(player, c)]
    if not newly:
        return 0
    return max(newly, key=lambda c: (card(c).points, -sum(COSTS[c]), -c))
