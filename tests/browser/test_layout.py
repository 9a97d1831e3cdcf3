"""A 360 px wide phone: nothing scrolls sideways, every button is a 44 px target, every
card shows its whole cost; with the machine's fonts and, on a copy of each page checked,
DejaVu, Liberation and Noto alone (FontCopies)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.font_copies import FontCopies, each_font, in_setup, picture
from tests.browser.helpers import PHONE_OPTIONS, PHONE_WIDTH, TV_OPTIONS, Phone, Recorder, Table

pytestmark = pytest.mark.browser

MIN_TARGET = 44

# Elements sticking out to the right of the viewport (what makes the page scroll sideways).
OVERFLOW_JS = """
(width) => {
  const root = document.scrollingElement;
  const wide = [];
  if (root.scrollWidth > width) {
    document.querySelectorAll("body *").forEach((el) => {
      const r = el.getBoundingClientRect();
      if (r.width && r.right > width + 0.5) {
        const inner = [...el.children].some((c) => c.getBoundingClientRect().right > width + 0.5);
        if (!inner) wide.push(`${el.tagName.toLowerCase()}.${[...el.classList].join(".")} `
          + `right=${Math.round(r.right)}`);
      }
    });
  }
  return {scrollWidth: root.scrollWidth, wide: wide.slice(0, 15)};
}
"""

# Visible buttons smaller than the minimum tap target, described for the message.
SMALL_BUTTONS_JS = """
([selector, min]) => [...document.querySelectorAll(selector)].flatMap((b) => {
  const r = b.getBoundingClientRect();
  if (!r.width && !r.height) return [];
  if (r.width >= min - 0.01 && r.height >= min - 0.01) return [];
  const attrs = ["data-pick", "data-open", "data-action", "data-confirm", "data-clear"]
    .filter((a) => b.hasAttribute(a)).map((a) => `[${a}=${b.getAttribute(a)}]`).join("");
  const text = b.textContent.replace(/\\s+/g, " ").trim().slice(0, 30);
  return [`button.${[...b.classList].join(".")}${attrs} "${text}" `
    + `${r.width.toFixed(1)}x${r.height.toFixed(1)}`];
})
"""


def check_layout(
    copies: FontCopies, phone: Phone, where: str, buttons: str = "#hand button", shot: str = ""
) -> None:
    """The phone's page, and a copy of it with each other font setup: nothing sticks out
    sideways, every button a whole target (each page kept as screenshot `shot`, if named)."""
    drawn = "#join-button, #seated h1, #status .opponent"
    shown = each_font(copies, phone.page, phone.label, PHONE_OPTIONS, drawn)
    for setup, page in shown:
        _fits(page, in_setup(where, setup), buttons)
        if shot:
            picture(page, f"{shot}-{setup}")


def _fits(page: Page, where: str, buttons: str) -> None:
    overflow: dict[str, Any] = page.evaluate(OVERFLOW_JS, PHONE_WIDTH)
    assert overflow["scrollWidth"] <= PHONE_WIDTH, (
        f"{where}: the page scrolls sideways (scrollWidth {overflow['scrollWidth']} px); "
        f"sticking out: {overflow['wide']}"
    )
    small: list[str] = page.evaluate(SMALL_BUTTONS_JS, [buttons, MIN_TARGET])
    assert not small, f"{where}: buttons under {MIN_TARGET}x{MIN_TARGET} px:\n" + "\n".join(small)


def test_phone_layout_at_360_px(recorder: Recorder, font_copies: FontCopies, tv: Table) -> None:
    url = tv.new_game(recorder.server)
    phone = recorder.phone("Aino")
    phone.page.goto(url)
    expect(phone.page.locator("#join-button")).to_be_visible()
    check_layout(font_copies, phone, "join page", "button", shot="phone-join")
    phone.join(url, "Aino Aaltonen-Virtanen")  # a long name must not widen anything
    check_layout(font_copies, phone, "seated in the lobby")
    tv.add_bot()
    tv.start()
    tv.put_away()
    expect(phone.page.locator("#hand.phase-main")).to_be_visible()

    for turn in range(4):
        phone.wait_turn()
        phone.page.evaluate("window.scrollTo(0, 0)")
        shot = "phone-my-turn" if turn == 0 else ""
        check_layout(font_copies, phone, f"my turn {turn + 1}", shot=shot)
        if turn == 0:
            # An open card sheet: its buttons are targets too.
            phone.page.locator(".market-panel .card-button").first.tap()
            expect(phone.page.locator("#sheet")).to_be_visible()
            sheet = "#hand button, #sheet button"
            check_layout(font_copies, phone, "card sheet", sheet, shot="phone-sheet")
            phone.page.locator("#sheet [data-close]").tap()
            expect(phone.page.locator("#sheet")).to_be_hidden()
        phone.play_turn(buy=True)
        check_layout(font_copies, phone, f"after my turn {turn + 1}")


# Cards whose contents (points, bonus gem, cost gems) stick out of the card. Besides
# the cards dealt, each region showing cards gets a copy of one of them with the
# longest cost there is (four colours), so the check does not depend on the deal.
CARD_OVERFLOW_JS = """
() => {
  const problems = [];
  const check = (card, label) => {
    const box = card.getBoundingClientRect();
    if (!box.width) return;
    const out = [...card.querySelectorAll(".card-top, .cost .gem")].filter((el) => {
      const r = el.getBoundingClientRect();
      if (!r.width) return false;  // a card in a sentence shows no cost
      return r.bottom > box.bottom + 0.5 || r.right > box.right + 0.5 || r.left < box.left - 0.5;
    });
    if (out.length) {
      const where = card.closest(".market-panel, .market, .player, .last-turn, .my-hand");
      problems.push(`${label} (${card.querySelectorAll(".cost .gem").length} cost colours, `
        + `${Math.round(box.height)} px high in ${where ? where.className : "?"}): `
        + `${out.length} part(s) past its edge`);
    }
  };
  document.querySelectorAll(".card[data-card]").forEach((c) => check(c, `card ${c.dataset.card}`));
  const regions = ".market, .market-panel, .player .reserved, .last-turn, .my-hand .reserved";
  document.querySelectorAll(regions).forEach((region) => {
    const card = region.querySelector(".card[data-card]");
    const gem = card && card.querySelector(".cost .gem");
    if (!gem) return;
    const copy = card.cloneNode(true);
    const cost = copy.querySelector(".cost");
    cost.replaceChildren(...["white", "blue", "green", "red"].map((colour, i) => {
      const g = gem.cloneNode(true);
      g.className = `gem gem-${colour}`;
      g.querySelector(".gem-text").textContent = ["3", "3", "5", "3"][i];
      return g;
    }));
    card.after(copy);
    check(copy, "a four-colour copy of card " + card.dataset.card);
    copy.remove();
  });
  return problems;
}
"""


def test_cards_show_their_whole_cost(
    recorder: Recorder, font_copies: FontCopies, tv: Table
) -> None:
    url = tv.new_game(recorder.server)
    phone = recorder.phone("Aino")
    phone.join(url, "Aino")
    tv.add_bot()
    tv.start()
    problems: set[str] = set()
    for _turn in range(3):
        phone.wait_turn()
        tv.settle()
        screens = (
            (tv, TV_OPTIONS, ".table .turn-line"),
            (phone, PHONE_OPTIONS, "#status .opponent"),
        )
        for screen, options, drawn in screens:
            for setup, page in each_font(font_copies, screen.page, screen.label, options, drawn):
                found = page.evaluate(CARD_OVERFLOW_JS)
                problems.update(f"{in_setup(screen.label, setup)}: {p}" for p in found)
        phone.play_turn(buy=True)
    assert not problems, "card contents stick out of the card:\n" + "\n".join(sorted(problems))
