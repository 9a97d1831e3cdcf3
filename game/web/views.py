"""Thin HTTP views: home, create, host screen, join, phone, and the error pages.

Every change goes through the writer (game.writer.lobby, seats); these views only find
the game and the player's key, call the writer, and redirect or render. Input is read with
game.web.forms: whatever is posted, the answer is a page or a 4xx, never a crash.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote, unquote

from django.contrib import messages
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    HttpResponseRedirect,
)
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from game.engine.vocabulary import SeatRole
from game.models import Game, new_player_key
from game.screens import first_paint
from game.storage import names
from game.web import archive_views, forms
from game.writer import games, lobby, seating

NAME_COOKIE = "splendor_name"
NAME_COOKIE_AGE = 365 * 24 * 60 * 60


def player_key(request: HttpRequest) -> str:
    """Return this browser's unguessable key, kept server-side in its session.

    Creates the session, so only call it when the browser acts (joins, creates a
    game); looking at a page uses known_key and leaves no session row behind.
    """
    key = request.session.get("player_key")
    if not key:
        key = new_player_key()
        request.session["player_key"] = key
    return str(key)


def known_key(request: HttpRequest) -> str:
    """Return this browser's key if it has one already, else ""."""
    return str(request.session.get("player_key", ""))


def _client(request: HttpRequest) -> str:
    """The phone's address: wrong rejoin codes are counted per address."""
    return str(request.META.get("REMOTE_ADDR") or known_key(request))


def _game(code: str) -> Game:
    room = names.read_code(code)
    game = Game.objects.filter(code=room).first() if room else None
    if game is None:
        raise Http404(_("There is no game with this code."))
    return game


def _host_url(game: Game) -> str:
    return reverse("host", args=[game.code])


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    """Start a new game or reopen one this screen is hosting."""
    key = known_key(request)
    hosted = (
        Game.objects.filter(host_key=key, next_game=None).exclude(status=Game.Status.OVER)
        if key
        else Game.objects.none()
    )
    context = {"hosted": hosted.order_by("-created_at")[:8]}
    return render(request, "home.html", context | archive_views.games_context(request))


@require_POST
def create(request: HttpRequest) -> HttpResponse:
    form = forms.NewGameForm(forms.posted(request))
    if not form.is_valid():  # only a hand-made post: the page sends "on" or nothing
        messages.error(request, _("That request could not be read."))
        return redirect("home")
    no_gold_small = bool(form.cleaned_data["no_gold_small"])
    game = lobby.create_game(player_key(request), no_gold_small=no_gold_small)
    return redirect(_host_url(game))


@require_safe
def find(request: HttpRequest) -> HttpResponse:
    """Go to a game by its typed room code."""
    form = forms.FindForm(request.GET)
    code = form.cleaned_data["code"] if form.is_valid() else ""
    if not code or not Game.objects.filter(code=code).exists():
        if code:
            message = _("There is no game with the code %(code)s.") % {"code": code}
        else:
            message = _("Please type the room code shown on the TV.")
        messages.error(request, message)
        return redirect("home")
    return redirect("join", code=code)


@require_safe
def host(request: HttpRequest, code: str) -> HttpResponse:
    """The TV: the lobby with its QR code, then the table, then the end screen."""
    game = _game(code)
    if game.next_game_id and game.host_key == known_key(request):
        return redirect(_host_url(game.next_game))  # type: ignore[arg-type]
    snap = first_paint.read_game(game.id)
    is_host = bool(game.host_key) and game.host_key == known_key(request)
    url = first_paint.join_url(game.code, request.get_port())
    return render(
        request,
        "host.html",
        {
            "snap": snap.room,
            "screen": first_paint.render_table(
                snap, is_host=is_host, url=url, csrf=get_token(request)
            ),
        },
    )


def _position(request: HttpRequest) -> int:
    form = forms.SeatForm(forms.posted(request))
    if not form.is_valid():
        raise games.Refused(_("That request could not be read."))
    return int(form.cleaned_data["position"])


def _host_action(
    request: HttpRequest, code: str, act: Callable[[Game, str], object]
) -> HttpResponse:
    """Run one lobby or table command for the host screen, then show that screen again."""
    game = _game(code)
    try:
        result = act(game, known_key(request))
    except games.Refused as refusal:
        messages.error(request, refusal.message)
    else:
        if isinstance(result, Game):  # a rematch moves the screen to the new game
            game = result
    return redirect(_host_url(game))


