"""Old games and sessions go: the cleanup command, its ages, and the server's own runs."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.utils import timezone
from pytest_django.fixtures import Settings

from game.models import Game, Move, Seat
from game.writer import housekeeping
from tests.web.helpers import legal, open_lobby, play_as, started

pytestmark = pytest.mark.django_db


def aged(game_id: int, status: str, days: float) -> int:
    """Mark a game as last touched `days` ago (update() leaves auto_now alone)."""
    when = timezone.now() - timedelta(days=days)
    Game.objects.filter(pk=game_id).update(status=status, updated_at=when)
    return game_id


def alive() -> set[int]:
    return set(Game.objects.values_list("pk", flat=True))


def test_cleanup_deletes_only_what_is_old_enough() -> None:
    old_over = aged(started().game_id, Game.Status.OVER, 400)
    new_over = aged(started().game_id, Game.Status.OVER, 300)
    old_lobby = aged(open_lobby().game_id, Game.Status.LOBBY, 2)
    new_lobby = aged(open_lobby().game_id, Game.Status.LOBBY, 0.5)
    old_playing = aged(started().game_id, Game.Status.PLAYING, 400)
    new_playing = aged(started().game_id, Game.Status.PLAYING, 30)
    out = StringIO()
    call_command("cleanup", stdout=out)
    assert alive() == {new_over, new_lobby, new_playing}
    assert "Deleted 1 finished games, 1 unfinished games and 1 lobbies" in out.getvalue()
    assert not Seat.objects.filter(game_id__in=[old_over, old_lobby, old_playing]).exists()


def test_cleanup_ages_come_from_options() -> None:
    over = aged(started().game_id, Game.Status.OVER, 20)
    lobby = aged(open_lobby().game_id, Game.Status.LOBBY, 0.75)
    call_command("cleanup", "--finished-days", "30", "--lobby-hours", "12", stdout=StringIO())
    assert alive() == {over}
    call_command("cleanup", "--finished-days", "10", stdout=StringIO())
    assert alive() == set()
    assert lobby not in alive()


def test_cleanup_ages_come_from_settings(settings: Settings) -> None:
    settings.SPLENDOR_KEEP_FINISHED_DAYS = 5
    over = aged(started().game_id, Game.Status.OVER, 6)
    assert housekeeping.cleanup().finished == 1
    assert over not in alive()


def test_moves_go_with_their_game_and_a_rematch_link_is_cleared() -> None:
    table = started()
    play_as(table, legal(table.game_id)[0])
    newer = started()
    Game.objects.filter(pk=table.game_id).update(next_game_id=newer.game_id)
    aged(newer.game_id, Game.Status.OVER, 400)
    aged(table.game_id, Game.Status.OVER, 10)
    call_command("cleanup", stdout=StringIO())
    assert alive() == {table.game_id}
    assert Game.objects.get(pk=table.game_id).next_game_id is None
    assert Move.objects.filter(game_id=table.game_id).count() == 1


def test_expired_sessions_are_cleared() -> None:
    expired, current = SessionStore(), SessionStore()
    expired["player_key"] = "gone"
    expired.set_expiry(-10)
    expired.create()
    current["player_key"] = "here"
    current.create()
    call_command("cleanup", stdout=StringIO())
    assert list(Session.objects.values_list("session_key", flat=True)) == [current.session_key]


def test_the_server_cleans_up_by_itself_only_when_asked(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    started_threads: list[dict[str, Any]] = []

    class FakeThread:
        def __init__(self, **kwargs: Any) -> None:
            started_threads.append(kwargs)

        def start(self) -> None:
            pass

    monkeypatch.setattr(housekeeping, "Thread", FakeThread)
    monkeypatch.setattr(housekeeping, "_thread", None)
    assert settings.SPLENDOR_CLEANUP_EVERY == 0  # never under pytest by default
    assert housekeeping.start_in_background() is False
    settings.SPLENDOR_CLEANUP_EVERY = 5
    assert housekeeping.start_in_background() is True
    assert housekeeping.start_in_background() is True  # once per process
    assert len(started_threads) == 1
    assert started_threads[0]["daemon"] is True
    assert started_threads[0]["args"] == (housekeeping.MIN_INTERVAL,)  # at most once a minute


def test_one_background_run_survives_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def failing_cleanup() -> None:
        calls.append("cleanup")
        raise RuntimeError("database gone")

    def stop_after_two(seconds: float) -> None:
        if len(calls) == 2:
            raise SystemExit
        calls.append(f"sleep {seconds}")

    monkeypatch.setattr(housekeeping, "cleanup", failing_cleanup)
    monkeypatch.setattr(housekeeping, "sleep", stop_after_two)
    with pytest.raises(SystemExit):
        housekeeping._run_forever(3600)
    assert calls == ["sleep 3600", "cleanup"]
