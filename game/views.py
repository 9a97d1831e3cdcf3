"""Thin HTTP views: home, create, host screen, join, phone.

Every change goes through game.services; these views only find the game and
the player's key, call the service, and redirect or render.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from game import archive_views, rendering, services
from game.models import Game, new_player_key

NAME_COOKIE = "splendor_name"
NAME_COOKIE_AGE = 365 * 24 * 60 * 60


def player_key(request: HttpRequest) -> str:
    """Return this browser's unguessable key, kept server-side in its session."""
    key = request.session.get("player_key")
    if not key:
        key = new_player_key()
        request.session["player_key"] = key
    return str(key)


def _game(code: str) -> Game:
    game = Game.objects.filter(code=code.upper()).first()
    if game is None:
        raise Http404(_("There is no game with this code."))
    return game


def _host_url(game: Game) -> str:
    return reverse("host", args=[game.code])


def home(request: HttpRequest) -> HttpResponse:
    """Start a new game or reopen one this screen is hosting."""
    key = request.session.get("player_key", "")
    hosted = (
        Game.objects.filter(host_key=key, next_game=None).exclude(status=Game.Status.OVER)
        if key
        else Game.objects.none()
    )
    context = {"hosted": hosted.order_by("-created_at")[:8]}
    return render(request, "home.html", context | archive_views.games_context(request))


@require_POST
def create(request: HttpRequest) -> HttpResponse:
    game = services.create_game(
        player_key(request), no_gold_small=request.POST.get("no_gold_small") == "on"
    )
    return redirect(_host_url(game))


def find(request: HttpRequest) -> HttpResponse:
    """Go to a game by its typed room code."""
    code = "".join(request.GET.get("code", "").split()).upper()
    if not Game.objects.filter(code=code).exists():
        messages.error(request, _("There is no game with the code %(code)s.") % {"code": code})
        return redirect("home")
    return redirect("join", code=code)


def host(request: HttpRequest, code: str) -> HttpResponse:
    """The TV: the lobby with its QR code, then the table, then the end screen."""
    game = _game(code)
    if game.next_game_id and game.host_key == request.session.get("player_key"):
        return redirect(_host_url(game.next_game))  # type: ignore[arg-type]
    snap = rendering.load_snapshot(game.id)
    is_host = bool(game.host_key) and game.host_key == request.session.get("player_key")
    url = rendering.join_url(game.code, request.get_port())
    return render(
        request,
        "host.html",
        {
            "snap": snap.room,
            "screen": rendering.render_table(
                snap, is_host=is_host, url=url, csrf=get_token(request)
            ),
        },
    )


def _position(request: HttpRequest) -> int:
    try:
        return int(request.POST.get("position", ""))
    except ValueError:
        raise services.Refused(_("That request could not be read.")) from None


def _host_action(
    request: HttpRequest, code: str, act: Callable[[Game, str], object]
) -> HttpResponse:
    """Run one lobby or table command for the host screen, then show that screen again."""
    game = _game(code)
    try:
        result = act(game, request.session.get("player_key", ""))
    except services.Refused as refusal:
        messages.error(request, refusal.message)
    else:
        if isinstance(result, Game):  # a rematch moves the screen to the new game
            game = result
    return redirect(_host_url(game))


@require_POST
def add_bot(request: HttpRequest, code: str) -> HttpResponse:
    kind = request.POST.get("kind", "greedy")
    return _host_action(request, code, lambda game, key: services.add_bot(game.id, key, kind))


@require_POST
def remove_seat(request: HttpRequest, code: str) -> HttpResponse:
    return _host_action(
        request, code, lambda game, key: services.remove_seat(game.id, key, _position(request))
    )


@require_POST
def start(request: HttpRequest, code: str) -> HttpResponse:
    return _host_action(request, code, lambda game, key: services.start_game(game.id, key))


@require_POST
def rematch(request: HttpRequest, code: str) -> HttpResponse:
    return _host_action(request, code, lambda game, key: services.rematch(game.id, key))


@require_POST
def stand_in(request: HttpRequest, code: str) -> HttpResponse:
    return _host_action(
        request, code, lambda game, key: services.hand_to_bot(game.id, key, _position(request))
    )


def _seconds(request: HttpRequest) -> int | None:
    """Read the lobby's stand-in choice: blank for never, else whole seconds."""
    text = request.POST.get("seconds", "")
    if not text:
        return None
    if text.isascii() and text.isdigit():
        return int(text)
    raise services.Refused(_("That request could not be read."))


@require_POST
def stand_in_after(request: HttpRequest, code: str) -> HttpResponse:
    """The lobby's option: a bot plays for a phone away this many seconds on its turn."""
    return _host_action(
        request, code, lambda game, key: services.set_stand_in(game.id, key, _seconds(request))
    )


def join(request: HttpRequest, code: str) -> HttpResponse:
    """Where the QR code leads: type a name (remembered), tap join, you are seated."""
    game = _game(code)
    key = player_key(request)
    if services.seat_of(game, key) is not None and request.method == "GET":
        return redirect("play", code=game.code)
    error = ""
    name = request.COOKIES.get(NAME_COOKIE, "")
    if request.method == "POST":
        name = request.POST.get("name", "")
        try:
            if "rejoin_code" in request.POST:
                services.rejoin(game.id, key, request.POST["rejoin_code"])
            else:
                services.join_game(game.id, key, name)
        except services.Refused as refusal:
            error = refusal.message
        else:
            response = HttpResponseRedirect(reverse("play", args=[game.code]))
            if name:
                response.set_cookie(
                    NAME_COOKIE, services.clean_name(name), max_age=NAME_COOKIE_AGE, samesite="Lax"
                )
            return response
    context = {
        "game": game,
        "name": name,
        "error": error,
        "rejoin_code": request.GET.get("rejoin", ""),
        "seats": game.seats.count(),
    }
    return render(request, "join.html", context, status=400 if error else 200)


def play(request: HttpRequest, code: str) -> HttpResponse:
    """A phone: the player's own hand, live over the websocket."""
    game = _game(code)
    seat = services.seat_of(game, player_key(request))
    if seat is None:
        return redirect("join", code=game.code)
    if seat.is_bot:  # a stand-in played while this phone was away: it is back now
        services.take_seat_back(game.id, seat.player_key)
    snap = rendering.load_snapshot(game.id)
    context = {
        "snap": snap.room,
        "status": rendering.render_phone_status(snap),
        "hand": rendering.render_phone_hand(snap, seat.position),
    }
    return render(request, "phone.html", context)
