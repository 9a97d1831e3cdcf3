"""The end of the game: the final round, passes and the outcome (RULES.md, "End of the game").

Card 49 is a level-2 blue card worth 2 points costing u5; card 12 is a level-1 blue
card costing w1 k2; noble 1 needs w4 u4, noble 7 needs w3 u3 k3.
"""

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from game.engine import GameState, IllegalActionError, outcome
from game.engine.state import MAIN, OVER
from tests.engine.builder import assert_refused, legal, play, position

# ---------------------------------------------------------------- the final round


def scorer_position(players: int, first: int, scorer: int) -> GameState:
    """`scorer` is to play with 13 points and can buy card 49 (2 points) for 15."""
    seats: list[dict[str, Any]] = [{} for _ in range(players)]
    seats[scorer] = {"tokens": "uuuuu", "points": 13}
    return position(players, seats=seats, market={2: [49]}, current=scorer, first=first)


def test_reaching_fifteen_does_not_end_the_game_at_once():
    state = scorer_position(2, first=0, scorer=0)
    play(state, "buy:49:uuuuu")
    assert state.players[0].points == 15
    assert state.final_round
    assert state.phase == MAIN
    assert not state.is_over
    assert state.current == 1
    assert legal(state)
    assert outcome(state) is None


@pytest.mark.parametrize(
    ("players", "first", "scorer", "turns_left"),
    [
        (2, 0, 0, 1),
        (2, 0, 1, 0),
        (2, 1, 1, 1),
        (2, 1, 0, 0),
        (3, 0, 0, 2),
        (3, 0, 1, 1),
        (3, 0, 2, 0),
        (3, 1, 1, 2),
        (3, 1, 0, 0),
        (3, 2, 0, 1),
        (4, 2, 2, 3),
        (4, 2, 3, 2),
        (4, 2, 0, 1),
        (4, 2, 1, 0),
    ],
)
def test_the_game_ends_after_the_seat_just_before_the_first_player(
    players: int, first: int, scorer: int, turns_left: int
):
    state = scorer_position(players, first, scorer)
    play(state, "buy:49:uuuuu")
    seats_played = []
    while not state.is_over:
        seats_played.append(state.current)
        play(state, "take:wgr")
    expected = [(scorer + 1 + i) % players for i in range(turns_left)]
    assert seats_played == expected
    assert state.phase == OVER
    assert state.current == first
    assert state.turn == 1 + turns_left
    result = outcome(state)
    assert result is not None
    assert result.winners == (scorer,)
    assert result.ended_by_passes is False


def test_the_seat_before_the_first_player_reaching_fifteen_ends_the_game_at_once():
    state = scorer_position(2, first=1, scorer=0)
    play(state, "buy:49:uuuuu")
    assert state.is_over


def test_a_noble_that_makes_fifteen_starts_the_final_round():
    state = position(seats=[{"bonuses": "wwwwuuukk", "points": 12}], market={1: [12]}, nobles=[1])
    play(state, "buy:12:-")
    assert state.players[0].points == 15
    assert state.final_round
    assert state.current == 1
    play(state, "take:wug")
    assert state.is_over


def test_a_chosen_noble_that_makes_fifteen_starts_the_final_round():
    state = position(
        seats=[{"bonuses": "wwwwuuukkk", "points": 12}], market={1: [12]}, nobles=[1, 7], first=1
    )
    play(state, "buy:12:-")
    assert not state.final_round
    play(state, "noble:7")
    assert state.final_round
    assert state.is_over  # seat 0 sits just before the first player, seat 1


def test_fourteen_points_do_not_start_the_final_round():
    state = position(seats=[{"tokens": "uuuuu", "points": 12}], market={2: [49]})
    play(state, "buy:49:uuuuu")
    assert not state.final_round


def test_a_later_player_can_overtake_in_the_final_round():
    state = position(
        seats=[{"points": 15}, {"points": 14, "tokens": "uuuuu"}],
        market={2: [49]},
        current=1,
        final_round=True,
    )
    play(state, "buy:49:uuuuu")
    result = outcome(state)
    assert result is not None
    assert result.winners == (1,)
    assert result.points == (15, 16)


