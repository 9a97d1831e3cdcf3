"""Read a game into what screens may know, and carry it compactly between processes.

Two things describe a game to a screen: the public room facts (`Room`: status,
version, seats' names and kinds, the next game's code) and one projection per
viewer (game.engine.projection). The writer (game.writer.changes) builds both once
per change from the state it already holds and publishes them. Both are
immutable: within a process the screens get the very objects the writer made;
between processes (Redis) they travel as compact JSON (`to_wire`, `from_wire`).
A screen reads the database only when it connects or asks for a resync; it
never sees a GameState.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from game.bot_levels import seat_name
from game.engine import GameState
from game.engine.actions import parse_action
from game.engine.projection import (
    ColourCount,
    GameView,
    PlayerView,
    ReservedView,
    Viewer,
    card_view,
    colour_counts,
    noble_view,
    view_in_the_open,
)
from game.engine.state import Outcome
from game.engine.vocabulary import BOT_ROLES, PlayedOn, SeatRole
from game.models import Game, Seat
from game.storage import household, store
from game.storage.history import log_of


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """What a screen may show about a seat: never its player key."""

    position: int
    stored_name: str  # a player's name; for a bot, a fallback (see `name`)
    role: str  # a vocabulary.SeatRole
    connected: bool
    rejoin_code: str
    id: int = 0
    bot_level: str = ""
    bot_number: int = 0
    # Its phone went silent or its socket closed a moment ago: not away yet (still
    # `connected`), the TV marks it "reconnecting" (game.storage.presence).
    reconnecting: bool = False
    # A finished game's winning player: their wins in the household counting this
    # game ("Ada's 5th win", game.storage.household); 0 for everyone else.
    wins: int = 0
    # The position of the first seat (by position) of the phone this seat shares, for a
    # second or later seat of one phone ("shares Ada's phone"); -1 for any other seat.
    shares_with: int = -1
    played_on: str = PlayedOn.PHONE  # a vocabulary.PlayedOn: "tv" for a player without a phone

    @property
    def name(self) -> str:
        """What screens call this seat, in the language being rendered (bots by level)."""
        return str(seat_name(self.stored_name, self.role, self.bot_level, self.bot_number))

    @property
    def bot_plays(self) -> bool:
        """A bot chooses this seat's moves: one the host added, or a stand-in."""
        return self.role in BOT_ROLES

    @property
    def stand_in(self) -> bool:
        """A bot plays for a player who is away; their phone or code takes the seat back."""
        return self.role == SeatRole.STAND_IN

    @property
    def on_tv(self) -> bool:
        """A player without a phone: the host screen plays this seat (or a stand-in the
        host asked for); never away, so no rejoin code is shown for it."""
        return self.played_on == PlayedOn.TV

    @property
    def tv_plays(self) -> bool:
        """The host screen plays this seat's turns now (no stand-in does)."""
        return self.on_tv and not self.bot_plays


@dataclass(frozen=True, slots=True)
class Room:
    """What any screen may know about a game besides its projection."""

    id: int
    code: str
    status: str
    version: int
    no_gold_small: bool
    next_code: str
    seats: tuple[SeatInfo, ...]
    stand_in_after: int | None = None  # seconds away on one's turn before a bot plays
    hard_bot_seconds: float = 1.0  # seconds a hard bot thinks about each move

    def with_presence(
        self, here: frozenset[int], reconnecting: frozenset[int] = frozenset()
    ) -> Room:
        """Return the room with each human seat marked connected (`here`), reconnecting
        (counted as connected, with a mark) or away (game.storage.presence)."""
        return _with_presence(self, here, reconnecting)


# Only a game's newest room is asked for again; a longer memory would only keep old
# rooms (with their seats) for the garbage collector to walk.
@lru_cache(maxsize=256)
def _with_presence(room: Room, here: frozenset[int], reconnecting: frozenset[int]) -> Room:
    """Every table screen of a game shows the same room and presence: made once a change."""
    seats = tuple(
        dataclasses.replace(
            s,
            # A seat played on the TV has no phone to lose: never away.
            connected=s.bot_plays or s.on_tv or s.id in here or s.id in reconnecting,
            reconnecting=(
                not s.bot_plays and not s.on_tv and s.id in reconnecting and s.id not in here
            ),
        )
        for s in room.seats
    )
    return dataclasses.replace(room, seats=seats)


def holder_of(player_key: str) -> str:
    """A short digest of the phone holding a seat: enough to tell a phone it lost it."""
    return hashlib.sha256(player_key.encode()).hexdigest()[:16] if player_key else ""


