"""No browser test sends traffic anywhere but loopback: the browsers' proxy for every
other address is a loopback port held closed (helpers.nowhere), so such a request fails
at once on the machine, and the test that made it fails on the note (Recorder)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Error

from tests.browser.helpers import Recorder, Table

pytestmark = pytest.mark.browser

# An address kept for documentation (RFC 5737), then a name that never resolves (RFC 6761):
# neither is reached or looked up; the address first, so that a browser without the proxy
# fails the test before it would ask for the name.
ELSEWHERE = ("http://192.0.2.1/htmx.min.js", "http://cdn.splendor.invalid/htmx.min.js")


def test_a_request_off_loopback_fails_on_the_machine_and_is_noted(
    recorder: Recorder, tv: Table
) -> None:
    tab = tv.context.new_page()
    for url in ELSEWHERE:
        with pytest.raises(Error, match="ERR_PROXY_CONNECTION_FAILED"):
            tab.goto(url)
    assert recorder.foreign == list(ELSEWHERE)
    recorder.foreign.clear()  # this test's own requests: noted, as every test's would be
    answer = tv.page.goto("/")  # loopback goes straight to the server
    assert answer is not None and answer.ok
