"""Load the engine's bundled cards and nobles (game/engine/data/, ids are 1-based row order).

The rows come from the engine's own parser (game.engine.cards), so the tables
hold exactly what the rules play with; game.checks verifies it. The mapping to
columns is written out here on purpose: it is the schema as of this migration,
and must not follow later changes to the models (game.storage.dataset does that).
"""

from django.db import migrations

from game.engine.cards import CARDS, NOBLES

GEMS = ("white", "blue", "green", "red", "black")  # the engine's colour order


def load_dataset(apps, schema_editor):
    Card = apps.get_model("game", "Card")
    Noble = apps.get_model("game", "Noble")
    Card.objects.bulk_create(
        Card(
            id=card.id,
            level=card.level,
            bonus=GEMS[card.bonus],
            points=card.points,
            **{f"cost_{name}": amount for name, amount in zip(GEMS, card.cost, strict=True)},
        )
        for card in CARDS
    )
    Noble.objects.bulk_create(
        Noble(
            id=noble.id,
            points=noble.points,
            **{f"req_{name}": need for name, need in zip(GEMS, noble.requires, strict=True)},
        )
        for noble in NOBLES
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
