"""The games both servers play: dealt the same way, with the moves greedy bots chose."""

from __future__ import annotations

import math
import secrets
from dataclasses import dataclass, field
from functools import lru_cache

from django.contrib.sessions.backends.db import SessionStore
from django.core.management.base import CommandError
from django.db import connection

from game.bench.web.config import MAX_CHANGES, SEATS, SEED
from game.engine import apply_action, new_game
from game.engine.bot_registry import make_bot
from game.engine.bots import Bot
from game.models import Game, new_player_key
from game.writer import lobby, moves, seating


@dataclass
class Table:
    """One game as the client knows it: its code, the screens' cookies, its deal, its version."""

    code: str
    cookies: list[str]  # session keys: the TV's (the host's), then one phone a seat
    seed: int
    version: int  # what the screens show now
    start: int = field(init=False)  # the version of the deal, before the first change

    def __post_init__(self) -> None:
        self.start = self.version


def greedy_bots(seed: int) -> list[Bot]:
    return [make_bot("greedy", seed * 10 + position) for position in range(SEATS)]


@lru_cache(maxsize=1024)
def script(seed: int) -> tuple[tuple[int, str], ...]:
    """Every change of the game greedy bots play from this deal: (seat, action) each.

    Chosen ahead, so that the client's own thinking neither delays the actions nor
    competes with the servers; both servers get the same games (same seeds).
    """
    state = new_game(SEATS, seed, 0)
    bots = greedy_bots(seed)
    changes: list[tuple[int, str]] = []
    for _change in range(MAX_CHANGES):
        if state.is_over:
            return tuple(changes)
        seat = state.current
        action = bots[seat].choose(state, seat)
        changes.append((seat, action.notation()))
        apply_action(state, action, seat)
    raise CommandError(f"the game of seed {seed} did not end within {MAX_CHANGES} changes")


def project_table(number: int, bots: int = 0, played: int = 0) -> Table:
    """Open a game in the database, seat phones (and `bots` bots last), start it, and
    play its first `played` changes (the greedy script's, so only without bots).

    Deterministic per number. The cookies are the host's and each phone's sessions.
    """
    try:
        if played and bots:
            raise ValueError("a game with bots is played by its bots, not by the script")
        host_key = new_player_key()
        keys = [new_player_key() for _ in range(SEATS - bots)]
        game_id, code, dealt = _deal(number, host_key, keys, bots)
        seed = SEED + number
        for index, (seat, action) in enumerate(script(seed)[:played]):
            moves.play(game_id, keys[seat], action, dealt + index)
        version = Game.objects.values_list("version", flat=True).get(pk=game_id)
        table = Table(code, [_session(key) for key in [host_key, *keys]], seed, version)
        table.start = dealt  # the script's changes are counted from the deal
        return table
    finally:
        connection.close()  # dealt from many threads: leave no connection open


def _deal(number: int, host_key: str, keys: list[str], bots: int) -> tuple[int, str, int]:
    """Open game `number` with these phones (and bots) seated and start it: its id, its
    code and the version of its deal."""
    game = lobby.create_game(host_key)
    Game.objects.filter(pk=game.pk).update(seed=SEED + number)
    for position, key in enumerate(keys):
        seating.join_game(game.id, key, f"Player {position + 1}")
    for _bot in range(bots):
        lobby.add_bot(game.id, host_key, "greedy")
    lobby.start_game(game.id, host_key, first_player=0)
    dealt = Game.objects.values_list("version", flat=True).get(pk=game.id)
    return game.id, game.code, dealt


def _session(player_key: str) -> str:
    """A session cookie that identifies this player."""
    store = SessionStore()
    store["player_key"] = player_key
    store.create()
    assert store.session_key is not None
    return store.session_key


# A fraction of a game's changes, different for each game number and spread evenly
# over [0, 1) however many games there are (the golden ratio's low-discrepancy sequence).
GOLDEN = (math.sqrt(5) - 1) / 2


def project_table_in_play(number: int) -> Table:
    """A game already part-played, at a stage of its own: a server that has run for a
    while has games at every stage, and a game's later turns cost more than its first
    (more cards affordable, more ways to pay, fewer regions that every game shares).
    Spread evenly over a game's length, as many games end in a measurement as would in
    a server's steady state (one a second of 100 games of about 100 changes)."""
    stage = (number * GOLDEN) % 1.0
    return project_table(number, played=int(stage * len(script(SEED + number))))


def bare_table(number: int) -> Table:
    """The same game for the bare server, which keeps nothing but a version."""
    seed = SEED + number
    cookies = [secrets.token_hex(16) for _ in range(SEATS + 1)]
    return Table(f"bare{number}", cookies, seed, 0)
