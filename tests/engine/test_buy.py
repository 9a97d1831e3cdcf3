"""Buying: bonuses first, then tokens and/or gold; spent tokens go back (RULES.md 4).

Cards used here (id: level, bonus, points, cost):
    1: 1 white 0 (r2 k1)          11: 1 blue 0 (u1 g3 r1)      17: 1 green 0 (r3)
    31: 1 red 0 (w3)              49: 2 blue 2 (u5)            72: 3 white 4 (k7)
    90: 3 black 5 (r7 k3)
"""

import pytest

from game.engine import GameState, IllegalActionError, MalformedActionError, legal_actions
from game.engine.actions import Action
from game.engine.colours import BLUE, GREEN, RED, WHITE
from game.engine.rules import can_afford, cheapest_payment, payments
from game.engine.state import EMPTY
from tests.engine.builder import (
    assert_refused,
    bank_of,
    legal,
    play,
    position,
    seat,
    tokens_of,
    total_tokens,
)


def buys(state: GameState) -> set[str]:
    return {a for a in legal(state) if a.startswith("buy:")}


def test_buying_a_face_up_card_pays_its_cost_and_gives_its_bonus():
    state = position(seats=[{"tokens": "rrk"}], market={1: [1, 2, 3, 4]}, decks={1: [5]})
    play(state, "buy:1:rrk")
    player = state.players[0]
    assert player.cards == [1]
    assert player.bonuses == [1, 0, 0, 0, 0]
    assert player.points == 0
    assert tokens_of(state, 0) == ""
    assert state.current == 1


def test_spent_tokens_return_to_the_bank():
    state = position(bank="wwwwy", seats=[{"tokens": "rrkuu"}], market={1: [1]})
    play(state, "buy:1:rrk")
    assert bank_of(state) == "wwwwrrky"
    assert tokens_of(state, 0) == "uu"


def test_a_bought_face_up_card_is_replaced_at_once_in_the_same_space_from_its_deck():
    state = position(seats=[{"tokens": "rrk"}], market={1: [2, 3, 1, 4]}, decks={1: [5, 6]})
    play(state, "buy:1:rrk")
    assert state.market[0] == [2, 3, 5, 4]
    assert state.decks[0] == [6]


def test_buying_the_last_card_of_a_level_leaves_the_space_empty():
    state = position(seats=[{"tokens": "rrk"}], market={1: [2, 3, 1, 4]})
    play(state, "buy:1:rrk")
    assert state.market[0] == [2, 3, EMPTY, 4]


def test_points_of_a_bought_card_are_added():
    state = position(seats=[{"tokens": "uuuuu", "points": 3}], market={2: [49]})
    play(state, "buy:49:uuuuu")
    assert state.players[0].points == 5
    assert state.players[0].bonuses[BLUE] == 1


def test_bonuses_reduce_the_cost():
    state = position(seats=[{"tokens": "r", "bonuses": "rr"}], market={1: [17]})
    assert buys(state) == {"buy:17:r"}
    play(state, "buy:17:r")
    assert state.players[0].cards == [17]
    assert state.players[0].bonuses == [0, 0, 1, 2, 0]


def test_a_card_covered_by_bonuses_is_free():
    state = position(seats=[{"tokens": "rr", "bonuses": "rrr"}], market={1: [17]})
    assert buys(state) == {"buy:17:-"}
    play(state, "buy:17:-")
    assert tokens_of(state, 0) == "rr"


def test_paying_a_colour_that_bonuses_already_cover_is_refused():
    state = position(seats=[{"tokens": "rrr", "bonuses": "rrr"}], market={1: [17]})
    assert_refused(state, "buy:17:r", IllegalActionError, "pays more than the card costs")
    assert_refused(state, "buy:17:rrr", IllegalActionError, "pays more than the card costs")


def test_gold_replaces_any_colour():
    state = position(seats=[{"tokens": "uggyy"}], market={1: [11]})
    assert "buy:11:uggyy" in buys(state)
    play(state, "buy:11:uggyy")
    assert state.players[0].cards == [11]
    assert tokens_of(state, 0) == ""


