"""System checks: the Card and Noble tables must hold exactly the engine's dataset.

The rules play with game.engine.cards; the tables are a copy for the admin and
for queries. A copy that drifted (the CSV changed without a data migration, a
row edited by hand) would show players one card and score another, so it is an
error. It is a database check: `manage.py migrate` runs it before migrating and
`manage.py check --database default` runs it on demand (the test suite does).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.core import checks
from django.db import DatabaseError, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.migrations.executor import MigrationExecutor
from django.db.models import Model

from game.models import Card, Noble
from game.storage.dataset import card_rows, noble_rows

# How many differing ids an error lists before "…".
SHOWN_IDS = 10


def check_dataset(
    app_configs: Sequence[Any] | None = None,
    databases: Iterable[str] | None = None,
    **kwargs: Any,
) -> list[checks.CheckMessage]:
    """Compare each given database's Card and Noble rows with the engine's data."""
    errors: list[checks.CheckMessage] = []
    for alias in databases or ():
        errors.extend(_check_database(alias))
    return errors


def _check_database(alias: str) -> list[checks.CheckMessage]:
    connection = connections[alias]
    try:
        if not _ready(connection):
            return []
        return [
            *_compare(Card, card_rows(), alias, "game.E001"),
            *_compare(Noble, noble_rows(), alias, "game.E002"),
        ]
    except DatabaseError:
        # Unreachable or unreadable: the command that needs the database says so itself.
        return []


def _ready(connection: BaseDatabaseWrapper) -> bool:
    """True once the tables exist and the game app's migrations have all been applied.

    Before that, migrate is about to create or update the rows: nothing to compare yet.
    """
    tables = set(connection.introspection.table_names())
    if not {Card._meta.db_table, Noble._meta.db_table} <= tables:
        return False
    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    return not any(migration.app_label == "game" for migration, _ in plan)


def _compare(
    model: type[Model], expected: list[dict[str, Any]], alias: str, error_id: str
) -> list[checks.CheckMessage]:
    fields = list(expected[0])
    stored = {row["id"]: row for row in model._default_manager.using(alias).values(*fields)}
    wanted = {row["id"]: row for row in expected}
    differing = sorted(i for i in stored.keys() | wanted.keys() if stored.get(i) != wanted.get(i))
    if not differing:
        return []
    shown = ", ".join(str(i) for i in differing[:SHOWN_IDS])
    more = "…" if len(differing) > SHOWN_IDS else ""
    name = model._meta.verbose_name_plural
    return [
        checks.Error(
            f"The {name} in database '{alias}' differ from the engine's bundled data "
            f"(game/engine/data/) for id {shown}{more}.",
            hint="Add a data migration that reloads them from game.storage.dataset, "
            "and never edit these rows by hand.",
            obj=model,
            id=error_id,
        )
    ]