@require_POST
def add_bot(request: HttpRequest, code: str) -> HttpResponse:
    form = forms.BotForm(forms.posted(request))
    kind = (form.cleaned_data["kind"] if form.is_valid() else "?") or "greedy"
    return _host_action(request, code, lambda game, key: lobby.add_bot(game.id, key, kind))


@require_POST
def remove_seat(request: HttpRequest, code: str) -> HttpResponse:
    return _host_action(
        request, code, lambda game, key: lobby.remove_seat(game.id, key, _position(request))
    )


@require_POST
def start(request: HttpRequest, code: str) -> HttpResponse:
    return _host_action(request, code, lambda game, key: lobby.start_game(game.id, key))


@require_POST
def rematch(request: HttpRequest, code: str) -> HttpResponse:
    return _host_action(request, code, lambda game, key: lobby.rematch(game.id, key))


@require_POST
def stand_in(request: HttpRequest, code: str) -> HttpResponse:
    return _host_action(
        request, code, lambda game, key: seating.hand_to_bot(game.id, key, _position(request))
    )


@require_POST
def add_tv_player(request: HttpRequest, code: str) -> HttpResponse:
    """The lobby's "Add a player without a phone": the TV plays their turns."""
    form = forms.TvPlayerForm(forms.posted(request))
    name = form.cleaned_data["name"] if form.is_valid() else ""
    return _host_action(request, code, lambda game, key: lobby.add_tv_player(game.id, key, name))


@require_POST
def play_on_tv(request: HttpRequest, code: str) -> HttpResponse:
    """Take a seat played on the TV back from its stand-in."""
    return _host_action(
        request, code, lambda game, key: seating.play_on_tv_again(game.id, key, _position(request))
    )


def _seconds(request: HttpRequest) -> int | None:
    """Read the lobby's stand-in choice: blank for never, else whole seconds."""
    form = forms.StandInForm(forms.posted(request))
    if not form.is_valid():
        raise games.Refused(_("That request could not be read."))
    text = form.cleaned_data["seconds"]
    return int(text) if text else None


@require_POST
def stand_in_after(request: HttpRequest, code: str) -> HttpResponse:
    """The lobby's option: a bot plays for a phone away this many seconds on its turn."""
    return _host_action(
        request, code, lambda game, key: lobby.set_stand_in(game.id, key, _seconds(request))
    )


def _think_seconds(request: HttpRequest) -> float:
    """Read the lobby's think-time choice: seconds as plain digits, "0.5" or "2"."""
    form = forms.ThinkForm(forms.posted(request))
    if not form.is_valid():
        raise games.Refused(_("Choose one of the thinking times offered."))
    return float(form.cleaned_data["seconds"])


@require_POST
def hard_bot_seconds(request: HttpRequest, code: str) -> HttpResponse:
    """The lobby's option: how long a hard bot thinks about each move."""
    return _host_action(
        request,
        code,
        lambda game, key: lobby.set_hard_bot_seconds(game.id, key, _think_seconds(request)),
    )


def _remembered_name(request: HttpRequest) -> str:
    """The name this phone joined with last time (kept percent-encoded: any script)."""
    name = unquote(request.COOKIES.get(NAME_COOKIE, ""), errors="replace")
    return names.clean_name(name) if names.readable(name) else ""


def _shown_name(request: HttpRequest) -> str:
    """The posted name to show again in the form, without what could not be read."""
    name = str(forms.posted(request).get("name", "")).replace(names.REPLACEMENT, "")
    return names.clean_name(name)  # drops control characters


def _seated(request: HttpRequest, game: Game, name: str) -> HttpResponse:
    """Send a seated phone to its hand, remembering its name for the next game; or, when
    its player asked for it on the join form, on to seat the next player on this phone."""
    where = reverse("play", args=[game.code])
    if forms.posted(request).get("then") == "another":
        where = f"{reverse('join', args=[game.code])}?another=1"
    response = HttpResponseRedirect(where)
    if name:
        # Cookies are Latin-1 on the wire: "Łukasz" or "Zoë 🦄" travel percent-encoded.
        response.set_cookie(
            NAME_COOKIE, quote(name, safe=""), max_age=NAME_COOKIE_AGE, samesite="Lax"
        )
    return response


