"""Screens for the browser tests: the TV (Table) and the phones (Phone).

Everything a test does goes through taps and clicks on the real pages; these
helpers only find elements, wait for the server's websocket updates and read
what the screens show.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import zxingcpp
from PIL import Image
from playwright.sync_api import (
    Browser,
    BrowserContext,
    CDPSession,
    ConsoleMessage,
    Error,
    Locator,
    Page,
    ProxySettings,
    Request,
    Route,
    WebSocketRoute,
    expect,
)

from tests.browser.wifi import Wifi

BASE_DIR = Path(__file__).resolve().parent.parent.parent
ARTIFACTS = BASE_DIR / "test-artifacts"
# Debian's build of Chromium's headless shell (what Playwright itself runs headless): the
# same Blink, fonts and layout as the browser, without its windowing, and about a quarter
# less CPU a page (test_fit's 4-player game); the suite is CPU-bound on two cores and went
# from 16:46 to 14:04 with it. The full browser, where only it is installed.
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
CHROMIUM = HEADLESS_SHELL if Path(HEADLESS_SHELL).exists() else "/usr/bin/chromium"
LOOPBACK = "127.0.0.1"
# axe-core comes from npm, never from a CDN: the `axe` fixture installs it here the first
# time a test needs it (when npm is there), and `.ci/run` before the tests.
AXE_PREFIX = Path(__file__).resolve().parent / ".axe"
AXE = AXE_PREFIX / "node_modules" / "axe-core" / "axe.min.js"
AXE_PACKAGE = "axe-core@4"
AXE_INSTALL = f"npm install --prefix tests/browser/.axe --no-audit --no-fund {AXE_PACKAGE}"

# The fonts a page may be drawn in. On Linux the pages' stack (static/css/splendor.css)
# draws in Noto Sans where fonts-noto-core is installed, else in DejaVu Sans or
# Liberation Sans; their line boxes differ by a few px (Noto's is the tallest) and their
# widths more. The layout tests run with the machine's own fonts and with each of these
# families alone.
FONTS_DIR = Path("/usr/share/fonts/truetype")
FONT_FAMILIES = {  # setup: (the font directory, its family names start so, its package)
    "dejavu": ("dejavu", "DejaVu", "fonts-dejavu-core"),
    "liberation": ("liberation", "Liberation", "fonts-liberation"),
    "noto": ("noto", "Noto", "fonts-noto-core"),
}
FONT_SETUPS = ("machine", *FONT_FAMILIES)

# Fontconfig with one family's files only, and the machine's own rules (aliases such as
# sans-serif and system-ui), as on a machine where only that family is installed.
FONTCONFIG = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <dir>{fonts}</dir>
  <cachedir>{cache}</cachedir>
  <include ignore_missing="yes">/etc/fonts/conf.d</include>
</fontconfig>
"""


@dataclass(frozen=True)
class Fonts:
    """A font setup: the machine's own fonts, or one family alone (`family` names start so)."""

    name: str
    family: str | None = None
    env: dict[str, str | float | bool] | None = None  # Chromium's (None: this process's)


def font_setup(name: str, workdir: Path) -> Fonts | str:
    """The setup called `name`, or why it cannot run here (its family is not installed)."""
    if name == "machine":
        return Fonts(name)
    directory, family, package = FONT_FAMILIES[name]
    fonts = FONTS_DIR / directory
    if not any(fonts.glob("**/*.ttf")):
        return (
            f"{package} is not installed ({fonts}): install it with `apt-get install -y {package}`"
        )
    conf = workdir / f"fonts-{name}.conf"
    conf.write_text(FONTCONFIG.format(fonts=fonts, cache=workdir / f"fontconfig-{name}"))
    return Fonts(name, family, {**os.environ, "FONTCONFIG_FILE": str(conf)})


def drawn_fonts(page: Page, selector: str, timeout: float = 10.0) -> list[str]:
    """The font families Chromium drew the text of the first `selector` with (DevTools).

    Asked again until it names one: a region the socket swaps in just then is a node
    DevTools has not laid out yet, for which it names none (seen on a busy machine)."""
    deadline = time.monotonic() + timeout
    page.locator(selector).first.wait_for(state="visible", timeout=timeout * 1000)
    while True:
        fonts = _platform_fonts(page, selector)
        if fonts or time.monotonic() > deadline:
            return fonts
        next_frame(page)


