"""The one place that changes a game.

Every change follows the same steps inside one transaction: lock the game row,
validate, apply through the engine, record the move, save the snapshot, and
announce "game changed" to the game's group only after the commit. A refused
request raises Refused with a message for the player, and changes nothing.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from game import names, presence, rejoin_guard
from game.bot_levels import LEVELS, STAND_IN, make_level_bot
from game.engine import ActionError, GameState, NotationError, new_game, parse_action
from game.engine.rules import apply_action
from game.engine.rules import replay as replay_moves
from game.forms import read_code
from game.models import Game, Move, Seat, new_rejoin_code

log = logging.getLogger(__name__)

MIN_SEATS = 2
MAX_SEATS = 4
# The levels the lobby offers, and the engine's older bot names.
BOT_KINDS = (*LEVELS, "greedy", "random")
NAME_MAX = names.NAME_MAX

# Engine messages name colours in English; these translate them.
COLOUR_NAMES = {
    "white": gettext_lazy("white"),
    "blue": gettext_lazy("blue"),
    "green": gettext_lazy("green"),
    "red": gettext_lazy("red"),
    "black": gettext_lazy("black"),
    "gold": gettext_lazy("gold"),
}


class Refused(Exception):
    """A request that was turned down; `message` is shown to that player only."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def group_name(game_id: int) -> str:
    return f"game-{game_id}"


def announce(game_id: int) -> None:
    """Tell every screen of the game to fetch its fresh view."""
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(group_name(game_id), {"type": "game.changed"})


def _announce_after_commit(game_id: int) -> None:
    # Screens re-read the database when told; telling them before the commit
    # would let them read the old state.
    transaction.on_commit(lambda: announce(game_id))


def explain(error: ActionError) -> str:
    """Translate an engine error for the player."""
    params = {
        k: COLOUR_NAMES.get(v, v) if isinstance(v, str) else v for k, v in error.params.items()
    }
    return _(error.template) % params if params else _(error.template)


def _lock(game_id: int) -> Game:
    """Return the game row, locked until the transaction ends.

    select_for_update serialises concurrent actions on one game under
    PostgreSQL; SQLite has no row locks, but our connections BEGIN IMMEDIATE,
    which takes the database write lock for the same effect.
    """
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise Refused(_("This game does not exist.")) from None


def load_state(game: Game) -> GameState | None:
    return GameState.from_dict(game.state) if game.state else None


def replay_game(game: Game) -> GameState:
    """Rebuild the game from its seed and recorded moves."""
    notations = list(game.moves.order_by("index").values_list("notation", flat=True))
    return replay_moves(
        game.seats.count(),
        game.seed,
        notations,
        first_player=game.first_player,
        no_gold_small=game.house_no_gold_small,
    )


# ---------------------------------------------------------------- the lobby


def create_game(host_key: str, *, no_gold_small: bool = False) -> Game:
    """Open a new game in the lobby, run by the screen with this key."""
    for _attempt in range(20):
        try:
            with transaction.atomic():
                return Game.objects.create(host_key=host_key, house_no_gold_small=no_gold_small)
        except IntegrityError:  # room code already taken: draw another
            continue
    raise RuntimeError("Could not find a free room code.")


def seat_of(game: Game, player_key: str) -> Seat | None:
    if not player_key:
        return None
    return game.seats.filter(player_key=player_key).first()


def clean_name(name: object) -> str:
    """Return a name fit to store and show: any script, trimmed, limited in length."""
    return names.clean_name(name)


def join_game(game_id: int, player_key: str, name: str) -> Seat:
    """Seat this player in the lobby, or return the seat they already have."""
    name = clean_name(name)
    if not name:
        raise Refused(_("Please type your name."))
    with transaction.atomic():
        game = _lock(game_id)
        seat = seat_of(game, player_key)
        if seat is not None:
            if seat.name != name:
                seat.name = name
                seat.save(update_fields=["name"])
                _announce_after_commit(game.id)
            return seat
        if game.status != Game.Status.LOBBY:
            raise Refused(_("This game has already started."))
        count = game.seats.count()
        if count >= MAX_SEATS:
            raise Refused(_("The table is full: four players already."))
        seat = Seat.objects.create(game=game, position=count, name=name, player_key=player_key)
        _announce_after_commit(game.id)
        return seat


def _require_host(game: Game, host_key: str) -> None:
    if not host_key or game.host_key != host_key:
        raise Refused(_("Only the screen that created the game can do that."))


def _require_lobby(game: Game) -> None:
    if game.status != Game.Status.LOBBY:
        raise Refused(_("This game has already started."))


def add_bot(game_id: int, host_key: str, kind: str = "medium") -> Seat:
    """Fill the next empty seat with a bot of this level; screens name it per language."""
    if kind not in BOT_KINDS:
        raise Refused(_("There is no such bot."))
    with transaction.atomic():
        game = _lock(game_id)
        _require_host(game, host_key)
        _require_lobby(game)
        count = game.seats.count()
        if count >= MAX_SEATS:
            raise Refused(_("The table is full: four players already."))
        taken = set(game.seats.values_list("bot_number", flat=True))
        number = min(set(range(1, MAX_SEATS + 1)) - taken)
        # The stored name is a language-neutral fallback; screens show seat_name().
        seat = Seat.objects.create(
            game=game,
            position=count,
            name=f"Bot {number}",
            is_bot=True,
            bot_kind=kind,
            bot_number=number,
        )
        _announce_after_commit(game.id)
        return seat


