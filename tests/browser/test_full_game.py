"""A whole game, one phone against a bot, to the end screen and a rematch."""

from __future__ import annotations

import re
import time
from collections import Counter

import pytest
from playwright.sync_api import expect

from tests.browser.game_setup import start_game
from tests.browser.helpers import Recorder, Table

pytestmark = pytest.mark.browser

TIME_CAP = 100.0  # seconds of play; a greedy-ish phone ends a game in well under half that
TURN_CAP = 120

# Counts the moments a page showed a seat's rejoin code, from its first paint on.
REJOIN_WATCH = """
window.__rejoinShown = 0;
function lookForRejoinCodes() {
  if (document.querySelector(".player .rejoin")) window.__rejoinShown += 1;
}
new MutationObserver(lookForRejoinCodes).observe(document, {subtree: true, childList: true});
document.addEventListener("DOMContentLoaded", lookForRejoinCodes);
"""


# The screens of this module's tests use a server of its own that tells stories (conftest).
STORY_SERVER = True


def test_phone_plays_a_bot_to_the_end_and_rematches(recorder: Recorder, tv: Table) -> None:
    _url, (phone,) = start_game(recorder, tv, ("Aino",), bots=1)
    old_code = tv.code
    end_screen = tv.page.locator(".end-screen")
    done: Counter[str] = Counter()
    started = time.monotonic()
    while True:
        # The bot answers by itself; wait for the phone's turn or the end.
        phone.wait_turn(timeout=10000)
        if phone.page.locator("#hand.phase-over").count():
            break
        assert time.monotonic() - started < TIME_CAP, f"no end after {TIME_CAP} s: {done}"
        assert sum(done.values()) < TURN_CAP, f"no end after {TURN_CAP} phone turns: {done}"
        done[phone.play_turn(buy=True)] += 1
    expect(end_screen).to_be_visible()
    assert done["buy"] > 0, f"the phone never bought a card: {done}"
    expect(end_screen.locator(".ranking tbody tr")).to_have_count(2)
    expect(phone.page.locator("#hand .result h1")).to_be_visible()
    expect(phone.page.locator(".status .turn-line")).to_have_text("Game over")
    # The game's story: the points at once, then (the server analyses the game in the
    # background) each player's chances and the turning point; the phone its own summary.
    expect(end_screen.locator("#points-chart svg")).to_be_visible()
    expect(end_screen.locator("#chances-chart svg")).to_be_visible(timeout=60000)
    expect(end_screen.locator("#turning-point")).to_contain_text("chance")
    summary = phone.page.locator("#my-story .my-summary")
    expect(summary.locator(".worst-move, .best-move").first).to_be_visible(timeout=60000)
    expect(summary.locator(".story-chart svg")).to_have_count(2)
    tv.settle()
    tv.shot("end-screen")
    phone.shot("phone-result", full_page=True)
    print(f"Game over after {time.monotonic() - started:.1f} s, phone turns: {dict(done)}")

    # The host taps Rematch: the TV and the phone both move to the new game. The TV
    # shows no rejoin code while the phone follows (it is on its way, not away).
    tv.page.add_init_script(REJOIN_WATCH)
    tv.page.locator("#rematch").click()
    tv.page.wait_for_url(lambda url: "/host/" in url and f"/{old_code}/" not in url)
    new_code = tv.code
    assert new_code != old_code
    expect(tv.page.locator(".table")).to_be_visible()
    phone.page.wait_for_url(re.compile(rf"/play/{new_code}/$"), timeout=8000)
    expect(phone.page.locator("#hand.phase-main, #hand.phase-return")).to_have_count(1)
    expect(phone.page.locator(".status .opponent")).to_have_count(2)
    expect(tv.page.locator(".player")).to_have_count(2)
    expect(tv.page.locator(".player .name").first).to_have_text("Aino")
    phone.wait_connected()
    phone.wait_turn(timeout=10000)  # the bot may open; then it is the phone's turn
    assert phone.my_turn()
    assert tv.page.evaluate("window.__rejoinShown") == 0, "the TV flashed a rejoin code"
