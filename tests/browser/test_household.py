"""The Players page in a real browser: reached from the start page in German, compared
head to head, a player forgotten after a confirmation, and no axe-core violation
on a TV or a phone."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.conftest import recording
from tests.browser.helpers import BASE_DIR, Recorder, Screen, Server, axe_violations
from tests.browser.live_server import serve

pytestmark = pytest.mark.browser

PLAY = """
import django
django.setup()
from tests.web.household_games import household
household()
"""


def play_in_server(server: Server) -> None:
    """Play the household's games (tests/web/household_games.py) in the server's database."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env["SPLENDOR_DB_PATH"] = str(server.log.parent / "db.sqlite3")
    env["DJANGO_SETTINGS_MODULE"] = "splendor_site.settings"
    subprocess.run([sys.executable, "-c", PLAY], cwd=BASE_DIR, env=env, check=True, timeout=300)


@pytest.fixture(scope="module")
def household_server(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser
) -> Iterator[Server]:
    """A server of this module's own: the Players page counts every game its database
    holds, and the package server's other tests end games with players of the same names."""
    for live in serve(tmp_path_factory, "household", 1.0):
        yield live.server


@pytest.fixture
def recorder(
    request: pytest.FixtureRequest, browser: Browser, household_server: Server
) -> Iterator[Recorder]:
    rec = Recorder(browser=browser, server=household_server, test_name=request.node.name)
    yield from recording(request, rec)


def in_german(screen: Screen, server: Server) -> None:
    screen.context.add_cookies([{"name": "django_language", "value": "de", "url": server.url}])


def test_the_players_page_in_german_forgets_a_player_after_asking(
    recorder: Recorder, household_server: Server, axe: Path
) -> None:
    play_in_server(household_server)
    tv = recorder.table()
    in_german(tv, household_server)
    page = tv.page
    found: list[str] = []

    page.goto(household_server.url + "/")
    page.get_by_role("link", name="Spieler: Wer gewinnt am häufigsten?").click()
    page.wait_for_url(re.compile(r"/players/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Spieler")
    table = page.locator("#figures")
    expect(table.get_by_role("columnheader", name="Siege")).to_be_visible()
    expect(table.locator('tr[data-key="bot:medium"] th')).to_have_text("Bot (mittel)")
    expect(table.locator('tr[data-key="ελένη"] th')).to_have_text("ελένη")
    # Each player's last games and win rate: pictures the server drew, beside their numbers.
    # The household's players each have a card; bot levels have none.
    for key in ("ada", "bob", "łukasz", "ελένη", "zoë"):
        expect(page.locator(f'#form .form-card[data-key="{key}"]')).to_have_count(1)
    expect(page.locator('#form .form-card[data-key^="bot:"]')).to_have_count(0)
    ada = page.locator('#form .form-card[data-key="ada"]')
    expect(ada.locator('svg.chart[role="img"]')).to_have_count(3)
    expect(ada.locator("svg.chart title").first).to_have_text("ada: Punkte in den letzten Spielen")
    ada.get_by_text("Die Zahlen").click()  # a <details>: no script
    expect(ada.locator("table.last-games tbody tr")).to_have_count(3)
    found += axe_violations(page, axe, "Players page on the TV")

    # Head to head, without any script: a plain form.
    page.locator("#duel-a").select_option("ada")
    page.locator("#duel-b").select_option("bob")
    page.get_by_role("button", name="Vergleichen").click()
    expect(page.locator("#duel caption")).to_contain_text("gemeinsame Spiele")
    expect(page.locator(".duel-charts svg.chart")).to_have_count(2)
    # The pictures' text as drawn on the TV: its font size in viewBox units times the scale.
    sizes = page.evaluate(
        """() => [...document.querySelectorAll('.duel-charts text, .wins-chart text')].map(
            t => parseFloat(t.closest('[font-size]').getAttribute('font-size'))
                 * t.ownerSVGElement.getScreenCTM().a)"""
    )
    assert sizes and min(sizes) >= 24, sizes
    found += axe_violations(page, axe, "head to head")

    # Forget asks first; cancelling keeps her.
    others = {
        key: table.locator(f'tr[data-key="{key}"]').inner_text()
        for key in ("ada", "bob", "ελένη", "łukasz", "bot:medium")
    }
    zoe = table.locator('tr[data-key="zoë"]')
    zoe.get_by_role("link", name="ZOË vergessen").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("ZOË vergessen?")
    found += axe_violations(page, axe, "Forget confirmation")
    page.get_by_role("link", name="Abbrechen").click()
    expect(zoe).to_be_visible()

    zoe.get_by_role("link", name="ZOË vergessen").click()
    page.get_by_role("button", name="ZOË vergessen").click()
    page.wait_for_url(re.compile(r"/players/$"))
    expect(page.get_by_role("alert")).to_contain_text("ZOË steht nicht mehr in der Chronik")
    expect(zoe).to_have_count(0)
    expect(page.locator('#duel-a option[value="zoë"]')).to_have_count(0)
    for key, text in others.items():
        expect(table.locator(f'tr[data-key="{key}"]')).to_have_text(text)
    found += axe_violations(page, axe, "Players page after Forget")

    # A phone reads it as cards, each figure labelled.
    phone = recorder.phone("phone")
    in_german(phone, household_server)
    phone.page.goto(household_server.url + "/players/")
    expect(phone.page.locator('tr[data-key="ada"] td').first).to_be_visible()
    width = phone.page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= phone.page.viewport_size["width"]  # type: ignore[index]
    found += axe_violations(phone.page, axe, "Players page on a phone")
    assert found == []
