"""The household history: the Players page's figures, head-to-head, Forget (from the host
screen only), and the winners' household wins on the end screens, checked against games
played here.

The games (tests/web/household_games.py) are played to the end through the
writer: a decisive game, a shared win (a stalemate: nobody bought a card), a
medium bot, names typed in other cases in Latin, Polish and Greek letters, and
a game still being played, which counts for nobody.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from game.engine import apply_action, outcome, parse_action
from game.models import Game, Seat
from game.storage import household
from game.writer import lobby
from tests.web.helpers import (
    HOST,
    Screens,
    db,
    new_session,
    play_as,
    shared_lobby,
    start,
    started,
    state_of,
)
from tests.web.household_games import HOST_KEY, Finished, play
from tests.web.household_games import household as play_household
from tests.web.test_archive import finish_any
from tests.web.test_live_path import _play_to_the_last_move
from tests.web.test_postgres import on_postgres
from tests.web.test_translations import back_to_english  # noqa: F401 (autouse fixture)
from tests.web.test_views import client_for

pytestmark = pytest.mark.django_db

Figures = tuple[int, int, str, int]  # games, wins, average points (one decimal), best points


def key_of(seat: str) -> str:
    return seat if seat.startswith("bot:") else seat.casefold()


def one_decimal(value: Decimal) -> str:
    return str(value.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def expected_figures(
    games: Iterable[Finished], forgotten: Iterable[str] = ()
) -> dict[str, Figures]:
    """Each player's figures as the games' own results give them (a shared win counts)."""
    results: dict[str, list[tuple[int, bool]]] = {}
    for game in games:
        for position, seat in enumerate(game.seats):
            if key_of(seat) not in forgotten:
                won = position in game.winners
                results.setdefault(key_of(seat), []).append((game.points[position], won))
    return {
        key: (
            len(rows),
            sum(won for _points, won in rows),
            one_decimal(Decimal(sum(points for points, _won in rows)) / len(rows)),
            max(points for points, _won in rows),
        )
        for key, rows in results.items()
    }


def page_figures(page: str) -> dict[str, Figures]:
    """The Players page's table, by player key."""
    found = {}
    for key, row in re.findall(
        r'<tr class="figure-line[^"]*" data-key="([^"]*)">(.*?)</tr>', page, re.S
    ):
        cells = dict(re.findall(r'<td data-label="([^"]*)">(.*?)</td>', row, re.S))
        found[html.unescape(key)] = (
            int(cells["Games"]),
            int(cells["Wins"]),
            cells["Average points"],
            int(cells["Best points"]),
        )
    return found


def row_names(page: str) -> dict[str, str]:
    rows = re.findall(r'data-key="([^"]*)">\s*<th scope="row">(.*?)</th>', page, re.S)
    return {html.unescape(key): html.unescape(name) for key, name in rows}


def players_page(client: Client | None = None, query: str = "") -> str:
    response = (client or Client()).get(f"/players/{query}")
    assert response.status_code == 200
    return response.content.decode()


# ---------------------------------------------------------------- the figures


def test_the_players_page_adds_up_the_games_finished_here() -> None:
    games = play_household()
    assert games["shared"].winners == (0, 1)  # the stalemate: nobody bought, both win
    assert 1 in games["bot"].winners  # the bot won a game
    page = players_page()
    figures = page_figures(page)
    assert figures == expected_figures(games.values())
    # Names match whatever their case, in any script; the game being played counts
    # for nobody (Ada and Bob sit in it).
    assert sorted(figures) == ["ada", "bob", "bot:medium", "zoë", "łukasz", "ελένη"]
    assert [figures[k][0] for k in ("ada", "bob", "łukasz", "ελένη", "zoë")] == [3, 2, 2, 2, 2]
    # The shared win counts for both who shared it.
    assert figures["bob"][1] == int(1 in games["first"].winners) + 1
    # A bot appears under its level; a player by the name typed last.
    names = row_names(page)
    assert names["bot:medium"] == "Bot (medium)"
    assert (names["ada"], names["łukasz"], names["ελένη"]) == ("ada", "ŁUKASZ", "ελένη")
    # Players first, by wins; bot levels after them.
    assert list(figures)[-1] == "bot:medium"
    assert "/players/forget/?name=ada" in page
    assert "?name=Bot" not in page


