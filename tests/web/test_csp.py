"""The Content-Security-Policy: sent with every page, and no page needs more than it allows.

The policy refuses inline scripts, style elements, style attributes and event
handlers; this reads every main page as served (first paint included) and finds
none of them (a JSON data block, type="application/json", is not run).
"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.test import Client

from game.models import Game
from game.web.middleware import CONTENT_SECURITY_POLICY
from tests.web.helpers import Table, open_lobby, start

pytestmark = pytest.mark.django_db


class Inline(HTMLParser):
    """Collects what a strict policy would refuse in a page."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "style":
            self.found.append("<style>")
        if tag == "script" and "src" not in named and named.get("type") != "application/json":
            self.found.append("inline <script>")
        for name, value in attrs:
            if name == "style" or name.startswith("on"):
                self.found.append(f"{tag} {name}={value!r}")
            if value and value.strip().lower().startswith("javascript:"):
                self.found.append(f"{tag} {name}={value!r}")

    handle_startendtag = handle_starttag


def pages(table: Table) -> list[tuple[Client, str]]:
    host, phone, stranger = Client(), Client(), Client()
    host.cookies["sessionid"] = table.host_session
    phone.cookies["sessionid"] = table.player(0).session
    code = table.code
    return [
        (stranger, "/"),
        (host, "/"),
        (host, f"/host/{code}/"),
        (stranger, f"/join/{code}/"),
        (phone, f"/play/{code}/"),
        (phone, f"/play/{code}/log/"),
        (stranger, f"/replay/{code}/"),
        (stranger, f"/replay/{code}/?step=1"),
        (stranger, "/games/"),
        (stranger, "/how-to-play/"),
        (stranger, "/no-such-page/"),
        (stranger, "/host/ZZZZZZ/"),
    ]


def test_every_main_page_sends_the_policy_and_needs_nothing_it_refuses() -> None:
    table = start(open_lobby(("Ada", "Bob")))
    Game.objects.filter(pk=table.game_id).update(status=Game.Status.OVER)
    for client, path in pages(table):
        response = client.get(path)
        assert response.status_code in (200, 404), (path, response.status_code)
        assert response["Content-Security-Policy"] == CONTENT_SECURITY_POLICY, path
        parser = Inline()
        parser.feed(response.content.decode())
        assert parser.found == [], (path, parser.found)


def test_the_policy_allows_only_the_servers_own_scripts_and_styles() -> None:
    directives = dict(d.split(" ", 1) for d in CONTENT_SECURITY_POLICY.split("; "))
    assert directives["default-src"] == "'self'"
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert directives["connect-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert "unsafe" not in CONTENT_SECURITY_POLICY


def test_the_lobby_fragments_hold_nothing_the_policy_refuses() -> None:
    table = open_lobby(("Ada",))
    host = Client()
    host.cookies["sessionid"] = table.host_session
    parser = Inline()
    parser.feed(host.get(f"/host/{table.code}/").content.decode())
    assert parser.found == []
