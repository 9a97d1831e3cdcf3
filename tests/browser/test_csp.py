"""The Content-Security-Policy in a real browser: the pages work under it, and a
violation is caught (every browser test fails on a console error, CSP ones included)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import Recorder, Server, Table

pytestmark = pytest.mark.browser


def test_a_policy_violation_is_reported_as_a_console_error(recorder: Recorder, tv: Table) -> None:
    tv.page.goto("/")
    assert "script-src 'self'" in tv.page.evaluate(
        "fetch('/').then(r => r.headers.get('content-security-policy'))"
    )
    # An inline script and a style attribute, as an injected name would bring them.
    tv.page.evaluate(
        """() => {
        const s = document.createElement('script');
        s.textContent = 'window.__ran = true';
        document.body.appendChild(s);
        const d = document.createElement('div');
        d.innerHTML = '<p style="color: red" id="styled">x</p>';
        document.body.appendChild(d);
    }"""
    )
    assert tv.page.evaluate("window.__ran === undefined"), "an inline script ran"
    colour = tv.page.evaluate("getComputedStyle(document.getElementById('styled')).color")
    assert colour != "rgb(255, 0, 0)", "an inline style applied"

    def refusals() -> list[str]:
        return [e for e in tv.errors if "Content Security Policy" in e]

    for _ in range(50):  # the browser reports each refusal as a console message
        if len(refusals()) >= 2:
            break
        tv.page.wait_for_event("console", timeout=30000)
    assert len(refusals()) >= 2, tv.errors
    tv.errors.clear()  # expected here; anywhere else they fail the test


def test_the_language_list_switches_without_an_inline_handler(
    recorder: Recorder, tv: Table, splendor_server: Server
) -> None:
    tv.page.goto("/")
    with tv.page.expect_navigation():
        tv.page.select_option("#language", "de")
    expect(tv.page.locator("html")).to_have_attribute("lang", "de")
    with tv.page.expect_navigation():
        tv.page.select_option("#language", "en")
    expect(tv.page.locator("html")).to_have_attribute("lang", "en")


def test_a_game_plays_over_its_socket_under_the_policy(
    recorder: Recorder, tv: Table, splendor_server: Server
) -> None:
    """connect-src 'self' allows the page's own websocket (ws: on the same host and port)."""
    url = tv.new_game(splendor_server)
    phone = recorder.phone("Aino")
    phone.join(url, "Aino")
    expect(tv.page.locator(".lobby-seat .seat-name")).to_have_text(["Aino"])
    tv.wait_connected()
    phone.wait_connected()
    for screen in (tv, phone):
        header = screen.page.evaluate(
            "fetch(location.href).then(r => r.headers.get('content-security-policy'))"
        )
        assert "connect-src 'self'" in header
