"""The game log: every finished turn, told as events a template can say in a sentence.

The state keeps only the last turn, so the log is rebuilt from the recorded
moves (a game is its seed plus its moves) by replaying them through the
engine and noting, at each move, what the state alone forgets: whether a
reserve brought a gold token, which market slot was refilled, whether a
purchase cost nothing. Replaying a whole game takes a few milliseconds and is
done once per game version, then shared by every screen.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from game.engine import GameState, apply_action, new_game, parse_action
from game.engine.actions import BUY, NOBLE, PASS, RESERVE, RETURN, TAKE, Action
from game.engine.colours import GOLD, NAMES
from game.engine.projection import CardView, ColourCount, NobleView, card_view, noble_view
from game.engine.state import EMPTY

# Take events are told apart so each reads naturally: three colours, two of one, fewer.
TAKE_THREE = "take3"
TAKE_TWO = "take2"
TAKE_FEWER = "take_fewer"


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened in a turn, with what its sentence needs."""

    kind: str  # take3, take2, take_fewer, return, reserve, buy, noble, pass
    gems: tuple[str, ...] = ()  # colours taken or given back
    card: CardView | None = None  # the card bought or reserved face up
    level: int = 0  # the level of a card reserved from the deck
    gold: bool = False  # a reserve that brought a gold token
    paid: tuple[ColourCount, ...] = ()  # empty for a card the bonuses paid for entirely
    noble: NobleView | None = None
    refill: tuple[int, int] | None = None  # (level, slot) of the market slot refilled


@dataclass(frozen=True, slots=True)
class Turn:
    number: int  # 1-based
    seat: int
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class History:
    turns: tuple[Turn, ...] = ()  # oldest first
    pending: tuple[Event, ...] = field(default=())  # the turn still being played

    @property
    def last(self) -> Turn | None:
        return self.turns[-1] if self.turns else None


def _market_slot(state: GameState, card_id: int) -> tuple[int, int] | None:
    for level, row in enumerate(state.market, start=1):
        if card_id in row:
            return level, row.index(card_id)
    return None


def _refilled(state: GameState, slot: tuple[int, int] | None) -> tuple[int, int] | None:
    if slot is None:
        return None
    level, index = slot
    return slot if state.market[level - 1][index] != EMPTY else None


def _take_kind(action: Action) -> str:
    if len(action.gems) == 2 and action.gems[0] == action.gems[1]:
        return TAKE_TWO
    return TAKE_THREE if len(action.gems) == 3 else TAKE_FEWER


def _event(before: GameState, action: Action, after: GameState) -> Event:
    """Describe `action`, applied to `before` (a copy) and giving `after`."""
    gems = tuple(NAMES[c] for c in action.gems)
    if action.kind == TAKE:
        return Event(_take_kind(action), gems=gems)
    if action.kind == RETURN:
        return Event(RETURN, gems=gems)
    if action.kind == RESERVE:
        seat = before.current
        gold = after.players[seat].tokens[GOLD] > before.players[seat].tokens[GOLD]
        if not action.card:
            return Event(RESERVE, level=action.level, gold=gold)
        slot = _market_slot(before, action.card)
        return Event(RESERVE, card=card_view(action.card), gold=gold, refill=_refilled(after, slot))
    if action.kind == BUY:
        paid = tuple(ColourCount(NAMES[c], n) for c, n in enumerate(action.payment) if n)
        slot = _market_slot(before, action.card)
        return Event(BUY, card=card_view(action.card), paid=paid, refill=_refilled(after, slot))
    if action.kind == NOBLE:
        return Event(NOBLE, noble=noble_view(action.noble))
    return Event(PASS)


def _automatic_visits(state: GameState) -> list[Event]:
    prefix = NOBLE + ":"
    return [
        Event(NOBLE, noble=noble_view(int(e[len(prefix) :])))
        for e in state.last_turn_events
        if e.startswith(prefix)
    ]


def replay_history(
    players: int,
    seed: int,
    moves: list[str] | tuple[str, ...],
    *,
    first_player: int | None = None,
    no_gold_small: bool = False,
) -> History:
    """Replay the recorded moves, collecting every finished turn's events."""
    state = new_game(players, seed, first_player, no_gold_small)
    turns: list[Turn] = []
    pending: list[Event] = []
    for text in moves:
        action = parse_action(text)
        before = GameState.from_dict(state.to_dict())
        seat, turn = state.current, state.turn
        apply_action(state, action)
        pending.append(_event(before, action, state))
        if state.turn != turn:
            if not any(e.kind == NOBLE for e in pending):  # an automatic visit is no move
                pending.extend(_automatic_visits(state))
            turns.append(Turn(len(turns) + 1, seat, tuple(pending)))
            pending = []
    return History(tuple(turns), tuple(pending))


# ---------------------------------------------------------------- from the database

_CACHE_SIZE = 64
_cache: OrderedDict[tuple[int, int], History] = OrderedDict()


def for_game(game_id: int, version: int) -> History:
    """Return the history of a game at `version`, replayed once and then reused."""
    key = (game_id, version)
    found = _cache.get(key)
    if found is not None:
        _cache.move_to_end(key)
        return found
    from game.models import Game  # the replay above stays usable without Django

    game = Game.objects.get(pk=game_id)
    moves = list(game.moves.order_by("index").values_list("notation", flat=True))
    if game.state is None or not game.state:
        return History()
    history = replay_history(
        game.seats.count(),
        game.seed,
        moves,
        first_player=game.first_player,
        no_gold_small=game.house_no_gold_small,
    )
    _cache[key] = history
    if len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return history


# ---------------------------------------------------------------- for the templates


def log_context(game_id: int, version: int, seat_names: list[str]) -> dict[str, object]:
    """What the last-turn strip, the highlights and the game log need.

    `log` is newest first, each turn with its seat's name; `just` says where the
    last turn happened (cards, a refilled slot, a bonus, a noble, the bank).
    """
    history = for_game(game_id, version)
    log = [
        {"turn": t, "name": seat_names[t.seat] if t.seat < len(seat_names) else "?"}
        for t in reversed(history.turns)
    ]
    last = history.last
    just: dict[str, object] = {"cards": set(), "seat": -1, "blind": False}
    if last is not None:
        just["seat"] = last.seat
        cards: set[int] = set()
        for e in last.events:
            if e.kind == RESERVE and e.card is None:
                just["blind"] = True
            elif e.kind == RESERVE and e.card is not None:
                cards.add(e.card.id)
            elif e.kind == BUY and e.card is not None:
                just["bonus"] = e.card.bonus
            elif e.kind == NOBLE and e.noble is not None:
                just["noble"] = e.noble.id
            if e.refill is not None:
                just["refill_level"], just["refill_slot"] = e.refill
        just["cards"] = cards
    return {"log": log, "last_turn": log[0] if log else None, "just": just}
