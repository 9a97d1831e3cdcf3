"""The story of a game: chances after every turn, as the table could see them.

Small playout budgets throughout: these tests check the bookkeeping and that no
hidden card counts, not how good the estimates are.
"""

from __future__ import annotations

import functools
import json
import random

import pytest

from game.engine import GameState, apply_action, legal_actions, new_game, outcome, parse_action
from game.engine.actions import RESERVE, RETURN, TAKE, Action
from game.engine.bots import GreedyBot, play_game
from game.engine.cards import card
from game.engine.state import PASSES, POINTS, STALEMATE
from game.engine.story import (
    DECISIVE,
    SHARPEN_FACTOR,
    SHARPEN_TURNS,
    PlayedGame,
    Story,
    TurnPoint,
    analyse,
    analyse_from,
    chances,
    position_rng,
    turns_of,
)

PLAYOUTS = 4
# Tests that play many playouts are not traced for coverage (`no_cover`: tracing doubled
# their CPU); test_progress_counts_to_a_fixed_total runs every line of the analysis traced.
# Greedy games (players, seed) with a single winner; seed 2 of two players ends in a shared win.
GAMES = [(2, 1), (3, 3), (4, 4)]
# One pytest-xdist worker tells each game's story once (story_of's cache is a process's):
# spread over the workers, the 4-player story was told three or four times.
pytestmark = pytest.mark.xdist_group("engine-story")

# A two-player game without gold (the house rule) that ends by a round of passes:
# both seats reserve three level-3 cards blind, then take every gem; nobody can buy.
PASSING = PlayedGame(
    2,
    16,
    (
        *["reserve:d3"] * 6,
        *("take:wgk", "take:wgk", "take:uu", "take:rr", "take:wuk", "take:wgr", "take:ugk"),
        *("return:u", "take:ur", "pass", "pass"),
    ),
    no_gold_small=True,
)


class Recorder:
    """Plays as the bot does, and writes every move down."""

    def __init__(self, bot: GreedyBot, moves: list[str]) -> None:
        self.bot = bot
        self.moves = moves

    def choose(self, state: GameState, seat: int) -> Action:
        action = self.bot.choose(state, seat)
        self.moves.append(action.notation())
        return action


@functools.cache
def greedy_game(players: int, seed: int) -> tuple[PlayedGame, GameState]:
    moves: list[str] = []
    bots = [Recorder(GreedyBot(seed * 10 + s), moves) for s in range(players)]
    end = play_game(players, seed, bots)
    return PlayedGame(players, seed, tuple(moves)), end


@functools.cache
def story_of(players: int, seed: int) -> Story:
    return analyse(greedy_game(players, seed)[0], PLAYOUTS, seed=5)


def quiet_game() -> PlayedGame:
    """Two seats reserve three cards blind each, then only take gems (and give back the
    lowest colours) for twenty rounds: the stalemate rule ends it."""
    state = new_game(2, 1)
    moves = []
    while not state.is_over:
        legal = legal_actions(state)
        reserves = [a for a in legal if a.kind == RESERVE and not a.card]
        takes = [a for a in legal if a.kind == TAKE]
        if reserves and len(state.players[state.current].reserved) < 3:
            action = reserves[-1]
        else:
            action = takes[0] if takes else legal[0]
        assert action.kind in (RESERVE, TAKE, RETURN)
        apply_action(state, action)
        moves.append(action.notation())
    return PlayedGame(2, 1, tuple(moves))


# ---------------------------------------------------------------- the chances


@pytest.mark.no_cover
@pytest.mark.parametrize(("players", "seed"), GAMES)
def test_chances_are_a_probability_at_every_turn(players: int, seed: int):
    game, end = greedy_game(players, seed)
    story = story_of(players, seed)
    assert story.players == players
    assert story.playouts == PLAYOUTS
    assert [p.turn for p in story.turns] == list(range(end.turn + 1))
    for point in story.turns:
        assert len(point.chances) == players
        assert all(0.0 <= c <= 1.0 for c in point.chances)
        assert abs(sum(point.chances) - 1) < 1e-9
    assert story.turns[-1].points == tuple(p.points for p in end.players)
    assert sum(len(p.moves) for p in story.turns) == len(game.moves)
    assert story.turns[0].seat == -1
    assert story.turns[0].round == 0