def shared_phones(seats: list[Seat]) -> dict[int, int]:
    """The position of the phone's first seat, by the position of each later seat of a
    shared phone (player keys stay here: screens get positions)."""
    first: dict[str, int] = {}
    shares: dict[int, int] = {}
    for seat in sorted(seats, key=lambda s: s.position):
        if not seat.player_key:
            continue
        if seat.player_key in first:
            shares[seat.position] = first[seat.player_key]
        else:
            first[seat.player_key] = seat.position
    return shares


def room_of(game: Game, seats: list[Seat], next_code: str = "") -> Room:
    wins = household.wins_at_end(game, seats) if game.status == Game.Status.OVER else {}
    shares = shared_phones(seats)
    return Room(
        id=game.id,
        code=game.code,
        status=game.status,
        version=game.version,
        no_gold_small=game.house_no_gold_small,
        next_code=next_code,
        seats=tuple(
            SeatInfo(
                s.position,
                s.name,
                s.role,
                s.bot_plays,
                s.rejoin_code,
                id=s.pk,
                bot_level=s.bot_level,
                bot_number=s.bot_number,
                wins=wins.get(s.position, 0),
                shares_with=shares.get(s.position, -1),
                played_on=s.played_on,
            )
            for s in sorted(seats, key=lambda s: s.position)
        ),
        stand_in_after=game.stand_in_after,
        hard_bot_seconds=game.hard_bot_seconds,
    )


def played_on_tv(room: Room, state: GameState | None) -> GameView | None:
    """The view in the open of the seat to play, if the TV plays it now; else None (only
    the host screen shows it: game.screens.table)."""
    if state is None or state.is_over:
        return None
    seat = next((s for s in room.seats if s.position == state.current), None)
    return view_in_the_open(state, seat.position) if seat is not None and seat.tv_plays else None


def state_of(game: Game) -> GameState | None:
    return GameState.from_dict(game.state) if game.state else None


def read(game_id: int) -> tuple[Room, dict[int, str], GameState | None, str]:
    """Read a game once: its room, each seat's holder digest (by seat id), its state
    and its log's recent turns (game.storage.history.encode_recent).

    For a screen that connects or resyncs; the state never leaves the caller's
    hands (screens get `view_for` of it).
    """
    found = store.read_game(game_id)  # plain SQL: through the ORM, 1.6 ms of 1.7
    if found is None:
        raise Game.DoesNotExist(f"There is no game {game_id}.")
    game, seats = found
    next_code = store.game_code(game.next_game_id) if game.next_game_id else ""
    holders = {s.pk: holder_of(s.player_key) for s in seats}
    state = state_of(game)
    log = "" if state is None else log_of(game.recent, game.id, game.code, state.moves)
    return room_of(game, seats, next_code), holders, state, log


# ---------------------------------------------------------------- the wire format


_SEAT_FIELDS = tuple(f.name for f in dataclasses.fields(SeatInfo))
_ROOM_FIELDS = tuple(f.name for f in dataclasses.fields(Room) if f.name != "seats")


@lru_cache(maxsize=64)  # one change sends its room to every audience of the game
def encode_room(room: Room) -> str:
    # Field by field: dataclasses.asdict deep-copies, and cost more than the rest of a change.
    data: dict[str, Any] = {name: getattr(room, name) for name in _ROOM_FIELDS}
    data["seats"] = [{name: getattr(s, name) for name in _SEAT_FIELDS} for s in room.seats]
    return json.dumps(data, separators=(",", ":"))


@lru_cache(maxsize=256)
def decode_room(text: str) -> Room:
    """Read a room; every screen of a game in this process shares the one object."""
    data = json.loads(text)
    data["seats"] = tuple(SeatInfo(**s) for s in data["seats"])
    return Room(**data)


def _counts(items: tuple[ColourCount, ...]) -> list[int]:
    return [c.amount for c in items]


def _player(p: PlayerView) -> list[Any]:
    reserved = [[r.level, r.blind, r.card.id if r.card else 0] for r in p.reserved]
    return [p.seat, _counts(p.tokens), _counts(p.bonuses), p.points, p.cards, reserved]


