"""The story of a finished game: the TV's charts and words, and each phone's own summary.

Fragments the end screens ask for with htmx as they appear, and again every few
seconds while the analysis runs (the fragment stops asking once it is told). A
game still being played has no story (404): chances are shown only after the end.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from game.models import Game
from game.screens import story
from game.storage import names
from game.storage.analyses import Told, told
from game.writer.analyst import analyst, played_game


def _finished(code: str) -> Game:
    """The finished game with this room code (as the other doors read one), else 404."""
    room = names.read_code(code)
    game = Game.objects.filter(code=room, status=Game.Status.OVER).first() if room else None
    if game is None:
        raise Http404(_("There is no finished game with this code."))
    return game


def _names(game: Game) -> list[str]:
    return [seat.name for seat in game.seats.order_by("position")]


def polling(found: Told | None) -> bool:
    """Ask again while the analysis waits or runs (never where stories are not told)."""
    if not settings.SPLENDOR_ANALYSIS:
        return False
    return found is None or found.story is None and not found.failed


def _told(game: Game) -> Told | None:
    """The game's story so far; a finished game without one (it ended before this server
    told stories, or while they were off) is queued for it now."""
    found = told(game)
    if found is None and settings.SPLENDOR_ANALYSIS:
        analyst.begin(game.pk)
        found = told(game)
    return found


@require_safe
def story_tv(request: HttpRequest, code: str) -> HttpResponse:
    """The TV end screen's story: the points chart at once, the chances once analysed."""
    game = _finished(code)
    found = _told(game)
    context: dict[str, Any] = story.tv_context(found, played_game(game), _names(game))
    context.update(code=game.code, polling=polling(found))
    return render(request, "story/tv.html", context)


@require_safe
def story_mine(request: HttpRequest, code: str) -> HttpResponse:
    """A phone's own summary of the game, for each seat it held."""
    game = _finished(code)
    key = str(request.session.get("player_key", ""))
    seats = list(game.seats.filter(player_key=key).order_by("position")) if key else []
    if not seats:
        raise Http404(_("This phone had no seat in this game."))
    found = _told(game)
    played = played_game(game)
    names = _names(game)
    summaries = [story.phone_context(found, played, names, seat.position) for seat in seats]
    context = {"summaries": summaries, "code": game.code, "polling": polling(found)}
    return render(request, "story/phone.html", context)