def test_players_at_the_tv_and_on_a_shared_phone_count_by_name() -> None:
    table = shared_lobby(others=())  # Ada and Ben on one phone
    lobby.add_tv_player(table.game_id, table.host_key, "Cleo")
    over = finish_any(start(table, first_player=0).game_id)
    state = state_of(over.id)
    figures = page_figures(players_page())
    for position, key in enumerate(("ada", "ben", "cleo")):
        points = state.players[position].points
        assert figures[key][0] == 1 and figures[key][3] == points, (key, figures)


def test_the_page_reads_the_same_few_rows_however_many_games() -> None:
    play(["Ada", "Bob"], seed=21)
    with CaptureQueriesContext(connection) as few:
        players_page()
    for seed in (22, 23, 24):
        play(["Ada", "bot:easy", "Cy"], seed=seed)
    with CaptureQueriesContext(connection) as more:
        page = players_page()
    assert len(more.captured_queries) == len(few.captured_queries) <= 4
    assert page_figures(page)["ada"][0] == 4
    # A finished game's snapshot is read once (by a server just started, here): its
    # outcome never changes.
    household._outcomes.clear()
    snapshots = []
    for _time in range(2):
        with CaptureQueriesContext(connection) as read:
            assert page_figures(players_page()) == page_figures(page)
        snapshots.append(any('"state"' in q["sql"] for q in read.captured_queries))
    assert snapshots == [True, False]


def test_head_to_head_counts_the_games_both_finished() -> None:
    games = play_household()
    both = [games["first"], games["shared"]]
    page = players_page(query="?a=ada&b=bob")
    duel = re.search(r'<table class="figures duel" id="duel">(.*?)</table>', page, re.S)
    assert duel is not None
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", duel.group(1))).split())
    ada_wins = sum(0 in g.winners for g in both)
    bob_wins = sum(1 in g.winners for g in both)
    ada_ahead = sum(g.points[0] > g.points[1] for g in both)  # the shared game: a tie
    bob_ahead = sum(g.points[1] > g.points[0] for g in both)
    assert text == (
        f"2 games together ada bob Wins {ada_wins} {bob_wins}"
        f" Finished ahead of the other {ada_ahead} {bob_ahead}"
    )
    assert f'href="/replay/{games["shared"].code}/"' in page.split('id="duel"')[1]
    assert "have not played a game together" in players_page(query="?a=ada&b=ελένη")
    assert "Choose two different players." in players_page(query="?a=ada&b=ada")
    assert "Choose two different players." in players_page(query="?a=ada&b=nobody")


def test_a_bot_level_can_be_compared_with_a_player() -> None:
    games = play_household()
    page = players_page(query="?a=bot:medium&b=%C5%82ukasz")  # łukasz
    assert "1 game together" in page
    bot = games["bot"]
    assert f"Wins</th><td>{int(1 in bot.winners)}</td><td>{int(2 in bot.winners)}</td>" in page


@pytest.mark.parametrize(
    ("language", "texts"),
    [
        (
            "de",
            ["Siege", "Punkte im Schnitt", "Bot (mittel)", "Direkter Vergleich", "ada vergessen"],
        ),
        ("fi", ["Voitot", "Pisteet keskimäärin", "Botti (keskitaso)", "Keskinäiset pelit"]),
    ],
)
def test_the_players_page_speaks_the_screens_language(language: str, texts: list[str]) -> None:
    play_household()
    client = Client()
    client.cookies["django_language"] = language
    page = players_page(client)
    for text in texts:
        assert text in page


def test_the_start_page_links_to_the_players_page() -> None:
    assert 'href="/players/"' in Client().get("/").content.decode()


def test_with_no_finished_game_the_page_says_so() -> None:
    assert "No finished games yet" in players_page()


# ---------------------------------------------------------------- forgetting a player