def encode_view(view: GameView) -> str:
    """Write a projection as compact JSON: cards and nobles by id, actions by notation."""
    data = {
        "viewer": view.viewer,
        "version": view.version,
        "phase": view.phase,
        "current": view.current,
        "first": view.first_player,
        "turn": view.turn,
        "final": view.final_round,
        "bank": _counts(view.bank),
        "market": [[c.id if c else 0 for c in row] for row in view.market],
        "decks": list(view.deck_counts),
        "nobles": [n.id for n in view.nobles],
        "players": [_player(p) for p in view.players],
        "player_nobles": [[n.id for n in p.nobles] for p in view.players],
        "to_return": view.to_return,
        "choices": list(view.noble_choices),
        "last_seat": view.last_turn_seat,
        "last_events": list(view.last_turn_events),
        "refills": [list(r) for r in view.last_refills],
        "quiet": view.quiet_rounds,
        "outcome": dataclasses.asdict(view.outcome) if view.outcome else None,
        "legal": [a.notation() for a in view.legal],
        "affordable": sorted(view.affordable),
        "payments": [[c, [list(p) for p in ways]] for c, ways in view.payments],
    }
    return json.dumps(data, separators=(",", ":"))


# Cards and nobles never change: one view object each, shared by every decoded view.
_card = lru_cache(maxsize=None)(card_view)
_noble = lru_cache(maxsize=None)(noble_view)
# Actions are immutable too, and the same few hundred notations come back all game.
_action = lru_cache(maxsize=8192)(parse_action)


def _player_view(row: list[Any], nobles: list[int]) -> PlayerView:
    seat, tokens, bonuses, points, cards, reserved = row
    return PlayerView(
        seat=seat,
        tokens=colour_counts(tokens),
        token_count=sum(tokens),
        bonuses=colour_counts(bonuses),
        points=points,
        cards=cards,
        reserved=tuple(
            ReservedView(level, blind, _card(c) if c else None) for level, blind, c in reserved
        ),
        nobles=tuple(_noble(n) for n in nobles),
    )


def _outcome(data: dict[str, Any] | None) -> Outcome | None:
    if data is None:
        return None
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    return Outcome(**fields)


@lru_cache(maxsize=64)
def decode_view(text: str) -> GameView:
    """Read a projection sent from another process; the screens of a game in this
    process that receive the same JSON share the one object."""
    d = json.loads(text)
    players = tuple(
        _player_view(row, nobles)
        for row, nobles in zip(d["players"], d["player_nobles"], strict=True)
    )
    viewer: Viewer = d["viewer"]
    return GameView(
        viewer=viewer,
        version=d["version"],
        phase=d["phase"],
        current=d["current"],
        first_player=d["first"],
        turn=d["turn"],
        final_round=d["final"],
        bank=colour_counts(d["bank"]),
        market=tuple(tuple(_card(c) if c else None for c in row) for row in d["market"]),
        deck_counts=tuple(d["decks"]),
        nobles=tuple(_noble(n) for n in d["nobles"]),
        players=players,
        to_return=d["to_return"],
        noble_choices=tuple(d["choices"]),
        last_turn_seat=d["last_seat"],
        last_turn_events=tuple(d["last_events"]),
        last_refills=tuple((level, slot) for level, slot in d["refills"]),
        quiet_rounds=d["quiet"],
        outcome=_outcome(d["outcome"]),
        me=players[viewer] if isinstance(viewer, int) else None,
        legal=tuple(_action(n) for n in d["legal"]),
        affordable=frozenset(d["affordable"]),
        payments=tuple((c, tuple(tuple(p) for p in ways)) for c, ways in d["payments"]),
    )


# The message keys that carry a room or a projection, and how each crosses processes.
_WIRE: dict[str, tuple[type, Any, Any]] = {
    "room": (Room, encode_room, decode_room),
    "view": (GameView, encode_view, decode_view),
    "open": (GameView, encode_view, decode_view),  # a TV seat's view in the open
}
WIRE_FLAG = "wire"  # set on a message whose room and projection are JSON


def to_wire(message: dict[str, Any]) -> dict[str, Any]:
    """The message with its room and projection as JSON, for another process."""
    if not any(isinstance(message.get(key), kind) for key, (kind, _, _) in _WIRE.items()):
        return message
    sent = dict(message)
    for key, (kind, encode, _decode) in _WIRE.items():
        if isinstance(sent.get(key), kind):
            sent[key] = encode(sent[key])
    sent[WIRE_FLAG] = True
    return sent


def from_wire(message: dict[str, Any]) -> dict[str, Any]:
    """The message as its writer made it: a room and a projection again."""
    if not message.get(WIRE_FLAG):
        return message
    received = {k: v for k, v in message.items() if k != WIRE_FLAG}
    for key, (_kind, _encode, decode) in _WIRE.items():
        if isinstance(received.get(key), str):
            received[key] = decode(received[key])
    return received
