"""The "Suggest a move" hint: what the hard bot would play for a phone's seat, in one sentence.

The engine (game.engine.hints) chooses the action and gives the facts behind
it as a Reason; this module turns those facts into one translated sentence and
says which control on the phone opens the same confirm step (a card's or a
deck's action sheet, or the gem picker preselected). Only the sentence and the
action's notation leave the server: never the state, another seat's cards or the
deck. Nothing is played and nothing is saved; a hint is computed at the version
the phone saw, and a hint for an older version is never shown as current.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from game.engine.actions import BUY, NOBLE, PASS, RESERVE, RETURN, TAKE, Action
from game.engine.cards import card, noble
from game.engine.colours import GEMS, NAMES
from game.engine.hints import (
    BUY_CARD,
    CHOOSE_NOBLE,
    RESERVE_BLIND,
    RESERVE_CARD,
    RETURN_GEMS,
    TAKE_GEMS,
    Hint,
    Reason,
    suggest,
)
from game.engine.state import WINNING_POINTS, GameState
from game.engine.vocabulary import Colour, SeatRole
from game.languages import COLOUR_NAMES
from game.models import Game, Seat
from game.screens import jinja
from game.screens.pictures import colour_label
from game.storage.readmodel import state_of


class NoHint(Exception):
    """No hint now (not this seat's turn, or the game moved on); `message` says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class ShownHint:
    """What the phone receives: the sentence, the action's notation, and its control."""

    version: int
    sentence: str
    notation: str
    open: str = ""  # id of the action sheet to open (a card or a deck)
    preselect: str = ""  # a take/return notation to preselect in its gem picker


def _gem_name(colour: str) -> str:
    """A colour's name as listed on its own (in parentheses after "gems")."""
    return colour_label(colour)


def _card_colour(colour: str) -> str:
    """A colour's name as it stands before "card" (German declines it: "die grüne Karte")."""
    return str(COLOUR_NAMES[Colour.of_slug(colour)].card)


def _card_facts(card_id: int) -> dict[str, object]:
    shown = card(card_id)
    return {"level": shown.level, "colour": _card_colour(NAMES[shown.bonus])}


def _reason_card(reason: Reason) -> dict[str, object]:
    """The card the action buys or reserves, as the Reason names it."""
    return {"level": reason.level, "colour": _card_colour(reason.colour)}


def _gems(colours: tuple[str, ...]) -> str:
    return ", ".join(_gem_name(c) for c in colours)


def _buy_sentence(reason: Reason) -> str:
    facts = {**_reason_card(reason), "points": reason.points, "goal": WINNING_POINTS}
    if reason.wins:
        text = _("Buy the level-%(level)s %(colour)s card: it brings you to %(goal)s points.")
    elif reason.noble and reason.noble_missing == 0:
        text = _("Buy the level-%(level)s %(colour)s card: a noble visits you at once.")
    elif reason.noble and reason.points:
        text = ngettext(
            "Buy the level-%(level)s %(colour)s card: "
            "%(points)s point, and one step closer to the noble.",
            "Buy the level-%(level)s %(colour)s card: "
            "%(points)s points, and one step closer to the noble.",
            reason.points,
        )
    elif reason.noble:
        text = _(
            "Buy the level-%(level)s %(colour)s card: its bonus brings you closer to the noble."
        )
    elif reason.points:
        text = ngettext(
            "Buy the level-%(level)s %(colour)s card: %(points)s point, and a bonus for good.",
            "Buy the level-%(level)s %(colour)s card: %(points)s points, and a bonus for good.",
            reason.points,
        )
    else:
        text = _("Buy the level-%(level)s %(colour)s card: its bonus makes later cards cheaper.")
    return text % facts


def _reserve_sentence(reason: Reason) -> str:
    if reason.kind == RESERVE_BLIND:
        if reason.gold:
            text = _("Reserve a hidden card from the level-%(level)s deck and take a gold token.")
        else:
            text = _("Reserve a hidden card from the level-%(level)s deck.")
        return text % {"level": reason.level}
    if reason.gold:
        text = _(
            "Reserve the level-%(level)s %(colour)s card: "
            "it is kept for you, and you take a gold token."
        )
    else:
        text = _("Reserve the level-%(level)s %(colour)s card: nobody else can buy it now.")
    return text % _reason_card(reason)


def _gems_sentence(reason: Reason) -> str:
    facts: dict[str, object] = {"gems": _gems(reason.gems)}
    if reason.next_card:
        facts.update(_card_facts(reason.next_card))
    if reason.kind == TAKE_GEMS and reason.next_card:
        text = _("Take gems (%(gems)s): next turn you can buy the level-%(level)s %(colour)s card.")
    elif reason.kind == TAKE_GEMS:
        text = _("Take gems (%(gems)s): they bring the cards you want within reach.")
    elif reason.next_card:
        text = _(
            "Give back gems (%(gems)s): you keep enough for the level-%(level)s %(colour)s card."
        )
    else:
        text = _("Give back gems (%(gems)s): you keep the ones you need most.")
    return text % facts


def _noble_sentence(reason: Reason) -> str:
    visitor = noble(reason.noble)
    needs = ", ".join(
        f"{count} {_gem_name(NAMES[c])}"
        for c, count in zip(GEMS, visitor.requires, strict=True)
        if count
    )
    facts = {"needs": needs, "points": reason.points, "goal": WINNING_POINTS}
    if reason.wins:
        text = _("Choose the noble who wants %(needs)s: that brings you to %(goal)s points.")
    else:
        text = ngettext(
            "Choose the noble who wants %(needs)s: %(points)s point.",
            "Choose the noble who wants %(needs)s: %(points)s points.",
            reason.points,
        )
    return text % facts


def sentence(reason: Reason) -> str:
    """The reason as one sentence in the active language."""
    if reason.kind == BUY_CARD:
        return _buy_sentence(reason)
    if reason.kind in (RESERVE_CARD, RESERVE_BLIND):
        return _reserve_sentence(reason)
    if reason.kind in (TAKE_GEMS, RETURN_GEMS):
        return _gems_sentence(reason)
    if reason.kind == CHOOSE_NOBLE:
        return _noble_sentence(reason)
    return _("No action is possible for you: pass your turn.")


def _control(action: Action) -> tuple[str, str]:
    """Which control opens the confirm step for this action: (sheet id, picker preselection)."""
    if action.kind == BUY or (action.kind == RESERVE and action.card):
        return f"sheet-card-{action.card}", ""
    if action.kind == RESERVE:
        return f"sheet-deck-{action.level}", ""
    if action.kind in (TAKE, RETURN):
        return "", action.notation()
    assert action.kind in (NOBLE, PASS), action.kind
    return "", ""


def read_for_hint(game_id: int, seat_id: int, version: int | None) -> tuple[GameState, int, int]:
    """The state, seat position and version to hint from (the version the phone shows).

    Reads the game without locking or writing it; raises NoHint with the reason
    when there is nothing to suggest.
    """
    game = Game.objects.filter(pk=game_id).first()
    seat = Seat.objects.filter(pk=seat_id, game_id=game_id, role=SeatRole.HUMAN).first()
    state = state_of(game) if game is not None else None
    if game is None or seat is None or state is None or game.status != Game.Status.PLAYING:
        raise NoHint(_("A hint is only for a game being played."))
    if version is not None and version != game.version:
        raise NoHint(_("The game moved on; look again and ask once more."))
    if state.current != seat.position or state.is_over:
        raise NoHint(_("A hint is only for your own turn."))
    return state, seat.position, game.version


def think(state: GameState, position: int) -> Hint:
    """Run the search for the seat (in a worker thread: it takes SPLENDOR_HINT_SECONDS).

    The search reads only what the seat may see (game.engine.search determinises
    the unseen cards); the state is a copy nobody saves.
    """
    return suggest(state, position, budget=settings.SPLENDOR_HINT_SECONDS)


# The hints this process found, by (game, seat position, version): asking again at the
# same version (a second tap, another socket of the phone, a script) gets the same answer
# without a second search, which takes a core for SPLENDOR_HINT_SECONDS.
_THOUGHT_KEPT = 256
_thought: dict[tuple[int, int, int], Hint] = {}


def think_once(game_id: int, version: int, state: GameState, position: int) -> Hint:
    """`think`, or the hint already found for this seat at this version."""
    key = (game_id, position, version)
    found = _thought.get(key)
    if found is None:
        found = think(state, position)
        if len(_thought) >= _THOUGHT_KEPT:
            _thought.pop(next(iter(_thought)))  # the oldest
        _thought[key] = found
    return found


def shown(hint: Hint, version: int) -> ShownHint:
    """What the phone is sent, in the active language."""
    sheet, preselect = _control(hint.action)
    return ShownHint(version, sentence(hint.reason), hint.action.notation(), sheet, preselect)


def answer_html(hint: ShownHint) -> str:
    """The answer, swapped into the hint panel of that version only (an older one is gone)."""
    return jinja.render("phone/hint_answer.html", {"hint": hint})