def remove_seat(game_id: int, host_key: str, position: int) -> None:
    """Free a seat in the lobby; later seats move up so positions stay 0..n-1."""
    with transaction.atomic():
        game = _lock(game_id)
        _require_host(game, host_key)
        _require_lobby(game)
        deleted, _rows = game.seats.filter(position=position).delete()
        if not deleted:
            raise Refused(_("That seat is already empty."))
        for seat in game.seats.filter(position__gt=position).order_by("position"):
            seat.position -= 1
            seat.save(update_fields=["position"])
        _announce_after_commit(game.id)


def _deal(game: Game, first_player: int | None) -> None:
    count = game.seats.count()
    if not MIN_SEATS <= count <= MAX_SEATS:
        raise Refused(_("Splendor needs two to four players."))
    state = new_game(count, game.seed, first_player, game.house_no_gold_small)
    game.state = state.to_dict()
    game.first_player = state.first_player
    game.version = state.moves
    game.status = Game.Status.PLAYING


def start_game(game_id: int, host_key: str, first_player: int | None = None) -> Game:
    """Deal the cards and start play with the seats filled now."""
    with transaction.atomic():
        game = _lock(game_id)
        _require_host(game, host_key)
        _require_lobby(game)
        _deal(game, first_player)
        game.save()
        _announce_after_commit(game.id)
        return game


def rematch(game_id: int, host_key: str) -> Game:
    """Start a new game with the same players in the same seats."""
    with transaction.atomic():
        game = _lock(game_id)
        _require_host(game, host_key)
        if game.next_game_id is not None:
            return Game.objects.get(pk=game.next_game_id)
        if game.status != Game.Status.OVER:
            raise Refused(_("The game is not over yet."))
        fresh = create_game(host_key, no_gold_small=game.house_no_gold_small)
        fresh.stand_in_after = game.stand_in_after
        Seat.objects.bulk_create(
            Seat(
                game=fresh,
                position=seat.position,
                name=seat.name,
                player_key=seat.player_key,
                is_bot=seat.is_bot,
                bot_kind=seat.bot_kind,
                bot_number=seat.bot_number,
            )
            for seat in game.seats.all()
        )
        _deal(fresh, None)
        fresh.save()
        game.next_game = fresh
        game.save(update_fields=["next_game", "updated_at"])
        _announce_after_commit(game.id)
        return fresh


def rejoin(game_id: int, player_key: str, rejoin_code: object, client: str | None = None) -> Seat:
    """Give this phone the seat whose rejoin code it typed (from a stand-in bot too).

    A code only takes a seat whose phone is away, and is replaced by a new one once
    used, so a code seen on the TV cannot take the seat again later. `client` (the
    phone's address) limits wrong guesses per game; it defaults to the player key.
    """
    client = client or player_key
    if rejoin_guard.blocked(game_id, client):
        raise Refused(_("Too many wrong codes. Please wait a minute, then try again."))
    code = read_code(rejoin_code)
    with transaction.atomic():
        game = _lock(game_id)
        humans = game.seats.filter(Q(is_bot=False) | Q(bot_kind=STAND_IN))
        seat = humans.filter(rejoin_code=code).first() if code else None
        if seat is None:
            rejoin_guard.failed(game_id, client)
            raise Refused(_("That rejoin code does not match a seat in this game."))
        rejoin_guard.succeeded(game_id, client)
        if seat.player_key == player_key and not seat.is_bot:
            return seat  # this phone holds the seat already: nothing to take
        if seat.pk in presence.connected(game.id):
            raise Refused(
                _("This seat's phone is still connected. Ask the host if you need the seat.")
            )
        # A phone holds one seat a game: let go of any other first.
        game.seats.filter(player_key=player_key).exclude(pk=seat.pk).update(player_key="")
        seat.player_key = player_key
        seat.is_bot = False
        seat.bot_kind = ""
        seat.rejoin_code = _fresh_rejoin_code(game, seat.rejoin_code)
        seat.save(update_fields=["player_key", "is_bot", "bot_kind", "rejoin_code"])
        _announce_after_commit(game.id)
        return seat


def _fresh_rejoin_code(game: Game, used: str) -> str:
    """Return a new code for a seat, unlike the used one and any other seat's in the game."""
    taken = set(game.seats.values_list("rejoin_code", flat=True)) | {used}
    while True:
        code = new_rejoin_code()
        if code not in taken:
            return code


def hand_to_bot(game_id: int, host_key: str, position: int) -> Seat:
    """Let a bot play a seat whose player left; they can take it back with their code."""
    with transaction.atomic():
        game = _lock(game_id)
        _require_host(game, host_key)
        if game.status != Game.Status.PLAYING:
            raise Refused(_("The game is not running."))
        seat = game.seats.filter(position=position).first()
        if seat is None or seat.is_bot:
            raise Refused(_("A bot already plays that seat."))
        seat.is_bot = True
        seat.bot_kind = STAND_IN
        seat.player_key = ""  # the phone that left loses the seat until it rejoins
        seat.save(update_fields=["is_bot", "bot_kind", "player_key"])
        _announce_after_commit(game.id)
        return seat


