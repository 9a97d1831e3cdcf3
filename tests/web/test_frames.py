"""A screen built from change frames is the screen a fresh render shows, all game long.

Screens get only the regions whose HTML changed (game.screens.regions.Shown), and regions
are remembered by keys that sum up what they show. A key that misses something a
region shows would leave a screen showing an old value (a marker that never goes,
a count one change behind) that no single-change test notices. Here a whole game
is played, with reserves, returns and nobles; after every change each screen's
page, built from its frames alone, is compared region by region with a fresh
render of the same change, made with every cache emptied.
"""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from game.bot_levels import make_level_bot
from game.engine.projection import TABLE, views_for
from game.screens import first_paint, regions
from game.screens.join_qr import join_url
from game.screens.phone import phone_screen
from game.screens.table import table_screen
from game.storage import readmodel
from game.writer import moves
from tests.web.helpers import Page, elements, find_element, open_lobby, start, state_of

pytestmark = pytest.mark.django_db

# What the page's script sets from the meta regions (static/js/app.js, copyMeta), which
# are compared themselves: the screen's own attributes and the panels' turn markers.
_SCRIPTED = re.compile(
    r'(?<=<main id="screen") [^>]*|(?<=<main id="hand") [^>]*| (?:current|acted-last)(?=[ "])'
)
# Whitespace between two tags (a swap may keep or drop a line break there).
_BETWEEN_TAGS = re.compile(r">\s+<")
_PRESERVED = re.compile(r'<[^>]*\bid="([^"]+)"[^>]*\shx-preserve[^>]*>')


def _regions_by_id(html: str) -> dict[str, str]:
    """Every element with an id, as a page shows it. An element that holds the action
    sheets counts by its opening tag only: new sheets go at the end of the list, a
    fresh page lists them in the market's order. A QR code's inside is left out (the
    browser keeps the one it shows: hx-preserve), and so is whitespace between tags.
    What the page's script sets and whitespace between tags go from the whole page at
    once (an element's text is a slice of it), and the page is scanned once."""
    for element_id in _PRESERVED.findall(html):
        found = find_element(html, element_id)
        assert found is not None
        html = html[: found.inner_start] + html[found.inner_end :]
    html = _SCRIPTED.sub("", html).replace(' hx-swap-oob="true"', "")
    html = _BETWEEN_TAGS.sub("><", html)
    found_elements = elements(html)
    sheets = next((element for element in found_elements if element.id == "sheets"), None)
    shown = {}
    for element in found_elements:
        if not element.id:
            continue
        holds_sheets = sheets is not None and element.start <= sheets.start < element.end
        shown[element.id] = html[
            element.start : element.inner_start if holds_sheets else element.end
        ]
    return shown


def _screens(game_id: int) -> dict[str, regions.Screen]:
    """What the TV and each phone show at the game's current version."""
    room, _holders, state, log = readmodel.read(game_id)
    room = room.with_presence(frozenset(seat.id for seat in room.seats))
    assert state is not None
    views = views_for(state, [TABLE, *range(len(room.seats))])
    url = join_url(room.code, "8000")
    found = {"tv": table_screen(room, views[TABLE], log=log, is_host=True, url=url, csrf="c")}
    for seat in room.seats:
        found[f"seat {seat.position}"] = phone_screen(
            room, views[seat.position], seat.position, log
        )
    return found


@pytest.mark.slow  # a whole game, every screen rendered twice a change: about 10 s
def test_every_screen_built_from_frames_shows_what_a_fresh_render_shows() -> None:
    table = start(open_lobby(("Ada", "Bob", "Cy", "Di"), seed=7), first_player=0)
    pages = {name: Page() for name in ("tv", "seat 0", "seat 1", "seat 2", "seat 3")}
    shown = {name: regions.Shown() for name in pages}
    kinds: set[str] = set()
    with translation.override("en"):
        while True:
            for name, screen in _screens(table.game_id).items():
                pages[name].apply(shown[name].frame(screen))
            first_paint.clear_cache()  # every region made again, from nothing
            for name, screen in _screens(table.game_id).items():
                fresh = _regions_by_id(regions.Shown().frame(screen))
                built = _regions_by_id(pages[name].html)
                assert built.keys() == fresh.keys(), (name, built.keys() ^ fresh.keys())
                changed = [i for i in fresh if built[i] != fresh[i]]
                assert not changed, (name, state_of(table.game_id).moves, changed[:3])
            state = state_of(table.game_id)
            if state.is_over:
                break
            # Easy bots: half their moves at random, so reserves (blind ones too), returns
            # and wasted turns come up besides the greedy bot's buys and nobles.
            bot = make_level_bot("easy", 1000 + state.moves)
            action = bot.choose(state, state.current).notation()
            kinds.add(action.split(":")[0])
            moves.play(table.game_id, table.player(state.current).key, action, state.moves)
    # The game went through what the docstring promises.
    assert {"take", "buy", "reserve", "return"} <= kinds, kinds
    assert any(p.nobles for p in state.players)
    assert any(any(p.blind) for p in state.players)
