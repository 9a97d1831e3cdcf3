"""The Players page's charts: each player's last games (points and place), win rate over
time and head to head, drawn as SVG beside tables of the same numbers, checked against
figures worked out here from the games' own snapshots; and `make_household`.

The households are made with game.bench.household (the engine's bots, stored as the
server keeps finished games): quick, and read back here without game.storage.household.
"""

from __future__ import annotations

import html
import io
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import pytest
from django.core.management import call_command
from django.test import Client

from game.bench.household import make_games
from game.engine import GameState, outcome
from game.models import Game, Seat
from game.web.household_views import FORM_GAMES, RATE_POINTS, sampled
from tests.web.test_translations import back_to_english  # noqa: F401 (autouse fixture)

pytestmark = pytest.mark.django_db


@dataclass(frozen=True)
class Result:
    points: int
    place: int
    won: bool


def expected_results() -> dict[str, list[Result]]:
    """Each player's games, oldest first, from the stored snapshots and the engine's rules."""
    found: dict[str, list[Result]] = {}
    games = Game.objects.filter(status=Game.Status.OVER).order_by("created_at", "id")
    for game in games:
        ended = outcome(GameState.from_dict(game.state))
        assert ended is not None
        for seat in Seat.objects.filter(game=game, role="human"):
            won = seat.position in ended.winners
            place = 1 if won else ended.ranking.index(seat.position) + 1
            found.setdefault(seat.name.strip().casefold(), []).append(
                Result(ended.points[seat.position], place, won)
            )
    return found


def win_rates(results: list[Result]) -> list[float]:
    return [sum(r.won for r in results[:n]) / n for n in range(1, len(results) + 1)]


def players_page(query: str = "", language: str = "en") -> str:
    client = Client()
    client.cookies["django_language"] = language
    response = client.get(f"/players/{query}")
    assert response.status_code == 200
    return response.content.decode()


def card(page: str, key: str) -> str:
    found = re.search(
        rf'<article class="form-card" data-key="{re.escape(key)}"(.*?)</article>', page, re.S
    )
    assert found is not None, key
    return found.group(1)


