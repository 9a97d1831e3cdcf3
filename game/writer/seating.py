"""Who holds a seat: a phone joins, rejoins with its code, or a bot plays for it.

A seat's phone keeps its player key while a stand-in bot plays for it (its
phone away on its turn, or the host handing the seat to a bot), so reconnecting
(take_seat_back) or typing the seat's rejoin code gives the seat back.
"""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from game.engine.vocabulary import PlayedOn, SeatRole
from game.models import Game, Seat, new_rejoin_code
from game.storage import names, presence
from game.writer import rejoin_guard
from game.writer.changes import publish_after_commit
from game.writer.games import MAX_SEATS, Refused, lock, require_host, seat_of, seats_of


def join_game(game_id: int, player_key: str, name: str) -> Seat:
    """Seat this player in the lobby, or return the seat they already have."""
    name = _typed_name(name)
    with transaction.atomic():
        game = lock(game_id)
        seat = seat_of(game, player_key)
        if seat is not None:
            if seat.name != name:
                seat.name = name
                seat.save(update_fields=["name"])
                publish_after_commit(game)
            return seat
        return _new_seat(game, player_key, name)


def add_player(game_id: int, player_key: str, name: str) -> Seat:
    """Seat one more player on a phone that holds a seat already (a shared phone)."""
    name = _typed_name(name)
    with transaction.atomic():
        return _new_seat(lock(game_id), player_key, name)


def _typed_name(name: str) -> str:
    name = names.clean_name(name)
    if not name:
        raise Refused(_("Please type your name."))
    return name


def _new_seat(game: Game, player_key: str, name: str) -> Seat:
    """A new seat at the end of the table, in the lobby only (the game is locked)."""
    if game.status != Game.Status.LOBBY:
        raise Refused(_("This game has already started."))
    count = game.seats.count()
    if count >= MAX_SEATS:
        raise Refused(_("The table is full: four players already."))
    seat = Seat.objects.create(game=game, position=count, name=name, player_key=player_key)
    publish_after_commit(game)
    return seat


def rejoin(game_id: int, player_key: str, rejoin_code: object, client: str | None = None) -> Seat:
    """Give this phone the seat whose rejoin code it typed (from a stand-in bot too).

    A code only takes a seat whose phone is away, and is replaced by a new one once
    used, so a code seen on the TV cannot take the seat again later. `client` (the
    phone's address) limits wrong guesses per game; it defaults to the player key.
    """
    client = client or player_key
    if rejoin_guard.blocked(game_id, client):
        raise Refused(_("Too many wrong codes. Please wait a minute, then try again."))
    code = names.read_code(rejoin_code)
    with transaction.atomic():
        game = lock(game_id)
        # A seat played on the TV has no phone to take it back: its code takes nothing.
        humans = game.seats.filter(
            role__in=(SeatRole.HUMAN, SeatRole.STAND_IN), played_on=PlayedOn.PHONE
        )
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
        # The phone keeps the seats it holds (a shared phone taking back one of its
        # players' seats): only the phone that held this seat loses it.
        seat.player_key = player_key
        seat.role = SeatRole.HUMAN
        seat.rejoin_code = _fresh_rejoin_code(game, seat.rejoin_code)
        seat.save(update_fields=["player_key", "role", "rejoin_code"])
        publish_after_commit(game)
        return seat


def _fresh_rejoin_code(game: Game, used: str) -> str:
    """Return a new code for a seat, unlike the used one and any other seat's in the game."""
    taken = set(game.seats.values_list("rejoin_code", flat=True)) | {used}
    while True:
        code = new_rejoin_code()
        if code not in taken:
            return code


def _host_seat(game_id: int, host_key: str, position: int) -> tuple[Game, Seat | None]:
    """A running game, locked for its host screen (inside the caller's transaction), and
    its seat at `position` if there is one."""
    game = lock(game_id)
    require_host(game, host_key)
    if game.status != Game.Status.PLAYING:
        raise Refused(_("The game is not running."))
    return game, game.seats.filter(position=position).first()


def hand_to_bot(game_id: int, host_key: str, position: int) -> Seat:
    """Let a bot play a seat whose player left; they can take it back with their code."""
    with transaction.atomic():
        game, seat = _host_seat(game_id, host_key, position)
        if seat is None or seat.bot_plays:
            raise Refused(_("A bot already plays that seat."))
        seat.role = SeatRole.STAND_IN
        seat.player_key = ""  # the phone that left loses the seat until it rejoins
        seat.save(update_fields=["role", "player_key"])
        publish_after_commit(game)
        return seat


def play_on_tv_again(game_id: int, host_key: str, position: int) -> Seat:
    """Take a seat played on the TV back from the stand-in the host let play it."""
    with transaction.atomic():
        game, seat = _host_seat(game_id, host_key, position)
        if seat is None or not seat.on_tv or seat.role != SeatRole.STAND_IN:
            raise Refused(_("No bot plays for a player at the TV there."))
        seat.role = SeatRole.HUMAN
        seat.save(update_fields=["role"])
        publish_after_commit(game)
        return seat


def stand_in_for_away(game_id: int, position: int, expected_version: int) -> bool:
    """Let a bot play for the phone at `position`, away on its turn; False if nothing changed.

    The caller (game.writer.standin) has seen that phone away for the game's
    stand_in_after seconds while the game stood at `expected_version`; a move
    since then means the wait is over. The phone keeps its key, so reconnecting
    (take_seat_back) or its rejoin code gives the seat back.
    """
    with transaction.atomic():
        game = lock(game_id)
        if game.stand_in_after is None or game.status != Game.Status.PLAYING:
            return False
        if game.version != expected_version or not game.state:
            return False
        seat = game.seats.filter(position=position).first()
        if seat is None or seat.bot_plays or game.state["current"] != position:
            return False
        if seat.on_tv:  # never away: a bot plays it only when the host asks
            return False
        seat.role = SeatRole.STAND_IN
        seat.save(update_fields=["role"])
        publish_after_commit(game)
        return True


def take_seat_back(game_id: int, player_key: str) -> Seat | None:
    """Give a reconnected phone its seats back from their stand-ins (a shared phone's
    every one); return the first, or None if none stood in."""
    stood_in = Seat.objects.filter(game_id=game_id, player_key=player_key, role=SeatRole.STAND_IN)
    if not player_key or not stood_in.exists():
        return None  # as nearly always: no write transaction (it waits for the writer)
    with transaction.atomic():
        game = lock(game_id)
        seats = [s for s in seats_of(game, player_key) if s.role == SeatRole.STAND_IN]
        for seat in seats:
            seat.role = SeatRole.HUMAN
            seat.save(update_fields=["role"])
        if seats:
            publish_after_commit(game)
        return seats[0] if seats else None
