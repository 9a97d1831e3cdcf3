"""The end of a turn: the 10-token limit, then nobles (RULES.md, "End of the turn").

Nobles used here (id: requirement): 1: w4 u4, 3: u4 g4, 5: r4 k4, 6: w3 u3 g3, 7: w3 u3 k3.
Card 12 is a level-1 blue card costing w1 k2.
"""

from itertools import combinations_with_replacement

import pytest

from game.engine import IllegalActionError
from game.engine.state import MAIN, NOBLE, RETURN
from tests.engine.builder import (
    assert_refused,
    bank_of,
    counts,
    legal,
    letters,
    play,
    position,
    tokens_of,
    total_tokens,
)


def returns_of(tokens: str, size: int) -> set[str]:
    """Every way to give back `size` of these tokens, as notation."""
    held = counts(tokens)
    found = set()
    for combo in combinations_with_replacement(range(6), size):
        if all(combo.count(c) <= held[c] for c in set(combo)):
            found.add("return:" + letters([combo.count(c) for c in range(6)]))
    return found


# ---------------------------------------------------------------- the 10-token limit


def test_gold_counts_in_the_ten_token_limit():
    # 7 gems and 1 gold, then 3 gems: 10 gems and 1 gold make 11 tokens.
    state = position(seats=[{"tokens": "wwuugrky"}])
    play(state, "take:grk")
    assert state.phase == RETURN
    assert state.to_return == 1
    assert state.current == 0
    assert legal(state) == {"return:w", "return:u", "return:g", "return:r", "return:k", "return:y"}


def test_the_gold_from_a_reserve_can_push_a_player_over_ten():
    state = position(seats=[{"tokens": "wwuuggrrkk"}], market={1: [1]})
    play(state, "reserve:1")
    assert state.phase == RETURN
    assert state.to_return == 1


def test_reserving_with_ten_tokens_and_no_gold_left_needs_no_return():
    state = position(bank="wwww", seats=[{"tokens": "wwuuggrrkk"}], market={1: [1]})
    play(state, "reserve:1")
    assert state.phase == MAIN
    assert state.current == 1


def test_exactly_ten_tokens_need_no_return():
    state = position(seats=[{"tokens": "wwuuggr"}])
    play(state, "take:wug")
    assert state.players[0].token_count() == 10
    assert state.phase == MAIN
    assert state.to_return == 0
    assert state.current == 1


def test_the_player_returns_exactly_the_excess():
    state = position(seats=[{"tokens": "wwuuggrkk"}])
    play(state, "take:wug")  # 12 tokens
    assert state.to_return == 2
    assert legal(state) == returns_of("wwwuuugggrkk", 2)
    assert_refused(state, "return:w", IllegalActionError, "exactly 2 tokens")
    assert_refused(state, "return:wuk", IllegalActionError, "exactly 2 tokens")
    play(state, "return:rk")
    assert tokens_of(state, 0) == "wwwuuugggk"
    assert state.phase == MAIN
    assert state.current == 1


@pytest.mark.parametrize(
    ("held", "take", "excess"),
    [("wwuugrky", "grk", 1), ("wwwuuugggy", "grk", 3), ("uuggrrkkyy", "ww", 2)],
)
def test_the_returns_offered_are_exactly_those_of_the_right_size(held: str, take: str, excess: int):
    state = position(seats=[{"tokens": held}])
    play(state, f"take:{take}")
    assert state.to_return == excess
    assert legal(state) == returns_of(tokens_of(state, 0), excess)


def test_the_excess_may_be_paid_in_gold():
    state = position(seats=[{"tokens": "wwuuggryy"}], bank="wwwwuuuuggggrrrrkkkky")
    play(state, "take:wuk")  # 12 tokens
    play(state, "return:yy")
    assert tokens_of(state, 0) == "wwwuuuggrk"
    assert bank_of(state) == "wwwuuuggggrrrrkkkyyy"


def test_the_tokens_just_taken_may_be_given_back():
    state = position(seats=[{"tokens": "wwwuuuggyy"}])
    play(state, "take:grk", "return:grk")
    assert tokens_of(state, 0) == "wwwuuuggyy"
    assert state.current == 1


