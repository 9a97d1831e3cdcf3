"""The stories of finished games as the screens read them (game.writer.analyst tells them)."""

from __future__ import annotations

from dataclasses import dataclass

from game.engine.story import Story
from game.models import Analysis, Game


@dataclass(frozen=True, slots=True)
class Told:
    """A finished game's analysis: how far it is, and its story once done."""

    status: str  # Analysis.Status
    done: int
    total: int
    story: Story | None

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 0

    @property
    def failed(self) -> bool:
        return self.status == Analysis.Status.FAILED


def told(game: Game) -> Told | None:
    """The game's analysis, or None while it is played: chances are never shown before
    the game is over (and a game over without a row has none yet)."""
    if game.status != Game.Status.OVER:
        return None
    row = Analysis.objects.filter(game=game).first()
    if row is None:
        return None
    story = Story.from_dict(row.story) if row.status == Analysis.Status.DONE and row.story else None
    return Told(row.status, row.done, row.total, story)
