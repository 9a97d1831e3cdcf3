"""The computer players: legal, deterministic, fair (no peeking), and greedy beats random."""

from __future__ import annotations

import pytest

from game.engine import GameState, apply_action, card, legal_actions, new_game, outcome
from game.engine.actions import Action
from game.engine.bot_registry import BOTS, make_bot
from game.engine.bots import Bot, GreedyBot, RandomBot, play_game

GAMES = 200


class Checked:
    """Wraps a bot and asserts every choice is among the legal actions, for its own seat."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.choices = 0

    def choose(self, state: GameState, seat: int) -> Action:
        assert seat == state.current
        action = self.bot.choose(state, seat)
        assert action in legal_actions(state), f"{action} is not legal"
        self.choices += 1
        return action


def greedy_vs_random(seed: int) -> bool:
    """Play one two-player game, greedy in seat 0; True if greedy alone wins."""
    bots: list[Bot] = [GreedyBot(seed), RandomBot(seed + 10_000)]
    state = play_game(2, seed, bots, first_player=seed % 2)  # alternate who starts
    result = outcome(state)
    assert result is not None
    return result.winners == (0,)


def test_greedy_beats_random() -> None:
    wins = sum(greedy_vs_random(seed) for seed in range(GAMES))
    print(f"greedy beat random in {wins}/{GAMES} two-player games ({wins / GAMES:.1%})")
    assert wins >= 0.95 * GAMES


@pytest.mark.parametrize("players", [2, 3, 4])
def test_greedy_games_end_by_reaching_the_winning_points(players: int) -> None:
    games = 20
    by_points = 0
    for seed in range(games):
        state = play_game(players, seed, [GreedyBot(seed * 10 + s) for s in range(players)])
        result = outcome(state)
        assert result is not None
        by_points += state.final_round and not result.ended_by_passes
        assert max(result.points) >= 15 or result.ended_by_passes
    print(f"{players} greedy players reached 15 points in {by_points}/{games} games")
    assert by_points >= games - 1


@pytest.mark.parametrize("kinds", [("random", "random"), ("greedy", "random", "greedy")])
@pytest.mark.parametrize("no_gold_small", [False, True])
def test_bots_only_choose_legal_actions(kinds: tuple[str, ...], no_gold_small: bool) -> None:
    for seed in range(5):
        bots = [Checked(make_bot(kind, seed + seat)) for seat, kind in enumerate(kinds)]
        state = play_game(len(kinds), seed, bots, no_gold_small=no_gold_small)
        assert state.is_over
        assert all(bot.choices for bot in bots)


def test_greedy_chooses_in_every_phase() -> None:
    """Greedy games go through returns and noble choices too, always legally."""
    kinds: set[str] = set()
    for seed in range(30):
        bots = [Checked(GreedyBot(seed + s)) for s in range(4)]
        state = new_game(4, seed)
        while not state.is_over:
            action = bots[state.current].choose(state, state.current)
            kinds.add(action.kind)
            apply_action(state, action)
    assert {"take", "buy", "reserve", "return"} <= kinds


@pytest.mark.parametrize("kind", sorted(BOTS))
def test_same_seed_same_game(kind: str) -> None:
    def game(seed: int) -> GameState:
        return play_game(3, 11, [make_bot(kind, seed + s) for s in range(3)])

    assert game(5) == game(5)
    assert game(5).to_json() == game(5).to_json()
    if kind == "random":
        assert game(5) != game(6)


def test_greedy_does_not_peek_at_hidden_cards() -> None:
    """Greedy's choices do not change when deck order and others' blind cards change."""
    checked = 0
    for seed in range(6):
        state = new_game(2, seed, first_player=0)
        real, blindfolded = GreedyBot(seed), GreedyBot(seed)
        other = RandomBot(seed)
        while not state.is_over and state.moves < 400:
            seat = state.current
            if seat == 1:
                apply_action(state, other.choose(state, seat))
                continue
            action = real.choose(state, seat)
            assert blindfolded.choose(hide_from(state, seat), seat) == action
            apply_action(state, action)
            checked += 1
    assert checked > 100


def hide_from(state: GameState, seat: int) -> GameState:
    """A copy where the decks are reversed and other seats' blind cards are swapped
    with deck cards of the same level: the same game as far as `seat` can see."""
    other = state.copy()
    for deck in other.decks:
        deck.reverse()
    for s, player in enumerate(other.players):
        if s == seat:
            continue
        for i, (card_id, blind) in enumerate(zip(player.reserved, player.blind, strict=True)):
            deck = other.decks[card(card_id).level - 1]
            if blind and deck:
                player.reserved[i], deck[0] = deck[0], card_id
    return other


def test_make_bot_and_play_game_refuse_bad_input() -> None:
    assert set(BOTS) == {"random", "greedy", "easy", "medium"}
    assert isinstance(make_bot("greedy", 1), GreedyBot)
    assert isinstance(make_bot("random", 1), RandomBot)
    with pytest.raises(ValueError):
        make_bot("clever", 1)
    with pytest.raises(ValueError):
        play_game(3, 1, [RandomBot(1), RandomBot(2)])


def test_play_game_stops_a_game_that_goes_on_too_long() -> None:
    with pytest.raises(RuntimeError):
        play_game(2, 1, [RandomBot(1), RandomBot(2)], max_moves=10)
