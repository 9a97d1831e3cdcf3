"""Cues besides the picture: the TV sounds each action (with a mute switch) and a
phone flashes "Your turn" (and beeps where allowed) when its turn starts."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.game_setup import start_game
from tests.browser.helpers import Recorder, Table

pytestmark = pytest.mark.browser


def test_the_tv_sounds_each_action_and_can_be_muted(recorder: Recorder, tv: Table) -> None:
    _url, (phone,) = start_game(recorder, tv, ("Aino",), bots=1)
    mute = tv.page.locator("#mute")
    # A browser may play sound only after a tap on the page: then the switch asks for one.
    expect(mute).to_have_text(re.compile("Tap for sound|Sound on"))
    if mute.inner_text() == "Tap for sound":
        mute.click()
    expect(mute).to_have_text("Sound on")
    expect(mute).to_have_attribute("aria-pressed", "false")
    before = tv.page.evaluate("document.documentElement.dataset.lastCue || '0'")
    phone.wait_turn()
    phone.play_turn(buy=True)
    tv.page.wait_for_function(
        "b => (document.documentElement.dataset.lastCue || '0') !== b", arg=before
    )
    mute.click()
    expect(mute).to_have_text("Sound off")
    expect(mute).to_have_attribute("aria-pressed", "true")
    tv.page.reload()
    expect(tv.page.locator("#mute")).to_have_text("Sound off")  # remembered on this TV


def test_a_phone_flashes_when_its_turn_starts(recorder: Recorder, tv: Table) -> None:
    _url, (phone,) = start_game(recorder, tv, ("Aino",), bots=1)
    phone.wait_turn()
    phone.play_turn(buy=True)
    # The bot plays; then the phone's turn starts again.
    cue = phone.page.locator("#turn-cue.show")
    expect(cue).to_be_visible(timeout=10000)
    expect(cue).to_have_text("Your turn")
    phone.shot("phone-turn-cue")
