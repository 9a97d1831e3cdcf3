"""Every page fits its screen, in every language, with every common font.

The replay (first, middle and last turn), the start page and the lobby at both
TV sizes; the start page at 360x740; a whole 4-player game on 360x740 phones in
English, German and Finnish, checked on every turn; the connection banner in
every language; the hint button after its answer; the favicon. No page may
get a 4xx answer, and axe-core finds nothing on the replay or the start page.
The fit tests run with the machine's fonts, and each page they check is checked
again as DejaVu, Liberation and Noto each alone draw a copy of it (FontCopies; a
game is played once, and the TV keeps a copy of every update):
what they check is what a person would see as cut off or off the screen, not the
few px of a tall font's empty box (helpers.SLACK_EM).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from django.utils import translation
from django.utils.translation import gettext
from playwright.sync_api import BrowserContext, Page, Response, ViewportSize, expect

from game.engine import apply_action, new_game
from game.engine.bot_registry import make_bot
from game.records import archive
from tests.browser.font_copies import (
    COPY_PROBE,
    FontCopies,
    each_font,
    in_setup,
    picture,
)
from tests.browser.game_setup import by_turn, start_game
from tests.browser.helpers import (
    ARTIFACTS,
    BASE_DIR,
    CUT_JS,
    PHONE_OPTIONS,
    Phone,
    Recorder,
    Server,
    Table,
    axe_violations,
)
from tests.browser.test_layout import MIN_TARGET, OVERFLOW_JS
from tests.browser.test_tv_layout import FIT_PROBE, MIN_FONT_1080P, SIZES, SMALLEST_TEXT_JS

pytestmark = pytest.mark.browser

LANGUAGES = ("en", "de", "fi")
PHONE_SIZE = (PHONE_OPTIONS["viewport"]["width"], PHONE_OPTIONS["viewport"]["height"])
NAMES = ("Aino Aaltonen-Virtanen", "Bertil Bäckström", "Cecilia Virtanen")


# ---------------------------------------------------------------- what every test watches


@pytest.fixture
def bad_answers(recorder: Recorder) -> Iterator[list[str]]:
    """Every 4xx or 5xx answer any page of the test got; none may come."""
    found: list[str] = []
    make_context = recorder._context

    def watched(**options: Any) -> BrowserContext:
        context = make_context(**options)

        def on_response(response: Response) -> None:
            if response.status >= 400:
                found.append(f"{response.status} {response.request.method} {response.url}")

        context.on("response", on_response)
        return context

    recorder._context = watched  # type: ignore[method-assign]
    yield found
    assert not found, "pages got error answers:\n" + "\n".join(found)


def screen_at(recorder: Recorder, size: tuple[int, int], language: str, label: str) -> Table:
    """A TV (or computer) screen of this size whose browser asks for this language."""
    width, height = size
    context = recorder._context(viewport={"width": width, "height": height}, locale=language)
    screen = Table(page=context.new_page(), context=context, label=label)
    screen.watch()
    recorder.screens.append(screen)
    return screen


def phone_in(recorder: Recorder, language: str, label: str, *, wifi: bool = False) -> Phone:
    """A 360x740 phone whose browser asks for this language (with a Wi-Fi of its own)."""
    context = recorder._context(**PHONE_OPTIONS, locale=language, wifi=wifi)
    phone = Phone(page=context.new_page(), context=context, label=label)
    phone.wifi = recorder.relays.get(id(context))
    phone.watch()
    recorder.screens.append(phone)
    return phone


def snapshot(screen: Table | Phone, name: str, *, full_page: bool = False) -> None:
    """A screenshot of the screen's page (font_copies.picture)."""
    picture(screen.page, name, full_page=full_page)