@pytest.mark.parametrize(("players", "seed"), GAMES)
def test_the_winner_ends_certain(players: int, seed: int):
    _, end = greedy_game(players, seed)
    result = outcome(end)
    assert result is not None
    assert len(result.winners) == 1
    story = story_of(players, seed)
    assert story.winners == result.winners
    assert story.ended_by == POINTS
    assert story.turns[-1].chances[result.winners[0]] >= 0.9


def test_a_finished_game_has_its_outcome_as_chances():
    _, end = greedy_game(3, 3)
    result = outcome(end)
    assert result is not None
    expected = tuple(1.0 if s in result.winners else 0.0 for s in range(3))
    assert chances(end, 8, random.Random(1)) == expected


def test_a_shared_win_splits_and_chances_keep_four_places():
    end = PASSING.deal()
    for text in PASSING.moves:
        apply_action(end, parse_action(text))
    assert chances(end, 8, random.Random(1)) == (0.5, 0.5)
    odds = chances(new_game(3, 1), 3, random.Random(2))  # thirds: rounded, still summing to 1
    assert abs(sum(odds) - 1) < 1e-9
    assert all(round(c, 4) == c for c in odds)


@pytest.mark.no_cover
def test_the_same_game_seed_and_budget_tell_the_same_story():
    game, _ = greedy_game(2, 2)
    first = analyse(game, 3, seed=9)
    second = analyse(game, 3, seed=9)
    assert first == second
    assert first.to_dict() == second.to_dict()


def test_a_story_round_trips_through_json():
    story = story_of(3, 3)
    data = json.loads(json.dumps(story.to_dict()))
    assert Story.from_dict(data) == story
    assert Story.from_dict(story.to_dict()) == story
    assert all(isinstance(key, str) for key in story.to_dict()["better"])


# ---------------------------------------------------------------- nothing hidden counts


def blind_positions() -> list[GameState]:
    """Positions where seats hold blind-reserved cards (and the decks are shuffled)."""
    found = []
    for players, seed in ((2, 1), (3, 2), (4, 3)):
        state = new_game(players, seed, first_player=0)
        bots = [GreedyBot(seed + s) for s in range(players)]
        while not state.is_over and state.moves < 60:
            seat = state.current
            blind = [a for a in legal_actions(state) if a.kind == RESERVE and not a.card]
            if seat == 1 and blind and len(state.players[seat].reserved) < 2:
                apply_action(state, blind[-1])
            else:
                apply_action(state, bots[seat].choose(state, seat))
        found.append(state)
    passing = PASSING.deal()
    for text in PASSING.moves[:10]:
        apply_action(passing, parse_action(text))
    return [*found, passing]


def reshuffled(state: GameState, rng: random.Random) -> GameState:
    """The same table with the hidden cards dealt otherwise: every deck in another order,
    and every blind-reserved card swapped with a card of its level from the deck."""
    other = state.copy()
    for player in other.players:
        for i, blind in enumerate(player.blind):
            deck = other.decks[card(player.reserved[i]).level - 1]
            if blind and deck:
                j = rng.randrange(len(deck))
                player.reserved[i], deck[j] = deck[j], player.reserved[i]
    for deck in other.decks:
        rng.shuffle(deck)
    return other


def test_blind_positions_have_secrets():
    for state in blind_positions():
        assert any(any(p.blind) for p in state.players)


@pytest.mark.parametrize("index", range(4))
def test_chances_never_read_the_decks_or_blind_reserves(index: int):
    state = blind_positions()[index]
    other = reshuffled(state, random.Random(index))
    assert other.decks != state.decks
    assert [p.reserved for p in other.players] != [p.reserved for p in state.players]
    assert chances(other, 6, random.Random(7)) == chances(state, 6, random.Random(7))


def unseen_bottoms_reshuffled(game: PlayedGame, rng: random.Random) -> GameState:
    """The game's deal with the deck cards nobody ever saw in another order."""
    start = game.deal()
    end = turns_of(start, game.moves)[-1].after
    other = start.copy()
    for deck, left in zip(other.decks, end.decks, strict=True):
        bottom = deck[: len(left)]  # the top of a deck is its last card
        rng.shuffle(bottom)
        deck[: len(left)] = bottom
    return other


@pytest.mark.no_cover
def test_the_story_never_reads_the_cards_nobody_saw():
    game, _ = greedy_game(3, 3)
    other = unseen_bottoms_reshuffled(game, random.Random(4))
    assert other.decks != game.deal().decks
    assert analyse_from(other, game.moves, PLAYOUTS, seed=5) == story_of(3, 3)


