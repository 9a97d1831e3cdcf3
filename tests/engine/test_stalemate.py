"""The stalemate rule (RULES.md, "Stalemate"): 20 complete rounds without a card
bought or reserved end the game at the end of that round, ranked as usual.

In these positions every seat holds ten tokens, so a quiet turn takes three gems
and gives them back. Card 49 is a level-2 blue card worth 2 points costing u5
(nobody here can afford it with two blue tokens); cards 72-74 are level 3.
"""

from __future__ import annotations

from typing import Any

import pytest

from game.engine import GameState, apply_action, legal_actions, new_game, outcome, replay
from game.engine.actions import RESERVE, RETURN, TAKE, Action
from game.engine.state import (
    MAIN,
    OVER,
    PASSES,
    POINTS,
    STALEMATE,
    STALEMATE_ROUNDS,
)
from game.engine.state import RETURN as RETURN_PHASE
from tests.engine.builder import play, position

TEN = "wwuuggrrkk"


def quiet_position(players: int = 2, *, first: int = 0, **kwargs: Any) -> GameState:
    seats = kwargs.pop("seats", [{"tokens": TEN}] * players)
    current = kwargs.pop("current", first)
    return position(
        players,
        bank="wwwuuuggg",
        seats=seats,
        market={2: [49]},
        first=first,
        current=current,
        **kwargs,
    )


def quiet_turn(state: GameState) -> None:
    """Take white, blue and green, and give back whatever is above ten."""
    play(state, "take:wug")
    if state.phase == RETURN_PHASE:
        play(state, "return:" + "wug"[: state.to_return])


def quiet_rounds(state: GameState, rounds: int) -> None:
    for _ in range(rounds * state.num_players):
        quiet_turn(state)


@pytest.mark.parametrize(("players", "first"), [(2, 0), (2, 1), (3, 2), (4, 0), (4, 3)])
def test_the_game_ends_after_exactly_twenty_quiet_rounds(players: int, first: int):
    state = quiet_position(players, first=first)
    for _ in range(STALEMATE_ROUNDS * players - 1):
        quiet_turn(state)
    assert not state.is_over
    assert state.quiet_rounds == STALEMATE_ROUNDS - 1
    quiet_turn(state)
    assert state.is_over
    assert state.phase == OVER
    assert state.quiet_rounds == STALEMATE_ROUNDS
    assert state.turn == STALEMATE_ROUNDS * players
    assert state.current == first  # everyone played the same number of turns
    assert legal_actions(state) == []
    result = outcome(state)
    assert result is not None
    assert result.ended_by == STALEMATE
    assert result.ended_by_stalemate
    assert not result.ended_by_passes


def test_the_count_grows_only_when_a_round_ends():
    state = quiet_position(3, first=1)
    counts = []
    for _ in range(9):
        quiet_turn(state)
        counts.append(state.quiet_rounds)
    assert counts == [0, 0, 1, 1, 1, 2, 2, 2, 3]


@pytest.mark.parametrize("reserver", [0, 1, 2])
def test_a_reserve_resets_the_count_and_the_rounds_are_counted_at_their_end(reserver: int):
    # Whichever seat of the round reserves, the game ends at the end of the
    # twentieth complete round after that round: the count is in rounds, not turns.
    state = quiet_position(3, first=0)
    quiet_rounds(state, 5)
    assert state.quiet_rounds == 5
    for seat in range(3):
        if seat == reserver:
            play(state, "reserve:49")
        else:
            quiet_turn(state)
    assert state.quiet_rounds == 0
    quiet_rounds(state, STALEMATE_ROUNDS - 1)
    assert not state.is_over
    quiet_rounds(state, 1)
    assert state.is_over
    assert state.ended_by == STALEMATE
    assert state.turn == (6 + STALEMATE_ROUNDS) * 3


def test_a_blind_reserve_resets_the_count():
    state = quiet_position(2, decks={1: [5]}, quiet_rounds=STALEMATE_ROUNDS - 1)
    play(state, "reserve:d1")
    quiet_turn(state)
    assert not state.is_over
    assert state.quiet_rounds == 0


def test_a_buy_resets_the_count():
    seats = [{"tokens": "wwuuuuuggr"}, {"tokens": TEN}]
    state = quiet_position(2, seats=seats, quiet_rounds=STALEMATE_ROUNDS - 1)
    play(state, "buy:49:uuuuu")
    quiet_turn(state)
    assert not state.is_over
    assert state.quiet_rounds == 0
    quiet_rounds(state, STALEMATE_ROUNDS - 1)
    assert not state.is_over
    quiet_rounds(state, 1)
    assert state.ended_by == STALEMATE


def test_a_quiet_round_after_a_busy_one_counts_again_from_one():
    state = quiet_position(2, quiet_rounds=7)
    play(state, "reserve:49")
    quiet_turn(state)
    assert state.quiet_rounds == 0
    quiet_rounds(state, 1)
    assert state.quiet_rounds == 1


def test_a_stalemate_is_ranked_as_usual():
    # Seats 0 and 1 tie on points; seat 1 bought fewer cards and wins.
    seats = [
        {"tokens": TEN, "cards": [1, 2, 3], "bonuses": "", "points": 5},
        {"tokens": TEN, "cards": [4, 5], "bonuses": "", "points": 5},
        {"tokens": TEN, "points": 3},
        {"tokens": TEN, "points": 6, "cards": [7, 8, 9, 10], "bonuses": ""},
    ]
    state = quiet_position(4, seats=seats, first=2)
    quiet_rounds(state, STALEMATE_ROUNDS)
    result = outcome(state)
    assert result is not None
    assert result.ended_by == STALEMATE
    assert result.ranking == (3, 1, 0, 2)
    assert result.winners == (3,)
    assert result.points == (5, 5, 3, 6)
    assert result.cards == (3, 2, 0, 4)
    assert not result.tie_break


