"""A phone whose own network is gone, or whose page is hidden, rests: it tries at most
every SPLENDOR_REST_RETRY (the page's timings.restRetry), not every 1-2 s for as long
as it is away, and comes back at once when its network or its page does.

A TV and two phones play on a server of this module's own, on the compressed clock
(live_server.COMPRESSED: the rest retry, heartbeats, silences and backoffs five times
faster); one test runs again at the real timings (`real_clock`). The page's sockets are
counted as they are constructed (an init script wraps window.WebSocket, after
test_faults' FAULT_PROBE), with the moment of each and of the browser's "online" events.
After the phone is back: the minute after (test_faults.stays_connected), with no
reconnect while the heartbeats are answered, and taps that land.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext

from tests.browser.game_setup import start_game
from tests.browser.helpers import Phone, Table
from tests.browser.live_server import COMPRESSED, LiveServer
from tests.browser.test_faults import (
    LONG_WAIT_POLL,
    FaultRecorder,
    fault_recorder,
    recovered,
    serve,
    stays_connected,
)

pytestmark = pytest.mark.browser

# When the page constructed each socket, and when its browser said it was online again
# (both in the page's clock, Date.now()); added after FAULT_PROBE, whose count it keeps.
# A test may also make the server unreachable for the page: its sockets then go to
# window.__unreachable (an address of the same origin, which the Content-Security-Policy
# allows, where the server refuses every socket), and window.__socket is the page's
# latest socket (to end it as a server that went away would).
REST_PROBE = """
(function () {
  var Inner = window.WebSocket;
  window.__attempts = [];
  window.__online = [];
  window.__unreachable = "";
  window.__socket = null;
  function Timed(url, protocols) {
    window.__attempts.push(Date.now());
    url = window.__unreachable || url;
    var ws = protocols === undefined ? new Inner(url) : new Inner(url, protocols);
    window.__socket = ws;
    return ws;
  }
  Timed.prototype = Inner.prototype;
  ["CONNECTING", "OPEN", "CLOSING", "CLOSED"].forEach(function (k) { Timed[k] = Inner[k]; });
  window.WebSocket = Timed;
  window.addEventListener("online", function () { window.__online.push(Date.now()); });
})();
"""

# A page that is hidden as far as connection.js can tell (a locked phone, a background tab):
# headless Chromium shows every page, so the document says so itself.
# Returns when it said so (Date.now()).
HIDE = """(hidden) => {
  Object.defineProperty(document, "visibilityState", {
    configurable: true, get: () => (hidden ? "hidden" : "visible"),
  });
  Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
  const at = Date.now();
  document.dispatchEvent(new Event("visibilitychange"));
  return at;
}"""

# The page's own clock, as the server hands it over (game.screens.words.TIMINGS).
TIMINGS = "() => JSON.parse(document.getElementById('splendor-vocabulary').textContent).timings"


@pytest.fixture(scope="module")
def rest_server(tmp_path_factory: pytest.TempPathFactory, browser: Browser) -> Iterator[LiveServer]:
    """This module's server, on the compressed clock."""
    yield from serve(tmp_path_factory, "rest", COMPRESSED)


@pytest.fixture(scope="module")
def real_server(tmp_path_factory: pytest.TempPathFactory, browser: Browser) -> Iterator[LiveServer]:
    """The same at the connection's real timings (the real_clock test)."""
    yield from serve(tmp_path_factory, "rest-real-clock", 1.0)


class RestRecorder(FaultRecorder):
    def _context(self, **options: Any) -> BrowserContext:
        context = super()._context(**options)
        context.add_init_script(REST_PROBE)
        return context


@pytest.fixture
def rec(
    request: pytest.FixtureRequest, browser: Browser, rest_server: LiveServer
) -> Iterator[RestRecorder]:
    yield from fault_recorder(request, browser, rest_server, RestRecorder)


@pytest.fixture
def real_rec(
    request: pytest.FixtureRequest, browser: Browser, real_server: LiveServer
) -> Iterator[RestRecorder]:
    yield from fault_recorder(request, browser, real_server, RestRecorder)


# ---------------------------------------------------------------- checks


def attempts(phone: Phone) -> list[int]:
    return list(phone.page.evaluate("window.__attempts"))


def now(phone: Phone) -> int:
    return int(phone.page.evaluate("Date.now()"))