@pytest.mark.no_cover
def test_the_chances_never_read_the_blind_reserves():
    # Every seat reserves three level-3 cards blind and never shows them: swapping
    # them in the deal for cards never drawn leaves the table's view unchanged.
    start = PASSING.deal()
    other = start.copy()
    deck = other.decks[2]  # sixteen cards: the six drawn blind are the last six
    deck[:6], deck[-6:] = deck[-6:], deck[:6]
    assert set(deck[-6:]).isdisjoint(start.decks[2][-6:])
    mine = analyse_from(start, PASSING.moves, PLAYOUTS, seed=1)
    theirs = analyse_from(other, PASSING.moves, PLAYOUTS, seed=1)
    assert mine.turns == theirs.turns


# ---------------------------------------------------------------- reading the story


def swings(story: Story) -> list[tuple[int, int, float, float]]:
    """(turn, seat, before, after) for every seat through every turn, worked out here."""
    return [
        (story.turns[t].turn, s, story.turns[t - 1].chances[s], story.turns[t].chances[s])
        for t in range(1, len(story.turns))
        for s in range(story.players)
    ]


@pytest.mark.parametrize(("players", "seed"), GAMES)
def test_rounds_end_where_play_comes_back_to_the_first_player(players: int, seed: int):
    story = story_of(players, seed)
    last = story.turns[-1].turn
    for point in story.turns[1:]:
        assert point.round == (point.turn - 1) // players + 1
    expected = [0, *range(players, last + 1, players)]
    if expected[-1] != last:
        expected.append(last)
    assert [p.turn for p in story.rounds()] == expected


@pytest.mark.parametrize(("players", "seed"), GAMES)
def test_the_turning_point_moved_a_chance_the_most(players: int, seed: int):
    story = story_of(players, seed)
    swing = story.turning_point()
    assert swing is not None
    biggest = max(abs(after - before) for _, _, before, after in swings(story))
    assert abs(swing.after - swing.before) == biggest
    assert swing.before == story.turns[swing.turn.turn - 1].chances[swing.seat]
    assert swing.after == swing.turn.chances[swing.seat]


@pytest.mark.no_cover
def test_a_story_where_nothing_moved_has_no_turning_point():
    flat = tuple(
        TurnPoint(p.turn, p.round, p.seat, p.moves, p.points, (0.5, 0.5))
        for p in story_of(2, 2).turns
    )
    story = Story(2, PLAYOUTS, flat)
    assert story.turning_point() is None
    assert story.best_turn(0) is None
    assert story.worst_turn(1) is None


@pytest.mark.parametrize(("players", "seed"), GAMES)
def test_best_and_worst_turns_are_the_seats_own_extremes(players: int, seed: int):
    story = story_of(players, seed)
    for seat in range(players):
        own = [
            (after - before, turn)
            for turn, s, before, after in swings(story)
            if s == seat and story.turns[turn].seat == seat
        ]
        best, worst = story.best_turn(seat), story.worst_turn(seat)
        top = max(change for change, _ in own)
        bottom = min(change for change, _ in own)
        if top > 0:
            assert best is not None
            assert best.turn.seat == best.seat == seat
            assert best.after - best.before == top
        else:
            assert best is None
        if bottom < 0:
            assert worst is not None
            assert worst.turn.seat == seat
            assert worst.after - worst.before == bottom
        else:
            assert worst is None


@pytest.mark.parametrize(("players", "seed"), GAMES)
def test_the_hard_bot_speaks_for_the_best_and_worst_turns(players: int, seed: int):
    game, _ = greedy_game(players, seed)
    story = story_of(players, seed)
    named = {
        swing.turn.turn
        for seat in range(players)
        for swing in (story.best_turn(seat), story.worst_turn(seat))
        if swing is not None
    }
    assert set(story.better) == named
    starts = {t.after.turn: t for t in turns_of(game.deal(), game.moves)}
    for turn, text in story.better.items():
        played = starts[turn]
        if text:
            assert text != played.moves[0]
            offered = {a.notation() for a in legal_actions(played.before)}
            assert text in offered


@pytest.mark.parametrize(("players", "seed"), GAMES)
def test_lead_changes_name_each_new_sole_leader(players: int, seed: int):
    story = story_of(players, seed)
    expected = []
    last = None
    for point in story.turns[1:]:
        top = max(point.points)
        ahead = [s for s, p in enumerate(point.points) if p == top]
        if len(ahead) == 1 and ahead[0] != last:
            expected.append((point.turn, (ahead[0],)))
            last = ahead[0]
    assert [(c.turn.turn, c.leaders) for c in story.lead_changes()] == expected
    assert expected  # somebody led at some point