def test_forgetting_a_player_asks_first_then_keeps_every_game_and_everyone_else() -> None:
    games = play_household()
    before = page_figures(players_page())
    rows = (Game.objects.count(), Seat.objects.count())
    client = Client(enforce_csrf_checks=True)

    asked = client.get("/players/forget/", {"name": "zoË"})  # any spelling finds her
    assert asked.status_code == 200
    confirm = asked.content.decode()
    assert "Forget ZOË?" in html.unescape(confirm)
    assert page_figures(players_page()) == before  # asking forgets nothing

    assert client.post("/players/forget/", {"name": "ZOË"}).status_code == 403  # no CSRF token
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', confirm)
    assert token is not None
    done = client.post(
        "/players/forget/", {"name": "ZOË", "csrfmiddlewaretoken": token.group(1)}, follow=True
    )
    assert done.redirect_chain == [("/players/", 302)]
    page = done.content.decode()
    assert "ZOË is no longer in the history; their games are kept." in html.unescape(page)

    after = page_figures(page)
    assert "zoë" not in after
    assert after == {k: v for k, v in before.items() if k != "zoë"}
    assert after == expected_figures(games.values(), forgotten={"zoë"})
    # She is not offered for head-to-head either; the games and seats are all kept.
    assert 'value="zoë"' not in page
    assert (Game.objects.count(), Seat.objects.count()) == rows
    assert sorted(Seat.objects.filter(forgotten=True).values_list("name", flat=True)) == [
        "ZOË",
        "Zoë",
    ]
    assert games["again"].code in Client().get("/").content.decode()
    # A new game under her name starts a new history.
    play(["Zoë", "Bob"], seed=31)
    assert page_figures(players_page())["zoë"][0] == 1


def test_forgetting_nobody_or_a_bot_is_not_found() -> None:
    play_household()
    assert Client().get("/players/forget/", {"name": "Nobody"}).status_code == 404
    assert Client().get("/players/forget/", {"name": "Bot (medium)"}).status_code == 404
    assert Client().post("/players/forget/", {"name": ""}).status_code == 404


# ---------------------------------------------------------------- only the host screen forgets
# The laptop that runs the server (a loopback address that no proxy passed on) or a
# browser that created a game here: every other phone sees the figures, not the buttons.

LAN = "192.168.1.23"
NOT_HOST = "Only the host screen can forget a player: open the Players page on the TV."


def screen(key: str | None = None, address: str = LAN, **headers: Any) -> Client:
    """A browser at this address, its session holding this player key (if any)."""
    client = Client(enforce_csrf_checks=True, REMOTE_ADDR=address, **headers)
    if key is not None:
        client.cookies["sessionid"] = new_session(key)
    return client


def offers_forget(page: str) -> bool:
    return "/players/forget/" in page


def forgotten() -> list[str]:
    return list(Seat.objects.filter(forgotten=True).values_list("name", flat=True))


def test_a_phone_sees_the_figures_without_forget_and_the_host_screen_with_it() -> None:
    games = play_household()
    ada_phone = screen(games["first"].keys[0])  # joined games, hosted none
    page = players_page(ada_phone)
    assert page_figures(page) == expected_figures(games.values())
    assert not offers_forget(page) and ">Forget<" not in page
    assert "Bot (medium)" in row_names(page).values()
    for host in (screen(address="127.0.0.1"), screen(HOST_KEY)):
        page = players_page(host)
        assert offers_forget(page) and ">Forget<" in page
        assert page_figures(page) == expected_figures(games.values())


# Refused: the address of a request a proxy passed on says nothing of who sent it.
PHONES = {
    "a stranger on the network": {},
    "a phone that joined a game": {"key": "phone"},
    "a browser whose key hosts nothing": {"key": "nobody"},
    "through a proxy (X-Forwarded-For)": {"address": "127.0.0.1", "HTTP_X_FORWARDED_FOR": LAN},
    "through a proxy (X-Real-IP)": {"address": "127.0.0.1", "HTTP_X_REAL_IP": LAN},
    "through a proxy (Forwarded)": {"address": "::1", "HTTP_FORWARDED": f"for={LAN}"},
    "no address": {"address": ""},
    "a name, not an address": {"address": "localhost"},
}
HOST_SCREENS = {
    "the laptop (127.0.0.1)": {"address": "127.0.0.1"},
    "the laptop (127.0.1.1)": {"address": "127.0.1.1"},
    "the laptop (::1)": {"address": "::1"},
    "the laptop (IPv4 in IPv6)": {"address": "::ffff:127.0.0.1"},
    "the browser that created a game": {"key": "host"},
    "that browser through a proxy": {"key": "host", "HTTP_X_FORWARDED_FOR": LAN},
}


def _screen(finished: Finished, who: dict[str, str]) -> Client:
    keys = {"phone": finished.keys[0], "nobody": "nobody-hosts", "host": HOST_KEY}
    options = dict(who)
    key = keys[options.pop("key")] if "key" in options else None
    return screen(key, options.pop("address", LAN), **options)


