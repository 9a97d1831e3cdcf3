"""Every game kept: the start page's list of games, record downloads, the replay viewer.

The replay rebuilds the table at each step from the seed and the moves (no
stored snapshots) and shows it as the table saw it then: templates get the
TABLE projection, never a GameState, so no deck order and no blind card that
was still hidden at that step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.paginator import Page, Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from markupsafe import Markup

from game.bot_levels import seat_name
from game.engine import GameState, new_game, outcome, parse_action
from game.engine.rules import apply_action
from game.engine.story import PlayedGame
from game.models import Game
from game.records import archive
from game.screens import first_paint, story
from game.storage import analyses, history, names
from game.storage.readmodel import Room, SeatInfo, shared_phones
from game.writer.games import load_state

GAMES_PER_PAGE = 8


# ---------------------------------------------------------------- the list of games


@dataclass(frozen=True, slots=True)
class PlayerLine:
    name: str
    points: int
    winner: bool


@dataclass(frozen=True, slots=True)
class GameLine:
    """One game in the list: who played, how many points, who won, when."""

    code: str
    status: str
    status_label: str
    when: Any  # a datetime, formatted by the template in the screen's language
    players: tuple[PlayerLine, ...]
    over: bool
    downloadable: bool  # finished, or running and hosted by this screen


def _may_download(game: Game, viewer_key: str) -> bool:
    """A running game's record shows the decks (its seed): only its host may take it."""
    is_host = bool(game.host_key) and game.host_key == viewer_key
    return game.status == Game.Status.OVER or is_host


def _line(game: Game, viewer_key: str) -> GameLine:
    state = load_state(game)
    ended = outcome(state) if state is not None else None
    winners = ended.winners if ended else ()
    seats = sorted(game.seats.all(), key=lambda s: s.position)
    players = tuple(
        PlayerLine(
            seat_name(s.name, s.role, s.bot_level, s.bot_number),
            state.players[s.position].points if state else 0,
            s.position in winners,
        )
        for s in seats
    )
    return GameLine(
        code=game.code,
        status=game.status,
        status_label=game.get_status_display(),
        when=game.created_at,
        players=players,
        over=game.status == Game.Status.OVER,
        downloadable=_may_download(game, viewer_key),
    )


def games_page(number: Any) -> Page[Game]:
    """Return one page of the games being played and finished, newest first."""
    games = (
        Game.objects.exclude(status=Game.Status.LOBBY)
        .order_by("-created_at", "-id")
        .prefetch_related("seats")
    )
    return Paginator(games, GAMES_PER_PAGE).get_page(number)


def games_context(request: HttpRequest) -> dict[str, Any]:
    """What templates/archive/games.html needs; reads no session row."""
    page = games_page(request.GET.get("page"))
    viewer_key = str(request.session.get("player_key", ""))
    return {"games": page, "game_lines": [_line(g, viewer_key) for g in page.object_list]}


def games(request: HttpRequest) -> HttpResponse:
    """The list alone: htmx swaps it in when the page changes."""
    return render(request, "archive/games.html", games_context(request))


# ---------------------------------------------------------------- downloading a record


def _started_game(code: str) -> Game:
    room = names.read_code(code)  # never a query with what is not a code (NUL, for one)
    game = (
        Game.objects.filter(code=room).exclude(status=Game.Status.LOBBY).first() if room else None
    )
    if game is None:
        raise Http404(_("There is no game with this code."))
    return game


def export(request: HttpRequest, code: str) -> HttpResponse:
    """Download a game record; a running game's only for its host (the seed shows the decks)."""
    game = _started_game(code)
    if not _may_download(game, str(request.session.get("player_key", ""))):
        raise Http404(_("Only the screen that created a running game can download it."))
    text = archive.write(archive.record_of(game))
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="splendor-{game.code}.txt"'
    return response


# ---------------------------------------------------------------- the replay viewer