def rests(label: str, phone: Phone, since: int, count: int) -> list[int]:
    """Wait until the page, at rest since `since` (its clock, ms), has tried `count`
    times; check that each try came at least a rest retry after the one before (the
    first: after `since`); return when each came."""
    rest = phone.page.evaluate(TIMINGS)["restRetry"]
    known = len(attempts(phone))
    phone.page.wait_for_function(
        "n => window.__attempts.length >= n",
        arg=known + count,
        timeout=(count + 1) * rest + 30000,  # the tries themselves, and a busy machine
        polling=LONG_WAIT_POLL,
    )
    # The last try has failed: the page rests again (what brings it back is then the
    # test's doing, not a try still under way).
    phone.page.wait_for_function(
        "() => window.splendorLive.state() === 'reconnecting'", timeout=rest + 30000
    )
    tried = [at for at in attempts(phone) if at >= since]
    gaps = [later - earlier for earlier, later in zip([since, *tried], tried, strict=False)]
    print(f"{label}: tries {gaps} ms apart at rest (the rest retry: {rest} ms)")
    # A timer may fire a millisecond early by the page's clock; a backoff's try would come
    # within timings.backoffCap, a small part of the rest retry.
    assert all(gap >= rest - 50 for gap in gaps), f"{label}: tried sooner than at rest: {gaps}"
    return tried


def back_at_once(label: str, phone: Phone, last_try: int, cause: str, cause_at: int) -> None:
    """The page, back from its rest, connected with a socket made after `cause` (at
    `cause_at`, the page's clock) and before its next try at rest was due: in answer to
    the cause, not to its timer."""
    rest = phone.page.evaluate(TIMINGS)["restRetry"]
    phone.page.wait_for_function(
        "() => window.splendorLive.state() === 'open'", timeout=rest + 30000
    )
    reconnect = attempts(phone)[-1]
    waited = reconnect - last_try
    print(
        f"{label}: a new socket {reconnect - cause_at} ms after {cause}, {waited} ms after"
        f" its last try at rest"
    )
    assert reconnect >= cause_at, f"{label}: no new socket after {cause}"
    assert waited < rest, f"{label}: the page waited for its rest retry ({waited} ms)"


def two_phones(rec: RestRecorder) -> tuple[str, Table, list[Phone]]:
    tv = rec.table()
    _url, phones = start_game(rec, tv, ("Aino", "Bertil"))
    return tv.code, tv, phones


def offline_for_a_while(label: str, server: LiveServer, rec: RestRecorder, tries: int) -> None:
    """A phone offline until it has tried `tries` times at rest, then back online."""
    code, tv, phones = two_phones(rec)
    aino = phones[0]
    went = now(aino)
    aino.set_network(False)
    assert aino.page.evaluate("navigator.onLine") is False
    tried = rests(label, aino, went, tries)
    aino.set_network(True)
    aino.page.wait_for_function("() => window.__online.length > 0")
    back_at_once(
        label, aino, tried[-1], "the 'online' event", aino.page.evaluate("window.__online[0]")
    )
    since = time.monotonic()
    recovered(label, [tv, *phones], server.version(code), since)
    stays_connected(label, server, code, tv, phones, since)


# ---------------------------------------------------------------- the rests


def test_a_phone_offline_for_a_long_while_rests_then_comes_back_at_once(
    rec: RestRecorder, rest_server: LiveServer
) -> None:
    offline_for_a_while("offline a long while", rest_server, rec, tries=3)


# The server out of the page's reach (its socket ended, new ones refused), then back.
UNREACHABLE = """() => {
  window.__unreachable = "ws://" + location.host + "/ws/unreachable/";
  window.__socket.close();
}"""
REACHABLE = "() => { window.__unreachable = ''; }"


def test_a_hidden_page_rests_then_comes_back_at_once_when_shown(
    rec: RestRecorder, rest_server: LiveServer
) -> None:
    """A hidden page (a locked phone) whose server went away tries at rest; shown again,
    it connects at once."""
    code, tv, phones = two_phones(rec)
    aino = phones[0]
    aino.page.evaluate(HIDE, True)
    went = now(aino)
    aino.page.evaluate(UNREACHABLE)
    tried = rests("hidden", aino, went, 2)
    aino.page.evaluate(REACHABLE)
    shown = aino.page.evaluate(HIDE, False)
    back_at_once("hidden", aino, tried[-1], "'visibilitychange'", shown)
    since = time.monotonic()
    recovered("hidden", [tv, *phones], rest_server.version(code), since)
    stays_connected("hidden", rest_server, code, tv, phones, since)


@pytest.mark.real_clock
def test_a_phone_offline_for_a_long_while_at_the_real_timings(
    real_rec: RestRecorder, real_server: LiveServer
) -> None:
    offline_for_a_while("offline a long while, real timings", real_server, real_rec, tries=2)
