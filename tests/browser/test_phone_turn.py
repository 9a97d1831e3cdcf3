"""A phone turn on one screen: a 390x844 phone takes gems and buys a card without
scrolling; at 360 px no text is under 14 px; the log and the help are one tap away."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest
from django.utils import translation
from django.utils.translation import gettext
from playwright.sync_api import ViewportSize, expect

from tests.browser.game_setup import start_game
from tests.browser.helpers import Phone, Recorder, Table

pytestmark = pytest.mark.browser

PHONE_390: ViewportSize = {"width": 390, "height": 844}
MIN_PHONE_FONT = 14.0

# What a common turn needs, and whether each is on screen without scrolling.
TURN_ON_SCREEN_JS = """
() => {
  const h = window.innerHeight, w = window.innerWidth;
  const need = {
    "my tokens": ".mine .tokens",
    "my bonuses": ".mine .bonuses",
    "the gems": "[data-picker=take] .gem-buttons",
    "Take": "[data-picker=take] [data-confirm]",
    "the cards": ".market-panel",
  };
  const off = [];
  for (const [what, sel] of Object.entries(need)) {
    const el = document.querySelector(sel);
    if (!el) { off.push(`${what}: missing`); continue; }
    const r = el.getBoundingClientRect();
    if (r.top < 0 || r.bottom > h + 0.5 || r.right > w + 0.5)
      off.push(`${what}: ${Math.round(r.top)}..${Math.round(r.bottom)} px of ${h}`);
  }
  return {off, scrollY: window.scrollY};
}
"""

SMALLEST_TEXT_JS = """
(root) => {
  let min = Infinity, where = "";
  document.querySelectorAll(root).forEach((el) => {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) return;
    if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) return;
    if (el.closest(".visually-hidden, [hidden]")) return;
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (size < min) {
      min = size;
      where = `${el.className} "${el.textContent.trim().slice(0, 20)}"`;
    }
  });
  return {min, where};
}
"""


def _on_screen(phone: Phone, where: str) -> None:
    found: dict[str, Any] = phone.page.evaluate(TURN_ON_SCREEN_JS)
    assert found["scrollY"] == 0, f"{where}: the page was scrolled to {found['scrollY']}"
    assert not found["off"], f"{where}: not on screen without scrolling: {found['off']}"


def _smallest(phone: Phone, where: str, root: str = "#live *") -> None:
    smallest: dict[str, Any] = phone.page.evaluate(SMALLEST_TEXT_JS, root)
    assert smallest["min"] >= MIN_PHONE_FONT - 0.01, f"{where}: text under 14 px: {smallest}"


@pytest.mark.parametrize("language", ["en", "de"])  # German: the longest texts
def test_a_390_phone_takes_and_buys_without_scrolling(
    recorder: Recorder, tv: Table, language: str
) -> None:
    url = tv.new_game(recorder.server)
    phone = recorder.phone("Aino")
    phone.context.set_extra_http_headers({"Accept-Language": language})
    phone.page.set_viewport_size(PHONE_390)
    phone.join(url, "Aino Aaltonen-Virtanen")
    tv.add_bot()
    tv.start()
    tv.put_away()
    done: Counter[str] = Counter()
    for turn in range(40):
        phone.wait_turn()
        if phone.page.locator("#hand.phase-over").count():
            break
        phone.page.evaluate("window.scrollTo(0, 0)")
        state = phone.state()
        if state["phase"] == "main" and not state["canPass"]:
            _on_screen(phone, f"turn {turn + 1}")
            if turn == 0:
                phone.shot(f"phone-390-{language}-my-turn")
        kind = phone.play_turn(buy=True)
        done[kind] += 1
        scrolled = phone.page.evaluate("window.scrollY")
        assert scrolled == 0, f"turn {turn + 1} ({kind}): the page scrolled to {scrolled}"
        if kind == "buy":
            phone.shot(f"phone-390-{language}-after-buying")
        if done["take"] and done["buy"]:
            break
    assert done["take"] and done["buy"], f"the phone did not both take and buy: {done}"


def test_a_360_phone_shows_no_text_under_14_px(recorder: Recorder, tv: Table) -> None:
    _url, (phone,) = start_game(recorder, tv, ("Aino",), bots=1)
    for turn in range(3):
        phone.wait_turn()
        _smallest(phone, f"my turn {turn + 1}")
        phone.play_turn(buy=True)
    phone.wait_turn()
    # A card sheet.
    phone.page.locator(".market-panel .card-button").first.tap()
    expect(phone.page.locator("#sheet")).to_be_visible()
    _smallest(phone, "a card sheet", "#sheet *")
    phone.page.locator("#sheet [data-close]").tap()
    # The game log, one tap away, newest turn first, in whole sentences.
    phone.page.locator("#open-log").tap()
    log = phone.page.locator("#sheet .game-log li")
    expect(log.first).to_be_visible()
    assert log.count() >= 4
    numbers = [int(t.split(".")[0]) for t in log.locator(".turn-no").all_inner_texts()]
    assert numbers == sorted(numbers, reverse=True), numbers
    expect(log.first.locator(".event").first).to_contain_text(re.compile(r"(Aino|Bot)"))
    _smallest(phone, "the log", "#sheet *")
    phone.shot("phone-360-log")
    phone.page.locator("#sheet [data-close]").tap()
    expect(phone.page.locator("#sheet")).to_be_hidden()
    # How to play, and back to the hand.
    phone.page.locator("#how-to-play").tap()
    expect(phone.page.locator("main.help h1")).to_be_visible()
    _smallest(phone, "how to play", "main.help *")
    phone.shot("phone-360-how-to-play")
    phone.page.locator("main.help a.button").first.tap()
    expect(phone.page.locator("#hand")).to_be_visible()


def test_a_tap_on_a_greyed_out_button_says_why(recorder: Recorder, tv: Table) -> None:
    _url, (phone,) = start_game(recorder, tv, ("Aino",), bots=1)
    phone.wait_turn()
    confirm = phone.page.locator("[data-picker=take] [data-confirm]")
    expect(confirm).to_be_disabled()
    box = confirm.bounding_box()
    assert box
    phone.page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    flash = phone.page.locator("#flash")
    expect(flash).to_be_visible()
    expect(flash).to_contain_text("Pick")


# Every card in the market affordable, each marked "can buy" (a check mark, and
# the words in the phone's language for screen readers) as
# templates/jinja2/phone/can_buy.html does: the common turn must still fit the
# screen, and no mark may run over its card's neighbours.
WORST_MARKET_JS = """
(label) => {
  document.querySelectorAll(".market-panel .card-button").forEach((button) => {
    button.querySelectorAll(".pay-line").forEach((line) => line.remove());
    button.classList.add("affordable");
    const line = document.createElement("span");
    line.className = "pay-line";
    const pill = document.createElement("span");
    pill.className = "can-buy";
    const mark = document.createElement("span");
    mark.className = "can-buy-mark";
    mark.textContent = "✓";
    const words = document.createElement("span");
    words.className = "visually-hidden";
    words.textContent = label;
    pill.append(mark, words);
    line.appendChild(pill);
    button.appendChild(line);
  });
}
"""

LABEL_SPILL_JS = """
() => [...document.querySelectorAll(".market-panel .card-button")].flatMap((button) => {
  const b = button.getBoundingClientRect();
  return [...button.querySelectorAll(".can-buy")]
    .map((label) => label.getBoundingClientRect())
    .filter((r) => r.left < b.left - 0.5 || r.right > b.right + 0.5)
    .map((r) => `${Math.round(r.left)}..${Math.round(r.right)}`
      + ` in ${Math.round(b.left)}..${Math.round(b.right)}`);
})
"""


@pytest.mark.parametrize(("language", "bots"), [("en", 1), ("de", 3), ("fi", 3)])
def test_the_fullest_market_still_fits_a_390_phone(
    recorder: Recorder, tv: Table, language: str, bots: int
) -> None:
    with translation.override(language):
        label = gettext("can buy")
    url = tv.new_game(recorder.server)
    phone = recorder.phone("Aino")
    phone.context.set_extra_http_headers({"Accept-Language": language})
    phone.page.set_viewport_size(PHONE_390)
    phone.join(url, "Aino Aaltonen-Virtanen")
    for _ in range(bots):
        tv.add_bot()
    tv.start()
    tv.put_away()
    phone.wait_turn()
    phone.page.evaluate(WORST_MARKET_JS, label)
    phone.shot(f"phone-390-{language}-{bots + 1}p-fullest-market")
    _on_screen(phone, f"every card affordable ({label})")
    spill = phone.page.evaluate(LABEL_SPILL_JS)
    assert not spill, f"a 'can buy' label runs past its card: {spill}"
