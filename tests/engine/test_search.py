"""The hard (search) bot: legal, deterministic with a playout cap, and blind to hidden cards."""

from __future__ import annotations

import functools
import random

import pytest

from game.engine import GameState, apply_action, card, legal_actions, new_game
from game.engine.actions import BUY, RESERVE, Action
from game.engine.bot_registry import BOT_KINDS, BOTS, make_bot
from game.engine.bots import Bot, EasyBot, GreedyBot, RandomBot, play_game
from game.engine.cards import CARDS
from game.engine.search import SearchBot, candidates, determinise, unseen_cards
from game.engine.vocabulary import BotLevel
from tests.engine.builder import position

# Tiny: these tests check behaviour, not strength. One playout means one round:
# every candidate played out once on one determinisation.
PLAYOUTS = 1


# ---------------------------------------------------------------- positions with secrets


def blind_reserving_game(players: int, seed: int, moves: int, secretive: int) -> GameState:
    """A greedy game where seat `secretive` reserves blind whenever it may, for `moves` actions.

    Gives positions where another seat holds blind-reserved cards.
    """
    state = new_game(players, seed, first_player=0)
    bots = [GreedyBot(seed + s) for s in range(players)]
    while not state.is_over and state.moves < moves:
        seat = state.current
        legal = legal_actions(state)
        blind = [a for a in legal if a.kind == RESERVE and not a.card]
        action = blind[0] if seat == secretive and blind else bots[seat].choose(state, seat)
        apply_action(state, action)
    return state


def reshuffled(state: GameState, seat: int, rng: random.Random) -> GameState:
    """The same game as far as `seat` can see, with every hidden card dealt anew:
    the decks and the other seats' blind-reserved cards are shuffled together."""
    other = state.copy()
    for level in (1, 2, 3):
        slots: list[tuple[list[int], int]] = []
        for s, player in enumerate(other.players):
            if s != seat:
                slots += [(player.reserved, i) for i, b in enumerate(player.blind) if b]
        slots = [(held, i) for held, i in slots if card(held[i]).level == level]
        deck = other.decks[level - 1]
        slots += [(deck, i) for i in range(len(deck))]
        hidden = [held[i] for held, i in slots]
        rng.shuffle(hidden)
        for (held, i), card_id in zip(slots, hidden, strict=True):
            held[i] = card_id
    return other


@functools.cache
def secret_positions() -> tuple[tuple[GameState, int], ...]:
    """Positions (state, seat to play) where another seat holds blind cards.

    Shared between tests: nothing may change them (the bots work on copies).
    """
    found = []
    for players, seed, moves in [(2, 1, 9), (2, 4, 30), (2, 5, 40), (3, 2, 14), (4, 3, 21)]:
        state = blind_reserving_game(players, seed, moves, secretive=1)
        while state.current == 1 and not state.is_over:  # let a seat without secrets decide
            apply_action(state, GreedyBot(seed).choose(state, state.current))
        assert any(state.players[1].blind), "the position should hold a secret"
        assert not state.is_over
        found.append((state, state.current))
    return tuple(found)


# ---------------------------------------------------------------- no peeking


def test_reshuffled_positions_really_differ_in_hidden_cards() -> None:
    rng = random.Random(0)
    for state, seat in secret_positions():
        other = reshuffled(state, seat, rng)
        assert other.decks != state.decks
        assert unseen_cards(other, seat) == unseen_cards(state, seat)


@pytest.mark.parametrize("position_index", range(5))
def test_search_decisions_ignore_deck_order_and_others_blind_cards(position_index: int) -> None:
    state, seat = secret_positions()[position_index]
    other = reshuffled(state, seat, random.Random(position_index))
    before = state.to_json()
    playouts = 20 if state.num_players == 2 else PLAYOUTS  # two rounds, or one
    first, second = SearchBot(7, playouts=playouts), SearchBot(7, playouts=playouts)
    assert first.choose(state, seat) == second.choose(other, seat)
    assert state.to_json() == before, "the search must work on copies"
    assert first.last is not None and second.last is not None
    # Not only the choice: every playout scored the same.
    assert [(t.action, t.total) for t in first.last.tallies] == [
        (t.action, t.total) for t in second.last.tallies
    ]


def test_determinise_deals_only_the_unseen_cards() -> None:
    for state, seat in secret_positions():
        sample = determinise(state, seat, random.Random(3))
        assert sample.market == state.market
        assert [len(d) for d in sample.decks] == [len(d) for d in state.decks]
        assert sample.players[seat] == state.players[seat]  # own blind cards are known
        for mine, real in zip(sample.players, state.players, strict=True):
            assert mine.blind == real.blind
            assert [card(c).level for c in mine.reserved] == [card(c).level for c in real.reserved]
            face_up = [c for c, b in zip(real.reserved, real.blind, strict=True) if not b]
            assert face_up == [c for c, b in zip(mine.reserved, mine.blind, strict=True) if not b]
        everywhere = [c for row in sample.market for c in row if c] + [
            c for deck in sample.decks for c in deck
        ]
        for player in sample.players:
            everywhere += player.cards + player.reserved
        assert sorted(everywhere) == sorted(c.id for c in CARDS)  # every card once


