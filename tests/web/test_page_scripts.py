"""The page's scripts: plain static files, no build step, each short enough to read at
once, loaded by every page in one order (each adds its part to window.Splendor, which
page.js makes)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

from tests.web.test_vocabulary import PAGE_SCRIPTS

pytestmark = pytest.mark.django_db

SCRIPTS = Path(__file__).parents[2] / "static" / "js"


def test_every_page_loads_its_scripts_in_order_and_deferred() -> None:
    page = Client().get("/").content.decode()
    loaded = re.findall(r'<script src="/static/js/(\w+)\.js"( defer)?>', page)
    names = [name for name, _ in loaded]
    assert names[: len(PAGE_SCRIPTS)] == list(PAGE_SCRIPTS), names
    assert all(defer for _, defer in loaded), loaded


def test_no_page_script_is_over_400_lines() -> None:
    lengths = {path.name: len(path.read_text().splitlines()) for path in SCRIPTS.glob("*.js")}
    assert max(lengths.values()) <= 400, lengths


def test_the_connection_is_one_state_machine() -> None:
    """Only connection.js names the connection's states, and only transition() changes
    one: no other assignment of the state anywhere."""
    connection = (SCRIPTS / "connection.js").read_text()
    assert len(re.findall(r"\bstate = ", connection)) == 2  # its start, and transition()
    others = [p for p in SCRIPTS.glob("*.js") if p.name != "connection.js"]
    for path in others:
        assert not re.search(r"\"(connecting|silent|reconnecting|parked)\"", path.read_text()), path
