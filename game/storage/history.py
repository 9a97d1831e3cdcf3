"""The game log: every finished turn, told as events a template can say in a sentence.

The state keeps only the last turn, so the log is rebuilt from the recorded
moves (a game is its seed plus its moves) by replaying them through the
engine and noting, at each move, what the state alone forgets: whether a
reserve brought a gold token, which market slot was refilled, whether a
purchase cost nothing. Replaying a whole game takes a few milliseconds and is
done once per game version, then shared by every screen.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from game.engine import GameState, apply_action, new_game, parse_action
from game.engine.actions import BUY, NOBLE, PASS, RESERVE, RETURN, TAKE, Action
from game.engine.colours import GOLD, NAMES
from game.engine.projection import (
    CardView,
    ColourCount,
    NobleView,
    card_view,
    colour_count,
    noble_view,
)
from game.engine.state import EMPTY
from game.models import Game
from game.storage import store

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
class Before:
    """What the state forgets once a move is applied, kept without copying it."""

    seat: int
    gold: int
    market: tuple[tuple[int, ...], ...]
    turn: int

    @classmethod
    def of(cls, state: GameState) -> Before:
        player = state.players[state.current]
        market = tuple(tuple(r) for r in state.market)
        return cls(state.current, player.tokens[GOLD], market, state.turn)

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


def _event(before: Before, action: Action, after: GameState) -> Event:
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
        paid = tuple(colour_count(NAMES[c], n) for c, n in enumerate(action.payment) if n)
        refill = _refilled(after, before.slot(action.card))
        return Event(BUY, card=card_view(action.card), paid=paid, refill=refill)
    if action.kind == NOBLE:
        return Event(NOBLE, noble=noble_view(action.noble))
    return Event(PASS)


def _turn_end(before: Before, after: GameState, chose_noble: bool) -> list[Event] | None:
    """None while the turn goes on; once it ends, the noble visits it made without a
    move of their own (none if the player chose a noble)."""
    if after.turn == before.turn:
        return None
    return [] if chose_noble else _automatic_visits(after)


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
    keep: int | None = None  # finished turns kept (the latest ones); None: all
    finished: int = 0  # turns finished so far, kept or not

    def play(self, moves: list[str] | tuple[str, ...]) -> History:
        for text in moves:
            action = parse_action(text)
            before = Before.of(self.state)
            apply_action(self.state, action)
            self.note(before, action)
        return History(tuple(self.turns), tuple(self.pending))

    def note(self, before: Before, action: Action) -> None:
        """Tell `action`, just applied to `self.state` (which was `before`)."""
        self.moves += 1
        self.pending.append(_event(before, action, self.state))
        visits = _turn_end(before, self.state, any(e.kind == NOBLE for e in self.pending))
        if visits is not None:
            self.pending.extend(visits)
            self.finished += 1
            self.turns.append(Turn(self.finished, before.seat, tuple(self.pending)))
            self.pending = []
            if self.keep is not None and len(self.turns) > self.keep:
                del self.turns[: -self.keep]


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

# A screen that connects to a game whose row keeps no recent turns (a game from
# before Game.recent, an imported one) needs its replay. An entry keeps the game's
# state and its last few turns only (RECENT).
_CACHE_SIZE = 1024
# (game id, room code) -> (the replay so far, its history after replay.moves moves).
# The code tells apart games that got the same id (a test's rolled-back rows).
_cache: OrderedDict[tuple[int, str], tuple[_Replay, History]] = OrderedDict()
_lock = threading.Lock()  # a replay is continued in place: one thread at a time


def for_game(game_id: int, code: str, moves: int) -> History:
    """Return the recent history of a game after its first `moves` moves (its last
    RECENT finished turns), from the replay this process keeps of it.

    Only the moves not replayed yet are read (a game's moves are only ever
    appended), so a whole game costs one replay, not one per turn. The writer
    does not need it (Game.recent, see Told): a screen that connects to a game
    whose row keeps no recent turns yet does.
    """
    if moves <= 0:
        return History()
    with _lock:
        return _replayed(game_id, code, moves)[1]


def _replayed(game_id: int, code: str, moves: int) -> tuple[_Replay, History]:
    """The replay kept for the game, continued to `moves` moves (under _lock)."""
    key = (game_id, code)
    found = _cache.get(key)
    if found is not None and found[0].moves == moves:
        _cache.move_to_end(key)
        return found
    replay = found[0] if found is not None and found[0].moves <= moves else None
    replay, history = _read_moves(game_id, replay, moves, keep=RECENT)
    _cache[key] = (replay, history)
    _cache.move_to_end(key)
    if len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return replay, history


def _read_moves(
    game_id: int, replay: _Replay | None, moves: int, keep: int | None = None
) -> tuple[_Replay, History]:
    """Continue (or start, keeping `keep` turns) the replay with the moves it has not seen."""
    if replay is None:
        game = Game.objects.get(pk=game_id)
        start = new_game(game.seats.count(), game.seed, game.first_player, game.house_no_gold_small)
        replay = _Replay(start, keep=keep)
    # The moves not replayed yet: one query, plain SQL as the writer's own.
    return replay, replay.play(store.moves_between(game_id, replay.moves, moves))


# ---------------------------------------------------------------- between processes

# The TV shows the last few turns; the whole log is a page of its own (help_views).
RECENT = 6


def _event_data(e: Event) -> dict[str, Any]:
    data: dict[str, Any] = {"k": e.kind}
    if e.gems:
        data["g"] = list(e.gems)
    if e.card is not None:
        data["c"] = e.card.id
    if e.level:
        data["l"] = e.level
    if e.gold:
        data["o"] = 1
    if e.paid:
        data["p"] = [[p.colour, p.amount] for p in e.paid]
    if e.noble is not None:
        data["n"] = e.noble.id
    if e.refill is not None:
        data["r"] = list(e.refill)
    return data


_dumps = json.JSONEncoder(separators=(",", ":")).encode  # made once: json.dumps makes one a call


def _turn_data(t: Turn) -> list[Any]:
    return [t.number, t.seat, [_event_data(e) for e in t.events]]


def encode_recent(history: History, count: int = RECENT) -> str:
    """The last `count` finished turns, newest first, as compact JSON for the screens."""
    turns = history.turns[-count:][::-1] if count else ()
    return _dumps([_turn_data(t) for t in turns])


_card = lru_cache(maxsize=None)(card_view)
_noble = lru_cache(maxsize=None)(noble_view)


def _event_of(d: dict[str, Any]) -> Event:
    refill = d.get("r")
    return Event(
        d["k"],
        gems=tuple(d.get("g", ())),
        card=_card(d["c"]) if "c" in d else None,
        level=d.get("l", 0),
        gold=bool(d.get("o")),
        paid=tuple(colour_count(c, n) for c, n in d.get("p", ())),
        noble=_noble(d["n"]) if "n" in d else None,
        refill=(refill[0], refill[1]) if refill else None,
    )


@lru_cache(maxsize=256)
def decode_recent(text: str) -> tuple[Turn, ...]:
    """Read what `encode_recent` wrote (every screen of a game shares the result)."""
    if not text:
        return ()
    return tuple(_turn_of(t) for t in json.loads(text))


def _turn_of(data: list[Any]) -> Turn:
    number, seat, events = data
    return Turn(number, seat, tuple(_event_of(e) for e in events))


def recent(game_id: int, code: str, moves: int) -> str:
    """The recent turns of a game after `moves` moves, ready to publish."""
    return encode_recent(for_game(game_id, code, moves))


# ---------------------------------------------------------------- kept with the game


@dataclass(frozen=True, slots=True)
class Told:
    """A game's log as far as its writer has told it: after `moves` moves, its last
    RECENT finished turns, the events of the turn being played, and how many turns
    are finished.

    The writer keeps it in the game's row (Game.recent, as JSON) and continues it
    with each move from the states it holds before and after the move (tell).
    With several server processes taking turns at writing a game, none of them
    reads the moves the others made and replays them to tell the screens the
    last turns.
    """

    moves: int = 0
    finished: int = 0
    turns: tuple[Turn, ...] = ()  # oldest first, as History's
    pending: tuple[Event, ...] = ()


def _told_data(told: Told) -> dict[str, Any]:
    """The JSON of a Told; its turns newest first, as the screens get them."""
    return {
        "m": told.moves,
        "f": told.finished,
        "t": [_turn_data(t) for t in told.turns[::-1]],
        "p": [_event_data(e) for e in told.pending],
    }


def decode_told(text: str) -> Told:
    """Read what the game's row keeps (tell); "" (a row that keeps nothing yet) tells
    no move."""
    if not text:
        return Told()
    data = json.loads(text)
    turns = tuple(_turn_of(t) for t in data["t"][::-1])
    return Told(data["m"], data["f"], turns, tuple(_event_of(e) for e in data["p"]))


def told_at(game_id: int, code: str, moves: int) -> Told:
    """The game's log after its first `moves` moves, from the replay this process keeps."""
    if moves <= 0:
        return Told()
    with _lock:
        replay, _history = _replayed(game_id, code, moves)
        return Told(replay.moves, replay.finished, tuple(replay.turns), tuple(replay.pending))


