"""What one viewer may see: a seat, the table (TV) or a spectator.

Screens only ever receive these views, never a GameState, so a deck order or
another seat's blind-reserved card cannot reach a template by accident.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from typing import NamedTuple

from game.engine.actions import BUY, Action
from game.engine.cards import card, noble
from game.engine.colours import GEMS, NAMES
from game.engine.rules import affordable, legal_actions, outcome, payments_when_affordable
from game.engine.state import EMPTY, GameState, Outcome, PlayerState

TABLE = "table"
SPECTATOR = "spectator"
Viewer = int | str


class ColourCount(NamedTuple):
    colour: str
    amount: int


# One view per card and per noble (card_view, noble_view), so a view is equal only to
# itself: screens look regions up by the cards they show, hundreds of times a change,
# and the interpreter's own identity hash and comparison cost nothing, where a hash or
# an equality written in Python (even one that hashed only the id) was a call each.
@dataclass(frozen=True, slots=True, eq=False)
class CardView:
    id: int
    level: int
    bonus: str
    points: int
    cost: tuple[ColourCount, ...]  # only the colours it costs


@dataclass(frozen=True, slots=True)
class ReservedView:
    """A reserved card; `card` is None when the viewer sees only its back."""

    level: int
    blind: bool
    card: CardView | None


@dataclass(frozen=True, slots=True, eq=False)
class NobleView:
    id: int
    points: int
    requires: tuple[ColourCount, ...]  # one view per noble, as per card (CardView)


@dataclass(frozen=True, slots=True)
class PlayerView:
    seat: int
    tokens: tuple[ColourCount, ...]  # six colours, gold last
    token_count: int
    bonuses: tuple[ColourCount, ...]  # five gem colours
    points: int
    cards: int  # purchased cards: the tie-break
    reserved: tuple[ReservedView, ...]
    nobles: tuple[NobleView, ...]


@dataclass(frozen=True, slots=True)
class GameView:
    """The game as one viewer sees it. `me` and `legal` are set for a seat only."""

    viewer: Viewer
    version: int
    phase: str
    current: int
    first_player: int
    turn: int
    final_round: bool
    bank: tuple[ColourCount, ...]
    market: tuple[tuple[CardView | None, ...], ...]  # levels 1..3, None for an empty space
    deck_counts: tuple[int, ...]
    nobles: tuple[NobleView, ...]
    players: tuple[PlayerView, ...]
    to_return: int
    noble_choices: tuple[int, ...]
    last_turn_seat: int
    last_turn_events: tuple[str, ...]
    last_refills: tuple[tuple[int, int], ...]  # (level, slot index) given a new card last turn
    quiet_rounds: int  # complete rounds in a row without a card bought or reserved
    outcome: Outcome | None
    me: PlayerView | None = None
    legal: tuple[Action, ...] = ()
    affordable: frozenset[int] = frozenset()
    # (card id, every way this seat can pay for it now, least gold first), whoever's
    # turn it is: a phone shows what its player could buy on their turn.
    payments: tuple[tuple[int, tuple[tuple[int, ...], ...]], ...] = ()

    @property
    def cheapest(self) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """(card id, the payment that spends the least gold) for each affordable card."""
        return tuple((card_id, ways[0]) for card_id, ways in self.payments)


def colour_counts(counts: list[int] | tuple[int, ...]) -> tuple[ColourCount, ...]:
    return _colour_counts(tuple(counts))


# One object for each colour and amount, shared by every view: the counts are
# few, and views made at every change, remembered for seconds by the screens'
# caches, would otherwise hold tens of thousands of them for the garbage
# collector to walk.
colour_count = cache(ColourCount)


# Views are immutable and made for every seat at every change: a card's view, a
# noble's view and a row of counts are built once and shared.
@lru_cache(maxsize=4096)
def _colour_counts(counts: tuple[int, ...]) -> tuple[ColourCount, ...]:
    return tuple(colour_count(NAMES[c], n) for c, n in enumerate(counts))


@cache  # the only view of this card: views compare by identity (CardView)
def card_view(card_id: int) -> CardView:
    c = card(card_id)
    cost = tuple(colour_count(NAMES[g], n) for g, n in zip(GEMS, c.cost, strict=True) if n)
    return CardView(c.id, c.level, NAMES[c.bonus], c.points, cost)


@cache  # the only view of this noble (NobleView)
def noble_view(noble_id: int) -> NobleView:
    n = noble(noble_id)
    needs = tuple(colour_count(NAMES[g], k) for g, k in zip(GEMS, n.requires, strict=True) if k)
    return NobleView(n.id, n.points, needs)


def _reserved_view(card_id: int, blind: bool, visible: bool) -> ReservedView:
    # A blind card's face is the owner's secret; everyone sees its level.
    shown = card_view(card_id) if visible or not blind else None
    return ReservedView(card(card_id).level, blind, shown)


def player_view(seat: int, player: PlayerState, viewer: Viewer) -> PlayerView:
    own = viewer == seat
    return PlayerView(
        seat=seat,
        tokens=colour_counts(player.tokens),
        token_count=player.token_count(),
        bonuses=colour_counts(player.bonuses),
        points=player.points,
        cards=len(player.cards),
        reserved=tuple(
            _reserved_view(c, b, own) for c, b in zip(player.reserved, player.blind, strict=True)
        ),
        nobles=tuple(noble_view(n) for n in player.nobles),
    )


def view_for(state: GameState, viewer: Viewer) -> GameView:
    """Return what `viewer` (a seat number, TABLE or SPECTATOR) may see now."""
    return views_for(state, (viewer,))[viewer]


def views_for(state: GameState, viewers: Iterable[Viewer]) -> dict[Viewer, GameView]:
    """Return what each viewer may see now, as `view_for` would, sharing what they share.

    Everyone sees the same public game: a seat's view differs only in its own panel
    (its blind reserves face up) and what only it is told (its hand, legal actions and
    payments). The public part is made once for all (a change makes five views).
    """
    for viewer in viewers:
        _check_viewer(state, viewer)
    public = _public_view(state)
    return {
        viewer: _with_seat_extras(state, public, viewer)
        if isinstance(viewer, int)
        else replace(public, viewer=viewer)
        for viewer in viewers
    }


def _check_viewer(state: GameState, viewer: Viewer) -> None:
    is_seat = isinstance(viewer, int) and not isinstance(viewer, bool)
    if not is_seat and viewer not in (TABLE, SPECTATOR):  # also refuses True/False
        raise ValueError(f"Unknown viewer {viewer!r}.")
    if is_seat and not 0 <= int(viewer) < state.num_players:
        raise ValueError(f"There is no seat {viewer}.")


def _public_view(state: GameState) -> GameView:
    """The game as the table sees it: every blind reserve face down."""
    return GameView(
        viewer=TABLE,
        version=state.moves,
        phase=state.phase,
        current=state.current,
        first_player=state.first_player,
        turn=state.turn,
        final_round=state.final_round,
        bank=colour_counts(state.bank),
        market=tuple(
            tuple(card_view(c) if c != EMPTY else None for c in row) for row in state.market
        ),
        deck_counts=tuple(len(d) for d in state.decks),
        nobles=tuple(noble_view(n) for n in state.nobles),
        players=tuple(player_view(s, p, TABLE) for s, p in enumerate(state.players)),
        to_return=state.to_return,
        noble_choices=tuple(state.noble_choices),
        last_turn_seat=state.last_turn_seat,
        last_turn_events=tuple(state.last_turn_events),
        last_refills=tuple(state.last_refills),
        quiet_rounds=state.quiet_rounds,
        outcome=outcome(state),
    )


def _with_seat_extras(state: GameState, public: GameView, seat: int) -> GameView:
    """The seat's view: the public one with its own panel (blind reserves face up), and
    what only it sees: its hand, its legal actions, what it can afford."""
    player = state.players[seat]
    players = public.players
    if any(player.blind):  # otherwise its panel is the same as everyone sees
        own = player_view(seat, player, seat)
        players = (*players[:seat], own, *players[seat + 1 :])
    offered = [c for row in state.market for c in row if c != EMPTY] + player.reserved
    can_buy = frozenset(affordable(player, offered))
    # The cards are known affordable: their ways to pay, without asking that again.
    ways = tuple(
        (c, tuple(p)) for c in sorted(can_buy) if (p := payments_when_affordable(player, c))
    )
    on_turn = seat == state.current and not state.is_over
    return replace(
        public,
        viewer=seat,
        players=players,
        me=players[seat],
        legal=tuple(legal_actions(state)) if on_turn else (),
        affordable=can_buy,
        payments=ways,
    )


# How a seat played in the open buys a card it reserved blind, whose id its view cannot
# name: "blind:<its place among the seat's reserves>" (game.writer.moves.play_on_tv finds
# the card and pays the cheapest way).
BLIND_BUY = "blind:"


def view_in_the_open(state: GameState, seat: int) -> GameView:
    """Return the view of a seat played in the open (on the TV, which everyone sees):
    its legal actions and what it can afford, with its blind reserves face down and left
    out of both, so that nothing in it names a card only that seat may see."""
    _check_viewer(state, seat)
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise ValueError(f"Unknown seat {seat!r}.")
    public = _public_view(state)
    player = state.players[seat]
    hidden = {c for c, blind in zip(player.reserved, player.blind, strict=True) if blind}
    offered = [c for row in state.market for c in row if c != EMPTY]
    offered += [c for c in player.reserved if c not in hidden]
    can_buy = frozenset(affordable(player, offered))
    ways = tuple(
        (c, tuple(p)) for c in sorted(can_buy) if (p := payments_when_affordable(player, c))
    )
    on_turn = seat == state.current and not state.is_over
    legal = tuple(
        a for a in (legal_actions(state) if on_turn else ()) if not _names_hidden(a, hidden)
    )
    return replace(
        public,
        viewer=seat,
        me=public.players[seat],
        legal=legal,
        affordable=can_buy,
        payments=ways,
    )


def _names_hidden(action: Action, hidden: set[int]) -> bool:
    return action.kind == BUY and action.card in hidden


def blind_reserve(state: GameState, seat: int, slot: int) -> int | None:
    """The card a seat reserved blind at this place of its reserves; None if there is
    none there, or it was reserved face up (a look shows only a blind reserve)."""
    if not 0 <= seat < state.num_players:
        return None
    player = state.players[seat]
    if not 0 <= slot < len(player.reserved) or not player.blind[slot]:
        return None
    return player.reserved[slot]
