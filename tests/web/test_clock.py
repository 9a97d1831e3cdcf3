"""The live connection's clock: one setting scales every timing of the page and the server.

A test server with SPLENDOR_CLOCK 0.2 runs the same state machine five times faster
(tests/browser/live_server.py); a value set on its own is taken as it is.
"""

from __future__ import annotations

import json

import pytest

from tests.web.test_settings import run_python

TIMINGS = (
    "SPLENDOR_HEARTBEAT",
    "SPLENDOR_SILENT_AFTER",
    "SPLENDOR_DEAD_AFTER",
    "SPLENDOR_OPEN_WITHIN",
    "SPLENDOR_CHECK_WITHIN",
    "SPLENDOR_BACKOFF_CAP",
    "SPLENDOR_REST_RETRY",
    "SPLENDOR_HOLD_MOVE",
    "SPLENDOR_PRESENCE_GRACE",
    "SPLENDOR_BOT_LEASE",
    "SPLENDOR_LIVENESS_TICK",
)

# What each part of the server made of the settings it started with.
PRINT_CLOCK = (
    "import json, django; django.setup()\n"
    "from django.conf import settings\n"
    "from game.screens import words\n"
    "from game.storage import presence\n"
    "from game.writer import bot_turns, liveness\n"
    "print(json.dumps({\n"
    f"    'settings': {{name: getattr(settings, name) for name in {TIMINGS!r}}},\n"
    "    'page': words.TIMINGS,\n"
    "    'silent': presence.SILENT, 'live': presence.LIVE, 'grace': presence.grace(),\n"
    "    'tick': liveness.TICK, 'lease': bot_turns.BOT_LEASE.total_seconds(),\n"
    "    'sweep': bot_turns.BOT_SWEEP_EVERY,\n"
    "}))"
)

REAL = {
    "SPLENDOR_HEARTBEAT": 2.0,
    "SPLENDOR_SILENT_AFTER": 4.0,
    "SPLENDOR_DEAD_AFTER": 6.0,
    "SPLENDOR_OPEN_WITHIN": 5.0,
    "SPLENDOR_CHECK_WITHIN": 3.0,
    "SPLENDOR_BACKOFF_CAP": 2.0,
    "SPLENDOR_REST_RETRY": 30.0,
    "SPLENDOR_HOLD_MOVE": 12.0,
    "SPLENDOR_PRESENCE_GRACE": 20.0,
    "SPLENDOR_BOT_LEASE": 5.0,
    "SPLENDOR_LIVENESS_TICK": 1.0,
}


def clock_of(**env: str) -> dict[str, object]:
    unset = dict.fromkeys((*TIMINGS, "SPLENDOR_CLOCK"), "")
    found: dict[str, object] = json.loads(run_python(PRINT_CLOCK, {**unset, **env}))
    return found


def test_the_real_timings_by_default() -> None:
    found = clock_of()
    assert found["settings"] == REAL
    assert found["page"] == {
        "clock": 1.0,
        "heartbeat": 2000,
        "silentAfter": 4000,
        "deadAfter": 6000,
        "openWithin": 5000,
        "checkWithin": 3000,
        "backoffCap": 2000,
        "holdMove": 12000,
        "restRetry": 30000,
    }
    assert (found["silent"], found["live"], found["grace"]) == (4.0, 5.0, 20.0)
    assert (found["lease"], found["sweep"]) == (5.0, 2.0)


@pytest.mark.parametrize("clock", [0.2, 0.1])
def test_one_setting_scales_the_page_and_the_server_alike(clock: float) -> None:
    found = clock_of(SPLENDOR_CLOCK=str(clock))
    settings = found["settings"]
    assert isinstance(settings, dict)
    assert settings == pytest.approx({name: value * clock for name, value in REAL.items()})
    page = found["page"]
    assert isinstance(page, dict)
    assert page["clock"] == clock
    assert page["heartbeat"] == round(2000 * clock)
    assert page["deadAfter"] == round(6000 * clock)
    assert found["silent"] == pytest.approx(4.0 * clock)
    assert found["live"] == pytest.approx(5.0 * clock)
    assert found["grace"] == pytest.approx(20.0 * clock)
    assert found["lease"] == pytest.approx(5.0 * clock)
    assert found["tick"] == pytest.approx([0.8 * clock, 1.0 * clock])


def test_a_timing_set_on_its_own_is_taken_as_it_is() -> None:
    found = clock_of(SPLENDOR_CLOCK="0.2", SPLENDOR_PRESENCE_GRACE="7")
    settings = found["settings"]
    assert isinstance(settings, dict)
    assert settings["SPLENDOR_PRESENCE_GRACE"] == 7.0
    assert settings["SPLENDOR_HEARTBEAT"] == pytest.approx(0.4)
    assert found["grace"] == 7.0
