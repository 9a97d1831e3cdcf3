"""Hostile HTTP input: every view answers with a page or a 4xx, never a 500 or a secret.

Runs with DEBUG off (as served) and with secrets in DATABASE_URL and REDIS_URL, then
checks that no response carries them, the secret key, a file path or a traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from django.conf import settings
from django.test import Client, RequestFactory
from django.utils import translation
from pytest_django.fixtures import Settings

from game.models import Seat
from game.storage import names
from game.web import views
from game.writer import seating
from tests.web.helpers import Table, open_lobby, start

pytestmark = pytest.mark.django_db

DB_SECRET = "Db-S3cret-hunter2"
REDIS_SECRET = "Redis-S3cret-swordfish"
UNICODE_NAMES = ("Łukasz", "Ελένη", "Zoë 🦄", "Jürgen", "李小龍", "محمد", "👨‍👩‍👧‍👦 Family")
BASE_DIR = str(Path(settings.BASE_DIR))


@pytest.fixture(autouse=True)
def served_settings(settings: Settings) -> Iterator[None]:
    """DEBUG off and secrets in the settings, as on a laptop with PostgreSQL and Redis."""
    settings.DEBUG = False
    settings.DATABASE_URL = f"postgresql://splendor:{DB_SECRET}@127.0.0.1:5432/splendor"
    settings.REDIS_URL = f"redis://:{REDIS_SECRET}@127.0.0.1:6379/0"
    yield


def secrets_in(response: Any) -> list[str]:
    """Return every secret or internal detail found in a response (body and headers)."""
    body = b"".join(response) if response.streaming else response.content
    text = body.decode("utf-8", "replace") + str(response.headers)
    found = [s for s in (DB_SECRET, REDIS_SECRET, settings.SECRET_KEY, BASE_DIR) if s in text]
    found += [
        word
        for word in ("Traceback", "DATABASE_URL", "REDIS_URL", "SECRET_KEY", "URLconf", "tried")
        if word in text
    ]
    return found


def check(response: Any, *allowed: int) -> Any:
    assert response.status_code < 500, response.status_code
    if allowed:
        assert response.status_code in allowed, response.status_code
    assert secrets_in(response) == []
    return response


@pytest.fixture
def table() -> Table:
    return open_lobby(("Ada", "Bob"))


def every_page(code: str) -> list[tuple[str, str]]:
    """(method, path) of every view of the game, with its usual method."""
    return [
        ("get", "/"),
        ("post", "/new/"),
        ("get", "/find/"),
        ("get", f"/host/{code}/"),
        ("post", f"/host/{code}/bot/"),
        ("post", f"/host/{code}/remove/"),
        ("post", f"/host/{code}/start/"),
        ("post", f"/host/{code}/rematch/"),
        ("post", f"/host/{code}/stand-in/"),
        ("get", f"/join/{code}/"),
        ("post", f"/join/{code}/"),
        ("get", f"/play/{code}/"),
        ("post", "/i18n/setlang/"),
    ]


def test_every_view_answers_its_own_method_without_error(table: Table) -> None:
    client = Client()
    for method, path in every_page(table.code):
        check(getattr(client, method)(path), 200, 302, 400)


def test_wrong_methods_get_405(table: Table) -> None:
    client = Client()
    for method, path in every_page(table.code):
        if path.startswith("/i18n/"):
            continue  # Django's language switch redirects whatever the method
        wrong = ["put", "delete", "patch"]
        if not path.startswith("/join/"):  # the join page takes both GET and POST
            wrong.append("get" if method == "post" else "post")
        for other in wrong:
            response = check(getattr(client, other)(path))
            assert response.status_code == 405, (other, path, response.status_code)


def test_missing_slashes_redirect_a_get_and_refuse_a_post(table: Table) -> None:
    client = Client()
    for method, path in every_page(table.code):
        bare = path.rstrip("/")
        if not bare:
            continue
        response = check(getattr(client, method)(bare), 301, 404)
        if method == "get":
            assert response.status_code == 301 and response["Location"] == path
        else:
            assert response.status_code == 404, bare  # never a redirect that loses the form


def test_a_foreign_host_gets_the_plain_project_page(table: Table) -> None:
    client = Client(HTTP_HOST="evil.example")
    for method, path in every_page(table.code):
        response = check(getattr(client, method)(path), 400)
        assert b"Splendor at home" in response.content
        assert b"evil.example" not in response.content


def test_oversized_bodies_are_refused(table: Table) -> None:
    client = Client()
    huge = "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
    for method, path in every_page(table.code):
        if method == "post":
            check(client.post(path, {"name": huge, "position": "1"}), 400)
    many = {f"field{i}": "1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1)}
    check(client.post(f"/join/{table.code}/", many), 400)


def test_a_null_character_anywhere_is_a_4xx(table: Table) -> None:
    client = Client()
    check(client.post(f"/join/{table.code}/", {"name": "Ada\x00"}), 400)
    check(client.post(f"/join/{table.code}/", {"rejoin_code": "AB\x00CD"}), 400)
    check(client.get("/find/", {"code": "\x00"}), 302)
    check(client.get(f"/join/{table.code}/", {"rejoin": "\x00"}), 200)


def test_weird_and_unknown_codes_are_not_found() -> None:
    client = Client()
    for code in ("ZZZZZZ", "ÄÖÜ", "A" * 500, "%00", "..", "AB%2FCD", "🦄", "<b>x</b>"):
        for path in (f"/host/{code}/", f"/join/{code}/", f"/play/{code}/"):
            assert b"Not found" in check(client.get(path), 404).content
        check(client.post(f"/host/{code}/start/"), 404)
        check(client.get("/find/", {"code": code}), 302)


def test_an_unknown_page_gets_our_404_without_the_url_list() -> None:
    response = check(Client().get("/admin/"), 404)
    assert b"There is no page at this address." in response.content
    assert b'href="/"' in response.content  # a way back to the game


@pytest.mark.parametrize(
    "position", ["", "x", "1.5", "-1", "4", "9" * 5000, "1e3", "\x00", "0x1", "1 2"]
)
def test_host_commands_with_bad_positions_change_nothing(table: Table, position: str) -> None:
    start(table)
    host = Client()
    host.cookies["sessionid"] = table.host_session
    for path in ("remove", "stand-in"):
        check(host.post(f"/host/{table.code}/{path}/", {"position": position}), 302)
    assert list(Seat.objects.filter(game_id=table.game_id).values_list("role", flat=True)) == [
        "human",
        "human",
    ]


def test_host_commands_with_odd_bot_kinds_are_refused(table: Table) -> None:
    host = Client()
    host.cookies["sessionid"] = table.host_session
    for kind in ("", "x" * 5000, "\x00", "stand-in", ["greedy", "random"]):
        check(host.post(f"/host/{table.code}/bot/", {"kind": kind}), 302)
    levels = Seat.objects.filter(game_id=table.game_id, role="bot").values_list("bot_level")
    assert all(level in [("medium",), ("easy",)] for level in levels)  # greedy, random


@pytest.mark.parametrize("name", UNICODE_NAMES)
def test_any_unicode_name_joins_and_is_remembered(name: str) -> None:
    table = open_lobby(())
    phone = Client()
    response = check(phone.post(f"/join/{table.code}/", {"name": f"  {name}  "}), 302)
    seat = Seat.objects.get(game_id=table.game_id)
    assert seat.name == names.clean_name(name) == name
    # The cookie is plain ASCII on the wire and reads back as the name.
    cookie = response.cookies[views.NAME_COOKIE].value
    assert cookie.isascii() and cookie == quote(name, safe="")
    page = check(phone.get(f"/play/{table.code}/"), 200).content.decode()
    assert name in unescape(page)  # the screen's fragments write it as character references
    # Next game: the join form offers the same name.
    other = open_lobby(())
    form = check(phone.get(f"/join/{other.code}/"), 200).content.decode()
    assert f'value="{name}"' in form


def test_names_are_shown_escaped_and_cleaned() -> None:
    table = open_lobby(())
    phone = Client()
    # Control characters and bidi overrides are refused (tests/web/test_hostile_input.py);
    # invisible format characters are dropped.
    check(phone.post(f"/join/{table.code}/", {"name": "<script>x</script>\u202e\x07"}), 400)
    check(phone.post(f"/join/{table.code}/", {"name": "<script>x</script>\u200b\ufeff"}), 302)
    name = Seat.objects.get(game_id=table.game_id).name
    assert name == "<script>x</script>"
    page = check(Client().get(f"/host/{table.code}/"), 200).content.decode()
    assert "<script>x</script>" not in page and "&lt;script&gt;x&lt;/script&gt;" in page


def test_long_names_are_cut_between_characters_people_see() -> None:
    table = open_lobby(())
    phone = Client()
    check(phone.post(f"/join/{table.code}/", {"name": "🇫🇮" * 40}), 302)
    name = Seat.objects.get(game_id=table.game_id).name
    assert name == "🇫🇮" * names.NAME_MAX
    assert len(list(names.graphemes(name))) == names.NAME_MAX


def test_a_broken_name_cookie_is_ignored() -> None:
    table = open_lobby(())
    phone = Client()
    for cookie in ("%", "%FF%FE", "%00%01", "x" * 3000, "Ada%20"):
        phone.cookies[views.NAME_COOKIE] = cookie
        check(phone.get(f"/join/{table.code}/"), 200)


def test_an_empty_or_invisible_name_is_refused(table: Table) -> None:
    for name in ("", "   ", "\u200b\u200e", "\u200b\u202e", "\x00\x01"):
        response = check(Client().post(f"/join/{table.code}/", {"name": name}), 400)
        unreadable = "\u202e" in name or "\x00" in name
        assert (b"cannot be read" if unreadable else b"Please type your name.") in response.content
    check(Client().post(f"/join/{table.code}/", {}), 400)


def test_looking_at_pages_creates_no_session_row(table: Table) -> None:
    from django.contrib.sessions.models import Session

    before = Session.objects.count()
    for path in ("/", f"/join/{table.code}/", f"/host/{table.code}/", f"/play/{table.code}/"):
        for _ in range(5):
            Client().get(path)
    Client().get("/find/", {"code": table.code})
    Client().get("/find/", {"code": "NOPE"})
    assert Session.objects.count() == before
    # Acting does need one: the phone must be recognised when it comes back.
    phone = Client()
    phone.post(f"/join/{table.code}/", {"name": "Cy"})
    assert Session.objects.count() == before + 1
    assert phone.get(f"/join/{table.code}/")["Location"] == f"/play/{table.code}/"


def test_a_form_without_its_csrf_token_gets_the_friendly_page(table: Table) -> None:
    client = Client(enforce_csrf_checks=True)
    response = check(client.post(f"/join/{table.code}/", {"name": "Ada"}), 403)
    page = response.content.decode()
    assert "Please try again" in page
    assert f'href="/join/{table.code}/"' in page
    assert "CSRF" not in page


@pytest.mark.parametrize("language", ["de", "fi"])
def test_error_pages_are_translated(table: Table, language: str) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    english = Client(HTTP_ACCEPT_LANGUAGE="en")
    for path in ("/nothing-here/", "/host/ZZZZZZ/"):
        assert check(client.get(path), 404).content != check(english.get(path), 404).content
    assert b'lang="' + language.encode() in check(client.get("/nothing/"), 404).content


def test_the_500_page_is_our_own_and_says_nothing_internal() -> None:
    request = RequestFactory().get("/")
    with translation.override("en"):
        response = views.server_error(request)
    assert response.status_code == 500 and secrets_in(response) == []
    assert b"Something went wrong" in response.content and b'href="/"' in response.content


def test_a_view_that_fails_shows_our_500_page(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError(f"boom {DB_SECRET}")

    monkeypatch.setattr(seating, "join_game", broken)
    client = Client(raise_request_exception=False)
    response = client.post(f"/join/{table.code}/", {"name": "Ada"})
    assert response.status_code == 500
    assert secrets_in(response) == [] and b"boom" not in response.content
    assert f'href="/join/{table.code}/"'.encode() in response.content  # back to the game


def test_static_files_are_served_with_debug_off() -> None:
    for path in ("/static/css/splendor.css", "/static/js/app.js"):
        response = Client().get(path)
        assert response.status_code == 200, path
        assert b"".join(response) if response.streaming else response.content


def test_even_debug_pages_hide_the_connection_secrets(
    table: Table, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.DEBUG = True
    # Where the Redis URL ends up when REDIS_URL is set (a local-memory cache here).
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": settings.REDIS_URL,
        }
    }

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(seating, "join_game", broken)
    client = Client(raise_request_exception=False)
    technical = client.post(f"/join/{table.code}/", {"name": "Ada"})
    assert technical.status_code == 500 and b"boom" in technical.content  # the debug page
    body = technical.content.decode()
    assert DB_SECRET not in body and REDIS_SECRET not in body
    assert settings.SECRET_KEY not in body
    foreign = Client(HTTP_HOST="evil.example").get("/").content.decode()
    assert DB_SECRET not in foreign and REDIS_SECRET not in foreign


def test_debug_is_off_unless_asked() -> None:
    from tests.web.test_settings import run_python

    code = "from django.conf import settings; print(settings.DEBUG)"
    assert run_python(code, {"SPLENDOR_DEBUG": ""}).strip() == "False"
    assert run_python(code, {"SPLENDOR_DEBUG": "1"}).strip() == "True"


def test_head_requests_are_answered_like_get(table: Table) -> None:
    client = Client()
    for method, path in every_page(table.code):
        if method == "get":
            assert check(client.head(path)).status_code in (200, 302), path
