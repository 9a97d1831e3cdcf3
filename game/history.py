"""The game log: every finished turn, told as events a template can say in a sentence.

The state keeps only the last turn, so the log is rebuilt from the recorded
moves (a game is its seed plus its moves) by replaying them through the
engine and noting, at each move, what the state alone forgets: whether a
reserve brought a gold token, which market slot was refilled, whether a
purchase cost nothing. Replaying a whole game takes a few milliseconds and is
done once per game version, then shared by every screen.
"""

from __future__ import annotations

import threading
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


@dataclass(frozen=True, slots=True)
class _Before:
    """What the state forgets once a move is applied, kept without copying it."""

    seat: int
    gold: int
    market: tuple[tuple[int, ...], ...]

    @classmethod
    def of(cls, state: GameState) -> _Before:
        player = state.players[state.current]
        return cls(state.current, player.tokens[GOLD], tuple(tuple(r) for r in state.market))

    def slot(self, card_id: int) -> tuple[int, int] | None:
        for level, row in enumerate(self.market, start=1):
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


def _event(before: _Before, action: Action, after: GameState) -> Event:
    """Describe `action`, applied to the state `before` and giving `after`."""
    gems = tuple(NAMES[c] for c in action.gems)
    if action.kind == TAKE:
        return Event(_take_kind(action), gems=gems)
    if action.kind == RETURN:
        return Event(RETURN, gems=gems)
    if action.kind == RESERVE:
        gold = after.players[before.seat].tokens[GOLD] > before.gold
        if not action.card:
            return Event(RESERVE, level=action.level, gold=gold)
        refill = _refilled(after, before.slot(action.card))
        return Event(RESERVE, card=card_view(action.card), gold=gold, refill=refill)
    if action.kind == BUY:
        paid = tuple(ColourCount(NAMES[c], n) for c, n in enumerate(action.payment) if n)
        refill = _refilled(after, before.slot(action.card))
        return Event(BUY, card=card_view(action.card), paid=paid, refill=refill)
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


@dataclass
class _Replay:
    """A game replayed so far: continued when new moves come, never started again."""

    state: GameState
    moves: int = 0
    turns: list[Turn] = field(default_factory=list)
    pending: list[Event] = field(default_factory=list)

    def play(self, moves: list[str] | tuple[str, ...]) -> History:
        for text in moves:
            action = parse_action(text)
            before = _Before.of(self.state)
            turn = self.state.turn
            apply_action(self.state, action)
            self.moves += 1
            self.pending.append(_event(before, action, self.state))
            if self.state.turn != turn:
                if not any(e.kind == NOBLE for e in self.pending):  # automatic: no move
                    self.pending.extend(_automatic_visits(self.state))
                self.turns.append(Turn(len(self.turns) + 1, before.seat, tuple(self.pending)))
                self.pending = []
        return History(tuple(self.turns), tuple(self.pending))


def replay_history(
    players: int,
    seed: int,
    moves: list[str] | tuple[str, ...],
    *,
    first_player: int | None = None,
    no_gold_small: bool = False,
) -> History:
    """Replay the recorded moves, collecting every finished turn's events."""
    return play_through(new_game(players, seed, first_player, no_gold_small), moves)


def play_through(state: GameState, moves: list[str] | tuple[str, ...]) -> History:
    """Apply the moves to `state` (changed in place), collecting each finished turn."""
    return _Replay(state).play(moves)


# ---------------------------------------------------------------- from the database

_CACHE_SIZE = 64
# game id -> (version, seed, the replay so far, its history at that version)
_cache: OrderedDict[int, tuple[int, int, _Replay, History]] = OrderedDict()
_lock = threading.Lock()  # a replay is continued in place: one thread at a time


def for_game(game_id: int, version: int) -> History:
    """Return the history of a game at `version`.

    Each change replays only the moves made since the last call (a game's moves
    are only ever appended), so a whole game costs one replay, not one per turn.
    """
    with _lock:
        return _for_game(game_id, version)


def _for_game(game_id: int, version: int) -> History:
    found = _cache.get(game_id)
    if found is not None and found[0] == version:
        _cache.move_to_end(game_id)
        return found[3]
    from game.models import Game, Move  # the replay above stays usable without Django

    game = Game.objects.get(pk=game_id)
    if not game.state:
        return History()
    replay = found[2] if found is not None and found[1] == game.seed else None
    if replay is None or replay.moves > game.state.get("moves", 0):
        start = new_game(game.seats.count(), game.seed, game.first_player, game.house_no_gold_small)
        replay = _Replay(start)
    new_moves = list(
        Move.objects.filter(game_id=game_id, index__gte=replay.moves)
        .order_by("index")
        .values_list("notation", flat=True)
    )
    history = replay.play(new_moves)
    _cache[game_id] = (version, game.seed, replay, history)
    _cache.move_to_end(game_id)
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
