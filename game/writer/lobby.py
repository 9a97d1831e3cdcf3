"""The one place that changes a game.

Every change follows the same steps inside one transaction: lock the game row,
validate, apply through the engine, record the move, save the snapshot, and
only after the commit publish the change to the screens (game.writer.events: one
message per audience, built from the state held here, so no screen re-reads
the game) and, if a bot is to play next, schedule its one move. A refused
request raises Refused with a message for the player, and changes nothing.
"""

from __future__ import annotations

import functools
import logging
import threading
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, connections, transaction
from django.db.models import F, IntegerField, JSONField, Q
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast
from django.utils import timezone
from django.utils.translation import gettext as _

from game import names
from game.bot_levels import STAND_IN_CHOICES, hard_bot_choices, level_of, make_level_bot
from game.engine import ActionError, GameState, NotationError, new_game, parse_action
from game.engine.bot_registry import BOT_KINDS
from game.engine.rules import apply_action
from game.engine.rules import replay as replay_moves
from game.engine.vocabulary import BOT_ROLES, BotLevel, SeatRole
from game.languages import COLOUR_LABELS
from game.models import Game, Seat, new_rejoin_code
from game.names import read_code
from game.storage import history, presence, store
from game.storage.readmodel import holder_of, room_of
from game.writer import background, events, rejoin_guard, standin

log = logging.getLogger(__name__)

MIN_SEATS = 2
MAX_SEATS = 4
NAME_MAX = names.NAME_MAX


