"""The full game state: everything, including what some viewers may not see.

Only the engine and the database snapshot hold a GameState; screens get a
projection (see projection.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from game.engine.vocabulary import Phase

# Phases of a turn (vocabulary.Phase says what each means).
MAIN = Phase.MAIN
RETURN = Phase.RETURN
NOBLE = Phase.NOBLE
OVER = Phase.OVER

TOKEN_LIMIT = 10
WINNING_POINTS = 15
MAX_RESERVED = 3
EMPTY = 0  # an empty market slot (card ids start at 1)
# Complete rounds without a card bought or reserved that end the game (RULES.md, "Stalemate").
STALEMATE_ROUNDS = 20

# How a game ended: someone reached the winning points and the round was
# finished, every player passed in one round, or the stalemate rule.
POINTS = "points"
PASSES = "passes"
STALEMATE = "stalemate"


@dataclass(slots=True)
class PlayerState:
    """One seat's holdings."""

    tokens: list[int] = field(default_factory=lambda: [0] * 6)
    bonuses: list[int] = field(default_factory=lambda: [0] * 5)
    cards: list[int] = field(default_factory=list)
    # Reserved card ids with, in parallel, whether each was taken blind from a deck.
    reserved: list[int] = field(default_factory=list)
    blind: list[bool] = field(default_factory=list)
    nobles: list[int] = field(default_factory=list)
    points: int = 0

    def token_count(self) -> int:
        return sum(self.tokens)

    def copy(self) -> PlayerState:
        """Return an independent copy (its lists are new lists)."""
        return PlayerState(
            self.tokens.copy(),
            self.bonuses.copy(),
            self.cards.copy(),
            self.reserved.copy(),
            self.blind.copy(),
            self.nobles.copy(),
            self.points,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "tokens": list(self.tokens),
            "bonuses": list(self.bonuses),
            "cards": list(self.cards),
            "reserved": list(self.reserved),
            "blind": list(self.blind),
            "nobles": list(self.nobles),
            "points": self.points,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PlayerState:
        return cls(
            tokens=list(data["tokens"]),
            bonuses=list(data["bonuses"]),
            cards=list(data["cards"]),
            reserved=list(data["reserved"]),
            blind=list(data["blind"]),
            nobles=list(data["nobles"]),
            points=data["points"],
        )


@dataclass(slots=True)
class GameState:
    """Everything about one game at one moment."""

    seed: int
    first_player: int
    no_gold_small: bool
    bank: list[int]
    decks: list[list[int]]  # per level 1..3; the top of a deck is its last element
    market: list[list[int]]  # per level, four slots; EMPTY where the deck ran out
    nobles: list[int]  # nobles still on the table
    players: list[PlayerState]
    current: int
    phase: str = MAIN
    to_return: int = 0
    noble_choices: list[int] = field(default_factory=list)
    final_round: bool = False
    passes_in_row: int = 0
    turn: int = 0  # completed turns
    moves: int = 0  # applied actions, the game's version
    # Public record of what happened, for highlighting on the screens.
    turn_events: list[str] = field(default_factory=list)
    last_turn_seat: int = -1
    last_turn_events: list[str] = field(default_factory=list)
    # Market spaces (level, slot index) given a new card from the deck this turn
    # and in the last complete turn, for the screens to highlight.
    turn_refills: list[tuple[int, int]] = field(default_factory=list)
    last_refills: list[tuple[int, int]] = field(default_factory=list)
    # The stalemate count: complete rounds in a row in which nobody bought or
    # reserved a card, and whether the round being played is still quiet.
    quiet_rounds: int = 0
    round_is_quiet: bool = True
    ended_by: str = ""  # POINTS, PASSES or STALEMATE once the game is over

    @property
    def num_players(self) -> int:
        return len(self.players)

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    def to_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "first_player": self.first_player,
            "no_gold_small": self.no_gold_small,
            "bank": list(self.bank),
            "decks": [list(d) for d in self.decks],
            "market": [list(row) for row in self.market],
            "nobles": list(self.nobles),
            "players": [p.to_dict() for p in self.players],
            "current": self.current,
            "phase": self.phase,
            "to_return": self.to_return,
            "noble_choices": list(self.noble_choices),
            "final_round": self.final_round,
            "passes_in_row": self.passes_in_row,
            "turn": self.turn,
            "moves": self.moves,
            "turn_events": list(self.turn_events),
            "last_turn_seat": self.last_turn_seat,
            "last_turn_events": list(self.last_turn_events),
            "turn_refills": [list(space) for space in self.turn_refills],
            "last_refills": [list(space) for space in self.last_refills],
            "quiet_rounds": self.quiet_rounds,
            "round_is_quiet": self.round_is_quiet,
            "ended_by": self.ended_by,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameState:
        return cls(
            seed=data["seed"],
            first_player=data["first_player"],
            no_gold_small=data["no_gold_small"],
            bank=list(data["bank"]),
            decks=[list(d) for d in data["decks"]],
            market=[list(row) for row in data["market"]],
            nobles=list(data["nobles"]),
            players=[PlayerState.from_dict(p) for p in data["players"]],
            current=data["current"],
            phase=data["phase"],
            to_return=data["to_return"],
            noble_choices=list(data["noble_choices"]),
            final_round=data["final_round"],
            passes_in_row=data["passes_in_row"],
            turn=data["turn"],
            moves=data["moves"],
            turn_events=list(data["turn_events"]),
            last_turn_seat=data["last_turn_seat"],
            last_turn_events=list(data["last_turn_events"]),
            turn_refills=_spaces(data.get("turn_refills", [])),
            last_refills=_spaces(data.get("last_refills", [])),
            # Snapshots from before the stalemate rule: its count starts afresh.
            quiet_rounds=data.get("quiet_rounds", 0),
            round_is_quiet=data.get("round_is_quiet", False),
            ended_by=data.get("ended_by", _old_ending(data)),
        )

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> GameState:
        return cls.from_dict(json.loads(text))

    def copy(self) -> GameState:
        """Return an independent copy, cheaply: a search plays out many of them.

        Every list is copied (the ints, strings and tuples inside are immutable).
        """
        return GameState(
            seed=self.seed,
            first_player=self.first_player,
            no_gold_small=self.no_gold_small,
            bank=self.bank.copy(),
            decks=[deck.copy() for deck in self.decks],
            market=[row.copy() for row in self.market],
            nobles=self.nobles.copy(),
            players=[player.copy() for player in self.players],
            current=self.current,
            phase=self.phase,
            to_return=self.to_return,
            noble_choices=self.noble_choices.copy(),
            final_round=self.final_round,
            passes_in_row=self.passes_in_row,
            turn=self.turn,
            moves=self.moves,
            turn_events=self.turn_events.copy(),
            last_turn_seat=self.last_turn_seat,
            last_turn_events=self.last_turn_events.copy(),
            turn_refills=self.turn_refills.copy(),
            last_refills=self.last_refills.copy(),
            quiet_rounds=self.quiet_rounds,
            round_is_quiet=self.round_is_quiet,
            ended_by=self.ended_by,
        )


def _spaces(data: list[list[int]]) -> list[tuple[int, int]]:
    return [(level, slot) for level, slot in data]


def _old_ending(data: dict[str, Any]) -> str:
    """How a game in a snapshot from before `ended_by` was stored ended."""
    if data["phase"] != OVER:
        return ""
    return PASSES if data["passes_in_row"] >= len(data["players"]) else POINTS


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended.

    `ranking` lists seats best first. `winners` has more than one seat only for
    a shared victory. `tie_break` is True when the fewest-cards rule decided
    between players tied on points. `ended_by` says how the game ended: POINTS,
    PASSES or STALEMATE.
    """

    ranking: tuple[int, ...]
    winners: tuple[int, ...]
    points: tuple[int, ...]
    cards: tuple[int, ...]
    tie_break: bool
    shared: bool
    ended_by: str

    @property
    def ended_by_passes(self) -> bool:
        return self.ended_by == PASSES

    @property
    def ended_by_stalemate(self) -> bool:
        return self.ended_by == STALEMATE
