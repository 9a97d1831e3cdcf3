"""The story of a game: every seat's chance of winning after every turn.

Computed once a game has ended, from its seed and its moves. The chances are as
the table could see them: each position is played out many times by greedy
players from determinisations that redeal the decks and every seat's
blind-reserved cards from the cards nobody has seen (search.determinise with no
seat), so nothing hidden (the deck order, a blind reserve) ever counts. From
those chances come the turning point, each seat's best and worst turn, the lead
changes and the moments a chart marks; for each seat's best and worst turn the
hard bot says what it would have played instead, from that seat's own view.

Every position has a random generator of its own, seeded from the analysis seed
and the turn, so the story is the same whatever order the work is done in.

Cost: a greedy playout takes a few milliseconds (about 10 from a four-player
deal, less later), so DEFAULT_PLAYOUTS for the hundred turns of a four-player
game, plus the hard bot's eight searches, take about half a minute of one core.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from game.engine.actions import BUY, NOBLE, RESERVE, Action, parse_action
from game.engine.bots import GreedyBot
from game.engine.rules import apply_action, apply_legal_action, outcome
from game.engine.search import PLAYOUT_MOVES, SearchBot, determinise
from game.engine.setup import new_game
from game.engine.state import GameState

DEFAULT_PLAYOUTS = 48  # playouts per position when the caller gives none
SEARCH_FACTOR = 2  # the hard bot's playout cap per choice, in playouts per position
DECISIVE = 0.15  # a purchase raising its buyer's chance by this much is marked on a chart
# The turns whose chances moved most are where the story's words are: their positions are
# estimated again with SHARPEN_FACTOR times the playouts, so a turning point is a move
# that mattered rather than the luck of a few playouts.
SHARPEN_TURNS = 4
SHARPEN_FACTOR = 4
PLACES = 4  # chances are kept to this many decimal places (what to_dict writes)
SCALE = 10**PLACES
SHARES = 12  # one playout's win, in shares that split evenly between 1 to 4 winners

Progress = Callable[[int, int], None]


# ---------------------------------------------------------------- what was played


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """What the analysis needs of a game: its seed and its moves (the deal follows)."""

    players: int
    seed: int
    moves: tuple[str, ...]  # move notations, as stored (parse_action reads them)
    first_player: int | None = None
    no_gold_small: bool = False

    def deal(self) -> GameState:
        return new_game(self.players, self.seed, self.first_player, self.no_gold_small)


@dataclass(frozen=True, slots=True)
class TurnPoint:
    """The table after one completed turn (turn 0 = the deal)."""

    turn: int  # completed turns so far (0 = the deal)
    round: int  # the round of this turn, 1-based (0 for the deal)
    seat: int  # who played it (-1 for the deal)
    moves: tuple[str, ...]  # the notations of the turn's moves
    points: tuple[int, ...]  # every seat's prestige after it
    chances: tuple[float, ...]  # every seat's chance of winning after it, the table's view
    bought: tuple[int, ...] = ()  # card ids bought in this turn
    nobles: tuple[int, ...] = ()  # noble ids that visited in this turn
    reserved: tuple[int, ...] = ()  # card ids reserved face up from the market
    reserved_blind: tuple[int, ...] = ()  # deck LEVELS reserved blind (never the card)

    def to_dict(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "round": self.round,
            "seat": self.seat,
            "moves": list(self.moves),
            "points": list(self.points),
            "chances": [round(c, PLACES) for c in self.chances],
            "bought": list(self.bought),
            "nobles": list(self.nobles),
            "reserved": list(self.reserved),
            "reserved_blind": list(self.reserved_blind),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TurnPoint:
        return cls(
            turn=int(data["turn"]),
            round=int(data["round"]),
            seat=int(data["seat"]),
            moves=tuple(str(m) for m in data["moves"]),
            points=tuple(int(p) for p in data["points"]),
            chances=tuple(float(c) for c in data["chances"]),
            bought=tuple(int(c) for c in data["bought"]),
            nobles=tuple(int(n) for n in data["nobles"]),
            reserved=tuple(int(c) for c in data["reserved"]),
            reserved_blind=tuple(int(level) for level in data["reserved_blind"]),
        )


@dataclass(frozen=True, slots=True)
class Swing:
    """One turn seen through one seat's chance."""

    turn: TurnPoint
    seat: int  # whose chance moved
    before: float
    after: float

    @property
    def change(self) -> float:
        return self.after - self.before