def _take_seat(request: HttpRequest, game: Game) -> tuple[str, str]:
    """Join or rejoin from the posted form; return (name shown in the form, error).

    An empty error means the phone is seated.
    """
    data = forms.posted(request)
    if "rejoin_code" in data:
        rejoin = forms.RejoinForm(data)
        if not rejoin.is_valid():
            return "", _("That rejoin code does not match a seat in this game.")
        seating.rejoin(
            game.id, player_key(request), rejoin.cleaned_data["rejoin_code"], _client(request)
        )
        return "", ""
    form = forms.JoinForm(data)
    if not form.is_valid():
        return _shown_name(request), form.error()
    name = form.cleaned_data["name"]
    if _another(request):
        seating.add_player(game.id, player_key(request), name)
        return "", ""  # the phone keeps remembering its first player's name
    seating.join_game(game.id, player_key(request), name)
    return name, ""


def _seated_here(request: HttpRequest, game: Game) -> bool:
    """The phone holds a seat and is not adding another player."""
    return games.seat_of(game, known_key(request)) is not None and not _another(request)


def _another(request: HttpRequest) -> bool:
    """The phone adds one more player to the seats it holds (a shared phone)."""
    data = request.POST if request.method == "POST" else request.GET
    return bool(data.get("another"))


@require_http_methods(["GET", "HEAD", "POST"])
def join(request: HttpRequest, code: str) -> HttpResponse:
    """Where the QR code leads: type a name (remembered), tap join, you are seated."""
    game = _game(code)
    name = _remembered_name(request)
    error = ""
    if request.method == "POST":
        try:
            typed, error = _take_seat(request, game)
        except games.Refused as refusal:
            typed, error = _shown_name(request), refusal.message
        if not error:
            return _seated(request, game, typed)
        name = typed or ("" if _another(request) else name)
    elif _seated_here(request, game) and not request.GET.get("rejoin"):
        return redirect("play", code=game.code)  # (a rejoin link takes one more seat)
    here = [s.name for s in games.seats_of(game, known_key(request))]
    another = bool(here) and _another(request)  # the next player types their own name
    context = {
        "game": game,
        "name": "" if another and request.method != "POST" else name,
        "error": error,
        "rejoin_code": names.read_code(request.GET.get("rejoin", "")),
        "seats": game.seats.count(),
        "another": another,
        "here": here,
    }
    return render(request, "join.html", context, status=400 if error else 200)


@require_safe
def play(request: HttpRequest, code: str) -> HttpResponse:
    """A phone: the player's own hand, live over the websocket."""
    game = _game(code)
    seats = games.seats_of(game, known_key(request))
    if not seats:
        return redirect("join", code=game.code)
    if any(s.role == SeatRole.STAND_IN for s in seats):  # played for it while it was away
        seating.take_seat_back(game.id, seats[0].player_key)
    snap = first_paint.read_game(game.id)
    positions = tuple(s.position for s in seats)
    context = {
        "snap": snap.room,
        "status": first_paint.render_phone_status(snap),
        # A shared phone comes back to its curtain, never straight to a hand.
        "hand": first_paint.render_phone_hand(snap, positions),
    }
    return render(request, "phone.html", context)


# ---------------------------------------------------------------- error pages
# The project's own pages (templates/4xx.html, 500.html): translated, with a way
# back to the game, and never a setting, path, URL list or traceback, whatever
# DEBUG says. A 400 for a foreign Host header must not call request.get_host().


def _error_page(
    template: str, status: int, request: HttpRequest | None = None, **context: str
) -> HttpResponse:
    """Render an error page; from a game's page, offer the way back to that game."""
    if request is not None:
        context.setdefault("back", _game_page(request.path))
    return HttpResponse(render_to_string(template, context), status=status)


def _game_page(path: str) -> str:
    """The game page a failed request came from ("/play/ABCDEF/"), or "" (no database use)."""
    parts = path.split("/")
    if len(parts) > 3 and parts[1] in {"play", "join", "host"} and names.read_code(parts[2]):
        return f"/{parts[1]}/{names.read_code(parts[2])}/"
    return ""


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _error_page("400.html", 400, request)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _error_page("403.html", 403, request)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    # Only our own messages ("There is no game with this code."), never a resolver's.
    args = exception.args if type(exception) is Http404 else ()
    message = args[0] if args and isinstance(args[0], str) else ""
    return _error_page("404.html", 404, message=message)


def server_error(request: HttpRequest) -> HttpResponse:
    return _error_page("500.html", 500, request)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponseBase:
    """A form sent without a valid CSRF token: usually a page left open too long."""
    # Offer the same address again (as GET) when it is one of ours, e.g. the join form.
    return _error_page("403_csrf.html", 403, retry=_game_page(request.path))
