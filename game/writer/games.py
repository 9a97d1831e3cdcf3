"""A game's row as the writer holds it: locked for one change, its state, its replay.

Every change to a game (game.writer.lobby, seating, moves, bot_turns) follows the
same steps inside one transaction: lock the game row, validate, apply through the
engine, record, save, and only after the commit tell the screens
(game.writer.changes). A refused request raises Refused with a message for the
player, and changes nothing.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from game.engine import GameState
from game.engine.rules import replay as replay_moves
from game.models import Game, Seat

MIN_SEATS = 2
MAX_SEATS = 4


class Refused(Exception):
    """A request that was turned down; `message` is shown to that player only."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def lock(game_id: int) -> Game:
    """Return the game row, locked until the transaction ends.

    select_for_update serialises concurrent actions on one game under
    PostgreSQL; SQLite has no row locks, but our connections BEGIN IMMEDIATE,
    which takes the database write lock for the same effect.
    """
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise Refused(_("This game does not exist.")) from None


def require_host(game: Game, host_key: str) -> None:
    if not host_key or game.host_key != host_key:
        raise Refused(_("Only the screen that created the game can do that."))


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


def seat_of(game: Game, player_key: str) -> Seat | None:
    """The phone's first seat (by position), if it holds any."""
    if not player_key:
        return None
    return game.seats.filter(player_key=player_key).order_by("position").first()


def seats_of(game: Game, player_key: str) -> list[Seat]:
    """Every seat the phone holds, by position (a shared phone holds several)."""
    if not player_key:
        return []
    return list(game.seats.filter(player_key=player_key).order_by("position"))
