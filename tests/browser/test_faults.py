"""Real faults against a real server: the screens recover once, then stay connected.

A TV and two phones play on a server of this module's own (runserver --noreload,
its own port and SQLite file), which the tests can kill (SIGKILL) and start
again on the same port and file, or pause (SIGSTOP, as a sleeping laptop) and
resume. The phones lose their network with Playwright's `set_offline`.

After each fault: every screen shows the game's current version (read from the
database; the time it took is printed, its target is a benchmark's business); a
move tapped during the fault was played exactly once or refused with a message
the player saw; the TV shows no rejoin code for a connected phone; then, for the
minute after the recovery, no screen opens another socket (the page's WebSocket
constructor is counted) and each says it is connected, and taps land: a three-gem
take tapped a heartbeat apart (a human's pace or slower) is played at the start of
that minute and again at its end; and no page logged an error (the Recorder fails
the test otherwise).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, WebSocketRoute, expect

from tests.browser.conftest import recording
from tests.browser.game_setup import start_game
from tests.browser.helpers import (
    ARTIFACTS,
    Phone,
    Recorder,
    Screen,
    Table,
)
from tests.browser.live_server import LiveServer

pytestmark = pytest.mark.browser

# Counts the sockets a page constructs, and keeps every message the page showed
# in its flash line (a refused move must have been said, even if it faded).
FAULT_PROBE = """
(function () {
  var Original = window.WebSocket;
  window.__sockets = 0;
  function Counted(url, protocols) {
    window.__sockets += 1;
    return protocols === undefined ? new Original(url) : new Original(url, protocols);
  }
  Counted.prototype = Original.prototype;
  ["CONNECTING", "OPEN", "CLOSING", "CLOSED"].forEach(function (k) { Counted[k] = Original[k]; });
  window.WebSocket = Counted;
  window.__flashes = [];
  new MutationObserver(function () {
    var f = document.getElementById("flash");
    var said = f && f.classList.contains("show") ? f.textContent.trim() : "";
    if (said && window.__flashes[window.__flashes.length - 1] !== said) window.__flashes.push(said);
  }).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
})();
"""

# After a recovery, no screen may open another socket while it has this many heartbeats
# answered (one every 2 s: the minute after).
STEADY_HEARTBEATS = 30


@pytest.fixture(scope="module")
def fault_server(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser
) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path_factory.mktemp("fault-server"))
    server.start()
    try:
        yield server
    finally:
        server.stop()
        for log in server.logs():
            (ARTIFACTS / f"faults-{log.name}").write_bytes(log.read_bytes())


class FaultRecorder(Recorder):
    def _context(self, **options: Any) -> BrowserContext:
        context = super()._context(**options)
        context.add_init_script(FAULT_PROBE)
        return context


@pytest.fixture
def rec(
    request: pytest.FixtureRequest, browser: Browser, fault_server: LiveServer
) -> Iterator[FaultRecorder]:
    recorder = FaultRecorder(
        browser=browser, server=fault_server.server, test_name=request.node.name
    )
    yield from recording(request, recorder)


# ---------------------------------------------------------------- checks


def sockets(screen: Screen) -> int:
    return int(screen.page.evaluate("window.__sockets"))


def recovered(label: str, screens: list[Screen], version: int, since: float) -> None:
    """Wait until every screen is connected and shows `version`; print how long it took."""
    for screen in screens:
        screen.page.wait_for_function(
            "([holder, v]) => window.splendorLive && window.splendorLive.state() === 'open'"
            " && Number(document.querySelector(holder)?.dataset.version) >= v",
            arg=[screen.version_holder, version],
            timeout=20000,
        )
        print(f"{label}: {screen.label} current {time.monotonic() - since:.1f} s after recovery")


def stays_connected(
    label: str, fault_server: LiveServer, code: str, tv: Table, phones: list[Phone], since: float
) -> None:
    """For the minute after the recovery (STEADY_HEARTBEATS heartbeats answered on
    every screen) no screen opens another socket and each says connected; a take
    tapped at a human's pace is played at the start of that minute and again at its end.
    """
    screens: list[Screen] = [tv, *phones]
    before = [sockets(s) for s in screens]
    goals = [s.page.evaluate("window.__ws.pongs") + STEADY_HEARTBEATS for s in screens]
    human_take(label, fault_server, code, tv, phones)
    for screen, goal in zip(screens, goals, strict=True):
        screen.page.wait_for_function(
            "n => window.__ws.pongs >= n", arg=goal, timeout=STEADY_HEARTBEATS * 6000
        )
    print(f"{label}: steady for {time.monotonic() - since:.0f} s after recovery")
    after = [sockets(s) for s in screens]
    assert after == before, f"{label}: screens reconnected after recovering: {before} -> {after}"
    for screen in screens:
        expect(screen.page.locator("#live")).not_to_have_class(re.compile(r"\boffline\b"))
        assert screen.page.evaluate("window.splendorLive.state()") == "open", screen.label
    human_take(f"{label}, a minute later", fault_server, code, tv, phones)
    assert [sockets(s) for s in screens] == before, f"{label}: a screen reconnected to play"


def no_rejoin_code(tv: Table, phones: list[Phone]) -> None:
    for phone in phones:
        panel = tv.player(phone.seat())
        expect(panel.locator(".rejoin")).to_have_count(0, timeout=20000)
        expect(panel.locator(".tag.away")).to_have_count(0)


LETTERS = dict(zip("wugrk", ("white", "blue", "green", "red", "black"), strict=True))


def to_play(phones: list[Phone]) -> Phone:
    return next(p for p in phones if p.my_turn())


def three_gems(tv: Table, phone: Phone) -> str:
    """A legal three-gem take, of the colours the bank has most of (the game goes on)."""
    bank = tv.bank()
    takes = [t for t in phone.state()["takes"] if len(t) == 3]
    assert takes, f"{phone.label}: no three-gem take is legal"
    return max(takes, key=lambda t: sum(bank.get(LETTERS[letter], 0) for letter in t))


def next_heartbeat(phone: Phone) -> None:
    """Wait until the page's own next heartbeat is answered (it sends one every 2 s)."""
    before = phone.page.evaluate("window.__ws.pongs")
    phone.page.wait_for_function("n => window.__ws.pongs > n", arg=before, timeout=20000)