# Whether the page is exactly one screen, and anything that sticks out of it or hides
# part of what it holds.
ONE_SCREEN_JS = (
    """
(selectors) => {"""
    + CUT_JS
    + """
  const root = document.scrollingElement, w = innerWidth, h = innerHeight;
  const found = [];
  if (root.scrollHeight > h) found.push(`page ${root.scrollHeight} px tall in ${h}`);
  if (root.scrollWidth > w) found.push(`page ${root.scrollWidth} px wide in ${w}`);
  document.querySelectorAll(selectors).forEach((el) => {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) return;
    const name = `${el.tagName.toLowerCase()}#${el.id}.${[...el.classList].join(".")}`;
    if (r.left < -0.5 || r.top < -0.5 || r.right > w + 0.5 || r.bottom > h + 0.5)
      found.push(`${name} at ${Math.round(r.left)},${Math.round(r.top)}`
        + `..${Math.round(r.right)},${Math.round(r.bottom)} in ${w}x${h}`);
    const over = Math.max(el.scrollHeight - el.clientHeight, el.scrollWidth - el.clientWidth);
    if (clips(el) && over > slack(el))
      found.push(`${name} cut off: ${el.scrollWidth}x${el.scrollHeight} in `
        + `${el.clientWidth}x${el.clientHeight}`);
  });
  return found;
}
"""
)


def assert_one_screen(page: Page, where: str, selectors: str) -> None:
    found: list[str] = page.evaluate(ONE_SCREEN_JS, selectors)
    assert not found, f"{where} does not fit its screen:\n" + "\n".join(found)


def assert_text_size(page: Page, where: str, minimum: float) -> None:
    smallest: dict[str, Any] = page.evaluate(SMALLEST_TEXT_JS)
    assert smallest["min"] >= minimum - 0.01, f"{where}: text under {minimum} px: {smallest}"


# ---------------------------------------------------------------- games kept on the server


def bot_record(seed: int, humans: tuple[str, ...], bots: int) -> archive.Record:
    """A whole game by greedy bots, kept as if these people and bots had played it."""
    players = len(humans) + bots
    state = new_game(players, seed)
    movers = [make_bot("greedy", seat + 1) for seat in range(players)]
    moves = []
    while not state.is_over:
        action = movers[state.current].choose(state, state.current)
        apply_action(state, action)
        moves.append(action.notation())
    seats = [archive.SeatRecord(archive.HUMAN, name) for name in humans]
    seats += [archive.SeatRecord(archive.BOT, "hard") for _ in range(bots)]
    return archive.Record(
        seed=seed,
        seats=seats,
        first_player=state.first_player,
        moves=moves,
        result=archive.result_of(state),
    )


STORE_RECORDS = """
import sys
from pathlib import Path
from game.records import archive
for path in sys.argv[1:]:
    print("stored", archive.store(archive.read(Path(path).read_text(encoding="utf-8"))).code)
"""


def keep_games(server: Server, records: list[archive.Record]) -> list[str]:
    """Store the records in the live server's database; return their room codes."""
    paths = []
    for number, record in enumerate(records):
        path = server.log.parent / f"fit-{record.seed}-{number}.txt"
        path.write_text(archive.write(record), encoding="utf-8")
        paths.append(str(path))
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env["SPLENDOR_DB_PATH"] = str(server.log.parent / "db.sqlite3")
    script = server.log.parent / "store_records.py"
    script.write_text(STORE_RECORDS, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(BASE_DIR / "manage.py"), "shell", "-c", _run_script(script, paths)],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    codes = [line.split()[1] for line in done.stdout.splitlines() if line.startswith("stored ")]
    assert len(codes) == len(records), done.stdout + done.stderr
    return codes


def _run_script(script: Path, paths: list[str]) -> str:
    return (
        f"import sys, runpy; sys.argv = {[str(script), *paths]!r}; "
        f"runpy.run_path({str(script)!r}, run_name='__main__')"
    )


# ---------------------------------------------------------------- the replay

REPLAY_PARTS = (
    "#replay-bar, .replay-steps, .table .board, .table .player, .table .turn-line, "
    ".table .last-turn, .table .game-log, .end-screen"
)


