"""The page's connection (static/js/connection.js) as the page has it: its backoff is a
pure function of the attempt and a roll of the dice, on the server's clock, and a page
without a game holds no socket. (What it does through faults: test_faults, test_rest.)"""

from __future__ import annotations

import pytest

from tests.browser.helpers import Recorder, Table

pytestmark = pytest.mark.browser

ROLLS = (0.0, 0.5, 0.999)
ATTEMPTS = (0, 1, 2, 3, 4, 8)


def expected_backoff(attempt: int, roll: float, clock: float, cap: float) -> float:
    """ms before attempt number `attempt`: 300-900 ms on the clock for the first, then
    500 ms times 2 to the attempt's number, at most the cap, times 0.5-1."""
    if attempt == 0:
        return 300 * clock * (1 + 2 * roll)
    return min(cap, 500 * clock * 2**attempt) * (0.5 + 0.5 * roll)


def test_the_backoff_is_quick_then_doubles_to_its_cap_with_jitter(
    recorder: Recorder, tv: Table
) -> None:
    tv.page.goto("/")
    timings = tv.page.evaluate(
        "() => JSON.parse(document.getElementById('splendor-vocabulary').textContent).timings"
    )
    clock, cap = timings["clock"], timings["backoffCap"]
    waits = tv.page.evaluate(
        "([attempts, rolls]) => attempts.map("
        "n => rolls.map(r => window.Splendor.connection.backoff(n, r)))",
        [list(ATTEMPTS), list(ROLLS)],
    )
    for attempt, row in zip(ATTEMPTS, waits, strict=True):
        for roll, wait in zip(ROLLS, row, strict=True):
            assert wait == pytest.approx(expected_backoff(attempt, roll, clock, cap))
            assert wait <= max(cap, 900 * clock), (attempt, roll, wait)
    assert waits[-1][0] == pytest.approx(cap / 2)  # capped, and jittered below the cap
    # A page with no game (no #live) opens no socket.
    assert tv.page.evaluate("window.splendorLive.state()") == "idle"