def human_take(
    label: str, fault_server: LiveServer, code: str, tv: Table, phones: list[Phone]
) -> None:
    """The phone to play takes three gems, a tap after each of the page's own heartbeats
    (0-2 s apart, a human's pace or slower, with the socket's traffic between taps);
    it is played."""
    playing = to_play(phones)
    state = playing.state()
    assert state["phase"] == "main", state
    three = three_gems(tv, playing)
    before = fault_server.version(code)
    panel = playing.page.locator("[data-picker=take]")
    for letter in three:
        panel.locator(f"[data-pick={letter}]").tap()
        next_heartbeat(playing)
    panel.locator("[data-confirm]").tap()
    playing.reach(before + 1, timeout=20000)
    assert fault_server.version(code) == before + 1, f"{label}: the take was not played once"
    if playing.state()["phase"] == "return":  # over ten tokens: give some back
        playing.give_back(playing.state()["returns"][0])


def tap_take(tv: Table, phone: Phone) -> dict[str, Any]:
    """Tap a three-gem take (during a fault); return what is needed to judge its fate."""
    three = three_gems(tv, phone)
    panel = phone.page.locator("[data-picker=take]")
    for letter in three:
        panel.locator(f"[data-pick={letter}]").tap()
    panel.locator("[data-confirm]").tap()
    return {"flashes": len(flashes(phone))}


def flashes(phone: Phone) -> list[str]:
    return list(phone.page.evaluate("window.__flashes"))


def move_fate(label: str, phone: Phone, tapped: dict[str, Any], before: int, now: int) -> str:
    """A move tapped during a fault was played once, or refused with a message."""
    expect(phone.hand).not_to_have_class(re.compile(r"\bpending\b"), timeout=20000)
    if now == before + 1:
        assert not phone.my_turn(), f"{label}: the move was not this phone's"
        return f"played once (the phone said: {flashes(phone)[tapped['flashes'] :]})"
    assert now == before, f"{label}: {now - before} moves were played"
    live = phone.page.locator("#live")
    refusals = {
        live.get_attribute(f"data-msg-{name}") for name in ("not-sent", "moved-on", "unsure")
    }
    said = flashes(phone)[tapped["flashes"] :]
    assert refusals & set(said), f"{label}: the move was dropped without a word: {said}"
    return f"refused with a message: {said}"


