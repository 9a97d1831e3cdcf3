from django.apps import AppConfig
from django.core import checks


class GameConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "game"
    verbose_name = "Splendor at home"

    def ready(self) -> None:
        from game.checks import check_dataset
        from game.writer import analyst, bot_turns, changes, standin

        checks.register(check_dataset, checks.Tags.database)
        # After each committed change: a bot to play gets its move, and a human seat to
        # play is watched for a stand-in (game.writer.changes says why they listen).
        changes.next_turn.connect(bot_turns.on_change)
        changes.next_turn.connect(standin.on_change)
        # A change that ends a game: its story is told in the background.
        changes.next_turn.connect(analyst.on_change)
