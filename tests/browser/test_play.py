"""Two phones play by tapping: take, reserve, blind reserve, buy, give back, a refusal."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.game_setup import start_game
from tests.browser.helpers import (
    Phone,
    Recorder,
    Table,
    WebSocketGate,
    in_step,
    settle,
)

pytestmark = pytest.mark.browser

SELECTED = re.compile(r"\bselected\b")
COLOUR = {"w": "white", "u": "blue", "g": "green", "r": "red", "k": "black", "y": "gold"}


def settled_turn(tv: Table, phones: list[Phone]) -> Phone:
    """Wait until every phone shows the TV's version; return the phone on turn.

    Only people play here, so the latest change any screen shows is the last one.
    """
    in_step(tv, *phones)
    on_turn = [phone for phone in phones if phone.my_turn()]
    assert len(on_turn) == 1, f"{len(on_turn)} phones on turn at version {tv.version()}"
    return on_turn[0]


def card_id(opener: str) -> str:
    return opener.rsplit("-", 1)[1]


def test_play_a_few_turns_by_tapping(recorder: Recorder, tv: Table) -> None:
    _url, phones = start_game(recorder, tv, ("Aino", "Bertil"))
    first = settled_turn(tv, phones)
    other = phones[1] if first is phones[0] else phones[0]
    seat = {first.label: first.seat(), other.label: other.seat()}
    assert sorted(seat.values()) == [0, 1]

    # ---- 1. Three different gems, picked one tap at a time.
    bank, version = tv.bank(), tv.version()
    picker = first.page.locator("[data-picker=take]")
    confirm = picker.locator("[data-confirm]")
    expect(confirm).to_be_disabled()
    for count, letter in enumerate("wug", start=1):
        picker.locator(f"[data-pick={letter}]").tap()
        expect(picker.locator(f"[data-pick={letter}]")).to_have_class(SELECTED)
        if count < 3:
            # One or two different colours is not a legal take while five colours are left.
            expect(confirm).to_be_disabled()
        if count == 2:
            # Another phone reconnecting must not wipe a half-made selection.
            other.page.reload()
            other.wait_connected()
            settle(tv, first, other)
            expect(picker.locator(".gem-button.selected")).to_have_count(2)
    expect(confirm).to_be_enabled()
    for letter in "rk":  # a fourth colour is not offered...
        gem = picker.locator(f"[data-pick={letter}]")
        expect(gem).to_be_disabled()
        gem.tap(force=True)  # ...and tapping it anyway changes nothing
        expect(gem).not_to_have_class(SELECTED)
    expect(picker.locator(".gem-button.selected")).to_have_count(3)
    # Picking is private to the phone: the confirmed take is the table's next change,
    # the only one, and the bank shows exactly its three gems.
    confirm.tap()
    tv.wait_version(version)
    expected = {**bank, "white": bank["white"] - 1, "blue": bank["blue"] - 1}
    expected["green"] -= 1
    expect(tv.page.locator(".board .bank")).to_be_visible()
    tv.wait_chips(".board .bank", expected)
    assert tv.version() == version + 1, "a partial pick reached the table"
    assert tv.tokens(seat[first.label]) == {
        "white": 1,
        "blue": 1,
        "green": 1,
        "red": 0,
        "black": 0,
        "gold": 0,
    }
    first.reach(tv.version())
    assert first.token_total() == 3

    # ---- 1b. Off turn, a card's sheet shows what the phone could do on its turn, held back.
    first.page.locator(".market-panel .card-button[data-open]").first.tap()
    waiting = first.page.locator("#sheet")
    expect(waiting).to_be_visible()
    expect(waiting.locator('[data-action^="reserve:"]')).to_be_disabled()
    expect(waiting.locator("[data-turn-note]")).to_be_visible()
    waiting.locator("[data-close]").tap()
    expect(waiting).to_be_hidden()

    # ---- 2. The other phone reserves a face-up card through its sheet.
    assert settled_turn(tv, phones) is other
    opener = other.page.locator(".market-panel .card-button[data-open]").first
    sheet_id = opener.get_attribute("data-open") or ""
    reserved = card_id(sheet_id)
    opener.tap()
    sheet = other.page.locator("#sheet")
    expect(sheet).to_be_visible()
    expect(sheet.locator(f'.sheet-card .card[data-card="{reserved}"]')).to_be_visible()
    expect(sheet.locator("[data-turn-note]")).to_be_hidden()  # its turn: the actions are on
    before = other.version()
    sheet.locator('[data-action^="reserve:"]').tap()
    other.wait_version(before)
    expect(sheet).to_be_hidden()
    assert other.reserved_ids() == [reserved]
    assert other.tokens()["gold"] == 1
    other_on_tv = tv.player(seat[other.label])
    expect(other_on_tv.locator(f'.reserved .card[data-card="{reserved}"]')).to_be_visible()
    expect(tv.page.locator(f'.market .card[data-card="{reserved}"]')).to_have_count(0)

    # ---- 3. A blind reserve from the level 1 deck: face up only on its owner's phone.
    assert settled_turn(tv, phones) is first
    deck_count = tv.page.locator(".market-row.level-1 .deck-count")
    cards_in_deck = int(deck_count.inner_text())
    first.sheet_action("sheet-deck-1", "reserve:d1")
    expect(deck_count).to_have_text(str(cards_in_deck - 1))
    blind = first.reserved_ids()
    assert len(blind) == 1, f"the blind card is not in its owner's hand: {blind}"
    blind_button = first.page.locator(".my-hand .reserved .card-button.blind")
    expect(blind_button.locator(f'.card[data-card="{blind[0]}"] .cost')).to_be_visible()
    expect(blind_button.locator(".blind-tag")).to_be_visible()
    first_on_tv = tv.player(seat[first.label])
    expect(first_on_tv.locator(".reserved .card-back.level-1")).to_have_count(1)
    expect(first_on_tv.locator(".reserved .card[data-card]")).to_have_count(0)
    other.reach(tv.version())
    for screen in (tv, other):
        html = screen.page.content()
        assert f'data-card="{blind[0]}"' not in html, f"{screen.label} shows the blind card"
    # The other phone sees only the back of the blind card, with its level.
    expect(
        other.page.locator(f'.status .opponent[data-seat="{seat[first.label]}"] .mini-back.level-1')
    ).to_have_count(1)
    tv.shot("table-blind-reserve")
    first.page.locator(".my-hand .reserved").scroll_into_view_if_needed()
    first.shot("phone-hand")
    first.shot("phone-hand-full", full_page=True)

    # ---- 4. Take gems until a phone can buy a card, then buy it.
    for _turn in range(30):
        current = settled_turn(tv, phones)
        state = current.state()
        if state["phase"] == "main" and state["affordable"]:
            break
        current.play_turn(buy=False)
    else:
        pytest.fail("no phone could afford a card within 30 turns")
    best = max(state["affordable"], key=lambda card: card["points"])
    bought = card_id(best["open"])
    position = seat[current.label]
    cards_before = tv.cards_bought(position)
    tokens_before = current.token_total()
    current.page.locator(f'#hand button[data-open="{best["open"]}"]').tap()
    buy_button = current.page.locator('#sheet [data-action^="buy:"]').first
    expect(buy_button).to_be_visible()
    before = current.version()
    buy_button.tap()
    current.wait_version(before)
    tv.reach(current.version())
    assert tv.cards_bought(position) == cards_before + 1, "the TV does not show the bonus"
    expect(tv.page.locator(f'.market .card[data-card="{bought}"]')).to_have_count(0)
    expect(current.page.locator(f'#hand [data-open="{best["open"]}"]')).to_have_count(0)
    assert current.token_total() <= tokens_before

    # ---- 5. Keep taking until someone holds more than ten tokens and gives some back.
    for _turn in range(40):
        current = settled_turn(tv, phones)
        state = current.state()
        if state["phase"] == "return":
            break
        current.play_turn(buy=False)
    else:
        pytest.fail("nobody had to give tokens back within 40 turns")
    position = seat[current.label]
    total = current.token_total()
    assert total > 10
    expect(tv.page.locator(".turn-line")).to_contain_text("giving back")
    panel = current.page.locator("[data-picker=return]")
    expect(panel).to_be_visible()
    give_back = state["returns"][0]
    assert len(give_back) == total - 10, f"{give_back} for {total} tokens"
    panel_confirm = panel.locator("[data-confirm]")
    for count, letter in enumerate(give_back, start=1):
        expect(panel_confirm).to_be_disabled()
        panel.locator(f"[data-pick={letter}]").tap()
        expect(panel.locator(f"[data-pick={letter}] .picked")).not_to_have_text("")
        assert count <= len(give_back)
    expect(panel_confirm).to_be_enabled()
    current.shot("phone-return")
    bank = tv.bank()
    before = current.version()
    panel_confirm.tap()
    current.wait_version(before)
    assert current.token_total() == 10
    expect(tv.player(position).locator(".token-total")).to_have_text("10/10")
    back = {COLOUR[letter]: give_back.count(letter) for letter in give_back}
    tv.wait_chips(".board .bank", {colour: bank[colour] + n for colour, n in back.items()})

    # ---- 6. A stale action from a second tab of the same phone is refused with a message.
    current = settled_turn(tv, phones)
    gate = WebSocketGate()
    tab = recorder.second_tab(current, gate)
    tab.page.goto(current.page.url)
    tab.wait_connected()
    settle(tv, tab, *phones)
    assert tab.my_turn() and tab.version() == tv.version()
    gate.close()  # the tab stops hearing from the server, like a phone on bad Wi-Fi
    version = tv.version()
    current.play_turn(buy=False)
    tv.wait_version(version)
    after = tv.version()
    assert tab.version() == version and tab.my_turn(), "the gated tab should be stale"
    state = tab.state()
    if state["phase"] == "return":
        tab.pick("return", state["returns"][0])
        tab.page.locator("[data-picker=return] [data-confirm]").tap()
    else:
        assert state["takes"], f"nothing to tap in the stale tab: {state}"
        tab.pick("take", state["takes"][0])
        tab.page.locator("[data-picker=take] [data-confirm]").tap()
    gate.open()
    flash = tab.page.locator("#flash.show")
    expect(flash).to_be_visible()
    expect(flash).to_contain_text("moved on")
    tab.shot("phone-flash")
    tab.reach(after)
    assert tab.version() == after, "the refused tab went past the game"
    tv.settle()
    assert tv.version() == after, "the refused action changed the game"
    expect(current.page.locator("#flash.show")).to_have_count(0)
    tab.page.close()
