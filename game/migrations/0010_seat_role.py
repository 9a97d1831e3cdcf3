"""A seat's role (human, bot, stand-in) replaces is_bot and the bot_kind marker
"stand-in"; bot_kind becomes bot_level, a bot's level only.

0011 then removes is_bot, in a migration of its own: on PostgreSQL a table is
not altered in the transaction that updated its rows.
"""

from django.db import migrations, models

# The words this migration stores and reads, as they were when it was written.
HUMAN, BOT, STAND_IN = "human", "bot", "stand_in"
OLD_STAND_IN = "stand-in"  # bot_kind's marker of a stand-in (with is_bot)
LEVELS = ("easy", "medium", "hard")
# The engine's bot names that older games stored, as the level they play at; any
# other kind (blank, for one) played at the default level, medium.
ENGINE_BOTS = {"random": "easy", "greedy": "medium"}
DEFAULT_LEVEL = "medium"


def roles_from_flags(apps, schema_editor):
    Seat = apps.get_model("game", "Seat")
    Seat.objects.filter(is_bot=True, bot_level=OLD_STAND_IN).update(role=STAND_IN, bot_level="")
    Seat.objects.filter(is_bot=True).exclude(role=STAND_IN).update(role=BOT)
    for kind, level in ENGINE_BOTS.items():
        Seat.objects.filter(role=BOT, bot_level=kind).update(bot_level=level)
    Seat.objects.filter(role=BOT).exclude(bot_level__in=LEVELS).update(bot_level=DEFAULT_LEVEL)
    Seat.objects.filter(role=HUMAN).update(bot_level="")


def flags_from_roles(apps, schema_editor):
    Seat = apps.get_model("game", "Seat")
    Seat.objects.filter(role=STAND_IN).update(is_bot=True, bot_level=OLD_STAND_IN)
    Seat.objects.filter(role=BOT).update(is_bot=True)


class Migration(migrations.Migration):
    dependencies = [
        ("game", "0009_snapshot_as_text"),
    ]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="role",
            field=models.CharField(
                choices=[("human", "player"), ("bot", "bot"), ("stand_in", "stand-in bot")],
                default="human",
                max_length=16,
            ),
        ),
        migrations.RenameField(model_name="seat", old_name="bot_kind", new_name="bot_level"),
        migrations.RunPython(roles_from_flags, flags_from_roles),
    ]
