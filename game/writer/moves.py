"""The one place that applies a move, a player's or a bot's.

A move locks the game row, is checked against the version the screen built it
on, goes through the engine, is recorded with its turn in the game's log, saved,
and announced to the screens after the commit (game.writer.changes). A move the
engine refuses raises Refused with the engine's reason, in the player's language.
"""

from __future__ import annotations

from typing import Any

from django.db import connection, transaction
from django.utils.translation import gettext as _

from game.bot_levels import make_level_bot
from game.engine import ActionError, NotationError, parse_action
from game.engine.actions import buy
from game.engine.projection import BLIND_BUY, blind_reserve
from game.engine.rules import apply_action, cheapest_payment
from game.languages import COLOUR_LABELS
from game.models import Game, Seat
from game.storage import history, store
from game.writer.changes import publish_after_commit
from game.writer.games import Refused, load_state, lock


def explain(error: ActionError) -> str:
    """Translate an engine error for the player."""
    params = {
        k: COLOUR_LABELS.get(v, v) if isinstance(v, str) else v for k, v in error.params.items()
    }
    return _(error.template) % params if params else _(error.template)


def _read_version(version: Any) -> int:
    """Read the version a screen built its action on: an integer, or its digits."""
    if isinstance(version, int) and not isinstance(version, bool):
        return version
    if isinstance(version, str) and version.strip().isascii() and version.strip().isdigit():
        return int(version)
    raise Refused(_("That action could not be read."))


def _require_playing(game: Game) -> None:
    if game.status == Game.Status.LOBBY:
        raise Refused(_("The game has not started yet."))
    if game.status == Game.Status.OVER:
        raise Refused(_("The game is over."))


def _apply(
    game: Game, position: int, text: Any, version: Any, seats: list[Seat] | None = None
) -> None:
    """Apply one action to a locked game, record it and announce it after commit."""
    _require_playing(game)
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
    publish_after_commit(game, state, log=log, seats=seats)


def play(
    game_id: int, player_key: str, text: Any, version: Any, uncovered: int | None = None
) -> None:
    """Apply a player's action for the seat their session holds.

    A shared phone (several seats) plays for its seat whose turn it is, and only while
    that seat's hand is the one uncovered on it (`uncovered`, a seat id).
    """
    with transaction.atomic():
        # Every action takes this path: its reads are plain SQL (game.storage.store).
        # With its seats: whose action it is, and the room the screens are sent.
        locked = store.lock_game(game_id)
        if locked is None:
            raise Refused(_("This game does not exist."))
        game, seats = locked
        mine = [s for s in seats if player_key and s.player_key == player_key and not s.bot_plays]
        if not mine:
            raise Refused(_("You do not have a seat in this game."))
        seat = _mover(game, mine, uncovered)
        _apply(game, seat.position, text, version, seats)


def _mover(game: Game, mine: list[Seat], uncovered: int | None) -> Seat:
    """The phone's seat an action is for: its only one, or on a shared phone the one
    whose turn it is (the engine refuses any other seat's action in words)."""
    if len(mine) == 1 or game.status != Game.Status.PLAYING or not game.state:
        return mine[0]  # _apply refuses it in words if the game is not running
    current = game.state["current"]
    seat = next((s for s in mine if s.position == current), None)
    shown = next((s for s in mine if s.pk == uncovered), None)
    if seat is None:  # none of its seats' turn: the engine says so
        return shown or mine[0]
    if seat != shown:
        raise Refused(
            _("It is %(name)s’s turn: pass the phone to %(name)s and let them tap first.")
            % {"name": seat.name}
        )
    return seat


def play_on_tv(game_id: int, host_key: str, text: Any, version: Any) -> None:
    """Apply the host screen's action for the seat to play, if that seat is played on the TV."""
    with transaction.atomic():
        locked = store.lock_game(game_id)
        if locked is None:
            raise Refused(_("This game does not exist."))
        game, seats = locked
        if not host_key or game.host_key != host_key:
            raise Refused(_("This screen shows the table; play from your phone."))
        _require_playing(game)
        current = game.state["current"] if game.state else -1
        seat = next((s for s in seats if s.position == current), None)
        if seat is None or not seat.on_tv or seat.bot_plays:
            raise Refused(_("It is not the turn of a player at the TV."))
        # The TV's Buy on a face-down card: the page never knew the card, so it is found
        # here, on the version the page showed (an older one is refused as any action).
        blind = isinstance(text, str) and text.startswith(BLIND_BUY)
        if blind and _read_version(version) == game.version:
            text = _blind_buy(game, seat.position, str(text).removeprefix(BLIND_BUY))
        _apply(game, seat.position, text, version, seats)


def _blind_buy(game: Game, position: int, slot: str) -> str:
    """The notation that buys the seat's blind reserve at `slot`, paid the cheapest way."""
    state = load_state(game)
    assert state is not None
    readable = slot.isascii() and slot.isdigit()
    card_id = blind_reserve(state, position, int(slot)) if readable else None
    if card_id is None:
        raise Refused(_("There is no card reserved from a deck there."))
    payment = cheapest_payment(state.players[position], card_id)
    if payment is None:
        raise Refused(_("You cannot afford that card."))
    return buy(card_id, payment).notation()


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
        game = lock(game_id)
        if game.version != expected_version or bot_to_play(game) is None:
            return False
        _apply(game, seat.position, action.notation(), expected_version)
        return True
