"""Real faults against a real server: the screens recover once, then stay connected.

A TV and two phones play on a server of this module's own (runserver --noreload,
its own port and SQLite file), which the tests can kill (SIGKILL) and start
again on the same port and file, or pause (SIGSTOP, as a sleeping laptop) and
resume. The phones lose their network through a Wi-Fi of their own (wifi.Wifi: the
link holds its bytes, the browser says offline).

The server runs the connection's real state machine on a compressed clock
(live_server.COMPRESSED: heartbeats, silences, backoffs, the held move and the
presence grace five times faster), and every wait of a test by time (how long a
phone is offline, a pause, the minute after) is scaled by the same clock. One test
per fault runs it again at the real timings (`real_clock`, on a second server).

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
from typing import Any, TypeVar

import pytest
from playwright.sync_api import Browser, BrowserContext, WebSocketRoute, expect

from tests.browser.conftest import recording
from tests.browser.game_setup import start_game
from tests.browser.helpers import (
    Phone,
    Recorder,
    Screen,
    Table,
)
from tests.browser.live_server import COMPRESSED, LiveServer, serve

pytestmark = pytest.mark.browser

# Counts the sockets a page constructs, keeps every message the page showed in its
# flash line (a refused move must have been said, even if it faded), and the longest a
# heartbeat waited for the server's next message, as the page counts its silence
# (printed: how near the page came to replacing its socket).
FAULT_PROBE = """
(function () {
  var Original = window.WebSocket, send = Original.prototype.send;
  window.__beats = {asked: 0, worst: 0};
  Original.prototype.send = function (data) {
    if (data === '{"ping":true}' && !window.__beats.asked) window.__beats.asked = Date.now();
    return send.call(this, data);
  };
  function heard() {
    var beats = window.__beats;
    if (beats.asked) beats.worst = Math.max(beats.worst, Date.now() - beats.asked);
    beats.asked = 0;
  }
  document.addEventListener("splendor:pong", heard);
  document.addEventListener("splendor:message", heard);
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

# Milliseconds between two looks at a condition that takes a minute to come (a count that
# stays reached): Playwright's default looks on every animation frame, which keeps a
# waiting page drawing sixty frames a second.
LONG_WAIT_POLL = 100
# After a recovery, no screen may open another socket while it has this many heartbeats
# answered (one every 2 s at the real timings: the minute after).
STEADY_HEARTBEATS = 30
# Seconds between two heartbeats, and without an answer before the page replaces its
# socket, at the real timings (settings, "The live connection's clock").
HEARTBEAT = 2.0
DEAD_AFTER = 6.0
# The shortest wait for a condition, in seconds, however compressed the clock: a busy
# machine is slow at the same pace whatever the server's clock.
PATIENCE = 20.0


def scaled(server: LiveServer, seconds: float) -> float:
    """Seconds of the real timings on this server's clock (a fault's length)."""
    return seconds * server.clock


def patience(server: LiveServer, seconds: float) -> float:
    """A timeout in milliseconds for a wait that lasts about `seconds` at the real
    timings (the presence grace, the minute after): scaled, never under PATIENCE."""
    return 1000 * max(PATIENCE, scaled(server, seconds))


@pytest.fixture(scope="module")
def fault_server(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser
) -> Iterator[LiveServer]:
    """The faults' server, on the compressed clock."""
    yield from serve(tmp_path_factory, "faults", COMPRESSED)


@pytest.fixture(scope="module")
def real_server(tmp_path_factory: pytest.TempPathFactory, browser: Browser) -> Iterator[LiveServer]:
    """The same at the connection's real timings (the real_clock tests)."""
    yield from serve(tmp_path_factory, "faults-real-clock", 1.0)


# Milliseconds a screen's step may take (Recorder's default is 8 s): these servers are
# the module's own and start cold, and on a busy machine their first game took 5 s to
# start on the server alone.
STEP_TIMEOUT = 20000


class FaultRecorder(Recorder):
    def _context(self, **options: Any) -> BrowserContext:
        context = super()._context(**options)
        context.set_default_timeout(STEP_TIMEOUT)
        context.add_init_script(FAULT_PROBE)
        return context


F = TypeVar("F", bound=FaultRecorder)


def fault_recorder(
    request: pytest.FixtureRequest, browser: Browser, server: LiveServer, kind: type[F]
) -> Iterator[F]:
    """A recorder of `kind` on `server`'s screens (closed, and judged, after the test)."""
    recorder = kind(browser=browser, server=server.server, test_name=request.node.name, wifi=True)
    yield from recording(request, recorder)


@pytest.fixture
def rec(
    request: pytest.FixtureRequest, browser: Browser, fault_server: LiveServer
) -> Iterator[FaultRecorder]:
    yield from fault_recorder(request, browser, fault_server, FaultRecorder)


@pytest.fixture
def real_rec(
    request: pytest.FixtureRequest, browser: Browser, real_server: LiveServer
) -> Iterator[FaultRecorder]:
    yield from fault_recorder(request, browser, real_server, FaultRecorder)


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
    label: str, server: LiveServer, code: str, tv: Table, phones: list[Phone], since: float
) -> None:
    """For the minute after the recovery (STEADY_HEARTBEATS heartbeats answered on
    every screen, on the server's clock) no screen opens another socket and each says
    connected; a take tapped at a human's pace is played at the start of that minute
    and again at its end.
    """
    screens: list[Screen] = [tv, *phones]
    before = [sockets(s) for s in screens]
    goals = [s.page.evaluate("window.__ws.pongs") + STEADY_HEARTBEATS for s in screens]
    for screen in screens:
        screen.page.evaluate("window.__beats = {asked: 0, worst: 0}")
    human_take(label, server, code, tv, phones)
    for screen, goal in zip(screens, goals, strict=True):
        screen.page.wait_for_function(
            "n => window.__ws.pongs >= n",
            arg=goal,
            timeout=patience(server, 3 * STEADY_HEARTBEATS * HEARTBEAT),
            polling=LONG_WAIT_POLL,
        )
    worst = max(s.page.evaluate("window.__beats.worst") for s in screens)
    print(
        f"{label}: steady for {time.monotonic() - since:.0f} s after recovery; a heartbeat"
        f" waited at most {worst:.0f} ms for an answer (a socket is replaced past"
        f" {1000 * scaled(server, DEAD_AFTER - HEARTBEAT):.0f} ms)"
    )
    after = [sockets(s) for s in screens]
    assert after == before, f"{label}: screens reconnected after recovering: {before} -> {after}"
    for screen in screens:
        expect(screen.page.locator("#live")).not_to_have_class(re.compile(r"\boffline\b"))
        assert screen.page.evaluate("window.splendorLive.state()") == "open", screen.label
    human_take(f"{label}, a minute later", server, code, tv, phones)
    assert [sockets(s) for s in screens] == before, f"{label}: a screen reconnected to play"


def no_rejoin_code(tv: Table, phones: list[Phone]) -> None:
    for phone in phones:
        panel = tv.player(phone.seat())
        expect(panel.locator(".rejoin")).to_have_count(0, timeout=20000)
        expect(panel.locator(".tag.away")).to_have_count(0)


LETTERS = dict(zip("wugrk", ("white", "blue", "green", "red", "black"), strict=True))


def to_play(server: LiveServer, code: str, phones: list[Phone]) -> Phone:
    """The phone whose turn it is, once every phone shows the game as stored (the
    next player's phone may hear of the last move after the mover's)."""
    version = server.version(code)
    for phone in phones:
        phone.reach(version)
    return next(p for p in phones if p.my_turn())


def three_gems(tv: Table, phone: Phone) -> str:
    """A legal three-gem take, of the colours the bank has most of (the game goes on)."""
    bank = tv.bank()
    takes = [t for t in phone.state()["takes"] if len(t) == 3]
    assert takes, f"{phone.label}: no three-gem take is legal"
    return max(takes, key=lambda t: sum(bank.get(LETTERS[letter], 0) for letter in t))


def next_heartbeat(phone: Phone) -> None:
    """Wait until the page's own next heartbeat is answered (it sends one a heartbeat)."""
    before = phone.page.evaluate("window.__ws.pongs")
    phone.page.wait_for_function("n => window.__ws.pongs > n", arg=before, timeout=20000)


def human_take(label: str, server: LiveServer, code: str, tv: Table, phones: list[Phone]) -> None:
    """The phone to play takes three gems, a tap after each of the page's own heartbeats
    (0-1 heartbeat apart, a human's pace or slower, with the socket's traffic between
    taps); it is played."""
    playing = to_play(server, code, phones)
    state = playing.state()
    assert state["phase"] == "main", state
    three = three_gems(tv, playing)
    before = server.version(code)
    panel = playing.page.locator("[data-picker=take]")
    for letter in three:
        panel.locator(f"[data-pick={letter}]").tap()
        next_heartbeat(playing)
    panel.locator("[data-confirm]").tap()
    playing.reach(before + 1, timeout=20000)
    assert server.version(code) == before + 1, f"{label}: the take was not played once"
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


# A move tapped while the connection is down waits this long (settings.SPLENDOR_HOLD_MOVE
# at the real timings) before the page gives it up.
HOLD_MOVE = 12.0


def settled(server: LiveServer, phone: Phone) -> None:
    """Wait until a move tapped during a fault is played, or no longer pending (it waits
    at most the held move's time)."""
    expect(phone.hand).not_to_have_class(
        re.compile(r"\bpending\b"), timeout=patience(server, HOLD_MOVE + 10)
    )


def move_fate(
    label: str,
    server: LiveServer,
    phone: Phone,
    tapped: dict[str, Any],
    before: int,
    now: int,
) -> str:
    """A move tapped during a fault was played once, or refused with a message."""
    settled(server, phone)
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
    server: LiveServer,
    code: str,
    tv: Table,
    phones: list[Phone],
    since: float,
    tapped: tuple[Phone, dict[str, Any], int] | None = None,
) -> None:
    # A move tapped during the fault may still be on its way: wait until it is
    # played or no longer pending.
    if tapped is not None:
        settled(server, tapped[0])
    version = server.version(code)
    recovered(label, [tv, *phones], version, since)
    if tapped is not None:
        phone, taken, before = tapped
        fate = move_fate(label, server, phone, taken, before, version)
        print(f"{label}: the move tapped during the fault was {fate}")
    no_rejoin_code(tv, phones)
    stays_connected(label, server, code, tv, phones, since)
    errors = [e for screen in (tv, *phones) for e in screen.errors]
    assert not errors, errors