# ---------------------------------------------------------------- choices


class Checked:
    """Asserts that every choice is legal for the seat to play."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.kinds: set[str] = set()

    def choose(self, state: GameState, seat: int) -> Action:
        assert seat == state.current
        action = self.bot.choose(state, seat)
        assert action in legal_actions(state), f"{action} is not legal"
        self.kinds.add(action.kind)
        return action


@pytest.mark.slow
def test_hard_bot_plays_a_whole_game_legally() -> None:
    hard = Checked(SearchBot(1, playouts=PLAYOUTS))
    state = play_game(2, 3, [hard, GreedyBot(2)])
    assert state.is_over
    assert {"take", "buy"} <= hard.kinds


def test_same_seed_and_playout_cap_give_the_same_game() -> None:
    def opening() -> GameState:
        state = new_game(2, 8, first_player=0)
        bots: list[Bot] = [SearchBot(5, playouts=3), GreedyBot(1)]
        while state.moves < 6:
            apply_action(state, bots[state.current].choose(state, state.current))
        return state

    assert opening().to_json() == opening().to_json()


def test_a_winning_purchase_is_found() -> None:
    """Buying card 72 (4 points for seven black) brings 11 points to 15."""
    state = position(
        seats=[{"tokens": "kkkkkkk", "points": 11, "bonuses": "r"}, {"points": 5}],
        market={1: [1, 2, 3, 4], 3: [72]},
        decks={1: [5, 6, 7], 3: [73, 74]},
    )
    assert card(72).points == 4 and card(72).cost == (0, 0, 0, 0, 7)
    assert SearchBot(2, playouts=PLAYOUTS).choose(state, 0) == Action(
        BUY, card=72, payment=(0,) * 4 + (7, 0)
    )


def test_candidates_start_with_the_greedy_choice_and_include_every_purchase() -> None:
    state = blind_reserving_game(2, 11, 30, secretive=1)
    seat = state.current
    found = candidates(state, seat, GreedyBot(4))
    assert found[0] == GreedyBot(4).choose(state, seat)
    buys = {a.card for a in legal_actions(state) if a.kind == BUY}
    assert buys <= {a.card for a in found if a.kind == BUY}
    assert len(found) == len(set(found))


def test_a_single_legal_action_needs_no_playouts() -> None:
    state = position(
        seats=[{"reserved": [72, 73, 74], "blind": [True, True, True]}],
        bank="y",
        market={3: [75]},
    )
    assert [a.kind for a in legal_actions(state)] == ["pass"]
    bot = SearchBot(1, playouts=50)
    bot.choose(state, 0)
    assert bot.last is not None and bot.last.playouts == 0


class TickingClock:
    """A clock that moves `step` seconds each time it is read: a budget runs out after
    a known number of reads, however busy the machine (a real clock's 0.05 s went by
    before the first playout on a loaded test machine)."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_time_budget_stops_the_search() -> None:
    state = new_game(2, 5)
    bot = SearchBot(1, budget=0.05, clock=TickingClock(0.01))
    bot.choose(state, state.current)
    assert bot.last is not None
    # Read at the start, before each round and before each playout: the budget (five
    # reads) ends a search that nothing else would end, after its first playouts.
    assert 1 <= bot.last.playouts <= 4
    assert 0.05 <= bot.last.seconds <= 0.1


# ---------------------------------------------------------------- levels


def test_make_bot_levels() -> None:
    assert tuple(BotLevel) == ("easy", "medium", "hard")
    assert set(BOT_KINDS) == {"random", "greedy", "easy", "medium", "hard"}
    assert isinstance(make_bot("easy", 1), EasyBot)
    assert isinstance(make_bot("medium", 1), GreedyBot)
    assert isinstance(make_bot("random", 1), RandomBot)
    hard = make_bot("hard", 1, budget=0.5)
    assert isinstance(hard, SearchBot) and hard.budget == 0.5 and hard.playouts is None
    capped = make_bot("hard", 1, playouts=10)
    assert isinstance(capped, SearchBot) and capped.playouts == 10 and capped.budget is None
    assert isinstance(make_bot("hard", 1), SearchBot)
    assert "hard" not in BOTS  # BOTS holds the cheap, always deterministic ones
    with pytest.raises(ValueError, match="hard"):
        make_bot("impossible", 1)


def test_easy_bot_is_legal_and_weaker_than_greedy() -> None:
    wins = 0
    for seed in range(20):
        easy = Checked(EasyBot(seed))
        state = play_game(2, seed, [easy, GreedyBot(seed + 1)], first_player=seed % 2)
        wins += state.players[0].points > state.players[1].points
    assert wins <= 8
