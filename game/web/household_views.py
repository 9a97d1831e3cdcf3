"""The Players page (the household history, game.storage.household) and forgetting a player.

Anyone at home may look; only the host screen may forget (host_screen): the
laptop running the server, or a browser that created a game here. A phone sees
the figures without the Forget buttons, and its forged request is refused (403)
with nothing erased. Forgetting asks first (a page of its own, no script needed)
and then takes a POST with the CSRF token.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_safe
from markupsafe import Markup

from game.models import Game
from game.screens import charts
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


# ---------------------------------------------------------------- the charts

FORM_GAMES = 20  # the last games each player's points and places are drawn for
RATE_POINTS = 20  # at most this many points of a win-rate line (and rows of its table)
MOST_PLACES = 4  # a game has at most four seats
SPARK_SIZE = (200, 64)  # a sparkline's viewBox: no text in it, its box's width


def sampled(count: int, most: int) -> list[int]:
    """At most `most` indices of `count`, evenly spread, the first and the last kept."""
    if count <= most:
        return list(range(count))
    return sorted({round(i * (count - 1) / (most - 1)) for i in range(most)})


def _numbers(values: list[int]) -> str:
    return ", ".join(str(v) for v in values)


@dataclass(frozen=True, slots=True)
class Form:
    """One player's small charts on the Players page, and the numbers they draw."""

    line: household.Figures
    position: int  # the shape and colour the page gives this player (0..3)
    recent: list[tuple[household.Played, household.Placing]]
    rates: list[tuple[int, str]]  # (games played, the share won after them: "40%"), sampled
    mark: Markup
    points_chart: Markup
    place_chart: Markup
    rate_chart: Markup


def _form(line: household.Figures, index: int) -> Form:
    position = index % len(charts.SEAT_SHAPES)
    name = line.entry.label
    recent = line.recent(FORM_GAMES)
    points = [placing.points for _game, placing in recent]
    places = [placing.place for _game, placing in recent]
    all_rates = line.win_rates()
    drawn = sampled(len(all_rates), RATE_POINTS)
    count = len(recent)
    ident = f"form-{index}"
    return Form(
        line=line,
        position=position,
        recent=recent,
        rates=[(i + 1, charts.percent_label(all_rates[i])) for i in drawn],
        mark=charts.seat_mark(position, 24),
        points_chart=charts.sparkline(
            points,
            title=_("%(name)s: points in the last games") % {"name": name},
            description=ngettext(
                "Points in the last game: %(values)s.",
                "Points in the last %(count)s games, oldest first: %(values)s.",
                count,
            )
            % {"count": count, "values": _numbers(points)},
            y_max=max(15, *points) if points else 15,
            position=position,
            width=SPARK_SIZE[0],
            height=SPARK_SIZE[1],
            ident=f"{ident}-points",
        ),
        place_chart=charts.sparkline(
            places,
            title=_("%(name)s: places in the last games") % {"name": name},
            description=ngettext(
                "Place in the last game (1 is first): %(values)s.",
                "Places in the last %(count)s games, oldest first (1 is first): %(values)s.",
                count,
            )
            % {"count": count, "values": _numbers(places)},
            y_min=1,
            y_max=MOST_PLACES,
            invert=True,
            position=position,
            width=SPARK_SIZE[0],
            height=SPARK_SIZE[1],
            ident=f"{ident}-places",
        ),
        rate_chart=charts.sparkline(
            [all_rates[i] for i in drawn],
            title=_("%(name)s: win rate over time") % {"name": name},
            description=ngettext(
                "Share of games won after %(count)s game: %(rate)s.",
                "Share of games won, from the first game to the last (%(count)s games): "
                "%(first)s at first, %(rate)s now.",
                len(all_rates),
            )
            % {
                "count": len(all_rates),
                "first": charts.percent_label(all_rates[0]) if all_rates else "",
                "rate": charts.percent_label(all_rates[-1]) if all_rates else "",
            },
            y_max=1,
            position=position,
            width=SPARK_SIZE[0],
            height=SPARK_SIZE[1],
            ident=f"{ident}-rate",
        ),
    )


def _duel_charts(duel: household.HeadToHead, positions: tuple[int, int]) -> tuple[Markup, Markup]:
    first, second = duel.first.label, duel.second.label
    values = {
        "first": first,
        "second": second,
        "count": duel.together,
    }
    wins = charts.head_to_head(
        first,
        duel.first_wins,
        second,
        duel.second_wins,
        title=_("Wins"),
        description=ngettext(
            "Wins in %(count)s game together: %(first)s %(a)s, %(second)s %(b)s.",
            "Wins in %(count)s games together: %(first)s %(a)s, %(second)s %(b)s.",
            duel.together,
        )
        % {**values, "a": duel.first_wins, "b": duel.second_wins},
        first_position=positions[0],
        second_position=positions[1],
        width=600,
        ident="duel-wins",
    )
    ahead = charts.head_to_head(
        first,
        duel.first_ahead,
        second,
        duel.second_ahead,
        title=_("Finished ahead of the other"),
        description=ngettext(
            "Finished ahead of the other in %(count)s game together: "
            "%(first)s %(a)s times, %(second)s %(b)s times.",
            "Finished ahead of the other in %(count)s games together: "
            "%(first)s %(a)s times, %(second)s %(b)s times.",
            duel.together,
        )
        % {**values, "a": duel.first_ahead, "b": duel.second_ahead},
        first_position=positions[0],
        second_position=positions[1],
        width=600,
        ident="duel-ahead",
    )
    return wins, ahead


def _wins_chart(lines: list[household.Figures]) -> Markup:
    return charts.bars(
        [charts.Bar(line.entry.label, line.wins, "wins-bar") for line in lines],
        title=_("Wins"),
        description="; ".join(
            ngettext("%(name)s: %(count)s win", "%(name)s: %(count)s wins", line.wins)
            % {"name": line.entry.label, "count": line.wins}
            for line in lines
        ),
        width=500,
        ident="wins-chart",
    )


def players_context(request: HttpRequest) -> dict[str, Any]:
    played = household.games_played()
    lines = household.figures(played)
    by_key = {line.entry.key: line for line in lines}
    first, second = _chosen(request, "a", by_key), _chosen(request, "b", by_key)
    people = [line for line in lines if not line.entry.level]
    cards = [_form(line, index) for index, line in enumerate(people)]
    position = {card.line.entry.key: card.position for card in cards}
    duel = duel_wins = duel_ahead = None
    if first and second and first != second:
        duel = household.head_to_head(played, by_key[first], by_key[second])
        a = position.get(first, 0)
        b = position.get(second, 1)
        duel_wins, duel_ahead = _duel_charts(duel, (a, b if b != a else (a + 1) % 4))
    return {
        "lines": people,
        "bot_lines": [line for line in lines if line.entry.level],
        "player_forms": cards,
        "form_games": FORM_GAMES,
        "wins_chart": _wins_chart(lines) if lines else None,
        "duel_wins": duel_wins,
        "duel_ahead": duel_ahead,
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
