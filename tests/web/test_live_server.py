"""The real server (`manage.py runserver`, Daphne) with nothing configured: safe and working.

DEBUG is off, yet CSS and JavaScript are served; a foreign Host header gets the
plain project page; names in any script join through the real ASGI stack (where
a cookie must be Latin-1); an unknown websocket path is refused; the log shows
no traceback.
"""

from __future__ import annotations

import http.cookiejar
import os
import re
import secrets
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import pytest

from game.bench.client import LOOPBACK, Closed, ScreenSocket
from game.bench.loopback import runserver
from tests.web.helpers import hand_free

BASE_DIR = Path(__file__).resolve().parents[2]
NAMES = ("Łukasz", "Ελένη", "Zoë 🦄", "Jürgen")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


class Browser:
    """A phone's browser: keeps cookies, does not follow redirects."""

    def __init__(self, port: int) -> None:
        self.base = f"http://{LOOPBACK}:{port}"
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), NoRedirect()
        )

    def open(
        self, path: str, form: dict[str, str] | None = None, host: str = ""
    ) -> tuple[int, dict[str, str], str]:
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        request = urllib.request.Request(self.base + path, data=data)
        if host:
            request.add_unredirected_header("Host", host)
        try:
            with self.opener.open(request, timeout=20) as response:
                return response.status, dict(response.headers), response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read().decode()

    def cookie(self, name: str) -> str:
        return next((c.value or "" for c in self.jar if c.name == name), "")

    def post_form(self, path: str, form: dict[str, str]) -> tuple[int, dict[str, str], str]:
        """Load the page (for its CSRF token), then post the form as a browser does."""
        status, _headers, page = self.open(path)
        assert status == 200, status
        match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert match, "no CSRF token in the page"
        return self.open(path, {"csrfmiddlewaretoken": match.group(1), **form})


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Path, str]]:
    folder = tmp_path_factory.mktemp("live")
    key = "live-test-" + secrets.token_urlsafe(24)
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in {"DATABASE_URL", "REDIS_URL", "SPLENDOR_DEBUG", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(
        DJANGO_SETTINGS_MODULE="splendor_site.settings",
        SPLENDOR_DB_PATH=str(folder / "db.sqlite3"),
        SPLENDOR_SECRET_KEY=key,
        PYTHONUNBUFFERED="1",
    )
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=BASE_DIR,
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    log = folder / "server.log"
    with runserver(env, log, BASE_DIR) as port:
        yield port, log, key


def test_static_files_are_served_with_debug_off(live: tuple[int, Path, str]) -> None:
    port, _log, _key = live
    browser = Browser(port)
    page = browser.open("/")[2]
    assets = re.findall(r'(?:href|src)="(/static/[^"]+)"', page)
    assert any(a.endswith(".css") for a in assets) and any(a.endswith(".js") for a in assets)
    for asset in assets:
        status, _headers, body = browser.open(asset)
        assert status == 200 and body, asset


def test_foreign_hosts_and_unknown_pages_get_plain_project_pages(
    live: tuple[int, Path, str],
) -> None:
    port, _log, key = live
    browser = Browser(port)
    status, _headers, page = browser.open("/", host="evil.example")
    assert status == 400 and "Splendor at home" in page
    status, _headers, missing = browser.open("/admin/")
    assert status == 404 and "There is no page at this address." in missing
    for text in (page, missing):
        assert key not in text and str(BASE_DIR) not in text and "URLconf" not in text


def test_names_in_any_script_join_and_are_remembered(live: tuple[int, Path, str]) -> None:
    port, _log, _key = live
    host = Browser(port)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', host.open("/")[2])
    assert token, "no CSRF token on the start page"
    status, headers, _ = host.open("/new/", {"csrfmiddlewaretoken": token.group(1)})
    assert status == 302
    code = headers["Location"].rstrip("/").rsplit("/", 1)[-1]
    for name in NAMES:
        phone = Browser(port)
        status, headers, _ = phone.post_form(f"/join/{code}/", {"name": name})
        assert status == 302 and headers["Location"] == f"/play/{code}/", (name, status)
        assert phone.cookie("splendor_name") == urllib.parse.quote(name, safe="")
        status, _headers, hand = phone.open(f"/play/{code}/")
        assert status == 200 and name in unescape(hand)
    status, _headers, table = host.open(f"/host/{code}/")
    assert status == 200 and all(name in unescape(table) for name in NAMES)


def test_a_shared_phone_s_curtain_over_the_real_server(live: tuple[int, Path, str]) -> None:
    """Two players on one phone, over Daphne's own websocket: the first frame is the
    curtain with nothing of a hand, a tap brings the hand, a move brings the curtain."""
    port, _log, _key = live
    host = Browser(port)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', host.open("/")[2])
    assert token, "no CSRF token on the start page"
    code = host.open("/new/", {"csrfmiddlewaretoken": token.group(1)})[1]["Location"]
    code = code.rstrip("/").rsplit("/", 1)[-1]
    phone = Browser(port)
    assert phone.post_form(f"/join/{code}/", {"name": "Ada"})[0] == 302
    added = phone.post_form(f"/join/{code}/?another=1", {"name": "Ben", "another": "1"})
    assert added[0] == 302
    page = host.open(f"/host/{code}/")[2]
    token = re.search(r'action="/host/\w+/start/".*?value="([^"]+)"', page, re.S)
    assert token, "no start form on the host page"
    assert host.open(f"/host/{code}/start/", {"csrfmiddlewaretoken": token.group(1)})[0] == 302

    socket = ScreenSocket(port, f"/ws/game/{code}/seat/", phone.cookie("sessionid"))
    try:
        first = unescape(socket.receive())
        asked = re.search(r"Pass the phone to (\w+)", first)
        assert asked and hand_free(first), first[:500]
        position = re.search(r'data-uncover="(\d)"', first)
        assert position
        socket.send_json({"uncover": int(position.group(1))})
        hand = unescape(socket.receive())
        assert f"{asked.group(1)}’s hand" in hand and 'id="my-hand"' in hand
        socket.send_json({"action": "take:wug", "version": 0})
        curtain = unescape(socket.receive())
        assert "Pass the phone to" in curtain and asked.group(1) + "’s hand" not in curtain
        assert hand_free(curtain), curtain[:500]
    finally:
        socket.close()


def test_an_unknown_websocket_path_is_refused(live: tuple[int, Path, str]) -> None:
    port, _log, _key = live
    for path in ("/ws/nope/", "/ws/game/ABCDEF/kitchen/", "/"):
        with pytest.raises(Closed):
            ScreenSocket(port, path, session="")


def test_the_server_log_shows_no_traceback(live: tuple[int, Path, str]) -> None:
    port, log, _key = live
    Browser(port).open("/", host="evil.example")
    Browser(port).open("/new")  # no slash, GET
    text = log.read_text()
    assert "Traceback" not in text and " ERROR " not in text, text[-3000:]