def test_the_replay_fits_the_tv_on_its_first_middle_and_last_turn(
    recorder: Recorder, font_copies: FontCopies, bad_answers: list[str], axe: Path
) -> None:
    """Each step with the machine's fonts, then a copy of it with DejaVu, Liberation and
    Noto each alone (FontCopies): the same checks on each."""
    record = bot_record(31, NAMES, bots=1)
    (code,) = keep_games(recorder.server, [record])
    found: list[str] = []
    for size in SIZES:
        tv = screen_at(recorder, size, "en", f"TV-{size[0]}x{size[1]}")
        tv.page.add_init_script(FIT_PROBE)
        tv.page.goto(f"/replay/{code}/")
        last = int(tv.page.locator("#replay").get_attribute("data-last") or 0)
        options = {"viewport": {"width": size[0], "height": size[1]}, "locale": "en"}
        for step in (0, last // 2, last):
            _replay_step(tv, step)
            shown = each_font(
                font_copies, tv.page, tv.label, options, ".table .turn-line", FIT_PROBE
            )
            for setup, page in shown:
                where = f"the replay at {size[0]}x{size[1]}, turn {step} of {last}"
                found += _replay_fits(page, in_setup(where, setup), size, (step, last), axe)
                picture(page, f"fit-replay-{setup}-{size[0]}-step-{step}")
            if step == last:
                _the_result_steps_aside(tv)
    assert not found, "\n".join(found)


def _replay_fits(
    page: Page, where: str, size: tuple[int, int], turn: tuple[int, int], axe: Path
) -> list[str]:
    """One screen, nothing cut off or running into another region (the TV's own check);
    on the last turn, the result whole over the table; at 1080p, the text large enough
    on the last turn, and what axe-core finds on the deal and the last turn (returned)."""
    step, last = turn
    assert_one_screen(page, where, REPLAY_PARTS)
    problems = page.evaluate("label => window.__measure(label)", where)
    assert not problems, "\n".join(problems)
    if step == last:
        _the_result_is_whole(page, where)
    if size != SIZES[0] or step not in (0, last):
        return []
    if step == last:
        assert_text_size(page, where, MIN_FONT_1080P)
    return axe_violations(page, axe, where)


def _replay_step(tv: Table, step: int) -> None:
    """Go to a step with the page's own Go to turn form, as a viewer would, and wait for
    the step's #replay to replace the one shown (htmx swaps it): its data-step alone
    already read 0 on the page as loaded, so the next step's number went into a form
    about to be replaced, and htmx dropped its request while step 0's was on the way
    (the replay stayed at 0 on a busy machine)."""
    tv.page.locator("#replay").evaluate("shown => shown.setAttribute('data-shown', '')")
    tv.page.locator("#replay-turn").fill(str(step))
    tv.page.locator("#replay-go").click()
    expect(tv.page.locator("#replay:not([data-shown])")).to_have_attribute("data-step", str(step))


def _the_result_is_whole(page: Page, where: str) -> None:
    """On the last turn the result is whole on screen, over the table, below the steps."""
    result = page.locator("#replay .end-screen")
    expect(result).to_be_visible()
    expect(result.locator(".ranking tbody tr")).to_have_count(4)
    box = result.bounding_box()
    size = page.viewport_size
    assert box and size
    inside = box["x"] >= 0 and box["y"] >= 0
    inside = inside and box["x"] + box["width"] <= size["width"]
    assert inside and box["y"] + box["height"] <= size["height"], f"{where}: the result at {box}"
    steps = page.locator(".replay-steps").bounding_box()
    assert steps and steps["y"] + steps["height"] <= box["y"], (
        f"{where}: the result covers the steps"
    )


def _the_result_steps_aside(tv: Table) -> None:
    """The result can be put aside, and brought back."""
    result = tv.page.locator("#replay .end-screen")
    tv.page.locator("#end-close").click()
    expect(result).to_be_hidden()
    tv.page.locator("#show-results").click()
    expect(result).to_be_visible()


# ---------------------------------------------------------------- the TV's game log

# After every update: each turn of the log is shown whole or not at all.
LOG_PROBE = """
window.__logCuts = {samples: 0, cuts: []};
window.__logCut = function () {
  const list = document.querySelector(".table .game-log ol");
  if (!list) return [];
  const box = list.getBoundingClientRect(), log = list.parentElement.getBoundingClientRect();
  const bottom = Math.min(box.bottom, log.bottom);
  return [...list.children].flatMap((li) => {
    const r = li.getBoundingClientRect();
    const seen = r.height && r.left < box.right - 0.5 && r.top < bottom - 0.5;
    return seen && (r.bottom > bottom + 0.5 || r.right > box.right + 0.5)
      ? [`${li.id} at ${Math.round(r.top)}..${Math.round(r.bottom)},`
        + ` shown to ${Math.round(bottom)}`]
      : [];
  });
};
document.addEventListener("splendor:swapped", () => requestAnimationFrame(() => {
  window.__logCuts.samples += 1;
  window.__logCuts.cuts.push(...window.__logCut());
}));
"""


# How many turns of the log show (at least in part).
LOG_SHOWN_JS = """
() => [...document.querySelectorAll('.table .game-log li')].filter((li) => {
  const r = li.getBoundingClientRect(), b = li.parentElement.getBoundingClientRect();
  return r.left < b.right;
}).length
"""


def test_the_tv_log_shows_whole_turns_only(
    recorder: Recorder, font_copies: FontCopies, bad_answers: list[str]
) -> None:
    """Played once with the machine's fonts; every update either TV showed is checked
    again as DejaVu, Liberation and Noto alone draw a copy of it (FontCopies)."""
    host = screen_at(recorder, SIZES[0], "de", "TV-1080")
    small = screen_at(recorder, SIZES[1], "fi", "TV-720")
    for screen in (host, small):
        screen.page.add_init_script(LOG_PROBE)
        screen.page.add_init_script(COPY_PROBE)
    host.new_game(recorder.server)
    for _ in range(4):
        host.add_bot()
    # The bots play at once and fast; each TV's probe measures every update it gets
    # (the first is its whole view), so nothing here waits for a quiet moment.
    with host.page.expect_navigation():
        host.page.locator("#start-game").click()
    small.page.goto(f"/host/{host.code}/")
    for screen, language in ((host, "de"), (small, "fi")):
        expect(screen.page.locator(".end-screen")).to_be_visible(timeout=120000)
        screen.settle(timeout=30000)
        result: dict[str, Any] = screen.page.evaluate("window.__logCuts")
        assert result["samples"] > 0, f"{screen.label}: the probe saw no update"
        assert not result["cuts"], f"{screen.label}: turns cut in half:\n" + "\n".join(
            result["cuts"][:10]
        )
        shown = screen.page.evaluate(LOG_SHOWN_JS)
        assert shown >= 2, f"{screen.label}: the log shows {shown} turns"
        snapshot(screen, f"fit-log-{screen.label}")
        _log_copies_whole(font_copies, screen, language)


def _log_copies_whole(copies: FontCopies, screen: Table, language: str) -> None:
    """Each copy of what the TV showed, as each other font setup draws it: no turn of
    the log cut in half, and at least two turns shown at the end."""
    shown_copies = screen.page.evaluate("window.__copies")
    options = {"viewport": screen.page.viewport_size, "locale": language}
    drawn = ".table .turn-line"
    cuts = copies.check_all(shown_copies, screen.label, options, drawn, LOG_PROBE, "__logCut")
    assert not cuts, f"{screen.label}: turns cut in half:\n" + "\n".join(cuts[:10])
    for fonts, _browser in copies.setups:
        page = copies.pages[(fonts.name, screen.label)]
        shown = page.evaluate(LOG_SHOWN_JS)
        assert shown >= 2, f"{screen.label}, with {fonts.name} alone: the log shows {shown} turns"
        page.screenshot(
            path=ARTIFACTS / f"fit-log-{fonts.name}-{screen.label}.png", caret="initial"
        )


# ---------------------------------------------------------------- the start page and the lobby

HOME_PARTS = ".home > *, .game-line, .home button, .home a, .home select, .home input"


def test_the_start_page_fits_a_tv_and_a_phone_in_every_language(
    recorder: Recorder, font_copies: FontCopies, bad_answers: list[str], axe: Path
) -> None:
    """Each page with the machine's fonts, then a copy of it with DejaVu, Liberation and
    Noto each alone (FontCopies): the same checks on each."""
    # A full page of finished 4-player games with long names, and games this TV hosts.
    records = [bot_record(seed, NAMES, bots=1) for seed in range(100, 108)]
    keep_games(recorder.server, records)
    found: list[str] = []
    for language in LANGUAGES:
        for size in SIZES:
            tv = screen_at(recorder, size, language, f"TV-{language}-{size[0]}")
            tv.new_game(recorder.server)
            tv.page.goto("/")
            expect(tv.page.locator(".game-line")).to_have_count(8)
            options = {"viewport": {"width": size[0], "height": size[1]}, "locale": language}
            for setup, page in each_font(font_copies, tv.page, tv.label, options, ".home .logo"):
                where = in_setup(f"the start page in {language} at {size[0]}x{size[1]}", setup)
                assert_one_screen(page, where, HOME_PARTS)
                if size == SIZES[0]:
                    assert_text_size(page, where, MIN_FONT_1080P)
                    found += axe_violations(page, axe, where)
                picture(page, f"fit-home-{setup}-{language}-{size[0]}")
        phone = phone_in(recorder, language, f"phone-{language}")
        phone.page.goto("/")
        phone.page.locator(".house-rules summary").tap()  # the checkbox is a target too
        expect(phone.page.locator(".house-rules input[type=checkbox]")).to_be_visible()
        options = {**PHONE_OPTIONS, "locale": language}
        for setup, page in each_font(font_copies, phone.page, phone.label, options, ".home .logo"):
            where = in_setup(f"the start page in {language} at 360 px", setup)
            _fits_a_phone(page, where, "a, button, input, select, summary")
            found += axe_violations(
                page, axe, in_setup(f"the start page on a phone in {language}", setup)
            )
            picture(page, f"fit-home-{setup}-{language}-phone", full_page=True)
    assert not found, "\n".join(found)


# Visible targets smaller than a fingertip, described for the message.
SMALL_TARGETS_JS = """
([selector, min]) => [...document.querySelectorAll(selector)].flatMap((el) => {
  const r = el.getBoundingClientRect();
  if (!r.width || !r.height || getComputedStyle(el).visibility === "hidden") return [];
  if (el.closest(".visually-hidden")) return [];
  if (r.width >= min - 0.01 && r.height >= min - 0.01) return [];
  const text = (el.textContent || el.value || el.type || "")
    .replace(/\\s+/g, " ").trim().slice(0, 30);
  return [`${el.tagName.toLowerCase()}.${[...el.classList].join(".")} "${text}" `
    + `${r.width.toFixed(1)}x${r.height.toFixed(1)}`];
})
"""


def _fits_a_phone(page: Page, where: str, targets: str) -> None:
    overflow: dict[str, Any] = page.evaluate(OVERFLOW_JS, PHONE_SIZE[0])
    assert overflow["scrollWidth"] <= PHONE_SIZE[0], f"{where} scrolls sideways: {overflow}"
    small: list[str] = page.evaluate(SMALL_TARGETS_JS, [targets, MIN_TARGET])
    assert not small, f"{where}: targets under {MIN_TARGET} px:\n" + "\n".join(small)


# Each setting: its question above, its choice and Save side by side, and the
# next setting below them (nothing wraps beside another's label).
SETTINGS_JS = """
() => [...document.querySelectorAll(".lobby form.stand-in-after, .lobby form.hard-bot-seconds")]
  .map((form) => {
    const box = (sel) => form.querySelector(sel).getBoundingClientRect();
    const label = box("label"), choice = box("select"), save = box("button");
    return {
      form: form.className,
      labelAbove: label.bottom <= choice.top + 0.5,
      saveBeside: save.top < choice.bottom && choice.top < save.bottom && save.left >= choice.right,
      bottom: Math.max(choice.bottom, save.bottom),
      top: label.top,
    };
  })
"""

LOBBY_PARTS = ".lobby > *, .lobby button, .lobby select, .lobby label, .lobby .qr"


def test_the_lobby_settings_fit_the_tv_in_every_language(
    recorder: Recorder, font_copies: FontCopies, bad_answers: list[str]
) -> None:
    """Each lobby with the machine's fonts, then a copy of it with DejaVu, Liberation and
    Noto each alone (FontCopies): the same checks on each."""
    for language in LANGUAGES:
        tv = screen_at(recorder, SIZES[0], language, f"TV-{language}")
        url = tv.new_game(recorder.server)
        for _ in range(2):
            tv.add_bot()
        for size in SIZES:  # the same lobby on a 1080p TV and a 720p one
            tv.page.set_viewport_size({"width": size[0], "height": size[1]})
            options = {"viewport": {"width": size[0], "height": size[1]}, "locale": language}
            key = f"{tv.label}-{size[0]}"
            for setup, page in each_font(font_copies, tv.page, key, options, ".lobby .seat-name"):
                _lobby_fits(
                    page, in_setup(f"the lobby in {language} at {size[0]}x{size[1]}", setup)
                )
                picture(page, f"fit-lobby-{setup}-{language}-{size[0]}")
        # A phone seated in the lobby.
        phone = phone_in(recorder, language, f"phone-{language}")
        phone.join(url, NAMES[0])
        options = {**PHONE_OPTIONS, "locale": language}
        for setup, page in each_font(font_copies, phone.page, phone.label, options, "#seated h1"):
            where = in_setup(f"a phone in the lobby in {language}", setup)
            _fits_a_phone(page, where, "#live a, #live button")


def _lobby_fits(page: Page, where: str) -> None:
    """The lobby on one screen, its text large enough on a 1080p TV, each setting's
    question above its choice and Save beside it."""
    assert_one_screen(page, where, LOBBY_PARTS)
    if page.viewport_size == {"width": SIZES[0][0], "height": SIZES[0][1]}:
        assert_text_size(page, where, MIN_FONT_1080P)
    settings: list[dict[str, Any]] = page.evaluate(SETTINGS_JS)
    assert len(settings) == 2, settings
    for setting in settings:
        assert setting["labelAbove"] and setting["saveBeside"], f"{where}: {setting}"
    assert settings[0]["bottom"] <= settings[1]["top"], f"{where}: {settings}"


# ---------------------------------------------------------------- a whole game on phones

# What a turn needs, each on screen (the page at its top): the status, my
# tokens and bonuses, the gems to take or give back, and the market.
TURN_FITS_JS = """
() => {
  window.scrollTo({top: 0, behavior: "instant"});
  const h = innerHeight, w = innerWidth;
  const need = ["#status", "#turn", ".mine .tokens", ".mine .bonuses", ".market-panel"];
  // The market is what a person reads in it: its cards, decks and the pay lines hanging
  // under them (the panel's box adds a margin below the last row that nobody sees cut).
  const market = [".market-panel .card", ".market-panel .deck", ".market-panel .pay-line"];
  // The step of the turn it is: the gems to take or give back, or the nobles to choose from.
  const step = ["[data-picker] .gem-buttons", "[data-picker] [data-confirm]", ".nobles-choice"];
  const off = [];
  const shown = (el) => { const r = el.getBoundingClientRect(); return r.width && r.height; };
  need.forEach((sel) => { if (!document.querySelector(sel)) off.push(`${sel} missing`); });
  const seen = [...need.filter((sel) => sel !== ".market-panel"), ...market, ...step];
  seen.forEach((sel) => document.querySelectorAll(sel).forEach((el) => {
    if (!shown(el)) return;
    const r = el.getBoundingClientRect();
    if (r.top < -0.5 || r.bottom > h + 0.5 || r.right > w + 0.5)
      off.push(`${sel} at ${Math.round(r.top)}..${Math.round(r.bottom)} px of ${h}`);
  }));
  if (!step.some((sel) => [...document.querySelectorAll(sel)].some(shown)))
    off.push("no step of the turn shown (gems or nobles)");
  // Each player's line keeps to one line.
  document.querySelectorAll("#status .opponent").forEach((line) => {
    const r = line.getBoundingClientRect();
    if (r.height > parseFloat(getComputedStyle(line).lineHeight) * 1.6)
      off.push(`the line of seat ${line.dataset.seat} is ${Math.round(r.height)} px high`);
  });
  if (document.scrollingElement.scrollWidth > w) off.push("the page scrolls sideways");
  return off;
}
"""

# The fullest turn a game can show: every card in the market affordable and the
# final-round banner (in the phone's language).
FULLEST_TURN_JS = """
(banner) => {
  const mark = document.querySelector(".market-panel .pay-line");
  document.querySelectorAll(".market-panel .card-button").forEach((button) => {
    if (button.querySelector(".pay-line")) return;
    button.classList.add("affordable");
    const line = document.createElement("span");
    line.className = "pay-line";
    line.innerHTML = mark ? mark.innerHTML
      : '<span class="can-buy"><span class="can-buy-mark">✓</span></span>';
    button.appendChild(line);
  });
  if (!document.querySelector("#status .final-round")) {
    const p = document.createElement("p");
    p.className = "banner final-round";
    p.textContent = banner;
    document.querySelector("#status .status-top").after(p);
  }
}
"""


def _check_turn(phone: Phone, where: str, copies: FontCopies) -> None:
    """The turn fits the phone, and a copy of it as each other font setup draws it (a
    page per setup and language)."""
    language = phone.label.split("-")[1]
    options = {**PHONE_OPTIONS, "locale": language}
    off: list[str] = []
    for setup, page in each_font(copies, phone.page, language, options, "#status .opponent"):
        found: list[str] = page.evaluate(TURN_FITS_JS)
        if found:
            picture(page, f"fit-phone-{phone.label}-{setup}-overflow")
        off += [f"{in_setup(where, setup)}: {problem}" for problem in found]
    assert not off, "the turn does not fit 360x740:\n" + "\n".join(off)


def test_a_four_player_game_fits_phones_in_english_german_and_finnish(
    recorder: Recorder, font_copies: FontCopies, bad_answers: list[str], tv: Table
) -> None:
    """Played once with the machine's fonts; each phone turn checked is also checked as
    DejaVu, Liberation and Noto alone draw it (FontCopies)."""
    url = tv.new_game(recorder.server)
    phones = []
    for language, name in zip(LANGUAGES, NAMES, strict=True):
        phone = phone_in(recorder, language, f"phone-{language}")
        phone.join(url, name)
        phones.append(phone)
    tv.add_bot()
    tv.start()
    tv.put_away()
    for phone in phones:  # each knows whose turn it is
        expect(phone.page.locator("#hand.phase-main, #hand.phase-return")).to_have_count(1)
        phone.settle()
    turns = _play_to_the_end(phones, font_copies)
    assert all(count >= 10 for count in turns.values()), turns
    assert len(font_copies.pages) == len(font_copies.setups) * len(LANGUAGES)
    for phone in phones:
        snapshot(phone, f"fit-phone-{phone.label}-end")


def _play_to_the_end(phones: list[Phone], copies: FontCopies) -> dict[str, int]:
    """Tap through a game of these phones and one bot, checking every phone turn.

    Returns how many turns (and steps of a turn) each phone played.
    """
    by_seat = {phone.seat(): phone for phone in phones}
    bot_seat = next(seat for seat in range(4) if seat not in by_seat)
    turns = {phone.label: 0 for phone in phones}
    waiting_for = by_seat[(bot_seat + 1) % 4]  # whoever plays first, someone comes next
    for _ in range(400):
        mover = next((p for p in phones if p.my_turn()), None)
        if mover is None:
            waiting_for.wait_turn(timeout=30000)
            if waiting_for.page.locator("#hand.phase-over").count():
                return turns
            continue
        turns[mover.label] += 1
        where = f"{mover.label}, its turn {turns[mover.label]}"
        _check_turn(mover, where, copies)
        if turns[mover.label] == 10:
            _check_fullest_turn(mover, where, copies)
        mover.play_turn(buy=True)
        if not mover.my_turn():  # its turn is over (not a step of it: give back, noble)
            following = (mover.seat() + 1) % 4
            waiting_for = by_seat[(following + 1) % 4 if following == bot_seat else following]
    raise AssertionError(f"no end after 400 phone turns: {turns}")


def _check_fullest_turn(phone: Phone, where: str, copies: FontCopies) -> None:
    language = phone.label.split("-")[1]
    with translation.override(language):
        banner = gettext("Final round!")
    phone.page.evaluate(FULLEST_TURN_JS, banner)
    _check_turn(phone, f"{where}, every card affordable, final round", copies)
    snapshot(phone, f"fit-phone-{phone.label}-fullest")
    phone.page.reload()  # the page as the server has it again
    phone.wait_connected()


# ---------------------------------------------------------------- the connection banner

# The banner's sentence is whole: inside the banner (but for the few px of its font's
# empty box), and the banner on screen.
BANNER_JS = (
    """
() => {"""
    + CUT_JS
    + """
  const box = document.querySelector(".live.offline .connection");
  if (!box) return ["no banner"];
  const label = box.querySelector("span");
  const range = document.createRange();
  range.selectNodeContents(label);
  const text = range.getBoundingClientRect(), b = box.getBoundingClientRect();
  const found = [], s = slack(box);
  if (b.left < 0 || b.right > innerWidth || b.bottom > innerHeight || b.top < 0)
    found.push(`the banner at ${Math.round(b.left)}..${Math.round(b.right)} in ${innerWidth}`);
  if (text.left < b.left - s || text.right > b.right + s || text.top < b.top - s
      || text.bottom > b.bottom + s)
    found.push(`"${label.textContent}" at ${Math.round(text.left)}..${Math.round(text.right)}`
      + `x${Math.round(text.top)}..${Math.round(text.bottom)} in ${Math.round(b.left)}`
      + `..${Math.round(b.right)}x${Math.round(b.top)}..${Math.round(b.bottom)}`);
  if (box.scrollWidth > box.clientWidth + s || box.scrollHeight > box.clientHeight + s)
    found.push(`"${label.textContent}" is cut off`);
  return found;
}
"""
)


def test_the_connection_banner_fits_a_phone_in_every_language(
    recorder: Recorder, font_copies: FontCopies, bad_answers: list[str], tv: Table
) -> None:
    """Each banner with the machine's fonts, then a copy of the phone's page with DejaVu,
    Liberation and Noto each alone (FontCopies)."""
    url = tv.new_game(recorder.server)
    phones = []
    for language, name in zip(LANGUAGES, NAMES, strict=True):
        phone = phone_in(recorder, language, f"phone-{language}", wifi=True)
        phone.join(url, name)
        phones.append(phone)
    # Every phone loses the network at once: each shows its banner after the same silence.
    for phone in phones:
        phone.set_network(False)
    for language, phone in zip(LANGUAGES, phones, strict=True):
        expect(phone.page.locator("#live.offline .connection")).to_be_visible(timeout=20000)
        _banner_fits(font_copies, phone, language, (360, 390), "")
        # The longer sentence of a page that gave way to another tab, as the page shows it.
        phone.page.evaluate(
            "() => { const live = document.getElementById('live');"
            " live.classList.add('parked');"
            " live.querySelector('.connection span').textContent ="
            " live.dataset.msgOtherTab; }"
        )
        _banner_fits(font_copies, phone, language, (390, 360), ", another tab")
    for phone in phones:
        phone.set_network(True)
        phone.page.reload()
        phone.wait_connected(timeout=20000)
        expect(phone.page.locator("#live.offline")).to_have_count(0)


def _banner_fits(
    copies: FontCopies, phone: Phone, language: str, widths: tuple[int, ...], case: str
) -> None:
    """The phone's banner whole at each width, with each font setup."""
    for width in widths:
        viewport: ViewportSize = {"width": width, "height": PHONE_SIZE[1]}
        phone.page.set_viewport_size(viewport)
        options = {**PHONE_OPTIONS, "viewport": viewport, "locale": language}
        key = f"{phone.label}-{width}"
        for setup, page in each_font(
            copies, phone.page, key, options, ".live.offline .connection span"
        ):
            found: list[str] = page.evaluate(BANNER_JS)
            assert not found, f"{in_setup(f'{language} at {width} px{case}', setup)}: {found}"
            if not case:
                picture(page, f"fit-banner-{setup}-{language}-{width}")


# ---------------------------------------------------------------- small things


def test_the_hint_button_says_its_name_again_once_answered(
    recorder: Recorder, bad_answers: list[str], tv: Table
) -> None:
    _url, phones = start_game(recorder, tv, ("Ada", "Bob"))
    phone, _other = by_turn(phones)
    button = phone.page.locator("#hint [data-hint]")
    label = button.inner_text()
    version = phone.version()
    button.tap()
    expect(phone.page.locator(f"#hint-answer-{version}[data-hint-action]")).to_be_visible(
        timeout=15000
    )
    expect(button).to_have_text(label)
    expect(button).to_be_enabled()


def test_the_favicon_is_a_gem_and_the_pages_link_it(
    recorder: Recorder, bad_answers: list[str], tv: Table
) -> None:
    tv.page.goto("/")
    icon = tv.page.locator("link[rel=icon]")
    expect(icon).to_have_count(1)
    # The gem is in the page itself: a phone that goes offline just after loading never
    # fetches it (and never logs its failure).
    href = unquote(icon.get_attribute("href") or "")
    assert href.startswith("data:image/svg+xml,<svg") and href.endswith("</svg>"), href[:60]
    ico = tv.page.request.get("/favicon.ico")
    assert ico.status == 200, f"/favicon.ico answered {ico.status}"
    assert ico.body()[:4] == b"\x00\x00\x01\x00", "not an icon file"
    url = tv.new_game(recorder.server)
    expect(tv.page.locator("link[rel=icon]")).to_have_count(1)
    phone = recorder.phone("Aino")
    phone.join(url, "Aino")
    expect(phone.page.locator("link[rel=icon]")).to_have_count(1)
