# One phone may hold several seats of a game (players passing it round).

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("game", "0012_seat_forgotten"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="seat",
            name="one_seat_per_player",
        ),
    ]
