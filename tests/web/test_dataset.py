"""The Card and Noble tables hold exactly the engine's dataset, and a check keeps it so.

The dataset's own soundness (90 cards, 40/30/20, costs, nobles, the pinned
hash) is tested on what the engine loads: tests/engine/test_dataset.py.
"""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from game.checks import check_dataset
from game.engine.cards import CARDS, NOBLES
from game.engine.colours import GEMS, NAMES
from game.models import Card, Noble
from tests.web.test_settings import run_python

pytestmark = pytest.mark.django_db


def test_the_tables_hold_the_engines_cards_field_by_field() -> None:
    stored = list(Card.objects.order_by("id"))
    assert len(stored) == len(CARDS) == 90
    for row, card in zip(stored, CARDS, strict=True):
        assert (row.id, row.level, row.bonus, row.points) == (
            card.id,
            card.level,
            NAMES[card.bonus],
            card.points,
        )
        assert tuple(getattr(row, f"cost_{NAMES[c]}") for c in GEMS) == card.cost, card.id


def test_the_tables_hold_the_engines_nobles_field_by_field() -> None:
    stored = list(Noble.objects.order_by("id"))
    assert len(stored) == len(NOBLES) == 10
    for row, noble in zip(stored, NOBLES, strict=True):
        assert (row.id, row.points) == (noble.id, noble.points)
        assert tuple(getattr(row, f"req_{NAMES[c]}") for c in GEMS) == noble.requires, noble.id


def test_the_check_passes_on_the_migrated_database() -> None:
    assert check_dataset(databases=["default"]) == []
    call_command("check", databases=["default"])  # raises on any error


def test_a_changed_card_fails_the_check() -> None:
    Card.objects.filter(id=17).update(points=5)
    errors = check_dataset(databases=["default"])
    assert [e.id for e in errors] == ["game.E001"]
    assert "id 17." in errors[0].msg
    with pytest.raises(SystemCheckError, match="game.E001"):
        call_command("check", databases=["default"])


def test_a_missing_noble_and_an_extra_card_fail_the_check() -> None:
    Noble.objects.filter(id=4).delete()
    Card.objects.create(
        id=91, level=1, bonus="red", points=0, cost_white=1, cost_blue=1, cost_green=1,
        cost_red=0, cost_black=1,
    )  # fmt: skip
    errors = check_dataset(databases=["default"])
    assert {e.id: e.msg.rsplit("id ", 1)[1] for e in errors} == {
        "game.E001": "91.",
        "game.E002": "4.",
    }


def test_without_databases_the_check_reads_nothing() -> None:
    # `manage.py check` (no --database) and runserver skip database checks.
    Card.objects.filter(id=1).update(level=3)
    assert check_dataset() == []


FRESH_DATABASE = """
import json, runpy, sys
import django
django.setup()
from django.core import checks
from django.core.management import call_command
from game.models import Card

def errors():
    return [e.id for e in checks.run_checks(databases=["default"]) if e.is_serious()]

seen = {"empty": errors()}
call_command("migrate", "game", "0001", verbosity=0)
seen["tables without rows, migrations pending"] = errors()
sys.argv = ["manage.py", "migrate", "--no-input"]
try:
    runpy.run_path("manage.py", run_name="__main__")
except SystemExit as exit:
    assert not exit.code, exit.code
seen["migrated"] = errors()
seen["cards"] = Card.objects.count()
Card.objects.filter(id=90).update(cost_black=0)
seen["changed"] = errors()
print(json.dumps(seen))
"""


def test_a_fresh_database_migrates_and_the_check_waits_for_it(tmp_path) -> None:
    out = run_python(FRESH_DATABASE, {"SPLENDOR_DB_PATH": str(tmp_path / "fresh.sqlite3")})
    assert json.loads(out.splitlines()[-1]) == {
        "empty": [],
        "tables without rows, migrations pending": [],
        "migrated": [],
        "cards": 90,
        "changed": ["game.E001"],
    }