def _token(client: Client) -> str:
    found = re.search(
        r'name="csrfmiddlewaretoken" value="([^"]+)"', client.get("/").content.decode()
    )
    assert found is not None
    return found.group(1)


@pytest.mark.parametrize("who", PHONES.values(), ids=PHONES.keys())
def test_forget_from_any_other_screen_is_refused_and_erases_nothing(who: dict[str, str]) -> None:
    finished = play(["Ada", "Bob"], seed=61)
    before = page_figures(players_page())
    phone = _screen(finished, who)
    assert not offers_forget(players_page(phone))
    asked = phone.get("/players/forget/", {"name": "Ada"})
    assert asked.status_code == 403
    assert NOT_HOST in asked.content.decode()
    forged = phone.post("/players/forget/", {"name": "Ada", "csrfmiddlewaretoken": _token(phone)})
    assert forged.status_code == 403  # refused as not the host, not for a missing token
    page = forged.content.decode()
    assert NOT_HOST in page and 'href="/players/"' in page
    assert forgotten() == []
    assert page_figures(players_page()) == before


@pytest.mark.parametrize("who", HOST_SCREENS.values(), ids=HOST_SCREENS.keys())
def test_the_host_screen_forgets(who: dict[str, str]) -> None:
    finished = play(["Ada", "Bob"], seed=62)
    host = _screen(finished, who)
    assert offers_forget(players_page(host))
    assert host.get("/players/forget/", {"name": "ada"}).status_code == 200
    done = host.post("/players/forget/", {"name": "ADA", "csrfmiddlewaretoken": _token(host)})
    assert (done.status_code, done["Location"]) == (302, "/players/")
    assert forgotten() == ["Ada"]
    assert sorted(page_figures(players_page())) == ["bob"]


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("de", "Spieler vergessen kann nur der Bildschirm des Gastgebers"),
        ("fi", "Pelaajan voi unohtaa vain isännän näytöltä"),
    ],
)
def test_the_refusal_speaks_the_screens_language(language: str, text: str) -> None:
    play(["Ada", "Bob"], seed=63)
    phone = screen()
    phone.cookies["django_language"] = language
    refused = phone.post("/players/forget/", {"name": "Ada", "csrfmiddlewaretoken": _token(phone)})
    assert refused.status_code == 403
    page = refused.content.decode()
    assert text in page and f'<html lang="{language}">' in page
    assert forgotten() == []


# ---------------------------------------------------------------- the end screens


def wins_in_order(games: list[Finished]) -> list[dict[int, int]]:
    """For each game, each winning player's wins so far (bots left out)."""
    wins: dict[str, int] = {}
    found = []
    for game in games:
        now = {}
        for position in game.winners:
            seat = game.seats[position]
            if not seat.startswith("bot:"):
                wins[key_of(seat)] = wins.get(key_of(seat), 0) + 1
                now[position] = wins[key_of(seat)]
        found.append(now)
    return found


def end_screen(key: str, path: str, language: str = "en") -> str:
    client = client_for(key)
    client.cookies["django_language"] = language
    response = client.get(path, HTTP_HOST=HOST)
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def test_the_end_screens_say_each_winners_household_win() -> None:
    games = play_household()
    counted = wins_in_order(list(games.values()))
    assert counted[1] == {
        0: 1 + (0 in games["first"].winners),
        1: 1 + (1 in games["first"].winners),
    }
    for game, wins in zip(games.values(), counted, strict=True):
        tv = end_screen(HOST_KEY, f"/host/{game.code}/")
        assert '<a href="/players/">Players</a>' in tv
        said = re.findall(r'<p class="household-win">(.*?)</p>', tv)
        ordinals = {1: "1st", 2: "2nd", 3: "3rd"}
        assert said == [f"{game.seats[p]}'s {ordinals[n]} win" for p, n in wins.items()]
        for position, n in wins.items():
            phone = end_screen(game.keys[position], f"/play/{game.code}/")
            assert f'<p class="household-win">Your {ordinals[n]} win</p>' in phone
    # The bot's win is not a player's.
    assert counted[2] == {}
    shared, (ada, bob) = games["shared"], counted[1].values()
    german = end_screen(HOST_KEY, f"/host/{shared.code}/", "de")
    assert f"{ada}. Sieg für {shared.seats[0]}" in german
    finnish = end_screen(HOST_KEY, f"/host/{shared.code}/", "fi")
    assert f"{shared.seats[1]}: {bob}. voitto" in finnish
    assert f"{bob}. voittosi" in end_screen(shared.keys[1], f"/play/{shared.code}/", "fi")