def test_a_stalemate_can_be_a_shared_victory():
    state = quiet_position(2, seats=[{"tokens": TEN, "points": 4}] * 2)
    quiet_rounds(state, STALEMATE_ROUNDS)
    result = outcome(state)
    assert result is not None
    assert result.ended_by == STALEMATE
    assert result.shared
    assert result.winners == (0, 1)


def test_reaching_fifteen_in_the_last_quiet_round_ends_the_game_by_points():
    seats = [{"tokens": "wwuuuuuggr", "points": 13}, {"tokens": TEN}]
    state = quiet_position(2, seats=seats, quiet_rounds=STALEMATE_ROUNDS - 1)
    play(state, "buy:49:uuuuu")
    assert state.final_round
    quiet_turn(state)
    assert state.is_over
    assert state.ended_by == POINTS
    assert state.quiet_rounds == 0
    result = outcome(state)
    assert result is not None
    assert result.winners == (0,)
    assert not result.ended_by_stalemate


def test_when_the_final_round_and_the_stalemate_end_together_the_points_say_why():
    seats = [{"tokens": TEN, "points": 15}, {"tokens": TEN, "points": 16}]
    state = quiet_position(2, seats=seats, quiet_rounds=STALEMATE_ROUNDS - 1, final_round=True)
    quiet_rounds(state, 1)
    assert state.quiet_rounds == STALEMATE_ROUNDS
    result = outcome(state)
    assert result is not None
    assert result.ended_by == POINTS
    assert result.winners == (1,)


# Nothing to do: no gems in the bank, three reserved cards, nothing affordable.
STUCK: dict[str, Any] = {"reserved": [72, 73, 74], "tokens": "w"}


def test_a_round_of_passes_that_is_also_the_last_quiet_round_ends_by_passes():
    state = position(
        2,
        bank="yy",
        seats=[STUCK, STUCK],
        market={3: [75]},
        quiet_rounds=STALEMATE_ROUNDS - 1,
    )
    play(state, "pass", "pass")
    assert state.is_over
    assert state.quiet_rounds == STALEMATE_ROUNDS
    result = outcome(state)
    assert result is not None
    assert result.ended_by == PASSES
    assert result.ended_by_passes


def test_passes_count_as_quiet_turns():
    state = position(
        3, bank="yy", seats=[STUCK] * 3, market={3: [75]}, current=2, first=0, quiet_rounds=4
    )
    play(state, "pass")  # the end of a quiet round
    assert state.quiet_rounds == 5
    assert not state.is_over


# ---------------------------------------------------------------- snapshots


def test_the_count_survives_a_snapshot():
    state = quiet_position(3, first=1)
    quiet_rounds(state, 4)
    quiet_turn(state)
    data = state.to_dict()
    assert data["quiet_rounds"] == 4
    assert data["round_is_quiet"] is True
    assert data["ended_by"] == ""
    assert GameState.from_json(state.to_json()) == state


def test_a_snapshot_from_before_the_rule_loads_and_starts_the_count_afresh():
    state = quiet_position(2, quiet_rounds=12)
    quiet_turn(state)
    data = state.to_dict()
    for key in ("quiet_rounds", "round_is_quiet", "ended_by"):
        del data[key]
    loaded = GameState.from_dict(data)
    assert loaded.quiet_rounds == 0
    assert loaded.ended_by == ""
    quiet_turn(loaded)  # the round already under way does not count
    assert loaded.quiet_rounds == 0
    quiet_rounds(loaded, STALEMATE_ROUNDS)
    assert loaded.ended_by == STALEMATE


@pytest.mark.parametrize(("passes", "ended_by"), [(2, PASSES), (0, POINTS)])
def test_a_finished_game_from_before_the_rule_says_how_it_ended(passes: int, ended_by: str):
    state = quiet_position(2)
    data = state.to_dict()
    data.update(phase=OVER, passes_in_row=passes, final_round=not passes)
    del data["ended_by"]
    result = outcome(GameState.from_dict(data))
    assert result is not None
    assert result.ended_by == ended_by


def never_buy(state: GameState, last_take: dict[int, tuple[int, ...]]) -> Action:
    """Take gems and give the same ones back; reserve only when nothing can be taken."""
    actions = legal_actions(state)
    if state.phase == RETURN_PHASE:
        back = Action(RETURN, gems=tuple(sorted(last_take[state.current][: state.to_return])))
        return back if back in actions else actions[0]
    takes = [a for a in actions if a.kind == TAKE and len(set(a.gems)) == len(a.gems)]
    if takes:
        last_take[state.current] = takes[-1].gems
        return takes[-1]
    return next((a for a in actions if a.kind == RESERVE), actions[0])


def test_a_real_game_of_only_taking_gems_ends_and_replays_exactly():
    state = new_game(2, seed=3)
    last_take: dict[int, tuple[int, ...]] = {}
    moves = []
    while not state.is_over:
        assert state.moves < 1000
        action = never_buy(state, last_take)
        apply_action(state, action)
        moves.append(action.notation())
    assert state.ended_by == STALEMATE
    rebuilt = replay(2, 3, moves, first_player=state.first_player)
    assert rebuilt == state
    assert GameState.from_json(rebuilt.to_json()) == state
    assert rebuilt.phase == OVER != MAIN