@dataclass(frozen=True, slots=True)
class LeadChange:
    """A turn after which one seat alone is ahead on points, and another seat was before.

    The first seat ever to lead alone counts as a change too; a tie does not (the
    lead changes when the new leader goes past, not when it draws level).
    """

    turn: TurnPoint
    leaders: tuple[int, ...]  # the seat now ahead alone


@dataclass(frozen=True, slots=True)
class Story:
    """The whole analysis of one game, JSON-able through to_dict."""

    players: int
    playouts: int  # the budget it was computed with
    turns: tuple[TurnPoint, ...]  # turns[0] is the deal
    # Turn number -> the hard bot's choice at the start of that turn (for the turns
    # best_turn and worst_turn name), "" where it agreed with the move played.
    better: dict[int, str] = field(default_factory=dict)
    winners: tuple[int, ...] = ()  # the outcome's winners; () while the game goes on
    ended_by: str = ""  # how the game ended (state.POINTS, PASSES, STALEMATE), or ""

    # ------------------------------------------------ reading the chances

    def swings(self) -> list[Swing]:
        """Every seat's chance through every turn after the deal, in turn then seat order."""
        return [
            Swing(point, seat, previous.chances[seat], point.chances[seat])
            for previous, point in zip(self.turns, self.turns[1:], strict=False)
            for seat in range(self.players)
        ]

    def rounds(self) -> list[TurnPoint]:
        """The deal and the last turn of every round (a cut-short last round included)."""
        turns = self.turns
        return [
            point
            for i, point in enumerate(turns)
            if i == 0 or i == len(turns) - 1 or turns[i + 1].round != point.round
        ]

    def turning_point(self) -> Swing | None:
        """The turn that moved a seat's chance the most; the earliest of equals."""
        best: Swing | None = None
        for swing in self.swings():
            if abs(swing.change) > (abs(best.change) if best else 0.0):
                best = swing
        return best

    def best_turn(self, seat: int) -> Swing | None:
        """The seat's own turn that raised its own chance most (None if none raised it)."""
        own = self._own(seat)
        best = max(own, key=lambda s: s.change, default=None)
        return best if best is not None and best.change > 0 else None

    def worst_turn(self, seat: int) -> Swing | None:
        """The seat's own turn that lowered its own chance most (None if none lowered it)."""
        own = self._own(seat)
        worst = min(own, key=lambda s: s.change, default=None)
        return worst if worst is not None and worst.change < 0 else None

    def _own(self, seat: int) -> list[Swing]:
        # max and min keep the first of equals: the earliest turn.
        return [s for s in self.swings() if s.seat == seat and s.turn.seat == seat]

    def lead_changes(self) -> list[LeadChange]:
        """Each time a seat goes ahead alone on points, having not been the last to."""
        changes = []
        last = -1
        for point in self.turns[1:]:
            leaders = _leaders(point.points)
            if len(leaders) == 1 and leaders[0] != last:
                changes.append(LeadChange(point, leaders))
                last = leaders[0]
        return changes

    def marks(self) -> list[tuple[TurnPoint, str, int]]:
        """What a chart marks, in turn order: every noble's visit and the decisive purchases.

        A purchase is decisive when it raised its buyer's chance by DECISIVE or
        more, or when it was a winner's last.
        """
        finals = self._winners_last_purchases()
        found: list[tuple[TurnPoint, str, int]] = []
        for previous, point in zip(self.turns, self.turns[1:], strict=False):
            seat = point.seat
            rise = point.chances[seat] - previous.chances[seat]
            for card_id in point.bought:
                if rise >= DECISIVE - 1e-9 or point.turn in finals:
                    found.append((point, "buy", card_id))
            found += [(point, "noble", noble_id) for noble_id in point.nobles]
        return found

    def _winners_last_purchases(self) -> set[int]:
        """The turns in which each winner bought their last card."""
        turns = set()
        for winner in self.winners:
            bought = [p.turn for p in self.turns if p.seat == winner and p.bought]
            if bought:
                turns.add(bought[-1])
        return turns

    # ------------------------------------------------ storing

    def lowest(self, seat: int) -> float:
        """The seat's lowest chance of winning while the game was played (after the deal,
        before its last turn, which only settles it); the deal's chance for a game with
        no such turn."""
        during = self.turns[1:-1] or self.turns[:1]
        return min(point.chances[seat] for point in during)

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "playouts": self.playouts,
            "turns": [point.to_dict() for point in self.turns],
            "better": {str(turn): text for turn, text in sorted(self.better.items())},
            "winners": list(self.winners),
            "ended_by": self.ended_by,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Story:
        return cls(
            players=int(data["players"]),
            playouts=int(data["playouts"]),
            turns=tuple(TurnPoint.from_dict(t) for t in data["turns"]),
            better={int(turn): str(text) for turn, text in data["better"].items()},
            winners=tuple(int(s) for s in data.get("winners", ())),
            ended_by=str(data.get("ended_by", "")),
        )