class Refused(Exception):
    """A request that was turned down; `message` is shown to that player only."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _publish_after_commit(
    game: Game,
    state: GameState | None = None,
    gone: tuple[int, ...] = (),
    log: str | None = None,
    seats: list[Seat] | None = None,
) -> None:
    """Tell the screens about this change once it is committed, and let a bot play next.

    The room is read now, inside the transaction (one query for the seats);
    the projections are made after the commit from the state this writer holds.
    Publishing before the commit could show a change that then rolls back.
    `log` is the game log's recent turns after a move, as the writer told them
    (game.storage.history.tell); for any other change they are those the game's row keeps.
    """
    if state is None:
        state = load_state(game)
    if seats is None:  # the caller has not read them in this transaction
        seats = list(game.seats.all())
    next_code = ""
    if game.next_game_id is not None:
        next_code = Game.objects.values_list("code", flat=True).get(pk=game.next_game_id)
    room = room_of(game, seats, next_code)
    holders = {s.pk: holder_of(s.player_key) for s in seats}
    bot_next = (
        state is not None
        and game.status == Game.Status.PLAYING
        and any(s.bot_plays and s.position == state.current for s in seats)
    )

    if log is None:
        log = "" if state is None else history.log_of(game.recent, game.id, game.code, state.moves)

    def after_commit() -> None:
        events.publish(room, holders, state, gone, log)
        if bot_next:
            schedule_bot_turn(game.id, game.version)
        elif state is not None:
            standin.watch_turn(
                game, state.current, seats, stand_in_for_away
            )  # a phone away too long gets a bot

    transaction.on_commit(after_commit, robust=True)  # committed: a failed send is only logged


def explain(error: ActionError) -> str:
    """Translate an engine error for the player."""
    params = {
        k: COLOUR_LABELS.get(v, v) if isinstance(v, str) else v for k, v in error.params.items()
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
                _publish_after_commit(game)
            return seat
        if game.status != Game.Status.LOBBY:
            raise Refused(_("This game has already started."))
        count = game.seats.count()
        if count >= MAX_SEATS:
            raise Refused(_("The table is full: four players already."))
        seat = Seat.objects.create(game=game, position=count, name=name, player_key=player_key)
        _publish_after_commit(game)
        return seat


def _require_host(game: Game, host_key: str) -> None:
    if not host_key or game.host_key != host_key:
        raise Refused(_("Only the screen that created the game can do that."))


def _require_lobby(game: Game) -> None:
    if game.status != Game.Status.LOBBY:
        raise Refused(_("This game has already started."))


def add_bot(game_id: int, host_key: str, kind: str = BotLevel.MEDIUM) -> Seat:
    """Fill the next empty seat with a bot of this level (or an engine bot's name, stored
    as the level it plays at); screens name it per language."""
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
            role=SeatRole.BOT,
            bot_level=level_of(kind),
            bot_number=number,
        )
        _publish_after_commit(game)
        return seat


def remove_seat(game_id: int, host_key: str, position: int) -> None:
    """Free a seat in the lobby; later seats move up so positions stay 0..n-1."""
    with transaction.atomic():
        game = _lock(game_id)
        _require_host(game, host_key)
        _require_lobby(game)
        gone = tuple(game.seats.filter(position=position).values_list("pk", flat=True))
        deleted, _rows = game.seats.filter(position=position).delete()
        if not deleted:
            raise Refused(_("That seat is already empty."))
        for seat in game.seats.filter(position__gt=position).order_by("position"):
            seat.position -= 1
            seat.save(update_fields=["position"])
        _publish_after_commit(game, gone=gone)


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
        game = _lock(game_id)
        _require_host(game, host_key)
        _require_lobby(game)
        state = _deal(game, first_player)
        game.save()
        _publish_after_commit(game, state)
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
            )
            for seat in game.seats.all()
        )
        _follow(game, fresh)
        state = _deal(fresh, None)
        fresh.save()
        _publish_after_commit(fresh, state)  # nobody watches it yet, but a bot may start
        game.next_game = fresh
        game.save(update_fields=["next_game", "updated_at"])
        _publish_after_commit(game)
        return fresh


def _follow(game: Game, fresh: Game) -> None:
    """The phones present at the end of `game` are on their way to its rematch: their
    seats there count as reconnecting, not away, while the pages follow (no rejoin
    code flashes on the TV); a phone that was away stays away."""
    present = presence.here(game.id).present
    positions = set(game.seats.filter(pk__in=present).values_list("position", flat=True))
    seats = fresh.seats.filter(position__in=positions, role=SeatRole.HUMAN)
    presence.on_the_way(fresh.id, seats.values_list("pk", flat=True))


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
        humans = game.seats.filter(role__in=(SeatRole.HUMAN, SeatRole.STAND_IN))
        seat = humans.filter(rejoin_code=code).first() if code else None
        if seat is None:
            rejoin_guard.failed(game_id, client)
            raise Refused(_("That rejoin code does not match a seat in this game."))
        rejoin_guard.succeeded(game_id, client)
        if seat.player_key == player_key and seat.role == SeatRole.HUMAN:
            return seat  # this phone holds the seat already: nothing to take
        # A phone reconnecting (silent, or its socket closed, within the grace) counts
        # as connected: it is most likely on its way back, and its code is not on the
        # TV yet, so a code seen earlier must not take the seat from under it.
        here = presence.here(game.id)
        if seat.pk in here.connected:
            raise Refused(
                _("This seat's phone is still connected. Ask the host if you need the seat.")
            )
        if seat.pk in here.reconnecting:
            raise Refused(
                _(
                    "This seat's phone is still connected: it is reconnecting. If it does"
                    " not come back, its rejoin code works once the TV shows it."
                )
            )
        # A phone holds one seat a game: let go of any other first.
        game.seats.filter(player_key=player_key).exclude(pk=seat.pk).update(player_key="")
        seat.player_key = player_key
        seat.role = SeatRole.HUMAN
        seat.rejoin_code = _fresh_rejoin_code(game, seat.rejoin_code)
        seat.save(update_fields=["player_key", "role", "rejoin_code"])
        _publish_after_commit(game)
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
        if seat is None or seat.bot_plays:
            raise Refused(_("A bot already plays that seat."))
        seat.role = SeatRole.STAND_IN
        seat.player_key = ""  # the phone that left loses the seat until it rejoins
        seat.save(update_fields=["role", "player_key"])
        _publish_after_commit(game)
        return seat


# ---------------------------------------------------------------- the automatic stand-in

# Seconds a phone may be away on its turn before a bot plays for it (the lobby's choices).


def _set_lobby_choice(game_id: int, host_key: str, field: str, value: object) -> Game:
    """Store one of the host's lobby choices (already checked) and show it."""
    with transaction.atomic():
        game = _lock(game_id)
        _require_host(game, host_key)
        _require_lobby(game)
        setattr(game, field, value)
        game.save(update_fields=[field, "updated_at"])
        _publish_after_commit(game)
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
        if seat is None or seat.bot_plays or game.state["current"] != position:
            return False
        seat.role = SeatRole.STAND_IN
        seat.save(update_fields=["role"])
        _publish_after_commit(game)
        return True


def take_seat_back(game_id: int, player_key: str) -> Seat | None:
    """Give a reconnected phone its seat back from a stand-in; None if it had none."""
    stood_in = Seat.objects.filter(game_id=game_id, player_key=player_key, role=SeatRole.STAND_IN)
    if not player_key or not stood_in.exists():
        return None  # as nearly always: no write transaction (it waits for the writer)
    with transaction.atomic():
        game = _lock(game_id)
        seat = seat_of(game, player_key)
        if seat is None or seat.role != SeatRole.STAND_IN:
            return None
        seat.role = SeatRole.HUMAN
        seat.save(update_fields=["role"])
        _publish_after_commit(game)
        return seat


# ---------------------------------------------------------------- play


