"""Games played to the end through the writer, for the household history's tests.

Used by tests/web/test_household.py, in the test's database and on PostgreSQL
(a script that imports this module), so both check the same games.
"""

from __future__ import annotations

from dataclasses import dataclass

from game.engine import GameState, outcome
from game.engine.bot_registry import make_bot
from game.models import Game, new_player_key
from game.writer import bot_turns, games, lobby, moves, seating
from tests.engine.test_stalemate import never_buy

HOST_KEY = "household-host"  # the session key of the screen that hosts every game


@dataclass
class Finished:
    """A game played to the end: who sat where, and the engine's result."""

    game_id: int
    code: str
    seats: list[str]  # names as typed; a bot as "bot:<level>"
    points: tuple[int, ...]
    winners: tuple[int, ...]
    keys: dict[int, str]  # each phone's player key, by seat position


def _lobby(players: list[str], seed: int) -> tuple[Game, dict[int, str]]:
    game = lobby.create_game(HOST_KEY)
    Game.objects.filter(pk=game.pk).update(seed=seed)
    keys: dict[int, str] = {}
    for position, seat in enumerate(players):
        if seat.startswith("bot:"):
            lobby.add_bot(game.id, HOST_KEY, seat.removeprefix("bot:"))
        else:
            keys[position] = new_player_key()
            seating.join_game(game.id, keys[position], seat)
    lobby.start_game(game.id, HOST_KEY, first_player=0)
    return game, keys


def _state(game_id: int) -> tuple[GameState, int]:
    game = Game.objects.get(pk=game_id)
    state = games.load_state(game)
    assert state is not None
    return state, game.version


def play(seats: list[str], seed: int, *, stalemate: bool = False) -> Finished:
    """Play a game to the end: phones move as the medium bot would (or, for a
    stalemate, never buy), bot seats through the writer's own bot turn."""
    game, keys = _lobby(seats, seed)
    choosers = [make_bot("medium", seed + seat) for seat in range(len(seats))]
    taken: dict[int, tuple[int, ...]] = {}
    for _move in range(2000):
        state, version = _state(game.id)
        if state.is_over:
            break
        seat = state.current
        if seat not in keys:
            if not moves.play_bot_turn(game.id, version):
                # A bot turn of the server's own took it: wait until that move is played.
                bot_turns.scheduler.wait(timeout=60)
            continue
        action = never_buy(state, taken) if stalemate else choosers[seat].choose(state, seat)
        moves.play(game.id, keys[seat], action.notation(), version)
    state, _version = _state(game.id)
    ended = outcome(state)
    assert ended is not None, "the game did not end"
    return Finished(game.id, game.code, seats, ended.points, ended.winners, keys)


def household() -> dict[str, Finished]:
    """The household's games: a decisive one, a shared win, a bot, non-Latin names in
    two cases, and a game still being played (which counts for nobody)."""
    games = {
        "first": play(["Ada", "Bob"], seed=11),
        "shared": play(["ADA", "bob"], seed=12, stalemate=True),
        "bot": play(["ada", "bot:medium", "Łukasz"], seed=13),
        "greek": play(["ŁUKASZ", "ΕΛΈΝΗ", "Zoë"], seed=14),
        "again": play(["ελένη", "ZOË"], seed=15),
    }
    unfinished, keys = _lobby(["Ada", "Bob"], seed=16)
    state, version = _state(unfinished.id)
    action = make_bot("medium", 1).choose(state, 0)
    moves.play(unfinished.id, keys[0], action.notation(), version)
    return games
