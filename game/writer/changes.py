"""What follows a change once it is committed: the screens are told, then the next turn.

The screens get one notice per audience (game.writer.notices), built from the
state the writer holds, so no screen re-reads the game. Then `next_turn` is
sent: game.writer.bot_turns schedules the move of a bot to play, and
game.writer.standin watches a human seat to play for a phone away too long.
They sit above the code that changes a game (a bot's move and a stand-in are
changes themselves), so they listen to this signal rather than being called
from here: game.apps connects them (their `on_change`) as Django starts.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.dispatch import Signal

from game.engine import GameState
from game.models import Game, Seat
from game.storage import history
from game.storage.readmodel import holder_of, room_of
from game.writer import notices
from game.writer.games import load_state

# Sent with the game (its row as committed), its `state` (None in the lobby), its
# `seats`, and `bot_next`: whether a bot is to play.
next_turn = Signal()

logger = logging.getLogger(__name__)


def publish_after_commit(
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

    code, version = game.code, game.version

    def after_commit() -> None:
        # For a host or a test following games in the server's output (SPLENDOR_LOG_LEVEL).
        logger.debug("Game %s: version %s stored", code, version)
        notices.publish(room, holders, state, gone, log)
        next_turn.send(Game, game=game, state=state, seats=seats, bot_next=bot_next)

    transaction.on_commit(after_commit, robust=True)  # committed: a failed send is only logged
