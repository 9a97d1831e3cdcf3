"""The start page's list of games, record downloads and the replay viewer over HTTP."""

from __future__ import annotations

import re
from datetime import timedelta
from html import unescape

import pytest
from django.contrib.sessions.models import Session
from django.test import Client

from game.engine import new_game, parse_action
from game.engine.rules import apply_action
from game.models import Game
from game.records import archive
from game.web import archive_views
from game.writer import games, lobby
from tests.web.helpers import (
    card_ids,
    game,
    open_lobby,
    play_as,
    shared_lobby,
    start,
    visible_cards,
)
from tests.web.test_archive import finish, finish_any, finished_game
from tests.web.test_views import client_for, host_client

pytestmark = pytest.mark.django_db


def lines_of(page: str) -> list[str]:
    """The room codes of the listed games, in order."""
    return re.findall(r'class="game-line [^"]*" data-code="([A-Z]+)"', page)


def test_the_start_page_lists_running_and_finished_games_newest_first() -> None:
    over = finished_game(seed=3, names=("Ada", "Bob"), bots=0)
    running = start(open_lobby(("Cy", "Di")), first_player=0)
    open_lobby(("Eve",))  # a lobby is not listed
    Game.objects.filter(pk=over.pk).update(created_at=over.created_at - timedelta(hours=1))

    page = Client().get("/").content.decode()
    assert lines_of(page) == [running.code, over.code]
    state = games.load_state(game(over.pk))
    assert state is not None
    winner = "Ada" if state.players[0].points >= state.players[1].points else "Bob"
    assert re.search(rf'class="game-player winner">.*?{winner} <b>\d+ points</b>', page)
    assert f'href="/replay/{over.code}/"' in page
    assert f'href="/games/{over.code}/record.txt"' in page
    assert f'href="/host/{running.code}/"' in page
    assert f"/games/{running.code}/record.txt" not in page


def test_viewing_the_list_stores_no_session() -> None:
    finished_game()
    before = Session.objects.count()
    client = Client()
    assert client.get("/").status_code == 200
    assert client.get("/games/?page=1").status_code == 200
    assert Session.objects.count() == before
    assert "sessionid" not in client.cookies


def test_the_list_pages_through_older_games() -> None:
    codes = []
    for n in range(archive_views.GAMES_PER_PAGE + 2):
        table = start(open_lobby(("Ada", "Bob")), first_player=0)
        Game.objects.filter(pk=table.game_id).update(
            created_at=game(table.game_id).created_at + timedelta(minutes=n)
        )
        codes.append(table.code)
    newest_first = codes[::-1]

    first = Client().get("/").content.decode()
    assert lines_of(first) == newest_first[: archive_views.GAMES_PER_PAGE]
    assert 'hx-get="/games/?page=2"' in first and "Page 1 of 2" in first

    second = Client().get("/games/?page=2", HTTP_HX_REQUEST="true").content.decode()
    assert second.lstrip().startswith('<section class="panel games" id="games"')
    assert lines_of(second) == newest_first[archive_views.GAMES_PER_PAGE :]
    assert 'hx-get="/games/?page=1"' in second
    assert lines_of(Client().get("/?page=99").content.decode()) == lines_of(second)


def test_a_finished_game_downloads_as_its_record() -> None:
    over = finished_game()
    response = Client().get(f"/games/{over.code}/record.txt")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert f'filename="splendor-{over.code}.txt"' in response["Content-Disposition"]
    record = archive.read(response.content.decode())
    assert archive.replay(record).state.to_dict() == over.state


def test_a_running_game_downloads_only_on_its_host_screen() -> None:
    table = start(open_lobby(("Ada", "Bob")), first_player=0)
    url = f"/games/{table.code}/record.txt"
    assert Client().get(url).status_code == 404
    assert client_for(table.player(0).key).get(url).status_code == 404
    assert host_client(table).get(url).status_code == 200
    assert url in host_client(table).get("/").content.decode()  # listed on its host screen
    assert url not in Client().get("/").content.decode()
    lobby = open_lobby(("Cy", "Di"))
    assert host_client(lobby).get(f"/games/{lobby.code}/record.txt").status_code == 404


# ---------------------------------------------------------------- the replay viewer


def bank_in(page: str) -> list[int]:
    """The bank's token counts as the page shows them (white, blue, green, red, black, gold)."""
    bank = re.search(r'<div id="bank" class="bank".*?</div>', page, re.S)
    assert bank, "no bank on the page"
    chips = re.findall(r'class="chip chip-[^"]+"[^>]*aria-label="(\d+) ', bank.group(0))
    return [int(n) for n in chips]