def turn_ends(players: int, seed: int, moves: list[str], **rules: Any) -> list[int]:
    """Return how many moves had been made at each step: the deal, then after each turn.

    A turn can take several moves (take, give back, choose a noble); a game
    exported mid-turn ends with a step after its last move.
    """
    state = new_game(players, seed, **rules)
    ends = [0]
    for count, text in enumerate(moves, start=1):
        apply_action(state, parse_action(text))
        if state.turn > len(ends) - 1:
            ends.append(count)
    if ends[-1] != len(moves):
        ends.append(len(moves))
    return ends


def _room(game: Game, state: GameState) -> Room:
    """The room as a replay shows it: every seat by name and how it was played (on the
    TV, sharing a phone), nobody away, nothing live."""
    rows = list(game.seats.order_by("position"))
    shares = shared_phones(rows)
    seats = tuple(
        SeatInfo(
            s.position,
            s.name,
            s.role,
            True,
            "",
            bot_level=s.bot_level,
            bot_number=s.bot_number,
            shares_with=shares.get(s.position, -1),
            played_on=s.played_on,
        )
        for s in rows
    )
    return Room(
        id=game.id,
        code=game.code,
        status=Game.Status.OVER if state.is_over else Game.Status.PLAYING,
        version=state.moves,
        no_gold_small=game.house_no_gold_small,
        next_code="",
        seats=seats,
    )


def _step(text: str | None, last: int) -> int:
    try:
        step = int(text or 0)
    except ValueError:
        step = 0
    return min(max(step, 0), last)


def replay_context(game: Game, step_text: str | None) -> dict[str, Any]:
    moves = list(game.moves.order_by("index").values_list("notation", flat=True))
    ends = turn_ends(
        game.seats.count(),
        game.seed,
        moves,
        first_player=game.first_player,
        no_gold_small=game.house_no_gold_small,
    )
    last = len(ends) - 1
    step = _step(step_text, last)
    state = new_game(game.seats.count(), game.seed, game.first_player, game.house_no_gold_small)
    told = history.play_through(state, moves[: ends[step]])  # the state and its turns
    room = _room(game, state)
    chart = _story_chart(game, moves, step)
    return {
        "chart": chart,
        "chart_open": False,
        "snap": room,
        # The TV's own table regions, from the table's projection at that step.
        "table": first_paint.render_replay_table(room, state, history.encode_recent(told)),
        "step": step,
        "last": last,
        "previous": max(step - 1, 0),
        "next": min(step + 1, last),
        "code": game.code,
    }


def _story_chart(game: Game, moves: list[str], step: int) -> Markup | None:
    """A finished game's chart (its chances once analysed, else its points), the current
    turn's round marked and each round a link to its last turn; None while it is played."""
    if game.status != Game.Status.OVER:
        return None
    found = analyses.told(game)
    names = [seat.name for seat in game.seats.order_by("position")]
    played = PlayedGame(
        game.seats.count(), game.seed, tuple(moves), game.first_player, game.house_no_gold_small
    )
    points = story.points_by_round(played)
    here = reverse("replay", args=[game.code])
    current = next((x for x, turns in enumerate(points.turns) if turns >= step), None)

    def link(x: int) -> str:
        return f"{here}?step={points.turns[x]}&chart=1"

    if found is not None and found.story is not None:
        return story.chances_chart(found.story, names, story.REPLAY_CHART, link, current)
    return story.points_chart(points, names, None, story.REPLAY_CHART, link, current)


def replay(request: HttpRequest, code: str) -> HttpResponse:
    """The replay viewer: the whole page, or only its #replay region for htmx."""
    game = _started_game(code)
    context = replay_context(game, request.GET.get("step"))
    context["chart_open"] = request.GET.get("chart") == "1"
    if request.headers.get("HX-Request") == "true":  # htmx asks for the region only
        return render(request, "replay/step.html", context)
    context["downloadable"] = _may_download(game, str(request.session.get("player_key", "")))
    return render(request, "replay/viewer.html", context)
