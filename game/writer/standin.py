"""The automatic stand-in: a bot plays for a phone that is away on its turn.

When the host chose a wait (Game.stand_in_after), every change that leaves a
human seat to play, and every phone that leaves, schedules one check after that
wait, in a worker thread of the process that saw it (no screen needs to be
connected). The check re-reads the game and the shared presence rows: if the
game still stands at the version seen and the seat to play is still away (a
phone reconnecting within the grace is not: game.storage.presence),
game.writer.seating.stand_in_for_away lets a bot play (its version check under the
row lock means two processes checking the same turn make one stand-in, and the
bot's move is claimed once). A phone that reconnects takes its seat back.

Each process also adopts, at every bot sweep, the games it does not watch (a
worker that died took its timers with it): a second watch of one game costs a
read, and the version check keeps the stand-in single.
"""

from __future__ import annotations

from typing import Any

from game.engine import GameState
from game.engine.vocabulary import PlayedOn, SeatRole
from game.models import Game, Seat
from game.storage import presence, store
from game.writer import background
from game.writer.seating import stand_in_for_away

_checks = background.Timers("stand-in check")


def watch(game_id: int, version: int, after: float, seen_away: bool) -> None:
    """Check in `after` seconds whether the seat to play at `version` is away.

    `seen_away`: its phone was already away when this wait began (else the
    check that finds it away waits once more, so it was away a whole wait).
    """
    _checks.after(after, check_now, game_id, version, seen_away)


def on_change(
    sender: type[Game],
    *,
    game: Game,
    state: GameState | None,
    seats: list[Seat],
    bot_next: bool,
    **_: Any,
) -> None:
    """After a committed change (changes.next_turn): a human seat to play is watched."""
    if not bot_next and state is not None:
        watch_turn(game, state.current, seats)  # a phone away too long gets a bot


def watch_turn(game: Game, current: int | None, seats: list[Seat]) -> None:
    """After a committed change: watch the turn if it is a human seat's (option on)."""
    if game.stand_in_after is None or game.status != Game.Status.PLAYING:
        return
    seat = next(
        (s for s in seats if s.position == current and not s.bot_plays and not s.on_tv), None
    )
    if seat is not None:
        away = seat.pk not in presence.present(game.id)
        watch(game.id, game.version, game.stand_in_after, away)


def phone_left(game_id: int) -> None:
    """A phone's socket closed: watch the game from its version now.

    Its seat is away only once the grace is over, so the wait starts then.
    """
    game = store.progress(game_id)
    if game is None or game.stand_in_after is None or game.status != Game.Status.PLAYING:
        return
    watch(game_id, game.version, game.stand_in_after + presence.grace(), True)


def resume_checks() -> int:
    """Watch every running game with the option on that this process does not watch
    yet; return how many.

    The checks scheduled by a process that died (a restart, a dead worker) died
    with it; a game whose seat to play is a bot needs none (the check then does
    nothing).
    """
    games = Game.objects.filter(status=Game.Status.PLAYING, stand_in_after__isnull=False)
    watching = watched()
    found = [
        g for g in games.values_list("pk", "version", "stand_in_after") if g[0] not in watching
    ]
    for game_id, version, after in found:
        watch(game_id, version, after or 0, False)
    return len(found)


def watched() -> set[int]:
    """The games with a check pending in this process."""
    return {args[0] for args in _checks.pending_args()}


def check(game_id: int, version: int, seen_away: bool) -> bool:
    """Let a bot play for the seat to play at `version` if its phone is away; True if so.

    A phone still there is watched on (its process may die without a goodbye:
    its presence row then expires); one found away that was not away when the
    wait began gets one more wait.
    """
    game = Game.objects.filter(pk=game_id, version=version).first()
    if game is None or not game.state or game.stand_in_after is None:
        return False
    seat = game.seats.filter(
        position=game.state["current"], role=SeatRole.HUMAN, played_on=PlayedOn.PHONE
    ).first()
    if seat is None:
        return False
    away = seat.pk not in presence.present(game_id)
    if not (away and seen_away):
        watch(game_id, version, game.stand_in_after, away)
        return False
    return stand_in_for_away(game_id, seat.position, version)


def check_now(game_id: int, version: int, seen_away: bool) -> bool:
    """`check`, again a few times while the database is busy."""
    return background.retrying(lambda: check(game_id, version, seen_away))


def cancel() -> None:
    """Stop every scheduled check, and wait for any running one to end (tests)."""
    _checks.cancel()