# Resolves once the page has drawn two more frames: what it holds now is laid out.
NEXT_FRAME_JS = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"


def next_frame(page: Page) -> None:
    """Wait until the page has drawn what it holds (a condition, not a stretch of time)."""
    page.evaluate(NEXT_FRAME_JS)


def _platform_fonts(page: Page, selector: str) -> list[str]:
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument")["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        return [str(font["familyName"]) for font in fonts]
    finally:
        cdp.detach()


def nowhere(port: int) -> ProxySettings:
    """A browser's proxy for every address but loopback: `port` on loopback, held closed, so
    that a request anywhere else fails at once without leaving the machine (and without a
    route, which sends every request through the test's process and turns the browser's
    cache off: three times the CPU of a page load)."""
    return ProxySettings(server=f"socks5://{LOOPBACK}:{port}", bypass=f"{LOOPBACK},localhost,[::1]")


def note_foreign(request: Request, foreign: list[str]) -> None:
    """Note a failed request to an address other than loopback (see `nowhere`)."""
    if urlsplit(request.url).hostname not in (LOOPBACK, None):
        foreign.append(request.url)


def loopback_only(route: Route, foreign: list[str]) -> None:
    """Let a request to loopback go on; abort any other, noting it in `foreign` (no test
    may send traffic anywhere but loopback)."""
    if urlsplit(route.request.url).hostname == LOOPBACK:
        route.continue_()
    else:
        foreign.append(route.request.url)
        route.abort()


def assert_drawn_in(page: Page, fonts: Fonts, selector: str) -> list[str]:
    """Check that the text of `selector` is drawn in the setup's family; return its fonts."""
    drawn = drawn_fonts(page, selector)
    if fonts.family is not None:
        assert drawn and all(name.startswith(fonts.family) for name in drawn), (
            f"{selector} is drawn in {drawn}, not in {fonts.family} alone "
            "(Chromium did not take the font setup)"
        )
    return drawn


# What a person would not see as cut off. A line box is line-height high, but its
# font's box (ascent + descent) may be taller: Noto Sans is 1.36 em, so at line-height
# 1.2 it reaches 0.08 em past its line box at the top and the bottom, where no glyph
# draws but the tips of descenders, and an element's scrollHeight counts it. DejaVu
# (1.16 em) and Liberation (1.12 em) fit inside. Overflow of up to this share of the
# element's font size (at least SLACK_PX) is no cut; a line, a chip or a card is many
# times more.
SLACK_EM = 0.15
SLACK_PX = 2
# JavaScript: `clips(el)` (whether the element hides what overflows it) and `slack(el)`.
CUT_JS = f"""
const clips = (el) => {{
  const style = getComputedStyle(el);
  return style.overflowX !== "visible" || style.overflowY !== "visible";
}};
const slack = (el) => Math.max({SLACK_PX}, {SLACK_EM} * parseFloat(getComputedStyle(el).fontSize));
"""

PHONE_WIDTH = 360
PHONE_OPTIONS: dict[str, Any] = {
    "viewport": {"width": PHONE_WIDTH, "height": 740},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
}
TV_OPTIONS: dict[str, Any] = {"viewport": {"width": 1920, "height": 1080}}

# Counts the websocket messages a page received and the heartbeat answers, and
# keeps the page's connection (static/js/connection.js, window.splendorLive), so a test
# can ask for a heartbeat answer (Screen.settle).
WS_PROBE = """
window.__ws = {opened: 0, messages: 0, last: 0, pongs: 0, socket: null};
document.addEventListener("splendor:open", function (e) {
  window.__ws.opened += 1; window.__ws.last = Date.now();
  window.__ws.socket = e.detail.socket;
});
document.addEventListener("splendor:pong", function () { window.__ws.pongs += 1; });
document.addEventListener("splendor:swapped", function () {
  window.__ws.messages += 1; window.__ws.last = Date.now();
});
"""

# Token or bonus counts of the chips inside a container: {"white": 3, ...}.
CHIPS_JS = """
(root) => {
  const out = {};
  if (!root) return out;
  root.querySelectorAll(".chip").forEach((chip) => {
    const cls = [...chip.classList].find((c) => c.startsWith("chip-") && c !== "chip-zero");
    out[cls.slice(5)] = Number(chip.querySelector(".chip-n").textContent.trim());
  });
  return out;
}
"""

