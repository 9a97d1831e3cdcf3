"""The lobby: the host opens a game, seats bots, makes its choices, deals; and rematches.

Players take their own seats (game.writer.seating); everything here is the host's
screen's to do, and refused to any other.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from game.bot_levels import STAND_IN_CHOICES, hard_bot_choices, level_of
from game.engine import GameState, new_game
from game.engine.bot_registry import BOT_KINDS
from game.engine.vocabulary import BotLevel, PlayedOn, SeatRole
from game.models import Game, Seat
from game.storage import names, presence
from game.writer.changes import publish_after_commit
from game.writer.games import MAX_SEATS, MIN_SEATS, Refused, lock, require_host


def create_game(host_key: str, *, no_gold_small: bool = False) -> Game:
    """Open a new game in the lobby, run by the screen with this key."""
    for _attempt in range(20):
        try:
            with transaction.atomic():
                return Game.objects.create(host_key=host_key, house_no_gold_small=no_gold_small)
        except IntegrityError:  # room code already taken: draw another
            continue
    raise RuntimeError("Could not find a free room code.")


def _require_lobby(game: Game) -> None:
    if game.status != Game.Status.LOBBY:
        raise Refused(_("This game has already started."))


def _free_seat(game_id: int, host_key: str) -> tuple[Game, int]:
    """The host's lobby, locked, and the position of its next empty seat (inside the
    caller's transaction); refused to any other screen, after the deal, or at four."""
    game = lock(game_id)
    require_host(game, host_key)
    _require_lobby(game)
    count = game.seats.count()
    if count >= MAX_SEATS:
        raise Refused(_("The table is full: four players already."))
    return game, count


def add_bot(game_id: int, host_key: str, kind: str = BotLevel.MEDIUM) -> Seat:
    """Fill the next empty seat with a bot of this level (or an engine bot's name, stored
    as the level it plays at); screens name it per language."""
    if kind not in BOT_KINDS:
        raise Refused(_("There is no such bot."))
    with transaction.atomic():
        game, count = _free_seat(game_id, host_key)
        taken = set(game.seats.values_list("bot_number", flat=True))
        number = min(set(range(1, MAX_SEATS + 1)) - taken)
        # The stored name is a language-neutral fallback; screens show seat_name().
        seat = Seat.objects.create(
            game=game,
            position=count,
            name=f"Bot {number}",
            role=SeatRole.BOT,
            bot_level=level_of(kind),
            bot_number=number,
        )
        publish_after_commit(game)
        return seat


def add_tv_player(game_id: int, host_key: str, name: str) -> Seat:
    """Seat a player without a phone, whose turns the host screen plays (same name rules as
    the join page); the lobby's Remove frees the seat as any other."""
    name = names.clean_name(name)
    if not name:
        raise Refused(_("Please type the player's name."))
    with transaction.atomic():
        game, count = _free_seat(game_id, host_key)
        seat = Seat.objects.create(
            game=game, position=count, name=name, role=SeatRole.HUMAN, played_on=PlayedOn.TV
        )
        publish_after_commit(game)
        return seat


def remove_seat(game_id: int, host_key: str, position: int) -> None:
    """Free a seat in the lobby; later seats move up so positions stay 0..n-1."""
    with transaction.atomic():
        game = lock(game_id)
        require_host(game, host_key)
        _require_lobby(game)
        gone = tuple(game.seats.filter(position=position).values_list("pk", flat=True))
        deleted, _rows = game.seats.filter(position=position).delete()
        if not deleted:
            raise Refused(_("That seat is already empty."))
        for seat in game.seats.filter(position__gt=position).order_by("position"):
            seat.position -= 1
            seat.save(update_fields=["position"])
        publish_after_commit(game, gone=gone)


def _set_lobby_choice(game_id: int, host_key: str, field: str, value: object) -> Game:
    """Store one of the host's lobby choices (already checked) and show it."""
    with transaction.atomic():
        game = lock(game_id)
        require_host(game, host_key)
        _require_lobby(game)
        setattr(game, field, value)
        game.save(update_fields=[field, "updated_at"])
        publish_after_commit(game)
        return game


def set_stand_in(game_id: int, host_key: str, seconds: int | None) -> Game:
    """Let a bot play for a phone away `seconds` on its turn; None turns it off."""
    if seconds is not None and seconds not in STAND_IN_CHOICES:
        raise Refused(_("Choose one of the waiting times offered."))
    return _set_lobby_choice(game_id, host_key, "stand_in_after", seconds)


def set_hard_bot_seconds(game_id: int, host_key: str, seconds: float) -> Game:
    """Let hard bots think `seconds` about each move (one of bot_levels.hard_bot_choices())."""
    if seconds not in hard_bot_choices():
        raise Refused(_("Choose one of the thinking times offered."))
    return _set_lobby_choice(game_id, host_key, "hard_bot_seconds", seconds)


def _deal(game: Game, first_player: int | None) -> GameState:
    count = game.seats.count()
    if not MIN_SEATS <= count <= MAX_SEATS:
        raise Refused(_("Splendor needs two to four players."))
    state = new_game(count, game.seed, first_player, game.house_no_gold_small)
    game.state = state.to_dict()
    game.first_player = state.first_player
    game.version = state.moves
    game.status = Game.Status.PLAYING
    return state


def start_game(game_id: int, host_key: str, first_player: int | None = None) -> Game:
    """Deal the cards and start play with the seats filled now."""
    with transaction.atomic():
        game = lock(game_id)
        require_host(game, host_key)
        _require_lobby(game)
        state = _deal(game, first_player)
        game.save()
        publish_after_commit(game, state)
        return game


def rematch(game_id: int, host_key: str) -> Game:
    """Start a new game with the same players in the same seats."""
    with transaction.atomic():
        game = lock(game_id)
        require_host(game, host_key)
        if game.next_game_id is not None:
            return Game.objects.get(pk=game.next_game_id)
        if game.status != Game.Status.OVER:
            raise Refused(_("The game is not over yet."))
        fresh = create_game(host_key, no_gold_small=game.house_no_gold_small)
        fresh.stand_in_after = game.stand_in_after
        fresh.hard_bot_seconds = game.hard_bot_seconds
        Seat.objects.bulk_create(
            Seat(
                game=fresh,
                position=seat.position,
                name=seat.name,
                player_key=seat.player_key,
                role=seat.role,
                bot_level=seat.bot_level,
                bot_number=seat.bot_number,
                # A player at the TV stays at the TV (one a stand-in played, too).
                played_on=seat.played_on,
            )
            for seat in game.seats.all()
        )
        _follow(game, fresh)
        state = _deal(fresh, None)
        fresh.save()
        publish_after_commit(fresh, state)  # nobody watches it yet, but a bot may start
        game.next_game = fresh
        game.save(update_fields=["next_game", "updated_at"])
        publish_after_commit(game)
        return fresh


def _follow(game: Game, fresh: Game) -> None:
    """The phones present at the end of `game` are on their way to its rematch: their
    seats there count as reconnecting, not away, while the pages follow (no rejoin
    code flashes on the TV); a phone that was away stays away."""
    present = presence.here(game.id).present
    positions = set(game.seats.filter(pk__in=present).values_list("position", flat=True))
    seats = fresh.seats.filter(position__in=positions, role=SeatRole.HUMAN)
    presence.on_the_way(fresh.id, seats.values_list("pk", flat=True))