def test_a_card_can_be_paid_entirely_in_gold():
    state = position(seats=[{"tokens": "yyy"}], market={1: [17]})
    assert buys(state) == {"buy:17:yyy"}
    play(state, "buy:17:yyy")
    assert state.players[0].cards == [17]


def test_gold_may_be_spent_even_while_holding_the_colour():
    state = position(seats=[{"tokens": "rrryy"}], market={1: [17]})
    player = state.players[0]
    assert payments(player, 17) == [
        (0, 0, 0, 3, 0, 0),
        (0, 0, 0, 2, 0, 1),
        (0, 0, 0, 1, 0, 2),
    ]
    assert buys(state) == {"buy:17:rrr", "buy:17:rry", "buy:17:ryy"}
    play(state, "buy:17:rry")
    assert tokens_of(state, 0) == "ry"


def test_payments_lists_every_way_to_pay_least_gold_first():
    player = seat({"tokens": "uggryy"})
    found = payments(player, 11)  # u1 g3 r1
    assert found[0] == cheapest_payment(player, 11) == (0, 1, 2, 1, 0, 1)
    assert [p[5] for p in found] == sorted(p[5] for p in found)
    assert len(found) == len(set(found))
    # Gold stands in for one or two of: the blue, a green, the red.
    assert set(found) == {
        (0, 1, 2, 1, 0, 1),
        (0, 0, 2, 1, 0, 2),
        (0, 1, 1, 1, 0, 2),
        (0, 1, 2, 0, 0, 2),
    }


def test_the_cheapest_payment_spends_no_gold_when_the_colours_suffice():
    player = seat({"tokens": "ugggryy"})
    assert cheapest_payment(player, 11) == (0, 1, 3, 1, 0, 0)


def test_the_affordability_check_counts_bonuses():
    with_bonuses = seat({"tokens": "kkk", "bonuses": "kkkk"})
    without = seat({"tokens": "kkk"})
    assert can_afford(with_bonuses, 72)  # k7 = 4 bonuses + 3 tokens
    assert cheapest_payment(with_bonuses, 72) == (0, 0, 0, 0, 3, 0)
    assert payments(with_bonuses, 72) == [(0, 0, 0, 0, 3, 0)]
    assert not can_afford(without, 72)
    assert cheapest_payment(without, 72) is None
    assert payments(without, 72) == []


def test_the_affordability_check_counts_bonuses_and_gold_together():
    player = seat({"tokens": "kky", "bonuses": "kkkk"})
    assert can_afford(player, 72)
    assert cheapest_payment(player, 72) == (0, 0, 0, 0, 2, 1)
    assert not can_afford(seat({"tokens": "kky", "bonuses": "kkk"}), 72)


def test_a_card_the_bonuses_make_affordable_is_offered():
    state = position(seats=[{"tokens": "kkk", "bonuses": "kkkk"}], market={3: [72]})
    assert buys(state) == {"buy:72:kkk"}


def test_an_unaffordable_card_is_refused():
    state = position(seats=[{"tokens": "rry"}], market={1: [1, 17, 31]})
    assert buys(state) == {"buy:1:rry", "buy:17:rry"}
    assert_refused(state, "buy:31:rry", IllegalActionError, "cannot afford")


def test_overpaying_is_refused():
    state = position(seats=[{"tokens": "rrrr"}], market={1: [17]})
    assert_refused(state, "buy:17:rrrr", IllegalActionError, "pays more than the card costs")


def test_overpaying_with_extra_gold_is_refused():
    state = position(seats=[{"tokens": "rrry"}], market={1: [17]})
    assert_refused(state, "buy:17:rrry", IllegalActionError, "does not match")


def test_paying_with_a_colour_the_card_does_not_cost_is_refused():
    state = position(seats=[{"tokens": "rrrw"}], market={1: [17]})
    assert_refused(state, "buy:17:rrw", IllegalActionError, "pays more than the card costs")