def cells(table: str) -> list[list[str]]:
    """A table's body rows, each cell's text."""
    body = re.search(r"<tbody>(.*?)</tbody>", table, re.S)
    assert body is not None
    return [
        [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", c)).split()) for c in row]
        for row in (
            re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", r, re.S)
            for r in re.findall(r"<tr>(.*?)</tr>", body.group(1), re.S)
        )
    ]


def table(part: str, css: str) -> str:
    found = re.search(rf'<table class="form-table {css}">(.*?)</table>', part, re.S)
    assert found is not None, css
    return found.group(1)


def svgs(part: str) -> list[ET.Element]:
    return [ET.fromstring(s) for s in re.findall(r"<svg xmlns=.*?</svg>", part, re.S)]


def path_points(svg: ET.Element) -> int:
    paths = [e for e in svg.iter() if e.tag.endswith("path")]
    return sum(len(re.findall(r"[ML]", p.get("d", ""))) for p in paths)


def test_each_player_s_last_games_and_win_rate_are_drawn_and_tabled() -> None:
    make_games(45, players=4, seed=3)
    expected = expected_results()
    assert sorted(expected) == ["ada", "bruno", "łukasz", "ελένη"]
    assert max(len(r) for r in expected.values()) > FORM_GAMES  # someone has a longer history
    page = players_page()
    for key, results in expected.items():
        part = card(page, key)
        recent = results[-FORM_GAMES:]
        rows = cells(table(part, "last-games"))
        assert [(int(r[1]), r[2]) for r in rows] == [
            (r.points, f"{r.place} · won" if r.won else str(r.place)) for r in recent
        ], key
        rates = win_rates(results)
        drawn = sampled(len(rates), RATE_POINTS)
        assert cells(table(part, "win-rates")) == [
            [str(i + 1), f"{rates[i] * 100:.0f}%"] for i in drawn
        ], key
        assert drawn[-1] == len(results) - 1 and len(drawn) == min(len(results), RATE_POINTS)
        points, places, rate = svgs(part)
        for svg in (points, places, rate):
            assert svg.get("role") == "img" and svg.get("aria-labelledby")
        assert path_points(points) == path_points(places) == len(recent)
        assert path_points(rate) == len(drawn)
        # The description says the numbers too (a screen reader hears them).
        desc = next(e.text for e in points.iter() if e.tag.endswith("desc"))
        assert desc is not None and desc.endswith(", ".join(str(r.points) for r in recent) + ".")
        # The headline figures beside the lines: the last game's points and place, the rate.
        nows = re.findall(r'<span class="spark-now">(.*?)</span>', part)
        assert nows == [str(recent[-1].points), str(recent[-1].place), f"{rates[-1] * 100:.0f}%"]


def test_head_to_head_is_drawn_as_well_as_counted() -> None:
    make_games(30, players=3, seed=5)
    page = players_page("?a=ada&b=bruno")
    duel = re.search(r'<table class="figures duel" id="duel">(.*?)</table>', page, re.S)
    assert duel is not None
    numbers = re.findall(r"<tr><th scope=\"row\">[^<]*</th><td>(\d+)</td><td>(\d+)</td>", page)
    (wins, ahead) = [(int(a), int(b)) for a, b in numbers]
    charts = svgs(page.split('<div class="duel-charts">')[1].split("</div>\n      </div>")[0])
    assert len(charts) == 2
    for svg, (a, b) in zip(charts, (wins, ahead), strict=True):
        texts = {e.get("class"): e.text for e in svg.iter() if e.tag.endswith("text")}
        assert (texts["first"], texts["second"]) == ("Ada", "Bruno")
        assert (texts["first-count"], texts["second-count"]) == (str(a), str(b))
        bars = {
            e.get("class"): float(e.get("width", 0)) for e in svg.iter() if e.tag.endswith("rect")
        }
        if a + b:
            assert bars["first-bar"] / (bars["first-bar"] + bars["second-bar"]) == pytest.approx(
                a / (a + b), abs=0.01
            )
    # The wins of everyone, as bars beside the figures' table.
    wins_chart = re.search(r'<div class="chart-box wins-chart">(.*?)</div>', page, re.S)
    assert wins_chart is not None
    drawn = [
        "".join(row.itertext())
        for row in ET.fromstring(wins_chart.group(1)).iter()
        if row.get("class") == "bar-row"
    ]
    tabled = re.findall(
        r'data-key="[^"]*">\s*<th scope="row">([^<]*)</th>.*?<td data-label="Wins">(\d+)</td>',
        page,
        re.S,
    )
    assert drawn == [html.unescape(name) + wins for name, wins in tabled]


def test_the_charts_speak_the_screens_language() -> None:
    make_games(8, players=3, seed=7)
    page = players_page("?a=ada&b=bruno", language="de")
    for text in ("Letzte Spiele und Siegquote", "Siegquote", "Die Zahlen", "Platz", "Siege in"):
        assert text in page
    assert re.search(r"<td>\d+ %</td>", page)  # "50 %" in German
    page = players_page(language="fi")
    for text in ("Viimeisimmät pelit ja voittoprosentti", "Voittoprosentti", "Luvut"):
        assert text in page


def test_a_page_without_games_draws_no_chart() -> None:
    page = players_page()
    assert "<svg" not in page and "No finished games yet" in page


def test_sampled_keeps_the_first_and_the_last() -> None:
    assert sampled(0, 20) == []
    assert sampled(5, 20) == [0, 1, 2, 3, 4]
    picked = sampled(1000, 20)
    assert len(picked) == 20 and picked[0] == 0 and picked[-1] == 999
    assert picked == sorted(set(picked))


def test_make_household_stores_games_the_players_page_counts() -> None:
    said = io.StringIO()
    call_command("make_household", games=7, players=3, seed=11, stdout=said)
    assert said.getvalue().startswith("Stored 7 finished games among 3 players")
    assert Game.objects.filter(status=Game.Status.OVER).count() == 7
    expected = expected_results()
    assert set(expected) <= {"ada", "bruno", "ελένη"} and len(expected) >= 2
    page = players_page()
    for key, results in expected.items():
        row = re.search(
            rf'<tr class="figure-line" data-key="{re.escape(key)}">.*?'
            r'<td data-label="Games">(\d+)</td>\s*<td data-label="Wins">(\d+)</td>',
            page,
            re.S,
        )
        assert row is not None, key
        assert (int(row.group(1)), int(row.group(2))) == (
            len(results),
            sum(r.won for r in results),
        )
    # Each game replays from its moves to its stored end.
    game = Game.objects.first()
    assert game is not None and game.moves.count() == game.version > 0
    assert Client().get(f"/replay/{game.code}/").status_code == 200