def test_returning_tokens_you_do_not_have_is_refused():
    state = position(seats=[{"tokens": "wwuugrky"}])
    play(state, "take:grk")
    assert_refused(state, "return:yy", IllegalActionError, "exactly 1 tokens")
    state2 = position(seats=[{"tokens": "wwuuggrkk"}])
    play(state2, "take:wug")
    assert_refused(state2, "return:yy", IllegalActionError, "do not have that many gold")
    assert_refused(state2, "return:rr", IllegalActionError, "do not have that many red")


def test_no_other_action_is_allowed_while_tokens_are_due():
    state = position(seats=[{"tokens": "wwuuggrkk"}], market={1: [1]}, decks={1: [2]})
    play(state, "take:wug")
    assert_refused(state, "take:rk", IllegalActionError, "First give back 2 tokens")
    assert_refused(state, "reserve:1", IllegalActionError, "First give back 2 tokens")
    assert_refused(state, "buy:1:rkk", IllegalActionError, "First give back 2 tokens")
    assert_refused(state, "pass", IllegalActionError, "First give back 2 tokens")
    assert_refused(state, "noble:1", IllegalActionError, "First give back 2 tokens")


def test_another_player_cannot_return_for_the_one_over_ten():
    state = position(seats=[{"tokens": "wwuuggrkk"}, {"tokens": "rk"}])
    play(state, "take:wug")
    assert_refused(state, "return:rk", IllegalActionError, "not your turn", seat=1)


def test_returning_is_refused_when_nothing_is_due():
    state = position(seats=[{"tokens": "wwuu"}])
    assert_refused(state, "return:w", IllegalActionError, "not an action you can take now")


def test_the_limit_conserves_the_tokens():
    state = position(seats=[{"tokens": "wwuuggrkk"}])
    before = total_tokens(state)
    play(state, "take:wug", "return:wk")
    assert total_tokens(state) == before


# ---------------------------------------------------------------- nobles


def test_a_noble_visits_automatically_when_the_bonuses_meet_its_requirement():
    # w4 u3 k2 in bonuses; card 12 (w1 k2) is free for them and makes u4.
    state = position(seats=[{"bonuses": "wwwwuuukk"}], market={1: [12, 1]}, nobles=[1, 3, 5])
    play(state, "buy:12:-")
    player = state.players[0]
    assert player.nobles == [1]
    assert player.points == 3
    assert state.nobles == [3, 5]
    assert state.phase == MAIN
    assert state.current == 1


def test_only_bonuses_count_for_a_noble_not_tokens():
    state = position(seats=[{"bonuses": "wwwwuuu", "tokens": "uuuu"}], nobles=[1])
    play(state, "take:wgr")
    assert state.players[0].nobles == []
    assert state.nobles == [1]


def test_reserved_cards_do_not_count_for_a_noble():
    # Cards 9 and 10 are blue: holding them reserved gives no blue bonus.
    state = position(seats=[{"bonuses": "wwwwuuu", "reserved": [9, 10]}], nobles=[1])
    play(state, "take:wug")
    assert state.players[0].nobles == []
    assert state.nobles == [1]


def test_the_player_chooses_when_several_nobles_qualify():
    # w4 u3 k3, then a blue card: both noble 1 (w4 u4) and noble 7 (w3 u3 k3) qualify.
    state = position(seats=[{"bonuses": "wwwwuuukkk"}], market={1: [12]}, nobles=[1, 3, 7])
    play(state, "buy:12:-")
    assert state.phase == NOBLE
    assert state.current == 0
    assert state.players[0].nobles == []
    assert legal(state) == {"noble:1", "noble:7"}
    play(state, "noble:7")  # not the first one listed
    assert state.players[0].nobles == [7]
    assert state.players[0].points == 3
    assert state.nobles == [1, 3]
    assert state.phase == MAIN
    assert state.current == 1


def test_every_qualifying_noble_is_offered():
    # w3 u2 g3 r3 k3, then a blue card: nobles 6, 7 and 9 all need exactly the third blue.
    state = position(seats=[{"bonuses": "wwwuugggrrrkkk"}], market={1: [12]}, nobles=[1, 6, 7, 9])
    play(state, "buy:12:-")
    assert legal(state) == {"noble:6", "noble:7", "noble:9"}
    play(state, "noble:9")
    assert state.nobles == [1, 6, 7]