# What the phone offers right now, read from its controls.
PHONE_STATE_JS = """
() => {
  const hand = document.querySelector("#hand");
  const legal = (sel) => {
    const el = document.querySelector(sel);
    const raw = el ? el.getAttribute("data-legal") || "" : "";
    return raw ? raw.split(",").map((n) => n.split(":")[1]) : [];
  };
  const phase = [...hand.classList].find((c) => c.startsWith("phase-")) || "";
  return {
    version: Number(hand.dataset.version),
    myTurn: hand.dataset.myTurn === "1",
    phase: phase.slice(6),
    takes: legal("#take-legal"),  // the take picker keeps its legal takes in their own element
    returns: legal("[data-picker=return]"),
    affordable: [...hand.querySelectorAll(".card-button.affordable")].map((b) => ({
      open: b.getAttribute("data-open"),
      points: Number((b.querySelector(".points") || {}).textContent || 0),
    })),
    canPass: !!hand.querySelector("[data-action=pass]"),
    nobles: hand.querySelectorAll(".noble-button").length,
    decks: [...hand.querySelectorAll("button[data-open^=sheet-deck-]")].map((b) =>
      b.getAttribute("data-open")),
    cards: [...hand.querySelectorAll(".market-panel .card-button")].map((b) =>
      b.getAttribute("data-open")),
  };
}
"""


@dataclass
class Server:
    url: str
    port: int
    log: Path