def _leaders(points: Sequence[int]) -> tuple[int, ...]:
    """The seats with the most points."""
    top = max(points)
    return tuple(s for s, p in enumerate(points) if p == top)


# ---------------------------------------------------------------- chances


def chances(state: GameState, playouts: int, rng: random.Random) -> tuple[float, ...]:
    """Each seat's chance of winning from `state`, as the table sees it.

    `playouts` greedy playouts, each from a fresh determinisation that redeals
    every card nobody has seen. A shared win splits; a playout that hits the
    move limit counts for the leaders on points. Rounded to PLACES decimals,
    summing to 1. A finished game's chances are its outcome.
    """
    shares = [0] * state.num_players
    if state.is_over:
        _credit(shares, _winners(state))
        return _rounded(shares)
    for _ in range(max(1, playouts)):
        sample = determinise(state, -1, rng)  # seat -1: nobody's hidden cards are known
        luck = rng.randrange(2**32)
        bots = [GreedyBot(luck + s) for s in range(state.num_players)]
        _credit(shares, _play_out(sample, bots))
    return _rounded(shares)


def _play_out(state: GameState, bots: Sequence[GreedyBot]) -> tuple[int, ...]:
    """Play the sample out with greedy players; return who won it."""
    limit = state.moves + PLAYOUT_MOVES
    while not state.is_over and state.moves < limit:
        current = state.current
        apply_legal_action(state, bots[current].choose(state, current))
    return _winners(state)


def _winners(state: GameState) -> tuple[int, ...]:
    """The outcome's winners, or the leaders on points of a game that goes on."""
    result = outcome(state)
    if result is not None:
        return result.winners
    return _leaders([p.points for p in state.players])


def _credit(shares: list[int], winners: Sequence[int]) -> None:
    for seat in winners:
        shares[seat] += SHARES // len(winners)


def _rounded(shares: Sequence[int]) -> tuple[float, ...]:
    """Shares as chances to PLACES decimals that add up to 1 (largest remainders)."""
    total = sum(shares)
    exact = [Fraction(s * SCALE, total) for s in shares]
    units = [int(e) for e in exact]
    by_remainder = sorted(range(len(shares)), key=lambda s: (-(exact[s] - units[s]), s))
    for seat in by_remainder[: SCALE - sum(units)]:
        units[seat] += 1
    return tuple(u / SCALE for u in units)


def position_rng(seed: int, turn: int, purpose: str = "chances") -> random.Random:
    """The generator of one position's work: the same whatever order positions are done in."""
    return random.Random(f"story:{purpose}:{seed}:{turn}")


# ---------------------------------------------------------------- replaying


@dataclass(frozen=True, slots=True)
class Played:
    """One completed turn as replayed: the table before it and what it did."""

    before: GameState  # the table at the start of the turn
    after: GameState
    seat: int
    moves: tuple[str, ...]


def turns_of(start: GameState, moves: Sequence[str]) -> list[Played]:
    """Replay the moves turn by turn; moves of a turn left unfinished are left out."""
    state = start.copy()
    played: list[Played] = []
    before, pending = state.copy(), []
    for text in moves:
        pending.append(text)
        apply_action(state, parse_action(text))
        if state.turn > before.turn:
            played.append(Played(before, state.copy(), before.current, tuple(pending)))
            before, pending = state.copy(), []
    return played


def _point(turn: Played, round_number: int, odds: tuple[float, ...]) -> TurnPoint:
    seat = turn.seat
    actions = [parse_action(text) for text in turn.moves]
    visited = turn.after.players[seat].nobles[len(turn.before.players[seat].nobles) :]
    return TurnPoint(
        turn=turn.after.turn,
        round=round_number,
        seat=seat,
        moves=turn.moves,
        points=tuple(p.points for p in turn.after.players),
        chances=odds,
        bought=tuple(a.card for a in actions if a.kind == BUY),
        nobles=tuple(visited),  # a lone qualifying noble visits with no move of its own
        reserved=tuple(a.card for a in actions if a.kind == RESERVE and a.card),
        reserved_blind=tuple(a.level for a in actions if a.kind == RESERVE and not a.card),
    )


def _deal_point(start: GameState, odds: tuple[float, ...]) -> TurnPoint:
    points = tuple(p.points for p in start.players)
    return TurnPoint(start.turn, 0, -1, (), points, odds)