def _winners_after(game_id: int, last: str) -> tuple[int, ...]:
    after = state_of(game_id).copy()
    apply_action(after, parse_action(last))
    ended = outcome(after)
    assert ended is not None
    return ended.winners


@pytest.mark.django_db(transaction=True)
async def test_a_game_ending_live_tells_the_tv_and_the_winners_phone(screens: Screens) -> None:
    earlier = await db(play)(["Ada", "Bob"], seed=51)
    table = await db(started)(("ADA", "BOB"))
    last, version = await db(_play_to_the_last_move)(table)
    winner = (await db(_winners_after)(table.game_id, last))[0]
    name = table.player(winner).name
    wins = 1 + (winner in earlier.winners)  # the same seats, the same names in other cases
    tv = await screens.tv(table)
    phone = await screens.phone(table, winner)
    await tv.until_version(version)
    await phone.until_version(version)
    assert "household-win" not in tv.view
    await db(play_as)(table, last)
    await tv.until_version(version + 1)
    await phone.until_version(version + 1)
    ordinal = {1: "1st", 2: "2nd"}[wins]
    assert f'<p class="household-win">{name}&#39;s {ordinal} win</p>' in tv.log[-1]
    assert f'<p class="household-win">Your {ordinal} win</p>' in phone.view


def test_an_old_end_screen_keeps_its_count_after_later_wins() -> None:
    first = play(["Ada", "Bob"], seed=41)
    winner = first.seats[first.winners[0]]
    for seed in (42, 43):
        play(["Ada", "Bob"], seed=seed)
    household._wins_at_end.cache_clear()  # as a restarted server reads it
    tv = end_screen(HOST_KEY, f"/host/{first.code}/")
    assert f"{winner}'s 1st win" in tv


def test_ordinals_in_each_language() -> None:
    from django.utils import translation

    said = [household.ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111)]
    assert said == ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th"] + [
        "21st",
        "22nd",
        "23rd",
        "101st",
        "111th",
    ]
    for language in ("de", "fi"):
        with translation.override(language):
            assert household.ordinal(5) == "5."
            assert household.ordinal(22) == "22."


# ---------------------------------------------------------------- PostgreSQL


HOUSEHOLD_ON_POSTGRES = """
import json, django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from django.db import connection
from game.storage import household
from game.writer import bot_turns
from game.models import Game
from tests.web.household_games import household as play_household

games = play_household()
bot_turns.scheduler.wait()

def figures():
    return {
        f.entry.key: [f.games, f.wins, f"{f.average:.4f}", f.best]
        for f in household.figures(household.games_played())
    }

before = figures()
forgotten = household.forget("ZOË")
game = Game.objects.get(pk=games["again"].game_id)
print(json.dumps({
    "vendor": connection.vendor,
    "games": {name: [g.seats, list(g.points), list(g.winners)] for name, g in games.items()},
    "before": before,
    "after": figures(),
    "forgotten": forgotten,
    "wins": household.wins_at_end(game, list(game.seats.all())),
}))
"""


@pytest.mark.slow
def test_the_history_adds_up_the_same_on_postgres() -> None:
    lines = on_postgres(HOUSEHOLD_ON_POSTGRES)
    found = json.loads(lines[-1])
    assert found["vendor"] == "postgresql"
    games = [
        Finished(0, "", seats, tuple(points), tuple(winners), {})
        for seats, points, winners in found["games"].values()
    ]
    assert found["games"]["shared"][2] == [0, 1]

    def rounded(figures: dict[str, list[object]]) -> dict[str, Figures]:
        return {
            k: (int(g), int(w), one_decimal(Decimal(str(a))), int(b))  # type: ignore[call-overload]
            for k, (g, w, a, b) in figures.items()
        }

    assert rounded(found["before"]) == expected_figures(games)
    assert sorted(found["before"]) == ["ada", "bob", "bot:medium", "zoë", "łukasz", "ελένη"]
    assert rounded(found["after"]) == expected_figures(games, forgotten={"zoë"})
    assert found["forgotten"] == 2
    again = games[-1]
    assert found["wins"] == {str(again.winners[0]): wins_in_order(games)[-1][again.winners[0]]}