def offline(phones: list[Phone], off: bool) -> None:
    for phone in phones:
        phone.set_network(not off)


def pings(phones: list[Phone]) -> list[int]:
    """The heartbeats each phone has sent since COUNT_PINGS."""
    return [int(phone.page.evaluate("() => window.__pings")) for phone in phones]


def heartbeats_after(
    server: LiveServer, phones: list[Phone], pinged: list[int], *, or_shown_offline: bool = False
) -> None:
    """Wait until each phone has sent FLAP_PINGS heartbeats more than `pinged` (or, with
    `or_shown_offline`, says it is offline: a page whose unanswered heartbeats reach the
    dead socket's limit first lets that socket go and sends none until it has a new one)."""
    shown = "document.querySelector('#live.offline') !== null" if or_shown_offline else "false"
    for phone, count in zip(phones, pinged, strict=True):
        phone.page.wait_for_function(
            f"n => window.__pings >= n || {shown}",
            arg=count + FLAP_PINGS,
            timeout=patience(server, 30),
            polling=100,
        )


# ---------------------------------------------------------------- the faults
# Each takes a game in play on `server` and waits by time on that server's clock.


def named(label: str, server: LiveServer) -> str:
    return label if server.clock == 1 else f"{label} (clock {server.clock})"


def phones_offline(
    server: LiveServer, code: str, tv: Table, phones: list[Phone], seconds: float
) -> None:
    """Every phone offline for `seconds` (at the real timings), one on its own turn and
    the others on another's; the one to play taps a take meanwhile."""
    label = named(f"offline {seconds:g} s", server)
    playing = to_play(server, code, phones)
    before = server.version(code)
    offline(phones, True)
    went = time.monotonic()
    if seconds > 6:  # tapped once the phone knows it is offline: the move waits
        expect(playing.page.locator("#live.offline")).to_have_count(1, timeout=patience(server, 10))
    tapped = tap_take(tv, playing)
    time.sleep(max(0.0, scaled(server, seconds) - (time.monotonic() - went)))
    offline(phones, False)
    print(f"{label}: offline for {time.monotonic() - went:.1f} s")
    after_fault(label, server, code, tv, phones, time.monotonic(), (playing, tapped, before))