@pytest.mark.parametrize(("players", "seed"), [*GAMES, (2, 2)])
def test_marks_are_the_nobles_and_the_decisive_purchases(players: int, seed: int):
    _, end = greedy_game(players, seed)
    story = story_of(players, seed)
    marks = story.marks()
    nobles = sorted(n for _, kind, n in marks if kind == "noble")
    assert nobles == sorted(n for p in end.players for n in p.nobles)
    bought = {(point.turn, c) for point, kind, c in marks if kind == "buy"}
    result = outcome(end)
    assert result is not None
    for winner in result.winners:
        last = max(p.turn for p in story.turns if p.seat == winner and p.bought)
        assert (last, story.turns[last].bought[0]) in bought
    finals = {
        max(p.turn for p in story.turns if p.seat == winner and p.bought)
        for winner in result.winners
    }
    expected: set[tuple[int, int]] = set()
    for point in story.turns[1:]:
        rise = point.chances[point.seat] - story.turns[point.turn - 1].chances[point.seat]
        if round(rise, 9) >= DECISIVE or point.turn in finals:
            expected.update((point.turn, card_id) for card_id in point.bought)
    assert bought == expected
    turns = [point.turn for point, _, _ in marks]
    assert turns == sorted(turns)


def test_what_each_turn_did():
    story = analyse(PASSING, 2, seed=1)
    assert story.turns[1].reserved_blind == (3,)
    assert story.turns[1].reserved == ()
    _, end = greedy_game(4, 4)
    story = story_of(4, 4)
    bought = [c for p in story.turns for c in p.bought]
    assert sorted(bought) == sorted(c for p in end.players for c in p.cards)
    for point in story.turns[1:]:
        assert point.moves
        for text in point.moves:
            action = parse_action(text)
            if action.kind == RESERVE and action.card:
                assert action.card in point.reserved


# ---------------------------------------------------------------- every ending


@pytest.mark.no_cover
def test_a_game_ended_by_a_round_of_passes():
    story = analyse(PASSING, PLAYOUTS, seed=2)
    assert story.ended_by == PASSES
    assert story.winners == (0, 1)
    assert story.turns[-1].chances == (0.5, 0.5)
    assert story.turns[-1].moves == ("pass",)
    assert story.rounds()[-1] == story.turns[-1]
    assert Story.from_dict(story.to_dict()) == story


@pytest.mark.no_cover
def test_a_game_ended_by_the_stalemate_rule():
    game = quiet_game()
    story = analyse(game, 2, seed=3)
    assert story.ended_by == STALEMATE
    assert story.turns[-1].round == 23  # three rounds of reserving, twenty quiet ones
    assert abs(sum(story.turns[-1].chances) - 1) < 1e-9
    assert story.marks() == []


def test_a_game_that_goes_on_is_analysed_up_to_its_last_complete_turn():
    game, _ = greedy_game(2, 2)
    cut = PlayedGame(2, 2, game.moves[:41])
    story = analyse(cut, 2, seed=1)
    assert story.winners == ()
    assert story.ended_by == ""
    assert sum(len(p.moves) for p in story.turns) <= 41
    assert story.rounds()[-1] == story.turns[-1]
    assert analyse(PlayedGame(3, 1, ()), 2).turns[0].turn == 0


# ---------------------------------------------------------------- progress


def test_progress_counts_to_a_fixed_total():
    calls: list[tuple[int, int]] = []
    game, _ = greedy_game(2, 2)
    analyse(game, 1, seed=1, progress=lambda done, total: calls.append((done, total)))
    totals = {total for _, total in calls}
    assert len(totals) == 1
    assert [done for done, _ in calls] == list(range(1, calls[-1][1] + 1))
    assert calls[-1][0] == calls[-1][1]


@pytest.mark.no_cover
def test_the_turns_that_moved_most_are_estimated_again_with_more_playouts():
    game, _ = greedy_game(2, 2)
    base = 2
    story = analyse(game, base, seed=3)
    states = [game.deal()] + [turn.after for turn in turns_of(game.deal(), game.moves)]
    sharpened = 0
    for index, point in enumerate(story.turns):
        plain = chances(states[index], base, position_rng(3, states[index].turn))
        rng = position_rng(3, states[index].turn, "sharpen")
        sharp = chances(states[index], base * SHARPEN_FACTOR, rng)
        assert point.chances in (plain, sharp)
        sharpened += point.chances == sharp != plain
    assert 0 < sharpened <= 2 * SHARPEN_TURNS
