"""A household's history made quickly: finished games as the server keeps them.

`make_games(1000)` plays a thousand games with the engine's own bots (EasyBot, each
player with a carelessness of their own, so some win more than others) and stores
each as a finished game would be after a real evening: the Game with its final
snapshot and its deal's seed, its Seats, and every Move in notation (so its replay
works), in a few bulk inserts. Dates run forward from `games` / 3 days ago, two
to four games an evening, half an hour apart.

Used by `manage.py make_household` and `manage.py bench_players` (game.bench: the
server never imports it).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from game.engine import GameState, new_game
from game.engine.bots import Bot, EasyBot, GreedyBot
from game.engine.rules import apply_legal_action
from game.engine.vocabulary import BotLevel, SeatRole
from game.models import Game, Move, Seat, new_player_key, new_room_code

# A family and its friends: some names typed in other cases now and then, in several scripts.
NAMES = (
    "Ada",
    "Bruno",
    "Ελένη",
    "Łukasz",
    "Zoë",
    "Mia",
    "Otso",
    "Noor",
    "Sami",
    "Greta",
    "Jun",
    "Leila",
)
BOT_SHARE = 0.15  # games with one bot seat
BATCH = 200  # games a transaction


@dataclass(frozen=True, slots=True)
class Made:
    """A game made: its seats' names (a bot as "bot:<level>") and its moves."""

    seats: tuple[str, ...]
    seed: int
    first_player: int
    state: GameState
    moves: list[tuple[int, str]]  # (seat, notation)


def _play(seats: tuple[str, ...], carelessness: dict[str, float], seed: int, first: int) -> Made:
    bots: list[Bot] = []
    for position, name in enumerate(seats):
        if name == f"bot:{BotLevel.EASY}":
            bots.append(EasyBot(seed + position))
        elif name.startswith("bot:"):
            bots.append(GreedyBot(seed + position))
        else:
            bots.append(EasyBot(seed + position, carelessness[name.casefold()]))
    state = new_game(len(seats), seed, first)
    moves: list[tuple[int, str]] = []
    while not state.is_over:
        seat = state.current
        action = bots[seat].choose(state, seat)
        moves.append((seat, action.notation()))
        apply_legal_action(state, action)
    return Made(seats, seed, first, state, moves)


def plan(games: int, players: int, seed: int) -> list[tuple[tuple[str, ...], int, int]]:
    """Who sits where in each game, its deal's seed and its first player."""
    rng = random.Random(seed)
    people = list(NAMES[: max(2, min(players, len(NAMES)))])
    planned = []
    for _game in range(games):
        bot = rng.random() < BOT_SHARE
        size = rng.choice((2, 3, 3, 4, 4))
        humans = min(size - bot, len(people))
        seats = [_typed(name, rng) for name in rng.sample(people, humans)]
        if bot or len(seats) < 2:
            level = rng.choice([level.value for level in BotLevel])
            seats.insert(rng.randrange(len(seats) + 1), f"bot:{level}")
        planned.append((tuple(seats), rng.randrange(2**31), rng.randrange(len(seats))))
    return planned


def _typed(name: str, rng: random.Random) -> str:
    """A name as someone typed it this time: now and then in capitals or small letters."""
    roll = rng.random()
    return name.upper() if roll < 0.05 else name.lower() if roll < 0.1 else name


def _dates(games: int, rng: random.Random) -> list[datetime]:
    when = timezone.now() - timedelta(days=max(games / 3, 1))
    dates = []
    left = 0
    for _game in range(games):
        if left == 0:
            when += timedelta(days=1, hours=rng.randint(-2, 2))
            left = rng.randint(2, 4)
        when += timedelta(minutes=rng.randint(25, 45))
        left -= 1
        dates.append(when)
    return dates


def make_games(games: int, players: int = 6, seed: int = 0) -> list[int]:
    """Play and store `games` finished games among `players` people; return their ids."""
    rng = random.Random(seed ^ 0x5EED)
    people = [name.casefold() for name in NAMES[: max(2, min(players, len(NAMES)))]]
    carelessness = {name: rng.uniform(0.1, 0.7) for name in people}
    dates = _dates(games, rng)
    ids: list[int] = []
    planned = plan(games, players, seed)
    for start in range(0, games, BATCH):
        made = [
            _play(seats, carelessness, s, first)
            for seats, s, first in planned[start : start + BATCH]
        ]
        ids += _store(made, dates[start : start + BATCH])
    return ids


def _store(made: list[Made], dates: list[datetime]) -> list[int]:
    with transaction.atomic():
        taken = set(Game.objects.values_list("code", flat=True))
        rows = []
        for game in made:
            code = new_room_code()
            while code in taken:
                code = new_room_code()
            taken.add(code)
            row = Game(
                code=code,
                seed=game.seed,
                status=Game.Status.OVER,
                version=game.state.moves,
                first_player=game.first_player,
            )
            row.state = game.state.to_dict()  # the final snapshot, as the writer keeps it
            rows.append(row)
        stored = Game.objects.bulk_create(rows)
        for row, when in zip(stored, dates, strict=True):
            row.created_at = when
        Game.objects.bulk_update(stored, ["created_at"], batch_size=100)
        seats, moves = [], []
        for row, game in zip(stored, made, strict=True):
            bots = 0
            for position, name in enumerate(game.seats):
                if name.startswith("bot:"):
                    bots += 1
                    seats.append(
                        Seat(
                            game=row,
                            position=position,
                            name=f"Bot {bots}",
                            role=SeatRole.BOT,
                            bot_level=name.removeprefix("bot:"),
                            bot_number=bots,
                        )
                    )
                else:
                    seats.append(
                        Seat(game=row, position=position, name=name, player_key=new_player_key())
                    )
            moves += [
                Move(game=row, index=index, seat=seat, notation=notation)
                for index, (seat, notation) in enumerate(game.moves)
            ]
        Seat.objects.bulk_create(seats, batch_size=500)
        Move.objects.bulk_create(moves, batch_size=2000)
    return [row.id for row in stored]