def after_fault(
    label: str,
    fault_server: LiveServer,
    code: str,
    tv: Table,
    phones: list[Phone],
    since: float,
    tapped: tuple[Phone, dict[str, Any], int] | None = None,
) -> None:
    # A move tapped during the fault may still be on its way: wait until it is
    # played or no longer pending.
    if tapped is not None:
        expect(tapped[0].hand).not_to_have_class(re.compile(r"\bpending\b"), timeout=20000)
    version = fault_server.version(code)
    recovered(label, [tv, *phones], version, since)
    if tapped is not None:
        phone, taken, before = tapped
        fate = move_fate(label, phone, taken, before, version)
        print(f"{label}: the move tapped during the fault was {fate}")
    no_rejoin_code(tv, phones)
    stays_connected(label, fault_server, code, tv, phones, since)
    errors = [e for screen in (tv, *phones) for e in screen.errors]
    assert not errors, errors


def offline(phones: list[Phone], off: bool) -> None:
    for phone in phones:
        phone.context.set_offline(off)


# ---------------------------------------------------------------- the faults


def test_phones_offline_and_a_flapping_network(
    rec: FaultRecorder, fault_server: LiveServer
) -> None:
    tv = rec.table()
    _url, phones = start_game(rec, tv, ("Aino", "Bertil", "Cecilia"))
    code = tv.code

    for seconds in (6, 30):
        label = f"offline {seconds} s"
        playing = to_play(phones)
        before = fault_server.version(code)
        offline(phones, True)  # one phone on its own turn, the others on another's
        went = time.monotonic()
        if seconds > 6:  # tapped once the phone knows it is offline: the move waits
            expect(playing.page.locator("#live.offline")).to_have_count(1, timeout=10000)
        tapped = tap_take(tv, playing)
        time.sleep(max(0.0, seconds - (time.monotonic() - went)))
        offline(phones, False)
        after_fault(
            label, fault_server, code, tv, phones, time.monotonic(), (playing, tapped, before)
        )

    label = "flapping"
    playing = to_play(phones)
    before = fault_server.version(code)
    flap_tap: dict[str, Any] | None = None
    for cycle in range(5):
        offline(phones, True)
        if cycle == 0:
            flap_tap = tap_take(tv, playing)
        time.sleep(3)
        offline(phones, False)
        time.sleep(3)
    assert flap_tap is not None
    after_fault(
        label, fault_server, code, tv, phones, time.monotonic(), (playing, flap_tap, before)
    )


def test_a_phone_whose_seat_was_taken_goes_to_the_join_page(
    rec: FaultRecorder, fault_server: LiveServer
) -> None:
    tv = rec.table()
    url, (aino, bertil) = start_game(rec, tv, ("Aino", "Bertil"))
    code = tv.code
    seat = aino.seat()

    # Aino's phone goes away (the server sees its socket go) and cannot come back
    # while someone else takes its seat with the rejoin code shown on the TV.
    blocked = False
    server_sides: list[WebSocketRoute] = []

    def route(ws: WebSocketRoute) -> None:
        if blocked:
            ws.close(code=1011)
            return
        server_sides.append(ws.connect_to_server())

    aino.page.route_web_socket(re.compile(r"/ws/"), route)
    aino.page.reload()
    expect(aino.page.locator("#live")).to_have_count(1)
    aino.page.wait_for_function("window.splendorLive && window.splendorLive.state() === 'open'")
    blocked = True
    assert server_sides
    server_sides[-1].close()

    code_on_tv = tv.player(seat).locator(".rejoin strong")
    expect(code_on_tv).to_be_visible(timeout=40000)  # after the presence grace
    thief = rec.phone("Aino-new")
    thief.name = "Aino"
    thief.page.goto(url)
    form = thief.page.locator("#rejoin-form")
    form.locator("#rejoin_code").fill(code_on_tv.inner_text().strip())
    form.locator("button[type=submit]").tap()
    thief.page.wait_for_url(re.compile(r"/play/[A-Z0-9]+/$"))
    thief.wait_connected(timeout=20000)

    blocked = False  # the old page reconnects: the server says 4403, the page joins
    aino.page.wait_for_url(re.compile(rf"/join/{code}/$"), timeout=30000)
    expect(aino.page.locator("#rejoin-form, #join-form").first).to_be_visible()
    assert thief.seat() == seat
    assert bertil.page.url.endswith(f"/play/{code}/")


