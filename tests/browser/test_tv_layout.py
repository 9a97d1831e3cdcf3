"""The TV fits one screen for 2, 3 and 4 players, from the deal to the end screen.

Bots play a whole game while two TVs watch it, one at 1920x1080 (the host) and
one at 1280x720. After every update each TV records whether the page got
taller or wider than the screen and whether any region (board, player
panels, last turn, the join QR) is cut off or overlaps another, with the
machine's fonts, and keeps a copy that DejaVu, Liberation and Noto each alone lay
out again after the game (FontCopies). The worst
table a game can reach (three reserved cards and three nobles for everyone,
the final-round banner) is then drawn into the live page and checked too.
The corner QR must decode from a screenshot at the start and at the end, and
no text on the 1080p TV may be smaller than 24 px.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.font_copies import (
    COPY_PROBE,
    PAGE_COPY_JS,
    Copies,
    FontCopies,
    each_font,
    in_setup,
    picture,
)
from tests.browser.helpers import (
    ARTIFACTS,
    CUT_JS,
    Recorder,
    Table,
    decode_qr,
)

pytestmark = pytest.mark.browser

SIZES = ((1920, 1080), (1280, 720))
MIN_FONT_1080P = 24.0

# The TV's regions: each must be wholly on screen, show all it holds and keep out of the others.
REGIONS = (
    ".table .board, .table .player, .table .turn-line, .table .banner, .table .last-turn, "
    ".table .corner-join, .table .game-log, .table .players"
)

# Measures the page after every websocket update; keeps the worst seen. What a person
# would see: a region off the screen, a region that hides part of what it holds (beyond
# the few px of an empty font box, helpers.SLACK_EM), a region whose contents run into
# another's, the board running into the join QR.
FIT_PROBE = (
    "window.__fit = {samples: 0, problems: []};\n(() => {"
    + CUT_JS
    + """