# A flap lasts until each phone has sent this many heartbeats since its network went or
# came back (every 2 s at the real timings: about 3 s off and 3 s on), on its own clock
# however busy the machine; off, until it says it is offline if that comes first (seen
# failing: a heartbeat left unanswered as the network went brought the dead socket's limit
# before the second heartbeat); back, a phone whose socket was replaced first reconnects.
FLAP_PINGS = 2


def flapping(server: LiveServer, code: str, tv: Table, phones: list[Phone]) -> None:
    """The phones' network goes and comes back five times (each time for FLAP_PINGS of
    their heartbeats); the one to play taps a take in the first outage."""
    label = named("flapping", server)
    playing = to_play(server, code, phones)
    before = server.version(code)
    for phone in phones:
        phone.page.evaluate(COUNT_PINGS)
    flap_tap: dict[str, Any] | None = None
    for cycle in range(5):
        pinged = pings(phones)
        offline(phones, True)
        if cycle == 0:
            flap_tap = tap_take(tv, playing)
        heartbeats_after(server, phones, pinged, or_shown_offline=True)
        pinged = pings(phones)
        offline(phones, False)
        heartbeats_after(server, phones, pinged)
    assert flap_tap is not None
    after_fault(label, server, code, tv, phones, time.monotonic(), (playing, flap_tap, before))


