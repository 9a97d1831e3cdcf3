from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("game", "0010_seat_role"),
    ]

    operations = [
        migrations.RemoveField(model_name="seat", name="is_bot"),
    ]
