"""Whole pages' regions for the HTTP views (the first paint of a screen).

The live path (game.web.consumers) renders from published events; a page view
reads the game once here and renders the same regions (game.screens.table,
game.screens.phone), so the first paint and every later frame agree.
Templates get projections and the room, never a GameState.
"""

from __future__ import annotations

from dataclasses import dataclass

from game.engine import GameState
from game.engine.projection import TABLE, view_for
from game.screens import regions
from game.screens.join_qr import clear_cache as clear_join_cache
from game.screens.join_qr import join_url, qr_svg
from game.screens.phone import asked_for, curtain_screen, phone_screen, whole_hand
from game.screens.phone import status as phone_status
from game.screens.regions import fill_qr_codes
from game.screens.table import table_screen, whole_screen
from game.storage import presence
from game.storage.readmodel import Room, played_on_tv, read

__all__ = ["join_url", "qr_svg"]


@dataclass(frozen=True, slots=True)
class GameRead:
    """One read of a game: the room (with presence) and the state, for the caller only."""

    room: Room
    state: GameState | None
    log: str = ""  # the recent turns (game.storage.history.encode_recent)

    @property
    def code(self) -> str:
        return self.room.code


def read_game(game_id: int) -> GameRead:
    room, _holders, state, log = read(game_id)
    here = presence.here(game_id)
    return GameRead(room.with_presence(here.connected, here.reconnecting), state, log)


def render_table(snap: GameRead, *, is_host: bool, url: str, csrf: str = "") -> str:
    """Return the TV's whole #screen element."""
    view = view_for(snap.state, TABLE) if snap.state is not None else None
    # A seat the TV plays, on its turn: only the host screen shows its controls.
    open_view = played_on_tv(snap.room, snap.state) if is_host else None
    screen = table_screen(
        snap.room, view, log=snap.log, is_host=is_host, url=url, csrf=csrf, open_view=open_view
    )
    return fill_qr_codes(whole_screen(snap.room, screen.regions, oob=False), screen)


def render_phone_status(snap: GameRead) -> str:
    view = view_for(snap.state, 0) if snap.state is not None else None
    html, _parts = phone_status(snap.room, view, snap.log, oob=False)
    return html


def render_phone_hand(snap: GameRead, positions: int | tuple[int, ...]) -> str:
    """Return the phone's whole #hand element (its #status comes separately).

    A shared phone (several `positions`) shows its curtain once the game runs,
    asking for its seat whose turn it is (or the next of them to play).
    """
    if isinstance(positions, int):
        positions = (positions,)
    if snap.state is not None and len(positions) > 1:
        asked = asked_for(positions, snap.state.current, len(snap.room.seats))
        others = tuple(p for p in positions if p != asked)
        curtain = curtain_screen(snap.room, view_for(snap.state, asked), asked, snap.log, others)
        return whole_hand(curtain, oob=False)
    position, others = positions[0], positions[1:]
    view = view_for(snap.state, position) if snap.state is not None else None
    return whole_hand(phone_screen(snap.room, view, position, snap.log, others), oob=False)


def clear_cache() -> None:
    regions.clear()
    clear_join_cache()


def render_replay_table(room: Room, state: GameState, log: str = "") -> str:
    """The TV's table at one step of a replay: what the table saw then, without the join corner.

    `log` is the recent turns up to that step (game.storage.history.encode_recent).
    """
    screen = table_screen(room, view_for(state, TABLE), log=log, is_host=False, url="")
    shown = {rid: html for rid, html in screen.regions.items() if rid != "corner-join"}
    return whole_screen(room, shown, oob=False)