@dataclass
class Screen:
    """One page: the TV or a phone."""

    page: Page
    context: BrowserContext
    label: str
    errors: list[str] = field(default_factory=list)
    wifi: Wifi | None = None  # the screen's own network, if its recorder gave it one
    devtools: dict[int, CDPSession] = field(default_factory=dict)  # by id(page)

    # The element whose data-version says which change the page shows.
    version_holder = "#screen"

    def set_network(self, on: bool) -> None:
        """The screen's network goes (False) or comes back (True): its Wi-Fi (the link)
        and what the browser tells its pages (navigator.onLine, "offline"/"online")."""
        assert self.wifi is not None, f"{self.label} has no Wi-Fi of its own (Recorder.wifi)"
        if not on:
            self.wifi.down()
        for page in self.context.pages:
            devtools = self.devtools.get(id(page))
            if devtools is None:
                devtools = self.devtools[id(page)] = self.context.new_cdp_session(page)
                devtools.send("Network.enable")
            state = {"latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
            devtools.send("Network.overrideNetworkState", {"offline": not on, **state})
        if on:
            self.wifi.up()

    def version(self) -> int:
        holder = self.page.locator(self.version_holder)
        return int(holder.get_attribute("data-version") or "-1")

    def reach(self, version: int, timeout: float = 15000) -> int:
        """Wait until the page shows change `version` (or a later one)."""
        self.page.wait_for_function(
            "([holder, v]) => Number(document.querySelector(holder)?.dataset.version) >= v",
            arg=[self.version_holder, version],
            timeout=timeout,
        )
        return self.version()

    def wait_version(self, above: int, timeout: float = 5000) -> int:
        """Wait until the page shows a change after `above`."""
        return self.reach(above + 1, timeout)

    def wait_chips(self, selector: str, expected: dict[str, int], timeout: float = 15000) -> None:
        """Wait until the chips under `selector` show these counts (the others are not read)."""
        self.page.wait_for_function(
            f"([selector, want]) => {{ const got = ({CHIPS_JS})(document.querySelector(selector));"
            " return Object.entries(want).every(([colour, n]) => got[colour] === n); }",
            arg=[selector, expected],
            timeout=timeout,
        )

    def watch(self, page: Page | None = None) -> None:
        page = page or self.page

        def on_error(error: Error) -> None:
            self.errors.append(f"{self.label}: uncaught JavaScript error: {error}")

        def on_console(message: ConsoleMessage) -> None:
            # A socket that fails is the tests' business; a policy violation never is.
            csp = "Content Security Policy" in message.text
            if message.type == "error" and ("WebSocket" not in message.text or csp):
                self.errors.append(f"{self.label}: console error: {message.text}")

        page.on("pageerror", on_error)
        page.on("console", on_console)
        page.on("dialog", lambda dialog: dialog.accept())

    def wait_connected(self, timeout: float = 5000) -> None:
        """Wait until the page's socket delivered its first view."""
        # A function, not an expression: Playwright evaluates an expression with eval(),
        # which the pages' Content-Security-Policy refuses.
        self.page.wait_for_function(
            "() => window.__ws && window.__ws.messages > 0", timeout=timeout
        )

    def settle(self, timeout: float = 15000) -> None:
        """Ask the server for a heartbeat answer and wait for it.

        The server answers on the same socket after what it sent the page before,
        so the page then shows every update the server had for it: a condition,
        never a quiet period.
        """
        self.wait_connected(timeout)
        before = self.page.evaluate(
            "() => { const n = window.__ws.pongs;"
            " window.__ws.socket.send(JSON.stringify({ping: true})); return n; }"
        )
        self.page.wait_for_function("n => window.__ws.pongs > n", arg=before, timeout=timeout)

    def shot(self, name: str, *, full_page: bool = False) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        if full_page:  # a sticky header would otherwise be drawn mid-page
            self.page.evaluate("window.scrollTo(0, 0)")
        self.page.screenshot(path=path, full_page=full_page)
        return path

    def chips(self, selector: str) -> dict[str, int]:
        result: dict[str, int] = self.page.locator(selector).first.evaluate(CHIPS_JS)
        return result


class Table(Screen):
    """The TV: the host screen of one game."""

    @property
    def code(self) -> str:
        match = re.search(r"/host/([A-Z0-9]+)/", self.page.url)
        assert match, f"The TV is not on a host page: {self.page.url}"
        return match.group(1)

    def new_game(self, server: Server) -> str:
        """Open the start page, click New game, return the join URL shown as text."""
        self.page.goto(server.url + "/")
        self.page.locator("#new-game").click()
        self.page.wait_for_url(re.compile(r"/host/[A-Z0-9]+/$"))
        expect(self.page.locator("#join-qr")).to_be_visible()
        self.wait_connected()
        return self.page.locator(".lobby .join-url").inner_text().strip()

    def lobby_names(self) -> list[str]:
        return [n.strip() for n in self.page.locator(".lobby-seat .seat-name").all_inner_texts()]

    def bank(self) -> dict[str, int]:
        return self.chips(".board .bank")

    def player(self, seat: int) -> Locator:
        return self.page.locator(f'.player[data-seat="{seat}"]')

    def tokens(self, seat: int) -> dict[str, int]:
        return self.chips(f'.player[data-seat="{seat}"] .tokens')

    def cards_bought(self, seat: int) -> int:
        texts = self.player(seat).locator(".bonuses .bonus b").all_inner_texts()
        return sum(int(t) for t in texts)

    def start(self) -> None:
        button = self.page.locator("#start-game")
        expect(button).to_be_enabled()
        with self.page.expect_navigation():  # the form posts, then the host page reloads
            button.click()
        expect(self.page.locator(".table")).to_be_visible()
        self.wait_connected()

    def put_away(self) -> None:
        """Close the table (its page goes blank) for a test that looks at phones only:
        a TV drawing every change of a whole game at 1920x1080 took a third of the
        browser's CPU in test_fit's 4-player game."""
        self.page.goto("about:blank")

    def add_bot(self) -> None:
        count = len(self.lobby_names())
        with self.page.expect_navigation():
            self.page.locator("#add-bot").click()
        expect(self.page.locator(".lobby-seat")).to_have_count(count + 1)
        self.wait_connected()


class Phone(Screen):
    """A phone in portrait, 360 px wide, played by tapping."""

    name: str = ""
    version_holder = "#hand"

    @property
    def hand(self) -> Locator:
        return self.page.locator("#hand")

    def join(self, url: str, name: str) -> int:
        """Open the join link, type the name, tap join; return the number of taps used."""
        assert urlsplit(url).hostname == LOOPBACK, f"Refusing to open a non-loopback URL: {url}"
        self.name = name
        self.page.goto(url)
        taps = 0
        self.page.locator("#name").tap()
        taps += 1
        self.page.keyboard.type(name)
        self.page.locator("#join-button").tap()
        taps += 1
        self.page.wait_for_url(re.compile(r"/play/[A-Z0-9]+/$"))
        self.wait_connected()
        return taps

    def state(self) -> dict[str, Any]:
        result: dict[str, Any] = self.page.evaluate(PHONE_STATE_JS)
        return result

    def my_turn(self) -> bool:
        return self.hand.get_attribute("data-my-turn") == "1"

    def seat(self) -> int:
        """This phone's seat, from the names in its status line."""
        seat = self.page.locator(".status .opponent", has_text=self.name).first
        return int(seat.get_attribute("data-seat") or "-1")

    def wait_turn(self, timeout: float = 10000) -> None:
        """Wait until it is this phone's turn, or the game is over."""
        self.page.wait_for_function(
            "() => { const h = document.querySelector('#hand');"
            " return h && (h.dataset.myTurn === '1' || h.classList.contains('phase-over')); }",
            timeout=timeout,
        )

    def token_total(self) -> int:
        text = self.page.locator(".my-hand .token-total").inner_text()
        return int(text.split("/")[0])

    def tokens(self) -> dict[str, int]:
        return self.chips(".my-hand .tokens")

    def reserved_ids(self) -> list[str]:
        cards = self.page.locator(".my-hand .reserved .card[data-card]")
        return [c.get_attribute("data-card") or "" for c in cards.all()]

    # ---- tapping

    def pick(self, picker: str, letters: str) -> None:
        """Tap gems in a picker ("take" or "return"), without confirming."""
        panel = self.page.locator(f"[data-picker={picker}]")
        for letter in letters:
            panel.locator(f"[data-pick={letter}]").tap()

    def confirm(self, picker: str) -> int:
        """Tap the picker's confirm button; return the version it was built on."""
        before = self.version()
        button = self.page.locator(f"[data-picker={picker}] [data-confirm]")
        expect(button).to_be_enabled()
        button.tap()
        return before

    def take(self, letters: str) -> None:
        self.pick("take", letters)
        self.wait_version(self.confirm("take"))

    def give_back(self, letters: str) -> None:
        self.pick("return", letters)
        self.wait_version(self.confirm("return"))

    def sheet_action(self, opener: str, action_prefix: str) -> None:
        """Tap a card or deck, then the action in its sheet; wait for the new view."""
        before = self.version()
        self.page.locator(f'#hand button[data-open="{opener}"]').tap()
        sheet = self.page.locator("#sheet")
        expect(sheet).to_be_visible()
        sheet.locator(f'[data-action^="{action_prefix}"]').first.tap()
        self.wait_version(before)

    def play_turn(self, *, buy: bool = True) -> str:
        """Do one legal thing by tapping (it must be this phone's turn); return its kind."""
        state = self.state()
        assert state["myTurn"], f"{self.label}: not my turn"
        if state["phase"] == "return":
            self.give_back(state["returns"][0])
            return "return"
        if state["phase"] == "noble" or state["nobles"]:
            before = self.version()
            self.page.locator(".noble-button").first.tap()  # its confirm() is accepted
            self.wait_version(before)
            return "noble"
        if state["canPass"]:
            before = self.version()
            self.page.locator("#hand [data-action=pass]").tap()
            self.wait_version(before)
            return "pass"
        if buy and state["affordable"]:
            best = max(state["affordable"], key=lambda card: card["points"])
            self.sheet_action(best["open"], "buy:")
            return "buy"
        if state["takes"]:
            longest = max(len(t) for t in state["takes"])
            self.take(next(t for t in state["takes"] if len(t) == longest))
            return "take"
        if state["affordable"]:
            self.sheet_action(state["affordable"][0]["open"], "buy:")
            return "buy"
        for opener in state["cards"]:
            template = self.page.locator(f"template#{opener}")
            if template.evaluate("t => !!t.content.querySelector('[data-action^=\"reserve:\"]')"):
                self.sheet_action(opener, "reserve:")
                return "reserve"
        if state["decks"]:
            self.sheet_action(state["decks"][0], "reserve:")
            return "reserve"
        raise AssertionError(f"{self.label}: found nothing legal to tap: {state}")


class WebSocketGate:
    """Holds back the server's updates to one page while closed (not its heartbeat)."""

    def __init__(self) -> None:
        self.closed = False
        self.held: list[str | bytes] = []
        self.route: WebSocketRoute | None = None

    def handle(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()  # the page's own messages go through untouched
        self.route = ws

        def from_server(message: str | bytes) -> None:
            # Heartbeat answers still pass: a page that hears no pong for 4 s opens
            # a new socket, and a slow run would then test a reconnect instead.
            if self.closed and message != "pong":
                self.held.append(message)
            else:
                ws.send(message)

        server.on_message(from_server)

    def close(self) -> None:
        self.closed = True

    def open(self) -> None:
        self.closed = False
        held, self.held = self.held, []
        assert self.route is not None
        for message in held:
            self.route.send(message)


@dataclass
class Recorder:
    """Opens the screens of one test and closes them, collecting what went wrong."""

    browser: Browser
    server: Server
    test_name: str
    screens: list[Screen] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    wifi: bool = False  # each phone gets a Wi-Fi of its own (Screen.set_network)
    relays: dict[int, Wifi] = field(default_factory=dict)  # by id(context)

    def _context(self, *, wifi: bool | None = None, **options: Any) -> BrowserContext:
        relay = None
        if (self.wifi and options.get("is_mobile", False)) if wifi is None else wifi:
            relay = Wifi()
            options["proxy"] = relay.proxy
        context = self.browser.new_context(base_url=self.server.url, **options)
        if relay is not None:
            self.relays[id(context)] = relay
        context.set_default_timeout(20_000)  # a condition, on a busy machine
        context.add_init_script(WS_PROBE)
        # The browser sends no request off loopback (`nowhere`); one tried fails, noted here.
        context.on("requestfailed", lambda request: note_foreign(request, self.foreign))
        return context

    def table(self) -> Table:
        context = self._context(**TV_OPTIONS)
        screen = Table(page=context.new_page(), context=context, label="TV")
        screen.watch()
        self.screens.append(screen)
        return screen

    def phone(self, label: str) -> Phone:
        context = self._context(**PHONE_OPTIONS)
        screen = Phone(page=context.new_page(), context=context, label=label)
        screen.wifi = self.relays.get(id(context))
        screen.watch()
        self.screens.append(screen)
        return screen

    def second_tab(self, phone: Phone, gate: WebSocketGate | None = None) -> Phone:
        """Another tab of the same phone (same cookies, so the same seat)."""
        page = phone.context.new_page()
        if gate is not None:
            page.route_web_socket(re.compile(r"/ws/"), gate.handle)
        tab = Phone(page=page, context=phone.context, label=phone.label + "-tab2")
        tab.name = phone.name
        tab.wifi = phone.wifi
        tab.watch()
        self.screens.append(tab)
        return tab

    def screenshot_all(self, prefix: str) -> None:
        for screen in self.screens:
            try:
                if not screen.page.is_closed():
                    screen.shot(f"{prefix}-{self.test_name}-{screen.label}", full_page=True)
            except Error:
                pass

    def close_all(self) -> list[str]:
        problems = [f"Request to a non-loopback address: {url}" for url in self.foreign]
        for screen in self.screens:
            problems.extend(screen.errors)
        for context in {id(s.context): s.context for s in self.screens}.values():
            with contextlib.suppress(Error):
                context.close()
        for relay in self.relays.values():
            relay.close()
        return problems


def settle(*screens: Screen) -> None:
    """Wait until each screen shows every update the server had sent it (Screen.settle)."""
    for screen in screens:
        screen.settle()


def decode_qr(png: bytes) -> list[str]:
    """Read the QR codes in a screenshot, as a phone's camera would."""
    image = Image.open(io.BytesIO(png)).convert("L")
    return [barcode.text for barcode in zxingcpp.read_barcodes(image)]


def in_step(*screens: Screen) -> int:
    """Wait until every screen shows the latest change any of them shows; return it."""
    latest = max(screen.version() for screen in screens)
    for screen in screens:
        screen.reach(latest)
    return latest


def axe_violations(
    page: Page, axe: Path, where: str, impacts: tuple[str, ...] | None = None
) -> list[str]:
    """Run axe-core on the page as it is; describe its findings of these impacts (None:
    every finding)."""
    if not page.evaluate("() => !!window.axe"):
        # Run through the browser's devtools, not as a <script> element: the pages'
        # Content-Security-Policy refuses inline scripts.
        page.evaluate("() => {\n" + axe.read_text() + "\n}")
    result: dict[str, Any] = page.evaluate(
        "async () => await axe.run(document, {resultTypes: ['violations']})"
    )
    return [
        f"{where}: {v['id']} ({v['impact']}): {v['help']} at "
        f"{[' '.join(map(str, n['target'])) for n in v['nodes'][:4]]}"
        for v in result["violations"]
        if impacts is None or v["impact"] in impacts
    ]
