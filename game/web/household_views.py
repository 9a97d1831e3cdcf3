"""The Players page (the household history, game.storage.household) and forgetting a player.

Anyone at home may look; only the host screen may forget (host_screen): the
laptop running the server, or a browser that created a game here. A phone sees
the figures without the Forget buttons, and its forged request is refused (403)
with nothing erased. Forgetting asks first (a page of its own, no script needed)
and then takes a POST with the CSRF token.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from game.models import Game
from game.storage import household
from game.storage.names import NAME_MAX_CODE_POINTS
from game.web import forms

# Headers a proxy adds (nginx with proxy_set_header, Apache, Caddy, ...): a request
# that came through one is judged by its session alone, never by its address.
PROXY_HEADERS = ("HTTP_X_FORWARDED_FOR", "HTTP_X_REAL_IP", "HTTP_FORWARDED")


def _from_this_machine(request: HttpRequest) -> bool:
    """True for a request from a loopback address that no proxy passed on.

    Behind a proxy on the same machine every request comes from loopback: a
    phone's too. A request that says a proxy passed it on (X-Forwarded-For and
    the like, whatever the address it names) is judged by its session alone; a
    proxy that says nothing cannot be told from the laptop's own browser, so a
    proxy in front must send X-Forwarded-For (README's nginx example does).
    """
    if any(request.META.get(header) for header in PROXY_HEADERS):
        return False
    try:
        address = ipaddress.ip_address(str(request.META.get("REMOTE_ADDR") or ""))
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


def _hosts_a_game(request: HttpRequest) -> bool:
    """True for a browser whose session created a game that is still kept here."""
    key = str(request.session.get("player_key", ""))
    return bool(key) and Game.objects.filter(host_key=key).exists()


def host_screen(request: HttpRequest) -> bool:
    """May this screen forget players? The laptop that runs the server, or a host's browser."""
    return _from_this_machine(request) or _hosts_a_game(request)


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
        "may_forget": host_screen(request),
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


def _named(data: Any) -> household.Figures:
    form = forms.ForgetForm(data)
    if not form.is_valid():
        raise Http404(_("Nobody of that name is in the history."))
    return _player(form.cleaned_data["name"])


def _not_host() -> HttpResponse:
    page = render_to_string(
        "players/not_host.html",
        {
            "message": _(
                "Only the host screen can forget a player: open the Players page on the TV."
            )
        },
    )
    return HttpResponse(page, status=403)


@require_http_methods(["GET", "POST"])
def forget(request: HttpRequest) -> HttpResponse:
    """Ask whether to forget a player (GET), then forget them (POST): host screen only."""
    if not host_screen(request):
        return _not_host()
    if request.method == "POST":
        line = _named(forms.posted(request))
        household.forget(line.entry.name)
        messages.success(
            request,
            _("%(name)s is no longer in the history; their games are kept.")
            % {"name": line.entry.name},
        )
        return HttpResponseRedirect(reverse("players"))
    line = _named(request.GET)
    return render(request, "players/forget.html", {"line": line})
