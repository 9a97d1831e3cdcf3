"""What a screen shows, drawn by each font family alone (DejaVu, Liberation, Noto).

A layout test plays its game once, with the machine's fonts, and has a Chromium of each
other font setup (conftest's `other_fonts`) draw copies of what its screens showed: a
copy is the page as it stood (PAGE_COPY_JS: its elements, classes and attributes, its
scripts removed), served under the page's own Content-Security-Policy in a page of the
same size, touch and language. The pages' JavaScript sets classes and attributes, never
sizes or positions, so a copy lays out as the screen would have with that family.

A screen that changes with the game keeps a copy after every update (COPY_PROBE, in the
same animation frame in which its own probes measure), and `check_all` lays them out one
after another in each setup (with any the test took itself), running the same measure.
"""

from __future__ import annotations

import contextlib
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import Browser, Error, Page, Route

from tests.browser.helpers import ARTIFACTS, LOOPBACK, Fonts, Server, assert_drawn_in, loopback_only

# The page as it stands, without its scripts.
PAGE_COPY_JS = """
() => {
  const copy = document.documentElement.cloneNode(true);
  copy.querySelectorAll("script").forEach((script) => script.remove());
  return "<!DOCTYPE html>\\n" + copy.outerHTML;
}
"""

# Shows a copy in a page that holds one already, in place (its stylesheets stay loaded):
# the html element takes the copy's attributes, the body is the copy's. False
# when the copy's stylesheets are not the page's (then the page loads the copy anew).
SHOW_COPY_JS = """
(html) => {
  const copy = new DOMParser().parseFromString(html, "text/html");
  const sheets = (doc) => [...doc.querySelectorAll("link[rel=stylesheet]")]
    .map((link) => link.getAttribute("href")).join(" ");
  if (sheets(copy) !== sheets(document)) return false;
  const same = (to, from) => {
    [...to.attributes].forEach((a) => to.removeAttribute(a.name));
    [...from.attributes].forEach((a) => to.setAttribute(a.name, a.value));
  };
  same(document.documentElement, copy.documentElement);
  document.body.replaceWith(document.adoptNode(copy.body));  // parsed once, not twice
  window.scrollTo({top: 0, behavior: "instant"});
  return true;
}
"""

# A screen's copy after every update, labelled by the version it shows: window.__copies.
COPY_PROBE = (
    "window.__copies = [];\nwindow.__pageCopy = "
    + PAGE_COPY_JS.strip()
    + """;
document.addEventListener("splendor:swapped", () => requestAnimationFrame(() => {
  const screen = document.querySelector("#screen");
  const label = `version ${screen ? screen.dataset.version : "?"}`;
  window.__copies.push([label, window.__pageCopy()]);
}));
"""
)

# Lays out each copy in turn and runs window[measure](label) on it (a function of the
# page's init scripts that returns what it found wrong); returns all it found, labelled.
CHECK_ALL_JS = (
    "([copies, measure]) => {\n  const show = "
    + SHOW_COPY_JS.strip()
    + """;
  return copies.flatMap(([label, html]) => show(html)
    ? window[measure](label).map((found) => `${label}: ${found}`)
    : [`${label}: the copy's stylesheets are not the first copy's`]);
}
"""
)

Copies = list[tuple[str, str]]  # (label, html)


class FontCopies:
    """A page per font setup and screen (`key`), showing copies of that screen."""

    PATH = "/fit-copy/"

    def __init__(self, setups: list[tuple[Fonts, Browser]], server: Server) -> None:
        self.setups = setups
        self.server = server
        self.html = ""
        self.pages: dict[tuple[str, str], Page] = {}
        self.foreign: list[str] = []
        self.csp = ""

    def show(
        self, html: str, key: str, options: dict[str, Any], drawn: str, init_script: str = ""
    ) -> list[tuple[Fonts, Page]]:
        """Each setup's page for screen `key` (a context of `options`, with `init_script`,
        the first time), showing `html`; checked, the first time, to draw `drawn` in the
        setup's family."""
        self.html = html
        return [
            (fonts, self._page(fonts, browser, key, options, drawn, init_script))
            for fonts, browser in self.setups
        ]

    def check_all(
        self,
        copies: Copies,
        key: str,
        options: dict[str, Any],
        drawn: str,
        init_script: str,
        measure: str,
    ) -> list[str]:
        """Every copy laid out by each setup and measured by `window[measure]` (defined by
        `init_script`); what was found, named by setup and copy."""
        if not copies:
            return [f"{key}: no copy to check"]
        found: list[str] = []
        # The last copy first: the screen as the game left it draws `drawn`.
        for fonts, page in self.show(copies[-1][1], key, options, drawn, init_script):
            off: list[str] = page.evaluate(CHECK_ALL_JS, [copies, measure])
            found += [f"with {fonts.name} alone, {problem}" for problem in off]
        return found

    def close(self) -> list[str]:
        """Close the pages; return the requests to non-loopback addresses they made."""
        for page in self.pages.values():
            with contextlib.suppress(Error):
                page.context.close()
        return [f"Request to a non-loopback address: {url}" for url in self.foreign]

    def _page(
        self,
        fonts: Fonts,
        browser: Browser,
        key: str,
        options: dict[str, Any],
        drawn: str,
        init_script: str,
    ) -> Page:
        page = self.pages.get((fonts.name, key))
        if page is not None and page.evaluate(SHOW_COPY_JS, self.html):
            return page
        if page is None:
            page = self._new_page(browser, options, init_script)
            self.pages[(fonts.name, key)] = page
        page.goto(self.PATH)
        assert_drawn_in(page, fonts, drawn)
        return page

    def _new_page(self, browser: Browser, options: dict[str, Any], init_script: str) -> Page:
        # Reduced motion: a copy is laid out, not watched; what moves on a screen (a cue,
        # a shadow, a card coming in) never moves its layout.
        context = browser.new_context(base_url=self.server.url, **options, reduced_motion="reduce")
        if not self.csp:
            answer = context.request.get("/")
            self.csp = answer.headers["content-security-policy"]
        if init_script:
            context.add_init_script(init_script)
        context.route("**/*", self._serve)
        return context.new_page()

    def _serve(self, route: Route) -> None:
        url = urlsplit(route.request.url)
        if url.hostname == LOOPBACK and url.path == self.PATH:
            headers = {"Content-Type": "text/html; charset=utf-8"}
            route.fulfill(body=self.html, headers={**headers, "Content-Security-Policy": self.csp})
        else:
            loopback_only(route, self.foreign)


def each_font(
    copies: FontCopies,
    page: Page,
    key: str,
    options: dict[str, Any],
    drawn: str,
    init_script: str = "",
) -> list[tuple[str, Page]]:
    """The page itself (the machine's fonts), then a copy of it in a page of each other
    font setup (`key` names the screen, `options` its size and language, `init_script`
    its probes), checked to draw `drawn` in its family: each with its setup's name."""
    html = page.evaluate(PAGE_COPY_JS)
    shown = copies.show(html, key, options, drawn, init_script)
    return [("machine", page)] + [(fonts.name, copy) for fonts, copy in shown]


def in_setup(where: str, setup: str) -> str:
    return where if setup == "machine" else f"{where}, with {setup} alone"


def picture(page: Page, name: str, *, full_page: bool = False) -> None:
    """A screenshot for people to look at, taken without touching the page (Playwright
    hides the text caret with an inline style by default, which the pages'
    Content-Security-Policy refuses: a console error)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"{name}.png", full_page=full_page, caret="initial")