def _read_version(version: Any) -> int:
    """Read the version a screen built its action on: an integer, or its digits."""
    if isinstance(version, int) and not isinstance(version, bool):
        return version
    if isinstance(version, str) and version.strip().isascii() and version.strip().isdigit():
        return int(version)
    raise Refused(_("That action could not be read."))


def _apply(
    game: Game, position: int, text: Any, version: Any, seats: list[Seat] | None = None
) -> None:
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
    before = history.Before.of(state)
    try:
        action = parse_action(text)
        apply_action(state, action, seat=position)
    except NotationError:
        raise Refused(_("That action could not be read.")) from None
    except ActionError as error:
        raise Refused(explain(error)) from None
    game.recent, log = history.tell(game.recent, game.id, game.code, before, action, state)
    game.state = state.to_dict()
    game.version = state.moves
    if state.is_over:
        game.status = Game.Status.OVER
    store.save_move(game, state.moves - 1, position, action.notation())
    _publish_after_commit(game, state, log=log, seats=seats)


def play(game_id: int, player_key: str, text: Any, version: Any) -> None:
    """Apply a player's action for the seat their session holds."""
    with transaction.atomic():
        # Every action takes this path: its reads are plain SQL (game.storage.store).
        # With its seats: whose action it is, and the room the screens are sent.
        locked = store.lock_game(game_id)
        if locked is None:
            raise Refused(_("This game does not exist."))
        game, seats = locked
        seat = next((s for s in seats if player_key and s.player_key == player_key), None)
        if seat is None or seat.bot_plays:
            raise Refused(_("You do not have a seat in this game."))
        _apply(game, seat.position, text, version, seats)


def bot_to_play(game: Game) -> Seat | None:
    """Return the bot seat whose turn it is, if any."""
    if game.status != Game.Status.PLAYING or not game.state:
        return None
    seat = game.seats.filter(position=game.state["current"]).first()
    return seat if seat is not None and seat.bot_plays else None


def play_bot_turn(game_id: int, expected_version: int) -> bool:
    """Let the bot whose turn it is act once; False if there was nothing to do.

    The bot thinks outside the transaction and the row lock (a strong bot may
    think for seconds), without a database connection (with PostgreSQL's pool,
    one lent to a thinking bot is one fewer for the screens); then the game is
    locked and the move applied only if the game is still at the version the
    bot looked at: a move is played once, whichever process or thread tries.
    """
    game = Game.objects.filter(pk=game_id).first()
    seat = bot_to_play(game) if game is not None else None
    if game is None or seat is None or game.version != expected_version:
        return False
    state = load_state(game)
    assert state is not None
    if not connection.in_atomic_block:
        connection.close()  # nothing to read until the bot has chosen
    bot = make_level_bot(seat.bot_level, game.seed + game.version, game.hard_bot_seconds)
    action = bot.choose(state, seat.position)
    with transaction.atomic():
        game = _lock(game_id)
        if game.version != expected_version or bot_to_play(game) is None:
            return False
        _apply(game, seat.position, action.notation(), expected_version)
        return True


# ---------------------------------------------------------------- bot scheduling

# A claim on a bot turn is a lease: its holder renews it every BOT_LEASE_RENEW while
# the bot pauses and thinks. One not renewed for BOT_LEASE belongs to a process that
# died (or froze): any process's sweep (sweep_bot_turns) finds the turn and takes it over.
BOT_LEASE = timedelta(seconds=settings.SPLENDOR_BOT_LEASE)
BOT_LEASE_RENEW = 0.3 * settings.SPLENDOR_BOT_LEASE
# Seconds between two sweeps of one process (each jittered by up to half).
BOT_SWEEP_EVERY = 0.4 * settings.SPLENDOR_BOT_LEASE

_turns = background.Timers("bot turn")
# The turns this process holds or is about to claim: its sweep leaves them alone.
_mine: set[tuple[int, int]] = set()
_mine_lock = threading.Lock()


def schedule_bot_turn(game_id: int, version: int, delay: float | None = None) -> None:
    """Claim the bot's move at this version and play it after the visible pause, in a
    worker thread.

    Called by whoever committed the change that left a bot to play, whatever
    screens are connected, and by the sweep for a turn nobody holds; off the
    event loop, so a slow bot blocks no socket.
    """
    pause = settings.SPLENDOR_BOT_DELAY if delay is None else delay
    with _mine_lock:
        if (game_id, version) in _mine:
            return
        _mine.add((game_id, version))
    _turns.after(0, _run_bot_turn, game_id, version, pause)


