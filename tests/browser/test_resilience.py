"""A phone reloads, or loses its cookie: it gets its seat and the current state back.

On a server of this module's own whose connection runs on the compressed clock
(live_server.COMPRESSED): the presence grace and the heartbeat's silence these tests
wait for are five times shorter.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, expect

from tests.browser.conftest import recording
from tests.browser.game_setup import by_turn, start_game
from tests.browser.helpers import Phone, Recorder, Table, decode_qr
from tests.browser.live_server import COMPRESSED, LiveServer, serve
from tests.browser.test_faults import STEP_TIMEOUT

pytestmark = pytest.mark.browser

# When each socket of the page closed (the close event, whoever closed it), and when its
# connection line first said it was offline.
CLOSE_PROBE = """
(function () {
  var Original = window.WebSocket;
  window.__closes = [];
  window.__offlineAt = 0;
  function Watched(url, protocols) {
    var ws = protocols === undefined ? new Original(url) : new Original(url, protocols);
    ws.addEventListener("close", function () { window.__closes.push(Date.now()); });
    return ws;
  }
  Watched.prototype = Original.prototype;
  ["CONNECTING", "OPEN", "CLOSING", "CLOSED"].forEach(function (k) { Watched[k] = Original[k]; });
  window.WebSocket = Watched;
  new MutationObserver(function () {
    if (!window.__offlineAt && document.querySelector("#live.offline")) {
      window.__offlineAt = Date.now();
    }
  }).observe(document, {subtree: true, attributes: true, attributeFilter: ["class"]});
})();
"""


@pytest.fixture(scope="module")
def clock_server(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser
) -> Iterator[LiveServer]:
    yield from serve(tmp_path_factory, "resilience", COMPRESSED)


class ClosesRecorder(Recorder):
    def _context(self, **options: Any) -> BrowserContext:
        context = super()._context(**options)
        context.set_default_timeout(STEP_TIMEOUT)
        context.add_init_script(CLOSE_PROBE)
        return context


@pytest.fixture
def recorder(
    request: pytest.FixtureRequest, browser: Browser, clock_server: LiveServer
) -> Iterator[Recorder]:
    """The package's recorder, on this module's server."""
    rec = ClosesRecorder(
        browser=browser, server=clock_server.server, test_name=request.node.name, wifi=True
    )
    yield from recording(request, rec)


def assert_shows_seat(phone: Phone, tv: Table, seat: int) -> None:
    """The phone shows the TV's current version and this seat's tokens and cards."""
    assert phone.version() == tv.version()
    tv_tokens = tv.player(seat).locator(".token-total").inner_text()
    assert f"{phone.token_total()}/10" == tv_tokens
    assert phone.tokens() == tv.tokens(seat)
    assert phone.my_turn() == ("current" in (tv.player(seat).get_attribute("class") or ""))


def test_reload_and_rejoin_with_the_code_from_the_tv(recorder: Recorder, tv: Table) -> None:
    url, (phone,) = start_game(recorder, tv, ("Aino",), bots=1)
    seat = phone.seat()
    # Play a little so the state is not the opening one.
    for _ in range(2):
        phone.wait_turn()
        phone.play_turn(buy=True)
    phone.wait_turn()
    tv.settle()
    version = tv.version()
    assert version >= 3

    # ---- Reload: same seat, current state, live again. Waited for as a condition, with
    # room for a busy CI machine: how fast a reload is belongs to a benchmark, not a test.
    phone.page.reload()
    expect(phone.page.locator(f'#hand[data-version="{version}"]')).to_be_visible(timeout=20000)
    phone.wait_connected(timeout=20000)
    assert_shows_seat(phone, tv, seat)
    assert phone.my_turn()

    # ---- The phone's browser loses its cookies: the TV shows the seat reconnecting at
    # once, then (after the grace, SPLENDOR_PRESENCE_GRACE: 20 s on the real clock) away,
    # with a code.
    phone.context.close()
    away = tv.player(seat)
    expect(away.locator(".tag.reconnecting")).to_be_visible(timeout=20000)
    expect(away.locator(".rejoin")).to_have_count(0)
    expect(away.locator(".tag.away")).to_be_visible(timeout=60000)
    code_on_tv = away.locator(".rejoin strong")
    expect(code_on_tv).to_be_visible()
    rejoin_code = code_on_tv.inner_text().strip()
    assert re.fullmatch(r"[A-Z0-9]{3,8}", rejoin_code), rejoin_code
    # The TV also offers the code as a QR: it opens the rejoin form, filled in.
    rejoin_qr = away.locator(".rejoin-qr")
    expect(rejoin_qr).to_be_visible()
    assert decode_qr(rejoin_qr.screenshot()) == [f"{url}?rejoin={rejoin_code}"]
    tv.shot("table-away")

    fresh = recorder.phone("Aino-again")
    fresh.name = "Aino"
    # Scanning the away seat's QR fills the code in...
    fresh.page.goto(f"{url}?rejoin={rejoin_code}")
    expect(fresh.page.locator("#rejoin-form #rejoin_code")).to_have_value(rejoin_code)
    # ...but here the player opens the plain link and types the code.
    fresh.page.goto(url)
    expect(fresh.page.locator("#join-form")).to_have_count(0)
    form = fresh.page.locator("#rejoin-form")
    expect(form).to_be_visible()
    fresh.shot("phone-rejoin")
    form.locator("#rejoin_code").tap()
    fresh.page.keyboard.type(rejoin_code.lower())  # phones often type lower case
    form.locator("button[type=submit]").tap()
    fresh.page.wait_for_url(re.compile(r"/play/[A-Z0-9]+/$"))
    fresh.wait_connected()
    expect(away.locator(".tag.away")).to_have_count(0)
    expect(away.locator(".rejoin")).to_have_count(0)
    fresh.reach(tv.version())
    assert fresh.seat() == seat
    assert_shows_seat(fresh, tv, seat)
    # And it plays on from there.
    before = tv.version()
    fresh.play_turn(buy=True)
    tv.wait_version(before)


def test_a_phone_whose_network_went_away_says_so_and_catches_up(
    recorder: Recorder, tv: Table
) -> None:
    _url, phones = start_game(recorder, tv, ("Aino", "Bertil"))
    playing, waiting = by_turn(phones)
    connection = waiting.page.locator("#live .connection")
    expect(connection).to_be_hidden()
    version = tv.version()

    # The network goes: no close event arrives, only the heartbeat's silence tells (after
    # SPLENDOR_SILENT_AFTER; how soon is a benchmark's business, not this test's).
    closes = waiting.page.evaluate("window.__offlineAt = 0; window.__closes.length")
    waiting.set_network(False)
    expect(connection).to_be_visible(timeout=20000)
    noticed, closed = waiting.page.evaluate("[window.__offlineAt, window.__closes]")
    assert noticed and all(at >= noticed for at in closed[closes:]), (
        f"the lost connection was noticed by a close event, not the heartbeat: {closed}, {noticed}"
    )
    playing.take(playing.state()["takes"][0])
    tv.wait_version(version)

    # The network comes back: the phone reconnects by itself and shows the new turn.
    # (htmx logged each failed attempt to reconnect while offline as an Event: expected.)
    assert all(e.endswith("console error: [object Event]") for e in waiting.errors)
    waiting.errors.clear()
    waiting.set_network(True)
    expect(connection).to_be_hidden(timeout=10000)
    waiting.reach(tv.version())
    assert waiting.my_turn()