def tell(
    stored: str, game_id: int, code: str, before: Before, action: Action, after: GameState
) -> tuple[str, str]:
    """Continue the game's log with `action`: `after` is the state it gave, `before`
    what the state was. Returns what the game's row keeps now and the
    recent turns for the screens (encode_recent).

    Continued from what the row keeps (`stored`), as JSON: building the events
    to write them back cost more than replaying the move. When the row does not
    keep the log of the move before (a row saved before it kept one, an imported
    game), from the replay (told_at).
    """
    data = json.loads(stored) if stored else _told_data(Told())
    if data["m"] != after.moves - 1:
        data = _told_data(told_at(game_id, code, after.moves - 1))
    pending = data["p"]
    pending.append(_event_data(_event(before, action, after)))
    visits = _turn_end(before, after, any(e["k"] == NOBLE for e in pending))
    if visits is not None:
        pending.extend(_event_data(e) for e in visits)
        data["f"] += 1
        data["t"] = [[data["f"], before.seat, pending], *data["t"]][:RECENT]
        data["p"] = []
    data["m"] += 1
    log = _dumps(data["t"])
    # The row's JSON around the log, written once: the turns are most of it.
    kept = f'{{"m":{data["m"]},"f":{data["f"]},"p":{_dumps(data["p"])},"t":{log}}}'
    return kept, log


