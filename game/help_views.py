"""Pages that help a table play: how to play, and the game log a phone opens.

Both show only what every screen may see: the rules, and the finished turns
(a card reserved from a deck appears as its level only).
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from game.history import log_context
from game.models import Game


def how_to_play(request: HttpRequest) -> HttpResponse:
    """The rules for a first game, in the screen's language."""
    back = request.GET.get("back", "")
    # Only a path on this site: never send a player elsewhere.
    if not back.startswith("/") or back.startswith("//"):
        back = ""
    colours = ("white", "blue", "green", "red", "black", "gold")
    return render(request, "how_to_play.html", {"back": back, "colours": colours})


def game_log(request: HttpRequest, code: str) -> HttpResponse:
    """Every finished turn of a game, newest first: the fragment a phone's Log sheet shows."""
    game = Game.objects.filter(code=code.upper()).first()
    if game is None:
        raise Http404(_("There is no game with this code."))
    names = list(game.seats.order_by("position").values_list("name", flat=True))
    context = log_context(game.id, game.version, names) if game.state else {"log": []}
    return render(request, "parts/game_log.html", context)