window.__measure = function (label) {
  const root = document.scrollingElement;
  const w = window.innerWidth, h = window.innerHeight;
  const found = [];
  if (root.scrollHeight > h) found.push(`page ${root.scrollHeight} px tall`);
  if (root.scrollWidth > w) found.push(`page ${root.scrollWidth} px wide`);
  const regions = [...document.querySelectorAll(REGIONS)].filter(
    (el) => el.getBoundingClientRect().height);
  const name = (el) => el.className.split(" ")[0] + (el.dataset.seat ? el.dataset.seat : "");
  regions.forEach((el) => {
    const r = el.getBoundingClientRect();
    if (r.bottom > h + 0.5 || r.right > w + 0.5)
      found.push(`${name(el)} ends at ${r.right}x${r.bottom}`);
    // The log shows the newest turns that fit (test_fit: each whole); the rest shows whole.
    const over = Math.max(el.scrollHeight - el.clientHeight, el.scrollWidth - el.clientWidth);
    if (clips(el) && !el.classList.contains("game-log") && over > slack(el))
      found.push(`${name(el)} cut off: ${el.scrollWidth}x${el.scrollHeight} px of content `
        + `in ${el.clientWidth}x${el.clientHeight} px`);
  });
  // What overflows a region that does not clip is seen, unless it runs into another region.
  regions.forEach((a) => {
    const r = a.getBoundingClientRect();
    const right = clips(a) ? r.right : Math.max(r.right, r.left + a.clientLeft + a.scrollWidth);
    const bottom = clips(a) ? r.bottom : Math.max(r.bottom, r.top + a.clientTop + a.scrollHeight);
    regions.forEach((b) => {
      // The join QR lies in the board's column, under its contents (checked below).
      if (a === b || a.contains(b) || b.contains(a) || [a, b].some(
        (el) => el.classList.contains("corner-join"))) return;
      const q = b.getBoundingClientRect();
      const x = Math.min(right, q.right) - Math.max(r.left, q.left);
      const y = Math.min(bottom, q.bottom) - Math.max(r.top, q.top);
      if (x > slack(a) && y > slack(a))
        found.push(`${name(a)} runs ${Math.round(x)}x${Math.round(y)} px into ${name(b)}`);
    });
  });
  const board = document.querySelector(".table .board");
  const corner = document.querySelector(".table .corner-join");
  if (board && corner) {
    const content = [...board.children].reduce(
      (bottom, c) => Math.max(bottom, c.getBoundingClientRect().bottom), 0);
    if (content > corner.getBoundingClientRect().top)
      found.push(`the board (to ${content} px) runs into the join QR`);
  }
  window.__fit.samples += 1;
  found.forEach((f) => window.__fit.problems.push(`${label}: ${f}`));
  return found;
};
document.addEventListener("splendor:swapped", () => requestAnimationFrame(() => {
  const screen = document.querySelector("#screen");
  if (screen) window.__measure(`version ${screen.dataset.version}`);
}));
})();
""".replace("REGIONS", json.dumps(REGIONS))
)
# The same, with the turn panel of a player at the TV as one more region.
TURN_PROBE = FIT_PROBE.replace(json.dumps(REGIONS), json.dumps(REGIONS + ", .table .tv-turn"))

# Fill every player's panel as full as a game can: three reserved cards, three nobles.
WORST_TABLE_JS = """
() => {
  const card = document.querySelector(".market .card[data-card]");
  const noble = document.querySelector(".board .noble");
  const qr = document.querySelector(".corner-join .small-qr svg");
  document.querySelectorAll(".table .player").forEach((panel) => {
    let row = panel.querySelector(".reserved");
    if (!row) {
      row = document.createElement("div");
      row.className = "row reserved";
      panel.appendChild(row);
    }
    row.replaceChildren(card.cloneNode(true), card.cloneNode(true), card.cloneNode(true),
      noble.cloneNode(true), noble.cloneNode(true), noble.cloneNode(true));
    // A seat whose phone is away: its rejoin code, QR and "Let a bot play" on the host TV
    // (a player at the TV has no phone to be away).
    const header = panel.querySelector("header");
    if (!header.querySelector(".rejoin") && !header.querySelector(".tv-tag")) {
      const away = document.createElement("span");
      away.innerHTML = '<span class="tag away">away</span><span class="rejoin">rejoin code '
        + '<strong>ABCDEF</strong></span><span class="qr rejoin-qr"></span>'
        + '<form class="inline stand-in"><button type="button" class="small">Let a bot play'
        + '</button></form>';
      away.querySelector(".rejoin-qr").append(qr.cloneNode(true));
      header.querySelector(".score").before(...away.childNodes);
    }
  });
  const turn = document.querySelector(".table .turn-line");
  if (!document.querySelector(".table .final-round")) {
    const banner = document.createElement("div");
    banner.className = "banner final-round";
    // The longest of the three languages' banners.
    banner.textContent = "Letzte Runde! Jemand hat 15 Punkte: Die Runde wird zu Ende "
      + "gespielt, damit alle gleich oft am Zug waren.";
    turn.after(banner);
  }
}
"""

# The smallest font size of any element that shows text, and where it is.
SMALLEST_TEXT_JS = """
() => {
  let min = Infinity, where = "";
  document.querySelectorAll("body *").forEach((el) => {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) return;
    if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) return;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || el.closest(".visually-hidden, [hidden]")) return;
    const size = parseFloat(style.fontSize);
    if (size < min) {
      min = size;
      where = `${el.className} "${el.textContent.trim().slice(0, 20)}"`;
    }
  });
  return {min, where};
}
"""


def _watcher(recorder: Recorder, width: int, height: int) -> Table:
    """A second TV (a spectator) at another size."""
    context = recorder._context(viewport={"width": width, "height": height})
    screen = Table(page=context.new_page(), context=context, label=f"TV-{width}x{height}")
    screen.watch()
    recorder.screens.append(screen)
    return screen


def _check(page: Page, label: str) -> None:
    found: list[str] = page.evaluate("label => window.__measure(label)", label)
    assert not found, f"{label}: the TV does not fit the screen:\n" + "\n".join(found)


def _assert_no_problems(screen: Table, when: str) -> None:
    fit: dict[str, Any] = screen.page.evaluate("window.__fit")
    assert fit["samples"] > 0, f"{screen.label}: the probe saw no updates {when}"
    assert not fit["problems"], f"{screen.label} {when}: " + "\n".join(fit["problems"][:10])


def _qr_decodes(screen: Table, url: str, label: str) -> None:
    box = screen.page.locator(".corner-join .small-qr").bounding_box()
    size = screen.page.viewport_size
    assert box and size, f"{label}: no corner QR"
    inside = box["x"] >= 0 and box["y"] >= 0 and box["y"] + box["height"] <= size["height"]
    assert inside, f"{label}: the corner QR is not wholly on screen: {box}"
    assert url in decode_qr(screen.page.screenshot()), f"{label}: the corner QR does not decode"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_tv_fits_a_whole_game(
    recorder: Recorder, font_copies: FontCopies, tv: Table, players: int
) -> None:
    """Played once with the machine's fonts; every update either TV showed is checked
    again as DejaVu, Liberation and Noto alone draw a copy of it (FontCopies)."""
    tv.context.add_init_script(FIT_PROBE)
    tv.context.add_init_script(COPY_PROBE)
    url = tv.new_game(recorder.server)
    _text_large_enough(tv, "the lobby")
    for _ in range(players):
        tv.add_bot()
    small = _watcher(recorder, *SIZES[1])
    small.context.add_init_script(FIT_PROBE)
    small.context.add_init_script(COPY_PROBE)
    screens = (tv, small)
    with tv.page.expect_navigation():
        tv.page.locator("#start-game").click()
    small.page.goto(f"/host/{tv.code}/")
    # The bots play at once and fast: the probe measures every update on its
    # own; screenshots and the QR are taken once the game is over and quiet.
    for screen in screens:
        _check(screen.page, f"{screen.label} {players} players at the start")
    for screen in screens:
        shot = f"tv-{players}p-{screen.label}"
        expect(screen.page.locator(".end-screen")).to_be_visible(timeout=120000)
        screen.settle(timeout=30000)
        _assert_no_problems(screen, "during the game")
        _check(screen.page, f"{screen.label} {players} players at the end")
        copies = screen.page.evaluate("window.__copies")
        copies.append(("at the end", screen.page.evaluate(PAGE_COPY_JS)))
        screen.shot(f"{shot}-end")
        # Put the end screen aside to see the final table; bring it back.
        screen.page.locator("#end-close").click()
        expect(screen.page.locator(".end-screen")).to_be_hidden()
        _qr_decodes(screen, url, f"{screen.label} at the end")
        screen.shot(f"{shot}-final-table")
        screen.page.evaluate(WORST_TABLE_JS)
        _check(screen.page, f"{screen.label} {players} players, every panel full")
        if screen is tv:
            _text_large_enough(tv, "the table, every panel full")
        copies.append(("every panel full", screen.page.evaluate(PAGE_COPY_JS)))
        _qr_decodes(screen, url, f"{screen.label} with every panel full")
        screen.shot(f"{shot}-full-panels")
        _check_copies(font_copies, screen, copies, players)
        screen.page.locator("#show-results").click()
        expect(screen.page.locator(".end-screen")).to_be_visible()

    _text_large_enough(tv, "the end screen")
    assert (ARTIFACTS / f"tv-{players}p-TV-end.png").exists()


def _text_large_enough(tv: Table, where: str) -> None:
    """No text on the 1080p TV smaller than MIN_FONT_1080P."""
    smallest: dict[str, Any] = tv.page.evaluate(SMALLEST_TEXT_JS)
    assert smallest["min"] >= MIN_FONT_1080P - 0.01, (
        f"{where}: text below {MIN_FONT_1080P} px on the 1080p TV: {smallest}"
    )


def _check_copies(copies: FontCopies, screen: Table, shown: Copies, players: int) -> None:
    """Every copy of what `screen` showed, laid out by each other font setup at the
    screen's size and measured as the screen was; the last one (every panel full) is
    kept as a screenshot per setup."""
    options = {"viewport": screen.page.viewport_size}
    found = copies.check_all(
        shown, screen.label, options, ".table .turn-line", FIT_PROBE, "__measure"
    )
    for fonts, _browser in copies.setups:
        page = copies.pages[(fonts.name, screen.label)]
        page.screenshot(
            path=ARTIFACTS / f"tv-{players}p-{fonts.name}-{screen.label}-full-panels.png"
        )
    assert not found, (
        f"{screen.label} {players} players: the TV does not fit the screen:\n"
        + "\n".join(found[:10])
    )


# The fullest turn panel: three reserved cards (one from a deck, face down).
WORST_TURN_JS = """
() => {
  const row = document.querySelector("#tv-turn #my-reserved");
  const card = document.querySelector(".market .card[data-card]");
  const back = document.querySelector(".board .deck");
  if (row.querySelector(".card")) return;
  row.replaceChildren(card.cloneNode(true), card.cloneNode(true), back.cloneNode(true));
}
"""


def test_a_player_at_the_tv_has_the_turn_panel_beside_a_full_table(
    recorder: Recorder, font_copies: FontCopies, tv: Table
) -> None:
    """Four players, one at the TV: on its turn, the turn panel and the whole table fit
    a 1080p and a 720p TV, nothing cut off or covered (the panel included), also once
    that player holds three reserved cards; with the machine's fonts, and on a copy with
    DejaVu, Liberation and Noto each alone (FontCopies)."""
    tv.context.add_init_script(TURN_PROBE)
    tv.new_game(recorder.server)
    tv.page.locator("#tv-player-name").fill("Aino Aaltonen-Virtanen")
    with tv.page.expect_navigation():
        tv.page.locator("#add-tv-player").click()
    tv.wait_connected()
    for _ in range(3):
        tv.add_bot()
    tv.start()
    expect(tv.page.locator("#tv-turn #hand")).to_have_count(1, timeout=60000)
    tv.settle()
    for width, height in SIZES:
        tv.page.set_viewport_size({"width": width, "height": height})
        _turn_fits(font_copies, tv, (width, height), "")
        # The player at the TV holding three reserved cards (the players' panels beside
        # it are narrower: all four of them as full as WORST_TABLE_JS makes them do not
        # fit there, which no test claims).
        tv.page.evaluate(WORST_TURN_JS)
        _turn_fits(font_copies, tv, (width, height), "-full")


def _turn_fits(copies: FontCopies, tv: Table, size: tuple[int, int], case: str) -> None:
    width, height = size
    options = {"viewport": {"width": width, "height": height}}
    key, drawn = f"TV-{width}", ".tv-turn > h2"
    for setup, page in each_font(copies, tv.page, key, options, drawn, TURN_PROBE):
        picture(page, f"tv-turn-{setup}-{width}{case}")
        held = ", three reserved" if case else ""
        _check(page, in_setup(f"the turn of a player at the TV, {width}x{height}{held}", setup))
