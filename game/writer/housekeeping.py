"""Forget what nobody needs any more: old sessions, old finished games, abandoned lobbies.

`python manage.py cleanup` runs it once; the server runs it by itself in a daemon
thread every settings.SPLENDOR_CLEANUP_EVERY seconds (started with the ASGI app).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from importlib import import_module
from threading import Lock, Thread
from time import sleep

from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone

from game.models import Game

log = logging.getLogger(__name__)

# Never more often than this, whatever the setting says.
MIN_INTERVAL = 60.0

_started = Lock()
_thread: Thread | None = None


@dataclass(frozen=True)
class Ages:
    """How long to keep games, by their state."""

    finished_days: float
    unfinished_days: float
    lobby_hours: float

    @classmethod
    def from_settings(cls) -> Ages:
        return cls(
            settings.SPLENDOR_KEEP_FINISHED_DAYS,
            settings.SPLENDOR_KEEP_UNFINISHED_DAYS,
            settings.SPLENDOR_KEEP_LOBBY_HOURS,
        )


@dataclass(frozen=True)
class Removed:
    finished: int
    unfinished: int
    lobbies: int


def _delete_older(status: str, age: timedelta) -> int:
    """Delete games in this state untouched for longer than age (seats and moves go too)."""
    cutoff = timezone.now() - age
    # The ORM also sets a rematch link (next_game) pointing at a deleted game to NULL.
    _total, per_model = Game.objects.filter(status=status, updated_at__lt=cutoff).delete()
    return per_model.get(Game._meta.label, 0)


def clear_expired_sessions() -> None:
    """Ask the session engine to drop expired sessions (Django's clearsessions)."""
    engine = import_module(settings.SESSION_ENGINE)
    engine.SessionStore.clear_expired()


def cleanup(ages: Ages | None = None) -> Removed:
    """Delete old games and expired sessions; return how many games went."""
    ages = ages or Ages.from_settings()
    removed = Removed(
        finished=_delete_older(Game.Status.OVER, timedelta(days=ages.finished_days)),
        unfinished=_delete_older(Game.Status.PLAYING, timedelta(days=ages.unfinished_days)),
        lobbies=_delete_older(Game.Status.LOBBY, timedelta(hours=ages.lobby_hours)),
    )
    clear_expired_sessions()
    return removed


def _run_forever(interval: float) -> None:
    while True:
        sleep(interval)
        try:
            removed = cleanup()
            if removed.finished or removed.unfinished or removed.lobbies:
                log.info("Cleaned up %s", removed)
        except Exception:  # the clean-up must never take the server down
            log.exception("Clean-up failed")
        finally:
            close_old_connections()


def start_in_background() -> bool:
    """Start the clean-up thread once per process if SPLENDOR_CLEANUP_EVERY > 0."""
    global _thread
    every = float(settings.SPLENDOR_CLEANUP_EVERY)
    if every <= 0:
        return False
    with _started:
        if _thread is None:
            _thread = Thread(
                target=_run_forever,
                args=(max(every, MIN_INTERVAL),),
                name="splendor-cleanup",
                daemon=True,
            )
            _thread.start()
    return True