def test_nothing_can_be_played_once_the_game_is_over():
    state = scorer_position(2, first=1, scorer=0)
    play(state, "buy:49:uuuuu")
    assert state.is_over
    assert legal(state) == set()
    assert_refused(state, "take:wug", IllegalActionError, "game is over")
    assert_refused(state, "pass", IllegalActionError, "game is over")
    assert_refused(state, "take:wug", IllegalActionError, "game is over", seat=0)
    assert_refused(state, "take:wug", IllegalActionError, "game is over", seat=1)


# ---------------------------------------------------------------- the outcome


def finish(players: int, seats: Sequence[Mapping[str, Any]]) -> GameState:
    """Play the last turn of a final round (a take by the last seat) and return the state."""
    state = position(players, seats=seats, current=players - 1, final_round=True)
    play(state, "take:wug")
    assert state.is_over
    return state


def test_the_most_points_win():
    result = outcome(finish(2, [{"points": 15}, {"points": 17}]))
    assert result is not None
    assert result.winners == (1,)
    assert result.ranking == (1, 0)
    assert result.points == (15, 17)
    assert not result.tie_break
    assert not result.shared
    assert not result.ended_by_passes


def test_a_tie_on_points_goes_to_the_fewest_purchased_cards_not_the_most_nobles():
    state = finish(
        2,
        [
            {"points": 15, "cards": [1, 2, 3, 4, 5, 6, 7], "nobles": [1, 2]},
            {"points": 15, "cards": [9, 10, 11, 12, 13, 14]},
        ],
    )
    result = outcome(state)
    assert result is not None
    assert result.winners == (1,)
    assert result.ranking == (1, 0)
    assert result.cards == (7, 6)
    assert result.tie_break
    assert not result.shared


def test_reserved_cards_do_not_count_in_the_tie_break():
    state = finish(
        2,
        [
            {"points": 15, "cards": [1, 2, 3, 4, 5, 6], "reserved": [41, 42, 43]},
            {"points": 15, "cards": [9, 10, 11, 12, 13, 14, 15]},
        ],
    )
    result = outcome(state)
    assert result is not None
    assert result.winners == (0,)
    assert result.cards == (6, 7)
    assert result.tie_break


def test_a_tie_on_points_and_cards_is_a_shared_victory():
    state = finish(
        2,
        [{"points": 16, "cards": [1, 2, 3, 4, 5]}, {"points": 16, "cards": [9, 10, 11, 12, 13]}],
    )
    result = outcome(state)
    assert result is not None
    assert result.winners == (0, 1)
    assert result.shared
    assert not result.tie_break


def test_a_shared_victory_leaves_out_a_tied_player_with_more_cards():
    state = finish(
        4,
        [
            {"points": 15, "cards": [1, 2, 3]},
            {"points": 15, "cards": [9, 10, 11, 12]},
            {"points": 15, "cards": [17, 18, 19]},
            {"points": 9, "cards": [25]},
        ],
    )
    result = outcome(state)
    assert result is not None
    assert result.winners == (0, 2)
    assert result.shared
    assert result.tie_break
    assert result.ranking == (0, 2, 1, 3)


def test_the_ranking_orders_by_points_then_fewest_cards():
    state = finish(
        3,
        [
            {"points": 8, "cards": [1]},
            {"points": 15, "cards": [9, 10]},
            {"points": 8, "cards": [17, 18, 19]},
        ],
    )
    result = outcome(state)
    assert result is not None
    assert result.ranking == (1, 0, 2)
    assert result.winners == (1,)
    assert not result.tie_break


def test_there_is_no_outcome_while_the_game_goes_on():
    assert outcome(position(seats=[{"points": 20}])) is None


# ---------------------------------------------------------------- passing

# Nothing to do: no gems in the bank, three reserved cards, nothing affordable.
STUCK: dict[str, Any] = {"reserved": [72, 73, 74], "tokens": "w"}


def stuck(players: int = 2, **kwargs: Any) -> GameState:
    seats = kwargs.pop("seats", [STUCK] * players)
    return position(players, bank="yy", seats=seats, market={3: [75]}, decks={1: [5]}, **kwargs)


