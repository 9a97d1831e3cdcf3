"""Load the bundled cards and nobles from game/data/*.csv (ids are 1-based row order)."""

import csv
from pathlib import Path

from django.db import migrations

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
COLOURS = ("white", "blue", "green", "red", "black")


def read_rows(name):
    with (DATA_DIR / name).open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def load_dataset(apps, schema_editor):
    Card = apps.get_model("game", "Card")
    Noble = apps.get_model("game", "Noble")
    Card.objects.bulk_create(
        Card(
            id=number,
            level=int(row["level"]),
            bonus=row["bonus"],
            points=int(row["points"]),
            **{f"cost_{colour}": int(row[colour]) for colour in COLOURS},
        )
        for number, row in enumerate(read_rows("cards.csv"), start=1)
    )
    Noble.objects.bulk_create(
        Noble(
            id=number,
            points=int(row["points"]),
            **{f"req_{colour}": int(row[colour]) for colour in COLOURS},
        )
        for number, row in enumerate(read_rows("nobles.csv"), start=1)
    )


def unload_dataset(apps, schema_editor):
    apps.get_model("game", "Card").objects.all().delete()
    apps.get_model("game", "Noble").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("game", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(load_dataset, unload_dataset),
    ]
