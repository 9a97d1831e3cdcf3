"""Bot levels in the lobby, bot names in each screen's language, and the automatic stand-in."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.utils import translation

from game import bot_levels
from game.engine import GameState
from game.engine.actions import Action
from game.engine.bots import EasyBot, GreedyBot
from game.engine.search import SearchBot
from game.engine.vocabulary import SeatRole
from game.models import Game, Seat
from game.screens import first_paint
from game.storage import readmodel
from game.writer import lobby, moves, seating
from tests.web.helpers import Table, fingerprint, game, open_lobby, play_as, start
from tests.web.test_services import refused_and_unchanged
from tests.web.test_views import client_for, host_client

pytestmark = pytest.mark.django_db


def add_bots(table: Table, *levels: str) -> Client:
    host = host_client(table)
    for level in levels:
        assert host.post(f"/host/{table.code}/bot/", {"kind": level}).status_code == 302
    return host


def bot_seats(table: Table) -> list[tuple[int, str, int]]:
    seats = Seat.objects.filter(game_id=table.game_id, role=SeatRole.BOT).order_by("position")
    return list(seats.values_list("position", "bot_level", "bot_number"))


def test_the_host_picks_each_bots_level() -> None:
    table = open_lobby(("Ada",))
    add_bots(table, "easy", "hard", "medium")
    assert bot_seats(table) == [(1, "easy", 1), (2, "hard", 2), (3, "medium", 3)]
    lobby.remove_seat(table.game_id, table.host_key, 1)
    add_bots(table, "hard")
    assert bot_seats(table) == [(1, "hard", 2), (2, "medium", 3), (3, "hard", 1)]


@pytest.mark.parametrize(
    ("language", "names"),
    [
        ("en", ["Bot 1 (easy)", "Bot 2 (medium)", "Bot 3 (hard)"]),
        ("de", ["Bot 1 (leicht)", "Bot 2 (mittel)", "Bot 3 (schwer)"]),
        ("fi", ["Botti 1 (helppo)", "Botti 2 (keskitaso)", "Botti 3 (vaikea)"]),
    ],
)
def test_bot_names_say_their_level_in_each_screens_language(
    language: str, names: list[str]
) -> None:
    table = open_lobby(("Ada",))
    host = add_bots(table, "easy", "medium", "hard")
    host.cookies["django_language"] = language
    lobby = host.get(f"/host/{table.code}/").content.decode()
    for name in names:
        assert f'<span class="seat-name">{name}</span>' in lobby
    start(table)
    phone = client_for(table.player(0).key)
    phone.cookies["django_language"] = language
    status = phone.get(f"/play/{table.code}/").content.decode()
    assert all(name in status for name in names)


def test_one_snapshot_names_bots_in_the_language_of_each_render() -> None:
    table = open_lobby(("Ada",))
    add_bots(table, "hard")
    snap = first_paint.read_game(table.game_id)
    url = first_paint.join_url(table.code, 8000)
    with translation.override("fi"):
        finnish = first_paint.render_table(snap, is_host=False, url=url)
    with translation.override("de"):
        german = first_paint.render_table(snap, is_host=False, url=url)
    assert "Botti 1 (vaikea)" in finnish and "Bot 1 (schwer)" in german


def test_older_bots_keep_their_stored_names() -> None:
    table = open_lobby(("Ada",))
    Seat.objects.create(
        game_id=table.game_id, position=1, name="Bot 1", role=SeatRole.BOT, bot_level="medium"
    )
    assert first_paint.read_game(table.game_id).room.seats[1].name == "Bot 1"
    assert bot_levels.level_of("greedy") == "medium" and bot_levels.level_of("random") == "easy"


def test_each_level_plays_with_the_engines_bot_for_it(settings: Any) -> None:
    settings.SPLENDOR_HARD_BOT_SECONDS = 0.05
    assert isinstance(bot_levels.make_level_bot("easy", 1), EasyBot)
    assert isinstance(bot_levels.make_level_bot("medium", 1), GreedyBot)
    hard = bot_levels.make_level_bot("hard", 1)
    assert isinstance(hard, SearchBot) and hard.budget == 0.05
    chosen = bot_levels.make_level_bot("hard", 1, 2.0)  # the game's own think time
    assert isinstance(chosen, SearchBot) and chosen.budget == 2.0
    # The engine's bot names play as their levels; a stand-in (no level) as a medium bot.
    assert isinstance(bot_levels.make_level_bot("random", 1), EasyBot)
    assert isinstance(bot_levels.make_level_bot("", 1), GreedyBot)


def test_hard_bots_play_a_game(settings: Any) -> None:
    settings.SPLENDOR_HARD_BOT_SECONDS = 0.05
    table = open_lobby(())
    add_bots(table, "hard", "easy")
    start(table)
    for _ in range(4):
        g = game(table.game_id)
        assert moves.play_bot_turn(g.id, g.version)
    assert game(table.game_id).version >= 4


# ---------------------------------------------------------------- the automatic stand-in


def test_the_host_sets_the_stand_in_in_the_lobby() -> None:
    table = open_lobby(("Ada", "Bob"))
    host = host_client(table)
    lobby = host.get(f"/host/{table.code}/").content.decode()
    assert '<option value="" selected>never</option>' in lobby  # off by default
    assert host.post(f"/host/{table.code}/stand-in-after/", {"seconds": "30"}).status_code == 302
    assert game(table.game_id).stand_in_after == 30
    assert (
        '<option value="30" selected>30 seconds</option>'
        in host.get(f"/host/{table.code}/").content.decode()
    )
    for unreadable in ("soon", "-5", "٣٠"):
        response = host.post(f"/host/{table.code}/stand-in-after/", {"seconds": unreadable})
        assert response.status_code == 302 and game(table.game_id).stand_in_after == 30
    host.post(f"/host/{table.code}/stand-in-after/", {"seconds": ""})
    assert game(table.game_id).stand_in_after is None


@pytest.mark.parametrize("seconds", [7, 0, 100000])
def test_only_offered_waiting_times_are_accepted(seconds: int) -> None:
    table = open_lobby(("Ada", "Bob"))
    gid = table.game_id
    refused_and_unchanged(gid, lambda: lobby.set_stand_in(gid, table.host_key, seconds))


def test_only_the_host_sets_the_stand_in_and_only_in_the_lobby() -> None:
    table = open_lobby(("Ada", "Bob"))
    gid = table.game_id
    refused_and_unchanged(gid, lambda: lobby.set_stand_in(gid, table.player(0).key, 30))
    start(table)
    refused_and_unchanged(gid, lambda: lobby.set_stand_in(gid, table.host_key, 30))


def with_stand_in(seconds: int | None = 30) -> Table:
    table = open_lobby(("Ada", "Bob"))
    lobby.set_stand_in(table.game_id, table.host_key, seconds)
    return start(table, first_player=0)


def test_a_bot_plays_for_a_phone_away_on_its_turn_until_it_reconnects() -> None:
    table = with_stand_in()
    ada = table.player(0)
    assert seating.stand_in_for_away(table.game_id, 0, 0)
    seat = Seat.objects.get(game_id=table.game_id, position=0)
    assert (seat.role, seat.bot_level, seat.player_key) == (SeatRole.STAND_IN, "", ada.key)

    page = Client().get(f"/host/{table.code}/").content.decode()
    assert "a bot plays for Ada" in page  # the TV says who plays for whom

    assert moves.play_bot_turn(table.game_id, 0)
    assert game(table.game_id).state["current"] == 1  # type: ignore[index]
    assert seating.take_seat_back(table.game_id, ada.key) == seat
    seat.refresh_from_db()
    assert (seat.role, seat.bot_level, seat.player_key) == (SeatRole.HUMAN, "", ada.key)
    assert seating.take_seat_back(table.game_id, ada.key) is None  # already back


def test_opening_the_phone_page_again_takes_the_seat_back() -> None:
    # A phone whose socket is refused (its seat is a bot's) reloads its page.
    table = with_stand_in()
    seating.stand_in_for_away(table.game_id, 0, 0)
    page = client_for(table.player(0).key).get(f"/play/{table.code}/")
    assert page.status_code == 200 and 'data-my-turn="1"' in page.content.decode()
    seat = Seat.objects.get(game_id=table.game_id, position=0)
    assert seat.role == SeatRole.HUMAN and seat.player_key == table.player(0).key


def test_the_rejoin_code_also_takes_the_seat_back_from_a_stand_in() -> None:
    table = with_stand_in()
    seating.stand_in_for_away(table.game_id, 0, 0)
    seat = Seat.objects.get(game_id=table.game_id, position=0)
    seating.rejoin(table.game_id, "another-phone", seat.rejoin_code)
    seat.refresh_from_db()
    assert (seat.role, seat.player_key) == (SeatRole.HUMAN, "another-phone")


def test_no_stand_in_when_off_not_their_turn_or_the_game_moved_on() -> None:
    off = with_stand_in(None)
    assert not seating.stand_in_for_away(off.game_id, 0, 0)
    table = with_stand_in()
    assert not seating.stand_in_for_away(table.game_id, 1, 0)  # Ada is to play
    play_as(table, "take:wug")
    assert not seating.stand_in_for_away(table.game_id, 1, 0)  # seen at an older version
    assert not Seat.objects.filter(game_id=table.game_id, role=SeatRole.STAND_IN).exists()
    assert seating.stand_in_for_away(table.game_id, 1, 1)


def test_a_rematch_keeps_the_stand_in_setting() -> None:
    table = with_stand_in(60)
    Game.objects.filter(pk=table.game_id).update(status=Game.Status.OVER)
    fresh = lobby.rematch(table.game_id, table.host_key)
    assert fresh.stand_in_after == 60


# ---------------------------------------------------------------- the hard bot's think time


def think_url(table: Table) -> str:
    return f"/host/{table.code}/hard-bot-seconds/"


def test_a_new_game_thinks_for_the_servers_default(settings: Any) -> None:
    assert game(open_lobby().game_id).hard_bot_seconds == 1.0
    settings.SPLENDOR_HARD_BOT_SECONDS = 0.05  # read when a game is created
    table = open_lobby()
    assert game(table.game_id).hard_bot_seconds == 0.05
    # A default that is not one of the choices is offered too, so it can be chosen back.
    assert bot_levels.hard_bot_choices() == (0.05, 0.5, 1.0, 2.0, 4.0)
    lobby = host_client(table).get(f"/host/{table.code}/").content.decode()
    assert '<option value="0.05" selected>0.05 seconds</option>' in lobby


def test_the_host_sets_the_hard_bots_think_time_in_the_lobby() -> None:
    table = open_lobby(("Ada", "Bob"))
    host = host_client(table)
    lobby = host.get(f"/host/{table.code}/").content.decode()
    assert '<label for="hard-bot-seconds">' in lobby
    assert '<option value="1" selected>1 second</option>' in lobby  # the default
    assert '<option value="0.5">0.5 seconds</option>' in lobby
    assert host.post(think_url(table), {"seconds": "2"}).status_code == 302
    assert game(table.game_id).hard_bot_seconds == 2.0
    lobby = host.get(f"/host/{table.code}/").content.decode()
    assert '<option value="2" selected>2 seconds</option>' in lobby
    assert '<option value="1">1 second</option>' in lobby
    # The room, as it travels between processes, carries the choice.
    room = first_paint.read_game(table.game_id).room
    assert readmodel.decode_room(readmodel.encode_room(room)).hard_bot_seconds == 2.0
    assert host.post(think_url(table), {"seconds": "0.5"}).status_code == 302
    assert game(table.game_id).hard_bot_seconds == 0.5


@pytest.mark.parametrize("language", ["de", "fi"])
def test_the_think_times_read_in_each_screens_language(language: str) -> None:
    table = open_lobby(("Ada",))
    host = host_client(table)
    host.cookies["django_language"] = language
    lobby = host.get(f"/host/{table.code}/").content.decode()
    half, one, label = {
        "de": ("0,5 Sekunden", "1 Sekunde", "Bedenkzeit der starken Bots"),
        "fi": ("0,5 sekuntia", "1 sekunti", "Vaikean botin miettimisaika"),
    }[language]
    assert f'<option value="0.5">{half}</option>' in lobby  # posted unlocalised
    assert f'<option value="1" selected>{one}</option>' in lobby
    assert label in lobby


@pytest.mark.parametrize("posted", ["3", "abc", "", "0.05", "1e3", "-1", "٢", "1,5"])
def test_only_offered_think_times_are_accepted(posted: str) -> None:
    table = open_lobby(("Ada", "Bob"))
    host = host_client(table)
    before = fingerprint(table.game_id)
    response = host.post(think_url(table), {"seconds": posted}, follow=True)
    assert response.status_code == 200
    assert "Choose one of the thinking times offered." in response.content.decode()
    assert fingerprint(table.game_id) == before


@pytest.mark.parametrize("seconds", [3.0, 0.0, 0.05, 1000.0])
def test_the_service_refuses_think_times_not_offered(seconds: float) -> None:
    table = open_lobby(("Ada", "Bob"))
    gid = table.game_id
    refused_and_unchanged(gid, lambda: lobby.set_hard_bot_seconds(gid, table.host_key, seconds))


def test_only_the_host_sets_the_think_time_and_only_in_the_lobby() -> None:
    table = open_lobby(("Ada", "Bob"))
    gid = table.game_id
    refused_and_unchanged(gid, lambda: lobby.set_hard_bot_seconds(gid, table.player(0).key, 2))
    start(table)
    refused_and_unchanged(gid, lambda: lobby.set_hard_bot_seconds(gid, table.host_key, 2))
    host = host_client(table)
    response = host.post(think_url(table), {"seconds": "2"}, follow=True)
    assert 'class="messages"' in response.content.decode()
    assert game(gid).hard_bot_seconds == 1.0


def test_a_rematch_keeps_the_think_time() -> None:
    table = open_lobby(("Ada", "Bob"))
    lobby.set_hard_bot_seconds(table.game_id, table.host_key, 4.0)
    start(table)
    Game.objects.filter(pk=table.game_id).update(status=Game.Status.OVER)
    fresh = lobby.rematch(table.game_id, table.host_key)
    assert game(fresh.pk).hard_bot_seconds == 4.0


def test_a_hard_bots_turn_thinks_for_the_games_time(monkeypatch: pytest.MonkeyPatch) -> None:
    budgets: list[float | None] = []

    def choose(bot: SearchBot, state: GameState, seat: int) -> Action:
        budgets.append(bot.budget)  # what this bot would search for; then play quickly
        return GreedyBot(1).choose(state, seat)

    monkeypatch.setattr(SearchBot, "choose", choose)
    table = open_lobby(("Ada",))
    add_bots(table, "hard")
    lobby.set_hard_bot_seconds(table.game_id, table.host_key, 2.0)
    start(table, first_player=1)
    assert moves.play_bot_turn(table.game_id, 0)
    assert budgets == [2.0]
    assert game(table.game_id).version == 1


@pytest.mark.django_db(transaction=True)
def test_the_migration_numbers_bots_stored_with_a_translated_name() -> None:
    before = [("game", "0004_seat_name_any_script")]
    after = [("game", "0005_bot_number_and_stand_in_after")]
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    game_row = old.get_model("game", "Game").objects.create(code="OLDBOT", host_key="h")
    for position, (name, kind) in enumerate(
        [("Ada", ""), ("Botti 2", "greedy"), ("Bob", "stand-in")]
    ):
        old.get_model("game", "Seat").objects.create(
            game=game_row, position=position, name=name, is_bot=bool(kind), bot_kind=kind
        )
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(after)
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(latest)  # the later tables back, as the other tests expect them
    seats = Seat.objects.filter(game__code="OLDBOT").order_by("position")
    assert list(seats.values_list("name", "bot_number")) == [("Ada", 0), ("Botti 2", 2), ("Bob", 0)]
    with translation.override("de"):
        assert str(first_paint.read_game(game_row.pk).room.seats[1].name) == "Bot 2 (mittel)"
