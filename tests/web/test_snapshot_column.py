"""The game's snapshot is stored as JSON text; games saved before (jsonb on PostgreSQL,
Django's JSON column on SQLite) keep their snapshot through the migration."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.web.test_postgres import on_postgres
from tests.web.test_settings import run_python

MIGRATE_SNAPSHOTS = """
import json, django
django.setup()
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

call_command("migrate", "game", "0008", verbosity=0)
before = MigrationExecutor(connection).loader.project_state(("game", "0008_recent_turns"))
OldGame = before.apps.get_model("game", "Game")
snapshot = {"current": 1, "bank": {"white": 4, "gold": 5}, "names": ["Łukasz", "Ελένη", "🎲"]}
saved = OldGame.objects.create(code="AAAAAA", state=snapshot, status="playing")
lobby = OldGame.objects.create(code="BBBBBB", state=None)

call_command("migrate", verbosity=0)
from game.models import Game
from game.storage import store
print(Game.objects.get(pk=saved.pk).state == snapshot, Game.objects.get(pk=lobby.pk).state)
with connection.cursor() as cursor:
    cursor.execute("SELECT state FROM game_game WHERE id = %s", [saved.pk])
    (text,) = cursor.fetchone()
print(type(text).__name__, json.loads(text) == snapshot)

# Written back by the writer's SQL and by the ORM: compact JSON text, read back the same.
from django.db import transaction
with transaction.atomic():
    game, seats = store.lock_game(saved.pk)
    game.state["current"] = 2
    game.version += 1
    store.save_move(game, 0, 1, "take:wug")
Game.objects.filter(pk=lobby.pk).update(state={"current": 0})
with connection.cursor() as cursor:
    cursor.execute("SELECT state FROM game_game ORDER BY id")
    texts = [row[0] for row in cursor.fetchall()]
print(Game.objects.get(pk=saved.pk).state["current"], texts[1], ": " in texts[0])
"""


def expect_migrated(lines: list[str]) -> None:
    assert lines == ["True None", "str True", '2 {"current":0} False']


def test_snapshots_survive_the_move_to_text_on_sqlite(tmp_path: Path) -> None:
    out = run_python(MIGRATE_SNAPSHOTS, {"SPLENDOR_DB_PATH": str(tmp_path / "db.sqlite3")})
    expect_migrated(out.strip().splitlines())


@pytest.mark.slow
def test_snapshots_survive_the_move_to_text_on_postgres() -> None:
    expect_migrated(on_postgres(MIGRATE_SNAPSHOTS))
