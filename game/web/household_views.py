"""The Players page (the household history, game.storage.household) and forgetting a player.

Anyone at home may look; forgetting asks first (a page of its own, no script
needed) and then takes a POST with the CSRF token.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from game.names import NAME_MAX_CODE_POINTS
from game.storage import household


def _chosen(request: HttpRequest, field: str, found: dict[str, household.Figures]) -> str:
    """An entry key from the query string, if it names someone in the history."""
    key = str(request.GET.get(field, ""))[: NAME_MAX_CODE_POINTS * 2]
    return key if key in found else ""


def players_context(request: HttpRequest) -> dict[str, Any]:
    played = household.games_played()
    lines = household.figures(played)
    by_key = {line.entry.key: line for line in lines}
    first, second = _chosen(request, "a", by_key), _chosen(request, "b", by_key)
    duel = None
    if first and second and first != second:
        duel = household.head_to_head(played, by_key[first], by_key[second])
    return {
        "lines": [line for line in lines if not line.entry.level],
        "bot_lines": [line for line in lines if line.entry.level],
        "choices": [(line.entry.key, line.entry.label) for line in lines],
        "first": first,
        "second": second,
        "duel": duel,
        "asked": bool(request.GET.get("a") or request.GET.get("b")),
    }


@require_safe
def players(request: HttpRequest) -> HttpResponse:
    """Who played the games kept here: games, wins, points, last game, head-to-head."""
    return render(request, "players/players.html", players_context(request))


def _player(name: str) -> household.Figures:
    key = household.key_of(name)
    found = next(
        (
            line
            for line in household.figures(household.games_played(keys=[key]))
            if line.entry.key == key and not line.entry.level
        ),
        None,
    )
    if found is None:
        raise Http404(_("Nobody of that name is in the history."))
    return found


@require_http_methods(["GET", "POST"])
def forget(request: HttpRequest) -> HttpResponse:
    """Ask whether to forget a player (GET), then forget them (POST)."""
    if request.method == "POST":
        name = str(request.POST.get("name", ""))
        line = _player(name)
        household.forget(name)
        messages.success(
            request,
            _("%(name)s is no longer in the history; their games are kept.")
            % {"name": line.entry.name},
        )
        return HttpResponseRedirect(reverse("players"))
    line = _player(str(request.GET.get("name", "")))
    return render(request, "players/forget.html", {"line": line})