def _round_numbers(turns: Sequence[Played]) -> list[int]:
    """Each turn's round: a round ends when play comes back to the first player."""
    numbers = []
    current = 1
    for turn in turns:
        numbers.append(current)
        if turn.after.current == turn.after.first_player:
            current += 1
    return numbers


# ---------------------------------------------------------------- the analysis


def analyse(
    game: PlayedGame,
    playouts: int = DEFAULT_PLAYOUTS,
    seed: int = 0,
    progress: Progress | None = None,
) -> Story:
    """Tell the story of a game (finished or not) from its seed and its moves."""
    return analyse_from(game.deal(), game.moves, playouts, seed, progress)


def analyse_from(
    start: GameState,
    moves: Sequence[str],
    playouts: int = DEFAULT_PLAYOUTS,
    seed: int = 0,
    progress: Progress | None = None,
) -> Story:
    """Tell the story of the moves played from `start` (analyse's work, from any table).

    progress(done, total) follows every position's playouts and every hard-bot
    search; the total (positions plus two searches a seat) is fixed from the start.
    """
    turns = turns_of(start, moves)
    players = start.num_players
    total = len(turns) + 1 + 2 * SHARPEN_TURNS + 2 * players
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    points = [_deal_point(start, chances(start, playouts, position_rng(seed, start.turn)))]
    tick()
    for turn, round_number in zip(turns, _round_numbers(turns), strict=True):
        odds = chances(turn.after, playouts, position_rng(seed, turn.after.turn))
        points.append(_point(turn, round_number, odds))
        tick()
    states = [start] + [turn.after for turn in turns]
    points = _sharpened(points, states, playouts * SHARPEN_FACTOR, seed, tick)
    end = turns[-1].after if turns else start
    result = outcome(end)
    story = Story(
        players=players,
        playouts=playouts,
        turns=tuple(points),
        winners=result.winners if result else (),
        ended_by=result.ended_by if result else "",
    )
    # The best and worst turns are read from the story itself, so `better` names them.
    return replace(story, better=_better_moves(story, turns, playouts, seed, tick))


def _sharpened(
    points: list[TurnPoint],
    states: Sequence[GameState],
    playouts: int,
    seed: int,
    tick: Callable[[], None],
) -> list[TurnPoint]:
    """The positions around the SHARPEN_TURNS turns that moved a chance most, estimated
    again with `playouts` each (the others keep theirs)."""

    def moved(index: int) -> float:
        before, after = points[index - 1].chances, points[index].chances
        return max(abs(a - b) for a, b in zip(after, before, strict=True))

    biggest = sorted(range(1, len(points)), key=lambda i: (-moved(i), i))[:SHARPEN_TURNS]
    again = sorted({i for turn in biggest for i in (turn - 1, turn)})
    sharp = list(points)
    for index in again:
        rng = position_rng(seed, states[index].turn, "sharpen")
        sharp[index] = replace(points[index], chances=chances(states[index], playouts, rng))
        tick()
    for _ in range(2 * SHARPEN_TURNS - len(again)):
        tick()  # positions not sharpened (few turns, shared ones) still count
    return sharp


def _better_moves(
    story: Story, turns: Sequence[Played], playouts: int, seed: int, tick: Callable[[], None]
) -> dict[int, str]:
    """The hard bot's choice at the start of each seat's best and worst turn."""
    by_number = {turn.after.turn: turn for turn in turns}
    better: dict[int, str] = {}
    for seat in range(story.players):
        for swing in (story.best_turn(seat), story.worst_turn(seat)):
            if swing is not None and swing.turn.turn not in better:
                turn = by_number[swing.turn.turn]
                better[swing.turn.turn] = _hard_choice(turn, playouts, seed)
            tick()  # a seat without such a turn still counts, so the total holds
    return better


def _hard_choice(turn: Played, playouts: int, seed: int) -> str:
    """What the hard bot would have played, from the seat's own view; "" if the same."""
    rng = position_rng(seed, turn.before.turn, "search")
    bot = SearchBot(rng.randrange(2**32), playouts=max(1, playouts * SEARCH_FACTOR))
    choice = bot.choose(turn.before, turn.seat)
    return "" if _same(choice, parse_action(turn.moves[0])) else choice.notation()


def _same(choice: Action, played: Action) -> bool:
    """The same move, a purchase of the same card however it was paid included."""
    if choice.kind == BUY and played.kind == BUY:
        return choice.card == played.card
    if choice.kind == NOBLE and played.kind == NOBLE:
        return choice.noble == played.noble
    return choice.notation() == played.notation()
