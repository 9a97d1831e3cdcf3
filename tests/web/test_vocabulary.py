"""The vocabulary reaches templates (their globals) and the JavaScript (base.html)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.template import engines
from django.test import Client

from game.engine.vocabulary import COLOUR_LETTERS, Phase
from game.screens.wire import HEARTBEAT, HEARTBEATS, PONG, Close

pytestmark = pytest.mark.django_db

JSON_SCRIPT = re.compile(
    r'<script id="splendor-vocabulary" type="application/json">(.*?)</script>', re.S
)


# The page's own scripts, in the order base.html loads them: page.js reads the
# vocabulary, connection.js the timings and the close codes, the others the letters and
# the phases (cues.js, the TV's sounds, reads none of it).
PAGE_SCRIPTS = ("page", "connection", "move", "hand", "sheets", "app")


def page_scripts() -> str:
    """The page's scripts as one text."""
    folder = Path(__file__).parents[2] / "static" / "js"
    return "\n".join((folder / f"{name}.js").read_text() for name in PAGE_SCRIPTS)


def test_every_page_hands_the_javascript_the_colour_letters_and_the_phases() -> None:
    page = Client().get("/").content.decode()
    (found,) = JSON_SCRIPT.findall(page)
    phases = {phase.name: phase.value for phase in Phase}
    # What the page's scripts read: they name no colour letter and no phase themselves.
    handed = json.loads(found)
    assert {"letters": handed["letters"], "phases": handed["phases"]} == {
        "letters": COLOUR_LETTERS,
        "phases": phases,
    }
    script = page_scripts()
    assert '"splendor-vocabulary"' in script and COLOUR_LETTERS not in script
    # A hand's state is read from its data attributes, never from its classes.
    assert not re.search(r"classList\.contains\(\"(phase-|my-turn)|className\.match", script)
    assert not [p for p in Phase if f'"{p.value}"' in script]


def test_the_page_runs_its_connection_on_the_servers_clock(settings: Any) -> None:
    """The connection's timings are the server's settings, in milliseconds: a test
    server with SPLENDOR_CLOCK 0.2 runs the page's same state machine five times faster."""
    page = Client().get("/").content.decode()
    (found,) = JSON_SCRIPT.findall(page)
    timings = json.loads(found)["timings"]
    assert timings == {
        "clock": settings.SPLENDOR_CLOCK,
        "heartbeat": round(settings.SPLENDOR_HEARTBEAT * 1000),
        "silentAfter": round(settings.SPLENDOR_SILENT_AFTER * 1000),
        "deadAfter": round(settings.SPLENDOR_DEAD_AFTER * 1000),
        "openWithin": round(settings.SPLENDOR_OPEN_WITHIN * 1000),
        "checkWithin": round(settings.SPLENDOR_CHECK_WITHIN * 1000),
        "backoffCap": round(settings.SPLENDOR_BACKOFF_CAP * 1000),
        "holdMove": round(settings.SPLENDOR_HOLD_MOVE * 1000),
        "restRetry": round(settings.SPLENDOR_REST_RETRY * 1000),
    }
    assert timings["heartbeat"] < timings["silentAfter"] < timings["deadAfter"]
    # A page at rest (offline, or hidden) retries far less often than one that is not.
    assert timings["backoffCap"] < timings["restRetry"]
    script = page_scripts()
    # No timing of the connection is written into the page's scripts themselves.
    assert not re.search(
        r"var (PING_EVERY|SILENT_AFTER|DEAD_AFTER|BACKOFF_CAP|REST_RETRY) = \d", script
    )


def test_the_page_reads_the_servers_close_codes_from_its_vocabulary() -> None:
    """One table of close codes (game.screens.wire), all in the application's range
    4000-4999 (Autobahn under Daphne refuses 1001-2999 from an application), handed to
    the page, whose scripts name none of them themselves."""
    page = Client().get("/").content.decode()
    (found,) = JSON_SCRIPT.findall(page)
    closes = json.loads(found)["closes"]
    assert closes == {close.name: close.value for close in Close}
    assert all(4000 <= code <= 4999 for code in closes.values()), closes
    script = page_scripts()
    assert not [code for code in closes.values() if str(code) in script]
    assert not re.search(r"\b(1008|4\d\d\d)\b", script)
    assert {"NO_SEAT", "NO_GAME", "REPLACED"} <= set(re.findall(r"CLOSES\.(\w+)", script))


def test_the_page_is_handed_its_heartbeat_and_the_servers_answer() -> None:
    """The heartbeat the consumer answers without parsing, and its answer (game.screens.wire)."""
    page = Client().get("/").content.decode()
    (found,) = JSON_SCRIPT.findall(page)
    vocabulary = json.loads(found)
    assert (vocabulary["heartbeat"], vocabulary["pong"]) == (HEARTBEAT, PONG)
    assert json.loads(HEARTBEAT) == {"ping": True} and HEARTBEAT in HEARTBEATS


def test_a_template_compares_with_the_vocabulary_instead_of_strings() -> None:
    """Pages and fragments share one environment, whose globals are the vocabulary."""
    template = engines["jinja2"].from_string(
        "{% if phase == PHASE.RETURN %}give back{% endif %} {{ ACTION.BUY }} {{ COLOUR.BLACK }}"
        " {{ ROLE.STAND_IN }} {{ LEVEL.HARD }} {% if status == STATUS.LOBBY %}waiting{% endif %}"
    )
    assert template.render({"phase": Phase.RETURN, "status": "lobby"}) == (
        "give back buy black stand_in hard waiting"
    )
    assert template.render({"phase": "main", "status": "over"}) == " buy black stand_in hard "


# A comparison with a quoted word: the words come from the vocabulary's globals instead.
LITERAL_COMPARISON = re.compile(r'[!=]=\s*["\']')


def test_no_template_compares_with_a_quoted_word(base_dir: Path) -> None:
    for template in sorted((base_dir / "templates").rglob("*.html")):
        if ".axe" not in template.parts:
            assert not LITERAL_COMPARISON.findall(template.read_text()), template.name
