"""A player without a phone plays at the TV (issue 33): added in the lobby, their turns
played on the host screen with the mouse and with the keyboard, a card reserved from a
deck seen only while held, the turn shown again after a reload, and no serious axe
finding on the turn's view."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import Phone, Recorder, Table, axe_violations, settle

pytestmark = pytest.mark.browser

TURN = "#tv-turn #hand"


def tv_plays(tv: Table) -> bool:
    return tv.page.locator(TURN).count() == 1


def until_the_tv_plays(tv: Table, bob: Phone) -> None:
    """Let Bob (on his phone) play until the player at the TV is to play."""
    for _ in range(3):
        settle(tv, bob)
        if tv_plays(tv):
            return
        bob.wait_turn()
        bob.play_turn(buy=False)
    raise AssertionError("The TV never got its player's turn")


def longest_take(tv: Table) -> str:
    legal = tv.page.locator(f"{TURN} #take-legal").get_attribute("data-legal") or ""
    return max(legal.split(","), key=len).split(":")[1]


def test_a_player_without_a_phone_plays_at_the_tv(recorder: Recorder, tv: Table, axe: Path) -> None:
    url = tv.new_game(recorder.server)
    # The host adds Ada with the keyboard alone: type the name, Enter.
    tv.page.locator("#tv-player-name").focus()
    tv.page.keyboard.type("Ada")
    with tv.page.expect_navigation():
        tv.page.keyboard.press("Enter")
    tv.wait_connected()
    expect(tv.page.locator(".lobby-seat")).to_have_count(1)
    expect(tv.page.locator(".lobby-seat .tv-tag")).to_have_count(1)
    # This screen remembers the names typed on it.
    expect(tv.page.locator('#tv-player-names option[value="Ada"]')).to_have_count(1)
    bob = recorder.phone("Bob")
    bob.join(url, "Bob")
    expect(tv.page.locator(".lobby-seat")).to_have_count(2)
    tv.shot("tv-seat-lobby")
    tv.start()
    expect(bob.page.locator("#hand.phase-main")).to_have_count(1)

    # ---- 1. With the mouse: three gems, picked and confirmed in the turn panel.
    until_the_tv_plays(tv, bob)
    panel = tv.page.locator("#tv-turn")
    expect(panel).to_be_visible()
    expect(tv.page.locator(".board .market")).to_be_visible()  # the table stays in view
    take, before = longest_take(tv), tv.version()
    for letter in take:
        panel.locator(f"[data-picker=take] [data-pick={letter}]").click()
    panel.locator("[data-picker=take] [data-confirm]").click()
    tv.wait_version(before)
    expect(tv.page.locator(TURN)).to_have_count(0)  # Bob's turn: the plain table
    expect(tv.page.locator(".board [data-tv-open]")).to_have_count(0)

    # ---- 2. The board is the market: a card on it opens its sheet (mouse, Cancel);
    # then with the keyboard: the level-1 deck, Escape, again, reserve.
    until_the_tv_plays(tv, bob)
    sheet = tv.page.locator("#sheet")
    tv.page.locator('.board [id^="table-slot-2-"][data-tv-open]').first.click()
    expect(sheet).to_be_visible()
    expect(sheet.locator(".card[data-card]")).to_have_count(1)
    sheet.locator("[data-close]").click()
    expect(sheet).to_be_hidden()
    deck = tv.page.locator(".board #table-deck-1")
    deck.focus()
    tv.page.keyboard.press("Enter")
    expect(sheet).to_be_visible()
    tv.page.keyboard.press("Escape")
    expect(sheet).to_be_hidden()
    expect(deck).to_be_focused()  # back where the keyboard was
    tv.page.keyboard.press("Tab")  # the board's cards follow their deck
    expect(tv.page.locator(".board #table-slot-1-0")).to_be_focused()
    tv.page.keyboard.press("Shift+Tab")
    tv.page.keyboard.press("Enter")
    expect(sheet.locator('[data-action="reserve:d1"]')).to_be_focused()
    before = tv.version()
    tv.page.keyboard.press("Enter")
    tv.wait_version(before)
    expect(tv.player(0).locator(".card-back")).to_have_count(1)  # face down on the table

    # ---- 3. Hold to look: shown while held (mouse, then Space), gone on release.
    until_the_tv_plays(tv, bob)
    face_down = tv.page.locator(f'{TURN} [data-look="0"]')
    look = tv.page.locator("#tv-look .card[data-card]")
    expect(face_down).to_be_visible()
    assert tv.page.locator("#tv-turn .card[data-card]").count() > 0
    face_down.hover()
    tv.page.mouse.down()
    expect(look).to_have_count(1)
    tv.page.mouse.up()
    expect(look).to_have_count(0)
    face_down.focus()
    tv.page.keyboard.down(" ")
    expect(look).to_have_count(1)
    tv.page.keyboard.up(" ")
    expect(look).to_have_count(0)
    touch = {"pointerType": "touch", "pointerId": 7, "isPrimary": True, "bubbles": True}
    face_down.dispatch_event("pointerdown", touch)
    expect(look).to_have_count(1)
    face_down.dispatch_event("pointercancel", touch)  # the finger slid away
    expect(look).to_have_count(0)

    # ---- 4. A reload mid-turn shows the turn again; axe finds nothing serious.
    tv.page.reload()
    tv.wait_connected()
    expect(tv.page.locator(TURN)).to_have_count(1)
    expect(tv.page.locator(f'{TURN} [data-look="0"]')).to_be_visible()
    assert axe_violations(tv.page, axe, "TV turn", ("serious", "critical")) == []
    tv.shot("tv-seat-turn")
    take, before = longest_take(tv), tv.version()
    for letter in take:
        tv.page.locator(f"{TURN} [data-picker=take] [data-pick={letter}]").click()
    tv.page.locator(f"{TURN} [data-picker=take] [data-confirm]").click()
    tv.wait_version(before)


def test_a_name_half_typed_for_a_player_at_the_tv_survives_a_phone_joining(
    recorder: Recorder, tv: Table
) -> None:
    url = tv.new_game(recorder.server)
    field = tv.page.locator("#tv-player-name")
    field.fill("Gran")
    # The names typed here before are offered with it.
    assert field.evaluate("input => input.list && input.list.id") == "tv-player-names"
    recorder.phone("Bob").join(url, "Bob")
    expect(tv.page.locator(".lobby-seat")).to_have_count(1)  # the lobby was drawn again
    expect(field).to_have_value("Gran")
    with tv.page.expect_navigation():
        tv.page.locator("#add-tv-player").click()
    expect(tv.page.locator(".lobby-seat .tv-tag")).to_have_count(1)
    expect(tv.page.locator(".lobby-seat .seat-name")).to_have_text(["Bob", "Gran"])
