"""A seat played on the TV: what the host screen may learn of it beyond its open view.

Such a seat plays in the open (game.engine.projection.view_in_the_open): the TV shows
its blind reserves face down. Its player holds a face-down card to look at it; the
card is sent to the host screen for that moment only (`look`), and a hint that would
name it names only its deck (`shown_in_the_open`). Nothing here changes a game.
"""

from __future__ import annotations

from dataclasses import replace

from django.utils.translation import gettext as _

from game.engine.actions import BUY
from game.engine.cards import card
from game.engine.hints import Hint
from game.engine.projection import BLIND_BUY, blind_reserve, card_view
from game.engine.state import GameState
from game.screens import hint_answers, jinja
from game.screens.hint_answers import NoHint, ShownHint
from game.storage.readmodel import Room, SeatInfo, read


class NoLook(Exception):
    """A look refused; `message` says why (nothing was shown, nothing changed)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _tv_seat(room: Room, state: GameState | None) -> SeatInfo | None:
    """The seat to play, if the TV plays it now."""
    if state is None or state.is_over:
        return None
    seat = next((s for s in room.seats if s.position == state.current), None)
    return seat if seat is not None and seat.tv_plays else None


def read_look(game_id: int, slot: int, version: int | None) -> int:
    """The card the TV seat to play reserved blind at `slot` of its reserves (for the host
    screen, which the caller has checked); raises NoLook."""
    state, position, _version = _tv_turn(
        game_id,
        version,
        NoLook(_("Only a player at the TV can look at a card here, on their turn.")),
        NoLook(_("The game moved on; look again and ask once more.")),
    )
    found = blind_reserve(state, position, slot)
    if found is None:
        raise NoLook(_("There is no card reserved from a deck there."))
    return found


def look_html(card_id: int, slot: int) -> str:
    """The card shown while it is held: swapped into the TV's (empty) look place, which the
    page empties again on release."""
    return jinja.render("host/look.html", {"card": card_view(card_id), "slot": slot})


def read_for_tv_hint(game_id: int, version: int | None) -> tuple[GameState, int, int]:
    """The state, seat position and version to hint from, for the TV seat to play."""
    return _tv_turn(
        game_id,
        version,
        NoHint(_("A hint is only for a player at the TV, on their turn.")),
        NoHint(_("The game moved on; look again and ask once more.")),
    )


def _tv_turn(
    game_id: int, version: int | None, not_tv: Exception, moved_on: Exception
) -> tuple[GameState, int, int]:
    """The state, the position of the TV seat to play and the version, read once; raises
    `not_tv` if no seat on the TV is to play, `moved_on` if the page showed another version."""
    room, _holders, state, _log = read(game_id)
    seat = _tv_seat(room, state)
    if seat is None or state is None:
        raise not_tv
    if version is not None and version != room.version:
        raise moved_on
    return state, seat.position, room.version


def shown_in_the_open(hint: Hint, version: int, state: GameState, position: int) -> ShownHint:
    """A hint as the TV may show it: nothing in it names a card the seat reserved blind.
    One that buys such a card names only its deck and offers that card's own Buy; one
    whose reason is such a card ("next turn you can buy ...") gives the general reason."""
    player = state.players[position]
    hidden = {
        card_id: slot
        for slot, (card_id, blind) in enumerate(zip(player.reserved, player.blind, strict=True))
        if blind
    }
    reason = hint.reason
    if reason.next_card in hidden:
        reason = replace(reason, next_card=0)
    shown = hint_answers.shown(replace(hint, reason=reason), version)
    bought = hint.action.card if hint.action.kind == BUY else 0
    if bought not in hidden:
        return shown
    text = _("Buy the card you reserved from the level-%(level)s deck.")
    sentence = text % {"level": card(bought).level}
    return replace(shown, sentence=sentence, notation=f"{BLIND_BUY}{hidden[bought]}", open="")