def server_killed(server: LiveServer, code: str, tv: Table, phones: list[Phone]) -> None:
    """SIGKILL, a take tapped while it is down, started again on its port and file."""
    label = named("server killed", server)
    playing = to_play(server, code, phones)
    before = server.version(code)
    server.kill()
    tapped = tap_take(tv, playing)
    server.start()
    after_fault(label, server, code, tv, phones, time.monotonic(), (playing, tapped, before))


def server_paused(server: LiveServer, code: str, tv: Table, phones: list[Phone]) -> None:
    """SIGSTOP for 20 s at the real timings (a sleeping laptop), a take tapped meanwhile."""
    label = named("server paused", server)
    playing = to_play(server, code, phones)
    before = server.version(code)
    server.pause()
    try:
        tapped = tap_take(tv, playing)
        time.sleep(scaled(server, 20))
    finally:
        server.resume()
    after_fault(label, server, code, tv, phones, time.monotonic(), (playing, tapped, before))


def three_phones(rec: FaultRecorder) -> tuple[str, Table, list[Phone]]:
    tv = rec.table()
    _url, phones = start_game(rec, tv, ("Aino", "Bertil", "Cecilia"))
    return tv.code, tv, phones


def test_phones_offline_and_a_flapping_network(
    rec: FaultRecorder, fault_server: LiveServer
) -> None:
    code, tv, phones = three_phones(rec)
    for seconds in (6, 30):
        phones_offline(fault_server, code, tv, phones, seconds)
    flapping(fault_server, code, tv, phones)