def _run_bot_turn(game_id: int, version: int, pause: float) -> None:
    try:
        claimed_at = background.retrying(lambda: claim_bot_turn(game_id, version))
        if claimed_at is None:
            return  # another process holds it, or the game moved on
        renew = functools.partial(renew_bot_claim, game_id, version)
        with background.Lease(lambda: renew(claimed_at) is not None, BOT_LEASE_RENEW) as lease:
            if pause > 0:
                connections.close_all()  # no connection held while the bot pauses
                if _turns.stopping.wait(pause):
                    return
            if not lease.lost.is_set():  # else another process took the turn over
                background.retrying(lambda: play_bot_turn(game_id, version))
    finally:
        with _mine_lock:
            _mine.discard((game_id, version))


def _live_claim(now: datetime, version: Any) -> Q:
    return Q(bot_claim=version, bot_claimed_at__gte=now - BOT_LEASE)


def claim_bot_turn(game_id: int, version: int) -> datetime | None:
    """Claim the bot turn at this version for this process (compare-and-swap); return
    the claim's time (its holder renews it with it), or None if it is not free.

    Several processes (or a sweep) may schedule the same turn; only the one whose
    UPDATE matches plays it, unless it stops renewing its lease.
    """
    now = timezone.now()
    mine = Game.objects.filter(pk=game_id, version=version, status=Game.Status.PLAYING)
    taken = mine.exclude(_live_claim(now, version)).update(bot_claim=version, bot_claimed_at=now)
    return now if taken == 1 else None


def renew_bot_claim(game_id: int, version: int, claimed_at: datetime) -> datetime | None:
    """Renew this process's claim made (or last renewed) at `claimed_at`; return the new
    time, or None if the claim is no longer ours (taken over, or the game moved on)."""
    now = timezone.now()
    ours = Game.objects.filter(pk=game_id, version=version, bot_claim=version)
    return now if ours.filter(bot_claimed_at=claimed_at).update(bot_claimed_at=now) == 1 else None


def pending_bot_turns() -> list[tuple[int, int]]:
    """Return (game id, version) of every running game where a bot is to play and no
    process holds a live claim on its turn, in one query."""
    now = timezone.now()
    # The seat to play, read from the snapshot by the database (JSON kept as text).
    current = Cast(KeyTextTransform("current", Cast("state", JSONField())), IntegerField())
    games = (
        Game.objects.filter(status=Game.Status.PLAYING)
        .exclude(Q(bot_claim=F("version"), bot_claimed_at__gte=now - BOT_LEASE))
        .annotate(current=current)
        .filter(seats__role__in=BOT_ROLES, seats__position=F("current"))
    )
    return sorted(games.values_list("pk", "version"))


def sweep_bot_turns() -> int:
    """Schedule every bot turn nobody holds (after a start, or a process's death);
    return how many."""
    pending = pending_bot_turns()
    for game_id, version in pending:
        schedule_bot_turn(game_id, version, delay=0)
    return len(pending)


_sweeping = threading.Lock()
_sweeper: threading.Thread | None = None


def start_bot_sweep() -> bool:
    """Sweep for pending bot turns now and then every ~BOT_SWEEP_EVERY seconds, once per
    process (started with the server); resume the waits for away phones first.

    Off under pytest unless a test asks (settings.SPLENDOR_BOT_SWEEP): a test's games
    are its own.
    """
    global _sweeper
    if not settings.SPLENDOR_BOT_SWEEP:
        return False
    with _sweeping:
        if _sweeper is None:
            _sweeper = background.every(BOT_SWEEP_EVERY, _sweep_once, "splendor-bot-sweep")
    return True


def _sweep_once() -> None:
    resume_stand_in_checks()  # a restart's or a dead worker's checks died with it
    sweep_bot_turns()


def resume_stand_in_checks() -> int:
    """Watch the games with the stand-in option that no check of this process watches."""
    return standin.resume_checks(stand_in_for_away)


def check_away(game_id: int, version: int, seen_away: bool = True) -> bool:
    """Let a bot play for the seat to play at `version` if its phone is away (standin.check)."""
    return standin.check(game_id, version, seen_away, stand_in_for_away)


def check_away_now(game_id: int, version: int, seen_away: bool = True) -> bool:
    """`check_away`, again a few times while the database is busy."""
    return standin.check_now(game_id, version, seen_away, stand_in_for_away)


def phone_left(game_id: int) -> None:
    """A phone's socket closed: watch its game for a stand-in (standin.phone_left)."""
    standin.phone_left(game_id, stand_in_for_away)


def wait_for_bot_turns(timeout: float = 30.0) -> None:
    """Wait until every scheduled bot turn has been played, including the turns they
    schedule in turn (a clean stop; tests wait for the move instead of polling)."""
    _turns.wait(timeout)


def cancel_bot_turns() -> None:
    """Stop every scheduled bot turn that has not started (tests)."""
    _turns.cancel()
