"""Hundreds of seeded bot games played to the end, every invariant checked after every action.

After each action: tokens are conserved per colour, each of the 90 cards is in
exactly one place, no count is negative, nobody holds more than ten tokens
between turns, the state survives a JSON round trip, a game rebuilt from the
seed and the notations so far is identical, and no viewer's projection shows a
card it may not see. Every 25 moves and at the end, a full replay from the seed
rebuilds the same state too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from game.engine import CARDS, GameState, Outcome, apply_action, outcome, parse_action, replay
from game.engine.bot_registry import make_bot
from game.engine.bots import MAX_MOVES, Bot
from game.engine.projection import view_for
from game.engine.setup import new_game, starting_bank
from game.engine.state import (
    MAIN,
    OVER,
    PASSES,
    POINTS,
    RETURN,
    STALEMATE,
    STALEMATE_ROUNDS,
    TOKEN_LIMIT,
)
from tests.engine.test_projection import assert_no_leak, viewers

ALL_CARDS = sorted(c.id for c in CARDS)
# A full replay from the seed is O(moves): done every 25 moves and at the end. In
# between, a shadow game rebuilt only from the seed and the notation of each move
# must equal the played game after every single action.
REPLAY_EVERY = 25


@dataclass(frozen=True)
class Match:
    """A batch of seeded games: who plays, at how many seats."""

    kinds: tuple[str, ...]
    games: int
    first_seed: int

    @property
    def players(self) -> int:
        return len(self.kinds)

    def __str__(self) -> str:
        return "-".join(self.kinds)


MATCHES = [
    Match(("random", "random"), 55, 0),
    Match(("random", "random", "random"), 35, 1000),
    Match(("random", "random", "random", "random"), 25, 2000),
    Match(("greedy", "greedy"), 40, 3000),
    Match(("greedy", "greedy", "greedy"), 30, 4000),
    Match(("greedy", "greedy", "greedy", "greedy"), 30, 5000),
    Match(("greedy", "random"), 30, 6000),
    Match(("random", "greedy", "random"), 20, 7000),
    Match(("greedy", "random", "greedy", "random"), 20, 8000),
    Match(("random", "greedy", "greedy", "random"), 15, 9000),
]


def check_invariants(state: GameState, totals: Sequence[int]) -> None:
    players = state.players
    held = [state.bank[c] + sum(p.tokens[c] for p in players) for c in range(6)]
    assert held == list(totals), f"tokens {held} != {list(totals)}"
    places = [c for deck in state.decks for c in deck]
    places += [c for row in state.market for c in row if c]
    for p in players:
        places += p.cards + p.reserved
    assert sorted(places) == ALL_CARDS, "a card is lost or in two places"
    for p in players:
        assert min(p.tokens) >= 0 and min(p.bonuses) >= 0, f"negative count in {p}"
        assert len(p.reserved) == len(p.blind) <= 3
    assert min(state.bank) >= 0
    over = [s for s, p in enumerate(players) if p.token_count() > TOKEN_LIMIT]
    if state.phase in (MAIN, OVER):
        assert not over, f"seats {over} hold more than ten tokens between turns"
    elif state.phase == RETURN:
        assert over == [state.current]
        assert players[state.current].token_count() - state.to_return == TOKEN_LIMIT
    assert GameState.from_json(state.to_json()) == state


def check_views(state: GameState) -> None:
    for viewer in viewers(state):
        assert_no_leak(state, view_for(state, viewer))


def check_replay(state: GameState, moves: list[str]) -> None:
    rebuilt = replay(
        state.num_players,
        state.seed,
        moves,
        first_player=state.first_player,
        no_gold_small=state.no_gold_small,
    )
    assert rebuilt == state


def play_checked(
    players: int, seed: int, bots: Sequence[Bot], first_player: int, no_gold_small: bool
) -> GameState:
    state = new_game(players, seed, first_player, no_gold_small)
    shadow = new_game(players, seed, first_player, no_gold_small)
    totals = starting_bank(players, no_gold_small)
    moves: list[str] = []
    check_invariants(state, totals)
    while not state.is_over:
        assert state.moves < MAX_MOVES, f"game {seed} does not end"
        action = bots[state.current].choose(state, state.current)
        apply_action(state, action)
        moves.append(action.notation())
        apply_action(shadow, parse_action(moves[-1]))
        assert shadow == state, f"replaying {moves[-1]!r} diverged"
        check_invariants(state, totals)
        check_views(state)
        if state.moves % REPLAY_EVERY == 0:
            check_replay(state, moves)
    check_views(state)
    check_replay(state, moves)
    return state


def check_outcome(state: GameState) -> Outcome:
    result = outcome(state)
    assert result is not None
    assert result.winners and set(result.winners) <= set(range(state.num_players))
    assert sorted(result.ranking) == list(range(state.num_players))
    assert result.ranking[: len(result.winners)] == result.winners
    assert result.points == tuple(p.points for p in state.players)
    assert result.ended_by in (POINTS, PASSES, STALEMATE)
    if result.ended_by == POINTS:
        assert state.final_round and max(result.points) >= 15
    elif result.ended_by == STALEMATE:
        assert state.quiet_rounds == STALEMATE_ROUNDS
    else:
        assert state.passes_in_row >= state.num_players
    if result.ended_by != PASSES:
        assert state.current == state.first_player  # everyone played the same number of turns
    return result


# Not traced for coverage (pytest-cov's `no_cover`): the engine's unit tests cover every
# line these games run (the same lines with and without them), and tracing thousands
# of moves took twice their CPU (109 against 53 CPU-s, -n 2).
@pytest.mark.no_cover
@pytest.mark.slow
@pytest.mark.parametrize("match", MATCHES, ids=str)
def test_playouts(match: Match) -> None:
    by_passes = 0
    for seed in range(match.first_seed, match.first_seed + match.games):
        # A few small games with the "no gold" house rule; the first player rotates.
        no_gold_small = match.players < 4 and seed % 5 == 0
        bots = [make_bot(kind, seed * 10 + s) for s, kind in enumerate(match.kinds)]
        state = play_checked(match.players, seed, bots, seed % match.players, no_gold_small)
        by_passes += check_outcome(state).ended_by_passes
    if "random" not in match.kinds:
        assert by_passes <= match.games // 20, f"{by_passes} greedy games ended by passes"


def test_there_are_enough_playouts() -> None:
    assert sum(m.games for m in MATCHES) >= 300
    assert {m.players for m in MATCHES} == {2, 3, 4}