def test_pass_is_the_only_legal_action_when_nothing_else_is_possible():
    state = stuck()
    assert legal(state) == {"pass"}
    play(state, "pass")
    assert state.current == 1
    assert state.passes_in_row == 1
    assert state.turn == 1
    assert not state.is_over


def test_pass_is_refused_while_gems_can_be_taken():
    state = position(bank="w", seats=[STUCK], market={3: [75]})
    assert legal(state) == {"take:w"}
    assert_refused(state, "pass", IllegalActionError, "only when no other action")


def test_pass_is_refused_while_a_card_can_be_reserved():
    state = position(bank="yy", seats=[{"reserved": [72, 73]}], decks={1: [5]})
    assert legal(state) == {"reserve:d1"}
    assert_refused(state, "pass", IllegalActionError, "only when no other action")


def test_pass_is_refused_while_a_card_can_be_bought():
    state = position(bank="", seats=[{**STUCK, "tokens": "www"}], market={1: [31]})
    assert legal(state) == {"buy:31:www"}
    assert_refused(state, "pass", IllegalActionError, "only when no other action")


def test_pass_is_refused_while_a_reserved_card_can_be_bought():
    state = position(bank="", seats=[{"reserved": [72, 73, 31], "tokens": "www"}])
    assert legal(state) == {"buy:31:www"}
    assert_refused(state, "pass", IllegalActionError, "only when no other action")


def test_a_full_round_of_passes_ends_the_game():
    state = stuck(2, seats=[{**STUCK, "points": 7}, {**STUCK, "points": 9}])
    play(state, "pass", "pass")
    assert state.is_over
    result = outcome(state)
    assert result is not None
    assert result.ended_by_passes
    assert result.winners == (1,)


def test_a_full_round_of_passes_ends_the_game_in_the_middle_of_a_round():
    state = stuck(3, current=1, first=0)
    play(state, "pass", "pass")
    assert not state.is_over
    play(state, "pass")
    assert state.is_over
    assert state.current == 1
    result = outcome(state)
    assert result is not None
    assert result.ended_by_passes
    assert result.shared  # nobody scored anything
    assert result.winners == (0, 1, 2)


def test_passes_broken_by_an_action_do_not_end_the_game():
    seats = [STUCK, {**STUCK, "reserved": [72, 73, 31], "bonuses": "www"}]
    state = stuck(2, seats=seats)
    play(state, "pass", "buy:31:-")
    assert state.passes_in_row == 0
    play(state, "pass")
    assert not state.is_over
    assert state.passes_in_row == 1


def test_a_pass_counts_as_a_turn_of_the_final_round():
    state = stuck(2, seats=[{**STUCK, "points": 15}, STUCK], current=1, final_round=True)
    play(state, "pass")
    assert state.is_over
    result = outcome(state)
    assert result is not None
    assert not result.ended_by_passes
    assert result.winners == (0,)


def test_a_noble_visits_at_the_end_of_a_pass():
    # Seat 0 took noble 7 over noble 1 earlier; both still qualify on bonuses.
    seats = [{**STUCK, "bonuses": "wwwwuuuukkk", "nobles": [7], "points": 12}, STUCK]
    state = stuck(2, seats=seats, nobles=[1])
    play(state, "pass")
    assert state.players[0].nobles == [7, 1]
    assert state.players[0].points == 15
    assert state.final_round


def test_a_game_ended_by_a_round_of_passes_says_so_even_when_the_last_pass_made_fifteen():
    # Seat 1 passes; seat 0 (the first player) passes and noble 1 brings them to 15.
    # Every player has passed in one round, so the game ends there, by passes: the
    # final round that the 15 points started is not complete (seat 1 has not played).
    seats = [{**STUCK, "bonuses": "wwwwuuuukkk", "nobles": [7], "points": 12}, STUCK]
    state = stuck(2, seats=seats, nobles=[1], current=1, first=0)
    play(state, "pass", "pass")
    assert state.players[0].points == 15
    assert state.is_over
    result = outcome(state)
    assert result is not None
    assert result.winners == (0,)
    assert result.ended_by_passes
