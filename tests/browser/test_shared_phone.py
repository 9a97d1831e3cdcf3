"""Two players on one phone, and a bot: turns played with taps, the curtain between the
phone's two players, nothing of the other hand in the page behind it, a reload that
comes back to the curtain, and no serious accessibility finding on the curtain."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import Phone, Recorder, Table, axe_violations

pytestmark = pytest.mark.browser

# Whatever only a hand puts in the page: its regions, pickers, cards, sheets, a card
# copied into the sheet dialog (the status line is every phone's: its last turn may
# show a market card someone bought).
HAND_IN_DOM = (
    "() => [...document.querySelectorAll('#my-hand, #take-picker, #market, #hand [data-card],"
    " #hand [data-pick], #hand [data-action], #sheets template, #sheet .sheet-body *,"
    " #whose-hand')]"
    ".map((e) => e.outerHTML.slice(0, 120))"
)
CURTAIN_OR_TURN = (
    "() => !!document.querySelector('#curtain') || !!document.querySelector('#hand.my-turn')"
)
PASS_TO = re.compile(r"Pass the phone to (\w+)")


def add_second_player(phone: Phone, name: str) -> None:
    """From the phone's lobby: "Add another player on this phone", type the name, add."""
    phone.page.locator("#add-player").tap()
    phone.page.wait_for_url(re.compile(r"/join/[A-Z0-9]+/\?another=1$"))
    phone.page.locator("#name").fill(name)
    phone.page.locator("#add-player-button").tap()
    phone.page.wait_for_url(re.compile(r"/play/[A-Z0-9]+/$"))
    phone.wait_connected()


def behind_the_curtain(phone: Phone) -> str:
    """Check the curtain is up with nothing of any hand in the page; return whom it asks for."""
    expect(phone.page.locator("#curtain")).to_be_visible()
    left = phone.page.evaluate(HAND_IN_DOM)
    assert not left, f"a hand is still in the page behind the curtain: {left}"
    assert "’s hand" not in phone.page.content()
    title = phone.page.locator("#curtain-title").inner_text()
    found = PASS_TO.search(title)
    assert found, title
    return found.group(1)


def take_gems(phone: Phone) -> None:
    """Tap gems until a take is complete, then Take."""
    picker = phone.page.locator("[data-picker=take]")
    confirm = picker.locator("[data-confirm]")
    for gem in picker.locator("[data-pick]").all():
        if confirm.is_enabled():
            break
        if gem.is_enabled() and "selected" not in (gem.get_attribute("class") or ""):
            gem.tap()
    expect(confirm).to_be_enabled()
    confirm.tap()


def test_two_players_pass_one_phone_between_turns(recorder: Recorder, tv: Table, axe: Path) -> None:
    url = tv.new_game(recorder.server)
    phone = recorder.phone("Ada+Ben")
    phone.join(url, "Ada")
    add_second_player(phone, "Ben")
    expect(phone.page.locator("#seated")).to_contain_text("Also playing on this phone: Ben.")
    tv.add_bot()
    expect(tv.page.locator(".lobby-seat .tag.shares")).to_have_text("shares Ada’s phone")
    tv.start()

    # The game starts behind the curtain, asking for whichever of the two plays first.
    first = behind_the_curtain(phone)
    phone.shot("shared-phone-curtain")
    found = axe_violations(phone.page, axe, "curtain", ("serious", "critical"))
    assert not found, "\n".join(found)

    # A reload comes back to the curtain first (the page as served, then its socket).
    answer = phone.page.reload()
    assert answer is not None
    served = answer.text()
    assert 'id="curtain"' in served and 'id="my-hand"' not in served
    phone.wait_connected()
    phone.settle()
    assert behind_the_curtain(phone) == first

    passed: list[str] = []
    shown = ""
    for _turn in range(4):
        phone.page.wait_for_function(CURTAIN_OR_TURN, timeout=20000)
        if phone.page.locator("#curtain").count():
            asked = behind_the_curtain(phone)
            if shown:
                passed.append(f"{shown}->{asked}")
            phone.page.locator("#uncover").tap()
            expect(phone.page.locator("#whose-hand")).to_contain_text(f"{asked}’s hand")
            shown = asked
            phone.page.wait_for_function(CURTAIN_OR_TURN, timeout=20000)
            expect(phone.page.locator("#hand.my-turn")).to_have_count(1)
        # The hand says whose it is, at all times.
        expect(phone.page.locator("#whose-hand .whose")).to_have_text(f"{shown}’s hand")
        phone.shot(f"shared-phone-hand-{_turn}")
        if _turn == 0:
            # A card's sheet looked at, then closed: it must not outlive the hand.
            phone.page.locator(".market-panel .card-button").first.tap()
            expect(phone.page.locator("#sheet")).to_be_visible()
            phone.page.locator("#sheet [data-close]").tap()
            expect(phone.page.locator("#sheet .sheet-body [data-card-of]")).to_have_count(1)
        take_gems(phone)
        phone.page.wait_for_function("() => !document.querySelector('#hand.my-turn')")
    # Ada passes to Ben directly at least once (seats 0 and 1, the bot third).
    assert "Ada->Ben" in passed, passed
    assert not phone.errors and not tv.errors, phone.errors + tv.errors
