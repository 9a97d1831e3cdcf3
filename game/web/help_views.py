"""Pages that help a table play: how to play, and the game log a phone opens.

Both show only what every screen may see: the rules, and the finished turns
(a card reserved from a deck appears as its level only).
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from game.engine import GameState, outcome
from game.engine.vocabulary import COLOUR_SLUGS
from game.models import Game
from game.screens.facts import log_items
from game.storage import names
from game.storage.history import log_context
from game.storage.readmodel import read


def how_to_play(request: HttpRequest) -> HttpResponse:
    """The rules for a first game, in the screen's language."""
    back = request.GET.get("back", "")
    # Only a path on this site: never send a player elsewhere.
    if not back.startswith("/") or back.startswith("//"):
        back = ""
    return render(request, "how_to_play.html", {"back": back, "colours": COLOUR_SLUGS})


def game_log(request: HttpRequest, code: str) -> HttpResponse:
    """Every finished turn of a game, newest first: the fragment a phone's Log sheet shows."""
    typed = names.read_code(code)  # never a query with what is not a code (NUL, for one)
    game = Game.objects.filter(code=typed).first() if typed else None
    if game is None:
        raise Http404(_("There is no game with this code."))
    room, _holders, state, _log = read(game.id)
    if state is None:
        return _log_page(request, log_items([], None))
    seat_names = [seat.name for seat in room.seats]  # as every screen says them (bots by level)
    context = log_context(game.id, state.moves, seat_names)
    return _log_page(request, log_items(context["log"], _outcome_line(state, seat_names)))  # type: ignore[arg-type]


def _log_page(request: HttpRequest, items: dict[str, str]) -> HttpResponse:
    """The log's items are the screens' fragments: HTML, kept as plain text."""
    safe = [mark_safe(item) for item in items.values()]
    return render(request, "parts/game_log.html", {"items": safe})


def _outcome_line(state: GameState | None, names: list[str]) -> dict[str, object] | None:
    """What the log's last line says about a finished game."""
    result = outcome(state) if state is not None else None
    if result is None:
        return None
    best = result.ranking[0]
    return {
        "winners": [{"name": names[s]} for s in result.winners],
        "rows": [{"points": result.points[best]}],
        "shared": result.shared,
        "ended_by_passes": result.ended_by_passes,
    }