def test_underpaying_is_refused():
    state = position(seats=[{"tokens": "rrr"}], market={1: [17]})
    assert_refused(state, "buy:17:rr", IllegalActionError, "does not match")
    assert_refused(state, "buy:17:-", IllegalActionError, "does not match")


def test_paying_with_tokens_you_do_not_have_is_refused():
    state = position(seats=[{"tokens": "rry"}], market={1: [17]})
    assert_refused(state, "buy:17:rrr", IllegalActionError, "do not have the tokens")
    assert_refused(state, "buy:17:ryy", IllegalActionError, "do not have the tokens")


@pytest.mark.parametrize(
    "payment",
    [(3,), (0, 0, 0, 3, 0), (0, 0, 0, 4, 0, -1), (0, 0, 0, 3, 0, 0, 0)],
)
def test_a_hand_built_payment_of_the_wrong_shape_is_refused(payment: tuple[int, ...]):
    state = position(seats=[{"tokens": "rrrry"}], market={1: [17]})
    assert_refused(state, Action("buy", card=17, payment=payment), MalformedActionError)


def test_buying_a_card_that_is_not_on_the_table_is_refused():
    state = position(seats=[{"tokens": "rrrwww"}], market={1: [1]}, decks={1: [17]})
    assert_refused(state, "buy:17:rrr", IllegalActionError, "on the table or one you reserved")
    assert_refused(state, "buy:999:-", IllegalActionError, "on the table or one you reserved")


def test_buying_your_own_reserved_card_takes_it_from_your_hand():
    state = position(
        seats=[{"tokens": "rrr", "reserved": [17, 31]}], market={1: [1]}, decks={1: [5]}
    )
    assert buys(state) == {"buy:17:rrr"}
    play(state, "buy:17:rrr")
    player = state.players[0]
    assert player.cards == [17]
    assert player.reserved == [31]
    assert player.blind == [False]
    assert player.bonuses[GREEN] == 1
    # Not from the market: nothing there moves.
    assert state.market[0] == [1, EMPTY, EMPTY, EMPTY]
    assert state.decks[0] == [5]


def test_buying_your_own_blind_reserved_card_works():
    state = position(
        seats=[{"tokens": "wwwrrr", "reserved": [31, 17, 1], "blind": [False, True, False]}]
    )
    play(state, "buy:17:rrr")
    player = state.players[0]
    assert player.reserved == [31, 1]
    assert player.blind == [False, False]
    play(state, "take:wug", "buy:31:www")
    assert player.reserved == [1]
    assert player.blind == [False]
    assert sorted(player.cards) == [17, 31]
    assert player.bonuses[RED] == player.bonuses[GREEN] == 1
    assert player.bonuses[WHITE] == 0


def test_buying_conserves_the_tokens():
    state = position(seats=[{"tokens": "uggryy"}, {"tokens": "rrrr"}], market={1: [11, 17]})
    before = total_tokens(state)
    play(state, "buy:11:uggyy", "buy:17:rrr")
    assert total_tokens(state) == before


def test_an_empty_space_cannot_be_bought_as_card_zero():
    # Level 3 shows one card and three empty spaces. The bonuses would pay for
    # card 90, which is what CARDS[0 - 1] is.
    state = position(seats=[{"bonuses": "rrrrrrrkkk"}], market={3: [72]})
    assert "buy:0:-" not in buys(state)
    assert_refused(state, "buy:0:-", IllegalActionError)


def test_an_empty_space_cannot_be_bought_with_tokens_either():
    # The empty space is on level 1; level 3 is full, so nothing there is EMPTY.
    state = position(seats=[{"tokens": "rrrrrrrkkk"}], market={1: [1, 2, 3], 3: [71, 72, 73, 74]})
    assert_refused(state, "buy:0:rrrrrrrkkk", IllegalActionError)


def test_the_cheapest_payment_is_offered_first_for_each_card():
    state = position(seats=[{"tokens": "rrrkyy"}], market={1: [1, 17]})
    offered = [a.notation() for a in legal_actions(state) if a.kind == "buy"]
    assert offered[0] == "buy:1:rrk"
    assert [a for a in offered if a.startswith("buy:17:")][0] == "buy:17:rrr"
