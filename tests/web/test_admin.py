"""The Django admin: off unless SPLENDOR_ADMIN; it shows games, seats, moves, cards, nobles."""

from __future__ import annotations

import importlib
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import clear_url_caches
from pytest_django.fixtures import Settings

import splendor_site.urls
from game.models import Card, Game, Move, Noble, Seat
from tests.web.helpers import Table, legal, play_as, started
from tests.web.test_settings import run_python

pytestmark = pytest.mark.django_db


def _reload_urls() -> None:
    importlib.reload(splendor_site.urls)
    clear_url_caches()


def _serve_admin(settings: Settings, on: bool) -> Iterator[None]:
    before = settings.SPLENDOR_ADMIN
    settings.SPLENDOR_ADMIN = on
    _reload_urls()
    yield
    settings.SPLENDOR_ADMIN = before
    _reload_urls()


@pytest.fixture
def admin_on(settings: Settings) -> Iterator[None]:
    yield from _serve_admin(settings, True)


@pytest.fixture
def admin_off(settings: Settings) -> Iterator[None]:
    yield from _serve_admin(settings, False)


@pytest.fixture
def admin_client(admin_on: None, client: Client) -> Client:
    """A superuser's browser (no password: hashing one would only slow the tests)."""
    client.force_login(User.objects.create_superuser("host", password=None))
    return client


@pytest.fixture
def played() -> Table:
    """A two-player game in progress with two moves."""
    table = started(("Ada", "Bob"))
    play_as(table, next(n for n in legal(table.game_id) if n.startswith("take:")))
    play_as(table, next(n for n in legal(table.game_id) if n.startswith("take:")))
    return table


def test_the_admin_is_not_served_by_default(admin_off: None, client: Client) -> None:
    assert client.get("/admin/").status_code == 404
    assert client.get("/admin/login/").status_code == 404


def test_it_is_off_unless_the_environment_turns_it_on() -> None:
    show = "from django.conf import settings; print(settings.SPLENDOR_ADMIN)"
    assert run_python(show, {"SPLENDOR_ADMIN": ""}).split() == ["False"]
    assert run_python(show, {"SPLENDOR_ADMIN": "1"}).split() == ["True"]


def test_it_needs_a_login(admin_on: None, client: Client) -> None:
    response = client.get("/admin/game/game/")
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


@pytest.mark.parametrize("model", ["game", "seat", "move", "card", "noble"])
def test_every_list_loads_for_a_superuser(
    admin_on: None, admin_client: Client, played: Table, model: str
) -> None:
    response = admin_client.get(f"/admin/game/{model}/")
    assert response.status_code == 200
    # No add link for our models: rows come from game.writer or the engine's data.
    for any_model in ("game", "seat", "move", "card", "noble"):
        assert f"/admin/game/{any_model}/add/" not in response.content.decode()


def test_a_game_in_progress_shows_seats_and_moves_but_not_its_secrets(
    admin_on: None, admin_client: Client, played: Table
) -> None:
    game = Game.objects.get(pk=played.game_id)
    page = admin_client.get(f"/admin/game/game/{game.pk}/change/").content.decode()
    assert game.code in page and "Ada" in page and "Bob" in page
    for move in Move.objects.filter(game=game):
        assert move.notation in page
    assert str(game.seed) not in page, "the seed gives away the deck order"
    assert '"decks"' not in page and "decks" not in page
    for seat in Seat.objects.filter(game=game):
        assert seat.player_key not in page
    assert game.host_key not in page
    assert 'name="_save"' not in page  # view only


def test_a_finished_game_shows_its_seed_and_snapshot(
    admin_on: None, admin_client: Client, played: Table
) -> None:
    Game.objects.filter(pk=played.game_id).update(status=Game.Status.OVER)
    game = Game.objects.get(pk=played.game_id)
    page = admin_client.get(f"/admin/game/game/{game.pk}/change/").content.decode()
    assert str(game.seed) in page
    assert f"&quot;current&quot;:{game.state['current']}," in page  # as stored: JSON


@pytest.mark.parametrize(
    ("model", "pk", "data"),
    [
        ("card", 1, {"level": 1, "bonus": "white", "points": 5}),
        ("noble", 1, {"points": 9}),
    ],
)
def test_cards_and_nobles_cannot_be_added_changed_or_deleted(
    admin_on: None, admin_client: Client, model: str, pk: int, data: dict[str, object]
) -> None:
    base = f"/admin/game/{model}/"
    assert admin_client.get(f"{base}{pk}/change/").status_code == 200  # viewable
    assert admin_client.post(f"{base}{pk}/change/", data).status_code == 403
    assert admin_client.get(f"{base}add/").status_code == 403
    assert admin_client.post(f"{base}{pk}/delete/", {"post": "yes"}).status_code == 403
    assert Card.objects.get(pk=1).points == 0 and Noble.objects.get(pk=1).points == 3


def test_games_seats_and_moves_cannot_be_changed(
    admin_on: None, admin_client: Client, played: Table
) -> None:
    game = Game.objects.get(pk=played.game_id)
    seat = Seat.objects.filter(game=game).first()
    move = Move.objects.filter(game=game).first()
    assert seat is not None and move is not None
    attempts = [
        (f"/admin/game/game/{game.pk}/change/", {"status": "over", "version": 0}),
        (f"/admin/game/seat/{seat.pk}/change/", {"name": "Mallory"}),
        (f"/admin/game/move/{move.pk}/change/", {"notation": "pass"}),
        (f"/admin/game/move/{move.pk}/delete/", {"post": "yes"}),
        (f"/admin/game/seat/{seat.pk}/delete/", {"post": "yes"}),
    ]
    for url, data in attempts:
        assert admin_client.post(url, data).status_code == 403, url
    for model in ("game", "seat", "move"):
        assert admin_client.get(f"/admin/game/{model}/add/").status_code == 403, model
    game.refresh_from_db()
    assert (game.status, game.version) == (Game.Status.PLAYING, 2)
    assert Seat.objects.get(pk=seat.pk).name == seat.name
    assert Move.objects.get(pk=move.pk).notation == move.notation


def test_only_a_finished_game_can_be_deleted_with_its_seats_and_moves(
    admin_on: None, admin_client: Client, played: Table
) -> None:
    url = f"/admin/game/game/{played.game_id}/delete/"
    assert admin_client.post(url, {"post": "yes"}).status_code == 403
    assert Game.objects.filter(pk=played.game_id).exists()

    Game.objects.filter(pk=played.game_id).update(status=Game.Status.OVER)
    assert admin_client.post(url, {"post": "yes"}).status_code == 302
    assert not Game.objects.filter(pk=played.game_id).exists()
    assert not Seat.objects.filter(game_id=played.game_id).exists()
    assert not Move.objects.filter(game_id=played.game_id).exists()


def test_the_list_action_deletes_finished_games_only(
    admin_on: None, admin_client: Client, played: Table
) -> None:
    finished = started(("Cy", "Di"))
    Game.objects.filter(pk=finished.game_id).update(status=Game.Status.OVER)
    chosen = {"action": "delete_selected", "post": "yes"}
    both = [played.game_id, finished.game_id]
    page = admin_client.post("/admin/game/game/", {**chosen, "_selected_action": both})
    assert page.status_code == 403  # one of them is still being played
    assert Game.objects.filter(pk__in=both).count() == 2

    admin_client.post("/admin/game/game/", {**chosen, "_selected_action": [finished.game_id]})
    assert list(Game.objects.filter(pk__in=both).values_list("pk", flat=True)) == [played.game_id]
