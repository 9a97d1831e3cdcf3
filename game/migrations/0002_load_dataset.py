"""Load the engine's bundled cards and nobles (game/engine/data/, ids are 1-based row order).

The rows come from the engine's own parser through game.dataset, so the
tables hold exactly what the rules play with (game.checks verifies it).
"""

from django.db import migrations

from game.dataset import card_rows, noble_rows


def load_dataset(apps, schema_editor):
    Card = apps.get_model("game", "Card")
    Noble = apps.get_model("game", "Noble")
    Card.objects.bulk_create(Card(**row) for row in card_rows())
    Noble.objects.bulk_create(Noble(**row) for row in noble_rows())


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
