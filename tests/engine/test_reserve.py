"""Reserving: face up or blind from a deck, at most three, gold if any (RULES.md 3)."""

import pytest

from game.engine import IllegalActionError
from game.engine.colours import GOLD
from game.engine.state import EMPTY
from tests.engine.builder import assert_refused, bank_of, legal, play, position, tokens_of

# A small table: four level-1 cards with 5 then 6 in the deck, one level-2 card face
# up and an empty level-2 deck, no level-3 card face up and 71 in the level-3 deck.
MARKET = {1: [1, 2, 3, 4], 2: [41]}
DECKS = {1: [5, 6], 3: [71]}


def test_reserving_a_face_up_card_gives_one_gold():
    state = position(bank="wwwwyyyyy", market=MARKET, decks=DECKS)
    play(state, "reserve:2")
    player = state.players[0]
    assert player.reserved == [2]
    assert player.blind == [False]
    assert tokens_of(state, 0) == "y"
    assert bank_of(state) == "wwwwyyyy"
    assert state.current == 1


def test_a_reserved_face_up_card_is_replaced_at_once_in_the_same_space_from_its_deck():
    state = position(market=MARKET, decks=DECKS)
    play(state, "reserve:2")
    assert state.market[0] == [1, 5, 3, 4]
    assert state.decks[0] == [6]
    play(state, "reserve:5")
    assert state.market[0] == [1, 6, 3, 4]
    assert state.decks[0] == []


def test_reserving_when_the_deck_is_empty_leaves_the_space_empty():
    state = position(market={2: [41, 42, 43, 44]})
    play(state, "reserve:43")
    assert state.market[1] == [41, 42, EMPTY, 44]
    assert "reserve:43" not in legal(state)


def test_a_blind_reserve_takes_the_top_of_the_deck_and_marks_it_blind():
    state = position(market=MARKET, decks=DECKS)
    play(state, "reserve:d1")
    player = state.players[0]
    assert player.reserved == [5]
    assert player.blind == [True]
    assert player.tokens[GOLD] == 1
    assert state.decks[0] == [6]
    assert state.market[0] == [1, 2, 3, 4]


def test_a_blind_reserve_is_offered_for_every_deck_that_has_cards():
    state = position(market=MARKET, decks=DECKS)
    offered = {a for a in legal(state) if a.startswith("reserve:d")}
    assert offered == {"reserve:d1", "reserve:d3"}


def test_every_face_up_card_can_be_reserved():
    state = position(market=MARKET, decks=DECKS)
    offered = {a for a in legal(state) if a.startswith("reserve:") and "d" not in a}
    assert offered == {"reserve:1", "reserve:2", "reserve:3", "reserve:4", "reserve:41"}


def test_reserving_from_an_empty_deck_is_refused():
    state = position(market=MARKET, decks=DECKS)
    assert_refused(state, "reserve:d2", IllegalActionError, "deck is empty")


@pytest.mark.parametrize("text", ["reserve:d0", "reserve:d4", "reserve:d9"])
def test_reserving_from_a_deck_that_does_not_exist_is_refused(text: str):
    state = position(market=MARKET, decks=DECKS)
    assert_refused(state, text, IllegalActionError, "no deck of that level")


def test_reserving_a_card_that_is_not_on_the_table_is_refused():
    state = position(market=MARKET, decks=DECKS)
    assert_refused(state, "reserve:5", IllegalActionError, "not on the table")  # in the deck
    assert_refused(state, "reserve:90", IllegalActionError, "not on the table")
    assert_refused(state, "reserve:999", IllegalActionError, "not on the table")


def test_blind_and_face_up_reserves_mix_in_the_limit_of_three():
    state = position(market=MARKET, decks=DECKS)
    play(state, "reserve:1", "take:wug", "reserve:d1", "take:wug", "reserve:d3")
    # Card 5 refilled the space of card 1, so the level-1 deck's top was 6.
    assert state.players[0].reserved == [1, 6, 71]
    assert state.players[0].blind == [False, True, True]
    play(state, "take:wug")
    assert_refused(state, "reserve:5", IllegalActionError, "three reserved cards")


def test_a_fourth_reservation_is_refused():
    state = position(seats=[{"reserved": [7, 8, 9]}], market=MARKET, decks=DECKS)
    assert not any(a.startswith("reserve") for a in legal(state))
    assert_refused(state, "reserve:1", IllegalActionError, "three reserved cards")
    assert_refused(state, "reserve:d1", IllegalActionError, "three reserved cards")


def test_reserving_is_allowed_when_the_gold_is_gone_and_gives_no_gold():
    state = position(bank="wwwwuuuu", market=MARKET, decks=DECKS)
    assert "reserve:3" in legal(state)
    assert "reserve:d1" in legal(state)
    play(state, "reserve:3")
    assert state.players[0].reserved == [3]
    assert tokens_of(state, 0) == ""
    assert bank_of(state) == "wwwwuuuu"


def test_a_blind_reserve_is_allowed_when_the_gold_is_gone():
    state = position(bank="wwww", market=MARKET, decks=DECKS)
    play(state, "reserve:d1")
    assert state.players[0].reserved == [5]
    assert state.players[0].blind == [True]
    assert tokens_of(state, 0) == ""


def test_the_last_gold_goes_to_the_first_reserver_and_none_to_the_next():
    state = position(bank="wwwwy", market=MARKET, decks=DECKS)
    play(state, "reserve:1", "reserve:2")
    assert tokens_of(state, 0) == "y"
    assert tokens_of(state, 1) == ""
    assert state.players[1].reserved == [2]


def test_a_card_reserved_by_another_player_cannot_be_reserved_or_bought():
    state = position(
        seats=[{"tokens": "kkkyyy"}, {"reserved": [31], "blind": [False]}],
        market=MARKET,
        decks=DECKS,
    )
    assert_refused(state, "reserve:31", IllegalActionError, "not on the table")
    assert_refused(state, "buy:31:kkk", IllegalActionError, "one you reserved")
    assert_refused(state, "buy:31:yyy", IllegalActionError, "one you reserved")


def test_reserved_cards_stay_with_their_owner_when_nothing_is_done_with_them():
    state = position(seats=[{"reserved": [7]}], bank="wwwwuuuugggg")
    play(state, "take:wug", "take:wug", "take:wug")
    assert state.players[0].reserved == [7]