def log_of(stored: str, game_id: int, code: str, moves: int) -> str:
    """The recent turns after `moves` moves, from the game's row if it keeps them."""
    if stored:
        data = json.loads(stored)
        if data["m"] == moves:
            return _dumps(data["t"])
    return recent(game_id, code, moves)


# ---------------------------------------------------------------- for the templates


def named(turns: tuple[Turn, ...] | list[Turn], seat_names: list[str]) -> list[dict[str, object]]:
    """Each turn with its seat's name, as the log's templates show it."""
    return [
        {"turn": t, "name": seat_names[t.seat] if t.seat < len(seat_names) else "?"} for t in turns
    ]


def just_of(last: Turn | None) -> dict[str, object]:
    """Where the last turn happened: cards reserved, a bonus, a noble, a blind reserve.

    The refilled market slot comes from the projection (GameView.last_refills).
    """
    just: dict[str, object] = {"cards": frozenset(), "seat": -1, "blind": False}
    if last is None:
        return just
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
    just["cards"] = frozenset(cards)
    return just


def log_context(game_id: int, moves: int, seat_names: list[str]) -> dict[str, object]:
    """What the whole game log needs (a phone's Log sheet): every turn, newest first.

    Replayed for the occasion: the replays kept for the screens keep recent turns only.
    """
    if moves <= 0:
        history = History()
    else:
        _replay, history = _read_moves(game_id, None, moves)
    log = named(history.turns[::-1], seat_names)
    return {"log": log, "last_turn": log[0] if log else None, "just": just_of(history.last)}