def test_the_server_killed_and_paused(rec: FaultRecorder, fault_server: LiveServer) -> None:
    tv = rec.table()
    _url, phones = start_game(rec, tv, ("Aino", "Bertil", "Cecilia"))
    code = tv.code

    label = "server killed"
    playing = to_play(phones)
    before = fault_server.version(code)
    fault_server.kill()
    tapped = tap_take(tv, playing)
    fault_server.start()
    after_fault(label, fault_server, code, tv, phones, time.monotonic(), (playing, tapped, before))

    label = "server paused"
    playing = to_play(phones)
    before = fault_server.version(code)
    fault_server.pause()
    try:
        tapped = tap_take(tv, playing)
        time.sleep(20)
    finally:
        fault_server.resume()
    after_fault(label, fault_server, code, tv, phones, time.monotonic(), (playing, tapped, before))


# Everything that makes the page check its connection, many times at once: a phone
# unlocked or a tab brought back (visibilitychange), a page restored from the
# back/forward cache (pageshow), the network back (online).
SHOWN_AGAIN = """() => {
  const pings = window.__pings;
  for (let i = 0; i < 10; i += 1) {
    document.dispatchEvent(new Event("visibilitychange"));
    window.dispatchEvent(new PageTransitionEvent("pageshow", {persisted: true}));
    window.dispatchEvent(new Event("online"));
  }
  return {visible: document.visibilityState === "visible", pings: window.__pings - pings};
}"""


# Counts the heartbeats the page sends from now on, its checks' included (on the class
# of its socket as it is now: Playwright's stand-in once the page's sockets are routed).
COUNT_PINGS = """() => {
  window.__pings = 0;
  const proto = window.WebSocket.prototype, send = proto.send;
  proto.send = function (data) {
    if (data === '{"ping":true}') window.__pings += 1;
    return send.call(this, data);
  };
}"""


class Link:
    """A page's socket passed on to the server until the test cuts it: then nothing
    passes either way and neither end hears of it (a Wi-Fi link that died)."""

    def __init__(self, page_side: WebSocketRoute) -> None:
        self.page_side = page_side
        self.server_side = page_side.connect_to_server()

    def cut(self) -> None:
        self.page_side.on_message(lambda _message: None)
        self.server_side.on_message(lambda _message: None)


def test_a_page_shown_again_checks_its_connection_once(
    rec: FaultRecorder, fault_server: LiveServer
) -> None:
    """However many times at once the page is shown again, it sends one heartbeat: a
    socket that died silently is replaced once, a live one is kept."""
    tv = rec.table()
    _url, phones = start_game(rec, tv, ("Aino", "Bertil"))
    code = tv.code
    aino = phones[0]
    links: list[Link] = []
    aino.page.route_web_socket(re.compile(r"/ws/"), lambda ws: links.append(Link(ws)))
    aino.page.reload()
    aino.page.wait_for_function(
        "() => window.splendorLive && window.splendorLive.state() === 'open'"
    )
    assert sockets(aino) == len(links) == 1
    aino.page.evaluate(COUNT_PINGS)

    label = "shown again over a dead link"
    links[-1].cut()
    assert aino.page.evaluate(SHOWN_AGAIN) == {"visible": True, "pings": 1}
    aino.page.wait_for_function("() => window.__sockets === 2", timeout=20000)
    since = time.monotonic()
    recovered(label, [tv, *phones], fault_server.version(code), since)
    print(f"{label}: replaced once; the check's answer was due within 3 s")

    label = "shown again, connected"
    pongs = aino.page.evaluate("window.__ws.pongs")
    assert aino.page.evaluate(SHOWN_AGAIN) == {"visible": True, "pings": 1}
    aino.page.wait_for_function("n => window.__ws.pongs > n", arg=pongs, timeout=20000)
    no_rejoin_code(tv, phones)
    stays_connected(label, fault_server, code, tv, phones, since)
    assert sockets(aino) == len(links) == 2
    errors = [e for screen in (tv, *phones) for e in screen.errors]
    assert not errors, errors