def test_the_server_killed_and_paused(rec: FaultRecorder, fault_server: LiveServer) -> None:
    code, tv, phones = three_phones(rec)
    server_killed(fault_server, code, tv, phones)
    server_paused(fault_server, code, tv, phones)


# The same faults at the connection's real timings, one a test (each a minute after its
# recovery). Offline 6 s: the fault nearest the page's own timings (as long as its
# dead-after, with the taps' real latency in it). They run one after another on the two
# pytest-xdist workers of the real-clock tests (tests/conftest.py, REAL_CLOCK_GROUP), not
# in the module's group: they wait on real seconds while the other workers use the cores.


@pytest.mark.real_clock
def test_phones_offline_at_the_real_timings(
    real_rec: FaultRecorder, real_server: LiveServer
) -> None:
    code, tv, phones = three_phones(real_rec)
    phones_offline(real_server, code, tv, phones, 6)


@pytest.mark.real_clock
def test_a_flapping_network_at_the_real_timings(
    real_rec: FaultRecorder, real_server: LiveServer
) -> None:
    code, tv, phones = three_phones(real_rec)
    flapping(real_server, code, tv, phones)


@pytest.mark.real_clock
def test_the_server_killed_at_the_real_timings(
    real_rec: FaultRecorder, real_server: LiveServer
) -> None:
    code, tv, phones = three_phones(real_rec)
    server_killed(real_server, code, tv, phones)


@pytest.mark.real_clock
def test_the_server_paused_at_the_real_timings(
    real_rec: FaultRecorder, real_server: LiveServer
) -> None:
    code, tv, phones = three_phones(real_rec)
    server_paused(real_server, code, tv, phones)


# A seat is "away" (its rejoin code on the TV) this long after its phone went (the
# presence grace at the real timings).
PRESENCE_GRACE = 20.0


def test_a_phone_whose_seat_was_taken_goes_to_the_join_page(
    rec: FaultRecorder, fault_server: LiveServer
) -> None:
    tv = rec.table()
    url, (aino, bertil) = start_game(rec, tv, ("Aino", "Bertil"))
    code = tv.code
    seat = aino.seat()

    # Aino's phone loses its Wi-Fi (the server sees its socket go) and cannot come back
    # while someone else takes its seat with the rejoin code shown on the TV.
    assert aino.wifi is not None
    aino.wifi.cut()

    code_on_tv = tv.player(seat).locator(".rejoin strong")
    # After the presence grace.
    expect(code_on_tv).to_be_visible(timeout=patience(fault_server, 2 * PRESENCE_GRACE))
    thief = rec.phone("Aino-new")
    thief.name = "Aino"
    thief.page.goto(url)
    form = thief.page.locator("#rejoin-form")
    form.locator("#rejoin_code").fill(code_on_tv.inner_text().strip())
    form.locator("button[type=submit]").tap()
    thief.page.wait_for_url(re.compile(r"/play/[A-Z0-9]+/$"))
    thief.wait_connected(timeout=20000)

    aino.wifi.up()  # the old page reconnects: the server says 4403, the page joins
    aino.page.wait_for_url(re.compile(rf"/join/{code}/$"), timeout=30000)
    expect(aino.page.locator("#rejoin-form, #join-form").first).to_be_visible()
    assert thief.seat() == seat
    assert bertil.page.url.endswith(f"/play/{code}/")


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
    print(
        f"{label}: replaced once; the check's answer was due within {scaled(fault_server, 3):g} s"
    )

    label = "shown again, connected"
    pongs = aino.page.evaluate("window.__ws.pongs")
    assert aino.page.evaluate(SHOWN_AGAIN) == {"visible": True, "pings": 1}
    aino.page.wait_for_function("n => window.__ws.pongs > n", arg=pongs, timeout=20000)
    no_rejoin_code(tv, phones)
    stays_connected(label, fault_server, code, tv, phones, since)
    assert sockets(aino) == len(links) == 2
    errors = [e for screen in (tv, *phones) for e in screen.errors]
    assert not errors, errors