def test_choosing_a_noble_that_does_not_qualify_is_refused():
    state = position(seats=[{"bonuses": "wwwwuuukkk"}], market={1: [12]}, nobles=[1, 3, 7])
    play(state, "buy:12:-")
    assert_refused(state, "noble:3", IllegalActionError, "cannot visit you")
    assert_refused(state, "noble:9", IllegalActionError, "cannot visit you")


def test_no_other_action_is_allowed_while_a_noble_is_being_chosen():
    state = position(seats=[{"bonuses": "wwwwuuukkk"}], market={1: [12, 1]}, nobles=[1, 7])
    play(state, "buy:12:-")
    assert_refused(state, "take:wug", IllegalActionError, "choose which noble")
    assert_refused(state, "pass", IllegalActionError, "choose which noble")
    assert_refused(state, "return:w", IllegalActionError, "choose which noble")
    assert_refused(state, "noble:1", IllegalActionError, "not your turn", seat=1)


def test_at_most_one_noble_visits_a_turn():
    state = position(seats=[{"bonuses": "wwwwuuukkk"}], market={1: [12]}, nobles=[1, 7])
    play(state, "buy:12:-", "noble:1")
    assert state.players[0].nobles == [1]
    assert state.players[0].points == 3
    assert state.nobles == [7]
    assert state.current == 1


def test_a_noble_not_taken_visits_the_same_player_at_a_later_turn():
    state = position(seats=[{"bonuses": "wwwwuuukkk"}], market={1: [12]}, nobles=[1, 7])
    play(state, "buy:12:-", "noble:1", "take:wug")
    assert state.players[0].nobles == [1]
    play(state, "take:wug")  # seat 0 again: now noble 7 visits, with no choice to make
    assert state.players[0].nobles == [1, 7]
    assert state.players[0].points == 6
    assert state.nobles == []


def test_a_noble_not_taken_can_visit_another_player_who_qualifies():
    state = position(
        seats=[{"bonuses": "wwwwuuukkk"}, {"bonuses": "wwwwuuukk", "tokens": "gr"}],
        market={1: [12, 13]},
        nobles=[1, 7],
    )
    play(state, "buy:12:-", "noble:7")
    assert state.nobles == [1]
    play(state, "buy:13:gr")  # card 13 (blue) costs w1 g1 r1 k1; bonuses cover w and k
    assert state.players[1].nobles == [1]
    assert state.players[1].points == 3
    assert state.nobles == []


def test_the_noble_comes_after_the_token_return():
    # Seat 0 already meets noble 1 (they chose noble 7 over it last turn).
    state = position(
        seats=[{"bonuses": "wwwwuuuukkk", "nobles": [7], "points": 3, "tokens": "wwwuuugggy"}],
        nobles=[1],
    )
    play(state, "take:grk")
    assert state.phase == RETURN
    assert state.players[0].nobles == [7]
    play(state, "return:ggg")
    assert state.players[0].nobles == [7, 1]
    assert state.players[0].points == 6
    assert state.current == 1


def test_a_noble_choice_can_follow_a_token_return():
    state = position(seats=[{"bonuses": "wwwwuuuukkk", "tokens": "wwwuuugggy"}], nobles=[1, 7])
    play(state, "take:grk", "return:ggg")
    assert state.phase == NOBLE
    assert legal(state) == {"noble:1", "noble:7"}


# ---------------------------------------------------------------- passing the turn


def test_the_turn_passes_to_the_next_seat_and_wraps_round():
    state = position(4, current=2, first=2)
    play(state, "take:wug")
    assert state.current == 3
    play(state, "take:wug")
    assert state.current == 0
    assert state.turn == 2
    assert state.moves == 2


def test_a_return_or_noble_choice_is_part_of_the_same_turn():
    state = position(seats=[{"bonuses": "wwwwuuuukkk", "tokens": "wwwuuugggy"}], nobles=[1, 7])
    play(state, "take:grk", "return:ggg", "noble:1")
    assert state.turn == 1
    assert state.moves == 3
    assert state.last_turn_seat == 0
    assert state.last_turn_events == ["take:grk", "return:ggg", "noble:1"]
