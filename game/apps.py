from django.apps import AppConfig
from django.core import checks


class GameConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "game"
    verbose_name = "Splendor at home"

    def ready(self) -> None:
        from game.checks import check_dataset

        checks.register(check_dataset, checks.Tags.database)
