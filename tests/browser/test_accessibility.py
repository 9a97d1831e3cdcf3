"""No serious or critical axe-core violation on any page a player or the TV shows.

axe-core comes from npm into tests/browser/.axe (`.ci/run` installs it) and is
injected into each page by Playwright: nothing is loaded from a CDN.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import Recorder, Table, axe_violations

pytestmark = pytest.mark.browser

SERIOUS = ("serious", "critical")

OVERLAP_JS = """
() => {
  const a = document.querySelector(".connection").getBoundingClientRect();
  return [...document.querySelectorAll(".turn-line")].some((el) => {
    const b = el.getBoundingClientRect();
    return b.width && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  });
}
"""


def violations(page: Page, axe: Path, where: str) -> list[str]:
    """axe-core's serious and critical findings on the page as it is."""
    return axe_violations(page, axe, where, SERIOUS)


# The page shown offline for as long as the checks look at it: every answer to a
# heartbeat (one each 2 s) tells the page it is online again, so the class is put back
# as soon as it is taken away (a MutationObserver runs before the next paint).
HOLD_OFFLINE_JS = """
() => {
  const live = document.getElementById("live");
  live.classList.add("offline");
  window.heldOffline = new MutationObserver(() => {
    if (!live.classList.contains("offline")) live.classList.add("offline");
  });
  window.heldOffline.observe(live, {attributes: true, attributeFilter: ["class"]});
}
"""
LET_GO_JS = """
() => {
  window.heldOffline.disconnect();
  document.getElementById("live").classList.remove("offline");
}
"""


def test_the_pages_of_a_game_have_no_serious_violation(
    recorder: Recorder, tv: Table, axe: Path
) -> None:
    found: list[str] = []
    tv.page.goto(recorder.server.url + "/")
    found += violations(tv.page, axe, "home")
    url = tv.new_game(recorder.server)
    phone = recorder.phone("Aino")
    phone.page.goto(url)
    found += violations(phone.page, axe, "join page")
    phone.join(url, "Aino")
    found += violations(tv.page, axe, "TV lobby")
    found += violations(phone.page, axe, "phone in the lobby")
    tv.add_bot()
    tv.start()
    phone.wait_turn()
    tv.settle()
    found += violations(tv.page, axe, "TV table")
    found += violations(phone.page, axe, "phone hand")
    phone.page.locator(".market-panel .card-button").first.tap()
    expect(phone.page.locator("#sheet")).to_be_visible()
    found += violations(phone.page, axe, "card sheet")
    phone.page.locator("#sheet [data-close]").tap()
    phone.page.locator("#open-log").tap()
    expect(phone.page.locator("#sheet .game-log")).to_be_visible()
    found += violations(phone.page, axe, "log sheet")
    phone.page.locator("#sheet [data-close]").tap()
    # Connection lost: the banner is readable and leaves the turn line free.
    for screen in (tv, phone):
        screen.page.evaluate(HOLD_OFFLINE_JS)
        banner = screen.page.locator(".live.offline .connection")
        expect(banner).to_be_visible()
        found += violations(screen.page, axe, f"{screen.label} offline")
        overlap = screen.page.evaluate(OVERLAP_JS)
        assert not overlap, f"{screen.label}: the connection banner covers the turn line"
        screen.page.evaluate(LET_GO_JS)
    phone.page.locator("#how-to-play").tap()
    expect(phone.page.locator("main.help")).to_be_visible()
    found += violations(phone.page, axe, "how to play")
    # The rejoin page a phone reaches from a seat's rejoin QR.
    other = recorder.phone("Bertil")
    other.page.goto(url + "?rejoin=ABCDEF")
    expect(other.page.locator("#rejoin_code")).to_be_visible()
    found += violations(other.page, axe, "rejoin page")
    assert not found, "\n".join(found)


def test_the_end_screen_has_no_serious_violation(recorder: Recorder, tv: Table, axe: Path) -> None:
    tv.new_game(recorder.server)
    tv.add_bot()
    tv.add_bot()
    tv.start()
    expect(tv.page.locator(".end-screen")).to_be_visible(timeout=120000)
    tv.settle(timeout=30000)
    found = violations(tv.page, axe, "end screen")
    tv.page.locator("#end-close").click()
    found += violations(tv.page, axe, "final table")
    assert not found, "\n".join(found)