# ---------------------------------------------------------------- the automatic stand-in

# Seconds a phone may be away on its turn before a bot plays for it (the lobby's choices).
STAND_IN_CHOICES = (15, 30, 60, 120)


def set_stand_in(game_id: int, host_key: str, seconds: int | None) -> Game:
    """Let a bot play for a phone away `seconds` on its turn; None turns it off."""
    if seconds is not None and seconds not in STAND_IN_CHOICES:
        raise Refused(_("Choose one of the waiting times offered."))
    with transaction.atomic():
        game = _lock(game_id)
        _require_host(game, host_key)
        _require_lobby(game)
        game.stand_in_after = seconds
        game.save(update_fields=["stand_in_after", "updated_at"])
        _announce_after_commit(game.id)
        return game


def stand_in_for_away(game_id: int, position: int, expected_version: int) -> bool:
    """Let a bot play for the phone at `position`, away on its turn; False if nothing changed.

    The caller has seen that phone away for the game's stand_in_after seconds
    while the game stood at `expected_version`; a move since then means the
    wait is over. The phone keeps its key, so reconnecting (take_seat_back) or
    its rejoin code gives the seat back.
    """
    with transaction.atomic():
        game = _lock(game_id)
        if game.stand_in_after is None or game.status != Game.Status.PLAYING:
            return False
        if game.version != expected_version or not game.state:
            return False
        seat = game.seats.filter(position=position).first()
        if seat is None or seat.is_bot or game.state["current"] != position:
            return False
        seat.is_bot = True
        seat.bot_kind = STAND_IN
        seat.save(update_fields=["is_bot", "bot_kind"])
        _announce_after_commit(game.id)
        return True


def take_seat_back(game_id: int, player_key: str) -> Seat | None:
    """Give a reconnected phone its seat back from a stand-in; None if it had none."""
    with transaction.atomic():
        game = _lock(game_id)
        seat = seat_of(game, player_key)
        if seat is None or not seat.is_bot or seat.bot_kind != STAND_IN:
            return None
        seat.is_bot = False
        seat.bot_kind = ""
        seat.save(update_fields=["is_bot", "bot_kind"])
        _announce_after_commit(game.id)
        return seat


# ---------------------------------------------------------------- play


def _read_version(version: Any) -> int:
    """Read the version a screen built its action on: an integer, or its digits."""
    if isinstance(version, int) and not isinstance(version, bool):
        return version
    if isinstance(version, str) and version.strip().isascii() and version.strip().isdigit():
        return int(version)
    raise Refused(_("That action could not be read."))


def _apply(game: Game, position: int, text: Any, version: Any) -> None:
    """Apply one action to a locked game, record it and announce it after commit."""
    if game.status == Game.Status.LOBBY:
        raise Refused(_("The game has not started yet."))
    if game.status == Game.Status.OVER:
        raise Refused(_("The game is over."))
    if _read_version(version) != game.version:
        # Built on an older screen: a double tap, or a second phone in the same seat.
        raise Refused(_("The game moved on before your action arrived; look again and retry."))
    state = load_state(game)
    assert state is not None
    try:
        action = parse_action(text)
        apply_action(state, action, seat=position)
    except NotationError:
        raise Refused(_("That action could not be read.")) from None
    except ActionError as error:
        raise Refused(explain(error)) from None
    Move.objects.create(game=game, index=game.version, seat=position, notation=action.notation())
    game.state = state.to_dict()
    game.version = state.moves
    if state.is_over:
        game.status = Game.Status.OVER
    game.save()
    _announce_after_commit(game.id)


def play(game_id: int, player_key: str, text: Any, version: Any) -> None:
    """Apply a player's action for the seat their session holds."""
    with transaction.atomic():
        game = _lock(game_id)
        seat = seat_of(game, player_key)
        if seat is None or seat.is_bot:
            raise Refused(_("You do not have a seat in this game."))
        _apply(game, seat.position, text, version)


def bot_to_play(game: Game) -> Seat | None:
    """Return the bot seat whose turn it is, if any."""
    if game.status != Game.Status.PLAYING or not game.state:
        return None
    seat = game.seats.filter(position=game.state["current"]).first()
    return seat if seat is not None and seat.is_bot else None


def play_bot_turn(game_id: int, expected_version: int) -> bool:
    """Let the bot whose turn it is act once; False if there was nothing to do.

    The expected version keeps two screens' bot drivers from both moving.
    """
    with transaction.atomic():
        game = _lock(game_id)
        seat = bot_to_play(game)
        if seat is None or game.version != expected_version:
            return False
        state = load_state(game)
        assert state is not None
        bot = make_level_bot(seat.bot_kind, game.seed + game.version)
        action = bot.choose(state, seat.position)
        _apply(game, seat.position, action.notation(), game.version)
        return True