def step_page(code: str, step: int | str) -> str:
    response = Client().get(f"/replay/{code}/?step={step}", HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    return response.content.decode()


def test_the_replay_steps_through_the_turns_and_clamps_the_step() -> None:
    over = finished_game(seed=6, names=("Ada", "Bob"), bots=0)
    assert over.state is not None
    turns = over.state["turn"]
    full = Client().get(f"/replay/{over.code}/").content.decode()
    assert 'id="replay-play"' in full and 'data-step="0"' in full and "The deal" in full
    assert f'data-last="{turns}"' in full

    third = step_page(over.code, 3)
    assert third.lstrip().startswith('<div id="replay"')
    assert f"Turn 3 of {turns}" in third and 'class="last-turn-events"' in third
    assert f'data-step="{turns}"' in step_page(over.code, 10_000)
    assert 'data-step="0"' in step_page(over.code, "nonsense")
    end = step_page(over.code, turns)
    assert "Game over" in end and 'class="end-screen"' in end and 'id="rematch"' not in end


def test_the_replay_says_who_played_on_the_tv_and_who_shared_a_phone() -> None:
    table = shared_lobby(others=())  # Ada and Ben on one phone
    lobby.add_tv_player(table.game_id, table.host_key, "Cleo")
    over = finish_any(start(table, first_player=0).game_id)
    page = unescape(Client().get(f"/replay/{over.code}/").content.decode())
    assert "shares Ada’s phone" in page and "plays on the TV" in page
    # As kept from a record too.
    copy = archive.store(archive.read(archive.write(archive.record_of(over))))
    page = unescape(Client().get(f"/replay/{copy.code}/").content.decode())
    assert "shares Ada’s phone" in page and "plays on the TV" in page


def test_each_replay_step_is_the_table_rebuilt_from_the_moves() -> None:
    over = finished_game(seed=7, names=("Ada", "Bob"), bots=0)
    notations = list(over.moves.order_by("index").values_list("notation", flat=True))
    ends = archive_views.turn_ends(2, over.seed, notations, first_player=over.first_player)
    assert ends[0] == 0 and ends[-1] == len(notations) and ends == sorted(set(ends))
    state = new_game(2, over.seed, over.first_player)
    for step in range(1, len(ends)):
        for text in notations[ends[step - 1] : ends[step]]:
            apply_action(state, parse_action(text))
        assert state.turn == step  # a step is one whole turn
        page = step_page(over.code, step)
        assert bank_in(page) == state.bank
        assert card_ids(page) <= visible_cards(state, None)


def test_a_replay_never_shows_a_blind_reserved_card_or_the_decks() -> None:
    table = start(open_lobby(("Ada", "Bob")), first_player=0)
    play_as(table, "reserve:d1")  # Ada's blind card
    play_as(table, "take:wug")
    blind = games.load_state(game(table.game_id))
    assert blind is not None
    hidden = blind.players[0].reserved[0]
    page = step_page(table.code, 2)
    assert f'data-card="{hidden}"' not in page
    assert not (card_ids(page) & {c for deck in blind.decks for c in deck})
    assert card_ids(page) <= visible_cards(blind, None)


def test_the_viewer_offers_the_record_only_to_who_may_download_it() -> None:
    over = finished_game()
    viewer = Client().get(f"/replay/{over.code}/").content.decode()
    assert f"/games/{over.code}/record.txt" in viewer
    table = start(open_lobby(("Ada", "Bob")), first_player=0)
    url = f"/games/{table.code}/record.txt"
    assert url not in Client().get(f"/replay/{table.code}/").content.decode()
    assert url in host_client(table).get(f"/replay/{table.code}/").content.decode()


def test_a_game_in_the_lobby_has_no_replay() -> None:
    assert Client().get(f"/replay/{open_lobby().code}/").status_code == 404


def test_the_end_screen_offers_the_host_the_replay_and_the_record() -> None:
    table = open_lobby(("Ada", "Bob"), seed=3)
    finish(start(table, first_player=0))
    page = host_client(table).get(f"/host/{table.code}/").content.decode()
    assert f'href="/replay/{table.code}/" id="watch-replay"' in page
    assert f'href="/games/{table.code}/record.txt"' in page
    assert 'id="watch-replay"' not in Client().get(f"/host/{table.code}/").content.decode()
