"""Setup: the bank, the nobles, the market and the first player (RULES.md, "Setup")."""

import pytest

from game.engine import CARDS, NOBLES, new_game
from game.engine.colours import GEMS, GOLD
from game.engine.state import MAIN
from tests.engine.builder import play


@pytest.mark.parametrize(
    ("players", "gems", "nobles"),
    [(2, 4, 3), (3, 5, 4), (4, 7, 5)],
)
def test_the_bank_and_nobles_depend_on_the_player_count(players: int, gems: int, nobles: int):
    state = new_game(players, seed=1)
    assert [state.bank[c] for c in GEMS] == [gems] * 5
    assert state.bank[GOLD] == 5
    assert len(state.nobles) == nobles
    assert len(set(state.nobles)) == nobles
    assert all(1 <= n <= len(NOBLES) for n in state.nobles)
    assert state.num_players == players


@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_level_shows_four_cards_and_keeps_the_rest_in_its_own_deck(players: int):
    state = new_game(players, seed=7)
    for level, (row, deck) in enumerate(zip(state.market, state.decks, strict=True), start=1):
        assert len(row) == 4
        assert all(CARDS[c - 1].level == level for c in row + deck)
    assert [len(deck) for deck in state.decks] == [36, 26, 16]
    dealt = [c for row in state.market for c in row] + [c for d in state.decks for c in d]
    assert sorted(dealt) == [c.id for c in CARDS]


def test_each_deck_is_shuffled():
    state = new_game(2, seed=3)
    for level, deck in enumerate(state.decks, start=1):
        in_order = sorted(c.id for c in CARDS if c.level == level)
        assert deck + state.market[level - 1][::-1] != in_order


@pytest.mark.parametrize("players", [2, 3, 4])
def test_nobody_starts_with_anything(players: int):
    state = new_game(players, seed=11)
    for player in state.players:
        assert player.tokens == [0] * 6
        assert player.bonuses == [0] * 5
        assert player.cards == player.reserved == player.blind == player.nobles == []
        assert player.points == 0
    assert state.phase == MAIN
    assert state.turn == state.moves == 0
    assert not state.final_round


def test_the_same_seed_deals_the_same_game():
    assert new_game(3, seed=42).to_dict() == new_game(3, seed=42).to_dict()


def test_different_seeds_deal_different_games():
    deals = {new_game(2, seed=s).to_json().replace(f'"seed":{s},', "") for s in range(20)}
    assert len(deals) == 20


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_first_player_is_drawn_at_random_and_recorded(players: int):
    firsts = set()
    for seed in range(60):
        state = new_game(players, seed=seed)
        assert 0 <= state.first_player < players
        assert state.current == state.first_player
        firsts.add(state.first_player)
    assert firsts == set(range(players))


@pytest.mark.parametrize("first", [0, 1, 2])
def test_the_host_can_choose_the_first_player(first: int):
    state = new_game(3, seed=5, first_player=first)
    assert state.first_player == first
    assert state.current == first


def test_choosing_the_first_player_does_not_change_the_deal():
    drawn = new_game(4, seed=9)
    chosen = new_game(4, seed=9, first_player=(drawn.first_player + 1) % 4)
    assert chosen.market == drawn.market
    assert chosen.decks == drawn.decks
    assert chosen.nobles == drawn.nobles


@pytest.mark.parametrize("players", [-1, 0, 1, 5, 6])
def test_a_player_count_outside_two_to_four_is_refused(players: int):
    with pytest.raises(ValueError):
        new_game(players, seed=1)


@pytest.mark.parametrize("first", [-1, 2, 3])
def test_a_first_player_who_is_not_at_the_table_is_refused(first: int):
    with pytest.raises(ValueError):
        new_game(2, seed=1, first_player=first)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_gold_is_in_play_at_every_player_count_by_default(players: int):
    state = new_game(players, seed=1)
    assert state.bank[GOLD] == 5
    assert state.no_gold_small is False


@pytest.mark.parametrize("players", [2, 3])
def test_the_no_gold_house_rule_removes_the_gold_with_two_or_three_players(players: int):
    state = new_game(players, seed=1, no_gold_small=True)
    assert state.bank[GOLD] == 0
    assert state.no_gold_small is True
    assert [state.bank[c] for c in GEMS] == [new_game(players, seed=1).bank[c] for c in GEMS]


def test_the_no_gold_house_rule_keeps_the_gold_with_four_players():
    state = new_game(4, seed=1, no_gold_small=True)
    assert state.bank[GOLD] == 5


def test_with_the_no_gold_house_rule_a_reserve_gives_no_gold():
    state = new_game(2, seed=1, no_gold_small=True)
    face_up = state.market[0][0]
    play(state, f"reserve:{face_up}")
    assert state.players[state.first_player].tokens[GOLD] == 0
    assert state.players[state.first_player].reserved == [face_up]


def test_a_new_game_survives_a_json_round_trip():
    state = new_game(4, seed=123)
    assert type(state).from_json(state.to_json()).to_dict() == state.to_dict()
