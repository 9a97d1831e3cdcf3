"""The story of a game in a real browser: the TV's end screen, the replay's chart and the
Players page, at 1080p and 720p, for two and four players, in English, German and Finnish.

Games come from records (docs/records.md) imported with import_game, which analyses a
finished game as the server does (2 playouts a position here: the same code, cheaply),
into a server of the module's own.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from game.engine import new_game
from game.engine.bot_registry import make_bot
from game.engine.rules import apply_action
from game.engine.story import PlayedGame
from game.records import archive
from game.screens.story import points_by_round
from tests.browser.helpers import Recorder, Server
from tests.browser.test_replay import import_into_server

pytestmark = pytest.mark.browser

SCREENS = ((1920, 1080), (1280, 720))
# The TV's text is 24 px on a 1080p screen and in proportion on a 720p one (the page's
# sizes follow the screen's height): the same size on the same TV.
TV_TEXT_AT_1080 = 24
LANGUAGES = {"en": "Round", "de": "Runde", "fi": "Kierro"}  # "kierros", "kierrokseen"
NAMES = ("Aino", "Łukasz", "Ελένη", "Tia")


def bot_record(players: int, seed: int) -> archive.Record:
    """A whole game of greedy bots, as a record whose seats are people by name."""
    state = new_game(players, seed)
    bots = [make_bot("greedy", seat + 1) for seat in range(players)]
    moves = []
    while not state.is_over:
        action = bots[state.current].choose(state, state.current)
        apply_action(state, action)
        moves.append(action.notation())
    return archive.Record(
        seed=seed,
        seats=[archive.SeatRecord(archive.HUMAN, name) for name in NAMES[:players]],
        first_player=state.first_player,
        moves=moves,
        result=archive.result_of(state),
    )


# The smallest text inside `root` as drawn: an element's own text at its computed size,
# and an SVG's text at its size in viewBox units times the SVG's scale on screen.
SMALLEST_TEXT_JS = """
(selector) => {
  const root = document.querySelector(selector);
  let smallest = Infinity, where = "";
  for (const el of root.querySelectorAll("*")) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.getClientRects().length) continue;
    if (el.closest(".visually-hidden, .sr-only, title, desc")) continue;
    let size = parseFloat(getComputedStyle(el).fontSize);
    const svg = el.closest("svg");
    if (svg && svg.viewBox.baseVal && svg.viewBox.baseVal.width) {
      size = size * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    }
    if (size < smallest) {
      smallest = size;
      where = el.tagName + ": " + el.textContent.trim().slice(0, 40);
    }
  }
  return [smallest, where];
}
"""

# Everything the selector matches lies within the window, and the page does not scroll.
ON_SCREEN_JS = """
(selector) => {
  const out = [];
  for (const el of document.querySelectorAll(selector)) {
    const r = el.getBoundingClientRect();
    if (r.left < -1 || r.top < -1 || r.right > innerWidth + 1 || r.bottom > innerHeight + 1) {
      const box = [r.left, r.top, r.right, r.bottom].map(Math.round).join(",");
      out.push(`${el.id || el.className.baseVal || el.className} at ${box}`);
    }
  }
  const page = document.scrollingElement;
  if (page.scrollHeight > innerHeight + 1 || page.scrollWidth > innerWidth + 1) {
    out.push(`the page scrolls: ${page.scrollWidth}x${page.scrollHeight}`);
  }
  return out;
}
"""


def in_language(page: Page, server: Server, language: str) -> None:
    page.context.add_cookies([{"name": "django_language", "value": language, "url": server.url}])


def smallest_text(page: Page, selector: str) -> tuple[float, str]:
    size, where = page.evaluate(SMALLEST_TEXT_JS, selector)
    return float(size), str(where)


# The screens of this module's tests use a server of its own that tells stories (conftest).
STORY_SERVER = True


@pytest.fixture(scope="module")
def codes(story_server: Server) -> dict[int, tuple[str, archive.Record]]:
    found = {}
    for players, seed in ((2, 71), (4, 72)):
        record = bot_record(players, seed)
        found[players] = (import_into_server(story_server, record), record)
    return found


def test_the_end_screen_tells_the_story_on_every_tv_in_three_languages(
    recorder: Recorder, story_server: Server, codes: dict[int, tuple[str, archive.Record]]
) -> None:
    page = recorder.table().page
    for language, round_word in LANGUAGES.items():
        in_language(page, story_server, language)
        for players, (code, _record) in codes.items():
            page.goto(f"{story_server.url}/host/{code}/")
            end = page.locator("#end-screen")
            expect(end.locator("#chances-chart svg")).to_be_visible()
            expect(end.locator("#turning-point")).to_contain_text(round_word)
            expect(end.locator(".ranking tbody tr")).to_have_count(players)
            for width, height in SCREENS:
                page.set_viewport_size({"width": width, "height": height})
                page.evaluate("() => new Promise(r => requestAnimationFrame(() => r()))")
                where = f"{players} players, {width}x{height}, {language}"
                assert page.evaluate(ON_SCREEN_JS, "#end-screen, #end-screen svg") == [], where
                clipped = end.evaluate("e => e.scrollHeight - e.clientHeight")
                assert clipped <= 1, f"the end screen scrolls {clipped} px: {where}"
                size, text = smallest_text(page, "#end-screen")
                least = TV_TEXT_AT_1080 * height / 1080 - 0.5
                assert size >= least, f"{text} {size:.1f} px: {where}"
            # The result steps aside for the final table, and comes back.
            page.locator("#end-close").click()
            expect(end).to_be_hidden()
            expect(page.locator(".player .seat-mark")).to_have_count(players)
            page.locator("#show-results").click()
            expect(end.locator("#chances-chart svg")).to_be_visible()


def test_a_tap_on_the_replays_chart_jumps_to_that_round(
    recorder: Recorder, story_server: Server, codes: dict[int, tuple[str, archive.Record]]
) -> None:
    code, record = codes[4]
    played = PlayedGame(4, record.seed, tuple(record.moves), record.first_player)
    turns = points_by_round(played).turns
    page = recorder.table().page
    for language, round_word in LANGUAGES.items():
        in_language(page, story_server, language)
        for width, height in SCREENS:
            page.set_viewport_size({"width": width, "height": height})
            page.goto(f"{story_server.url}/replay/{code}/")
            chart = page.locator("#replay-story")
            expect(chart.locator("svg")).to_be_hidden()  # the table first; the chart on demand
            chart.locator("summary").click()
            expect(chart.locator("svg")).to_be_visible()
            assert page.evaluate(ON_SCREEN_JS, "#replay-story, #replay-story svg") == []
            size, text = smallest_text(page, "#replay-story")
            assert size >= TV_TEXT_AT_1080 * height / 1080 - 0.5, f"{text} {size:.1f} px"
            target = 3 + (width == 1920)
            link = chart.locator(f'a.chart-link[href*="step={turns[target]}&"]')
            label = str(link.get_attribute("aria-label"))
            assert round_word.lower() in label.lower() and str(target) in label, label
            link.click()
            expect(page.locator("#replay")).to_have_attribute("data-step", str(turns[target]))
            expect(chart).to_have_attribute("open", "")  # the chart stays open there
            expect(chart.locator(f'.chart-current[data-x="{target}"]')).to_have_count(1)


def test_the_players_page_draws_the_household_on_every_tv(
    recorder: Recorder, story_server: Server, codes: dict[int, tuple[str, archive.Record]]
) -> None:
    page = recorder.table().page
    for language in LANGUAGES:
        in_language(page, story_server, language)
        for width, height in SCREENS:
            page.set_viewport_size({"width": width, "height": height})
            page.goto(f"{story_server.url}/players/")
            charts = page.locator("main svg[role]")
            expect(charts.first).to_be_visible()
            assert charts.count() >= 4  # each player's cards, head to head, wins
            wide = page.evaluate(
                "() => [...document.querySelectorAll('main svg[role]')]"
                ".filter(s => s.getBoundingClientRect().right > innerWidth + 1).length"
            )
            assert wide == 0
            assert page.evaluate("() => document.scrollingElement.scrollWidth") <= width
