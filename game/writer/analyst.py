"""The story of each finished game, told in the background (game.engine.story).

A game that ends, or arrives finished from a record, gets an Analysis row. One
thread per server process takes those rows one at a time and runs the analysis in
a process of its own at the lowest priority (game.writer.analysis_process, a
plain `python -m`: nothing of the server is copied into it or imported by it): the
games being played keep their cores, and the event loop never waits for it.
Its progress is written to the row as it goes (the end screens show it), then the
story. The row is the claim: a process takes a row only if it is waiting, or
running but not written to for STALE_AFTER (its process died); so after a restart,
`catch_up` takes up what was left.
"""

from __future__ import annotations

import json
import logging
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connections
from django.db.models import Q
from django.utils import timezone

from game.engine.story import PlayedGame, Story
from game.models import Analysis, Game
from game.writer.background import retrying

log = logging.getLogger(__name__)

# Where `python -m game.writer.analysis_process` finds the game package.
PROJECT_DIR = Path(__file__).resolve().parents[2]
PROGRESS_EVERY = 0.5  # seconds between two writes of the progress to the row
STALE_AFTER = timedelta(minutes=2)  # a running row not written to for so long: its process died
CATCH_UP_GAMES = 20  # finished games without a story taken up at start, newest first
SEED = 0  # the analysis is the same whenever and wherever it runs


def played_game(game: Game) -> PlayedGame:
    """What the analysis needs of a game: its seed, rules and moves."""
    return PlayedGame(
        players=game.seats.count(),
        seed=game.seed,
        moves=tuple(game.moves.order_by("index").values_list("notation", flat=True)),
        first_player=game.first_player,
        no_gold_small=game.house_no_gold_small,
    )


class Analyst:
    """This process's analyses: a queue of game ids and the one thread that works it."""

    def __init__(self) -> None:
        self._queue: queue.Queue[int] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._idle = threading.Condition()
        self._busy = 0  # games queued or being analysed

    def begin(self, game_id: int, playouts: int | None = None) -> None:
        """Make the finished game's Analysis row and queue it, once: a game's later
        changes (a rematch, a phone back) find the row made."""
        budget = playouts or settings.SPLENDOR_ANALYSIS_PLAYOUTS
        _, made = Analysis.objects.get_or_create(game_id=game_id, defaults={"playouts": budget})
        if made:
            self.request(game_id)

    def request(self, game_id: int) -> None:
        with self._idle:
            self._busy += 1
        self._queue.put(game_id)
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._work, name="analyst", daemon=True)
                self._thread.start()

    def wait(self, timeout: float = 60.0) -> None:
        """Wait until every queued analysis is over (tests, management commands)."""
        with self._idle:
            if not self._idle.wait_for(lambda: self._busy == 0, timeout):
                raise TimeoutError(f"{self._busy} analyses still running after {timeout} s")

    def start(self) -> bool:
        """Take up what a stopped process left, in a thread, as the server starts (not when
        settings.SPLENDOR_ANALYSIS is off, as under pytest)."""
        if not settings.SPLENDOR_ANALYSIS:
            return False
        threading.Thread(target=self._catch_up_once, name="analyst catch-up", daemon=True).start()
        return True

    def _catch_up_once(self) -> None:
        try:
            retrying(self.catch_up)
        except Exception:  # the server runs on without stories rather than not at all
            log.exception("taking up the analyses left failed")
        finally:
            connections.close_all()

    def catch_up(self) -> None:
        """Queue what a stopped process left: waiting rows, rows whose process died, and
        the newest finished games without a story."""
        stale = timezone.now() - STALE_AFTER
        left = Analysis.objects.filter(
            Q(status=Analysis.Status.WAITING)
            | Q(status=Analysis.Status.RUNNING, updated_at__lt=stale)
        ).values_list("game_id", flat=True)
        for game_id in left:
            self.request(game_id)
        unseen = (
            Game.objects.filter(status=Game.Status.OVER, analysis__isnull=True)
            .order_by("-updated_at")
            .values_list("pk", flat=True)[:CATCH_UP_GAMES]
        )
        for game_id in unseen:
            self.begin(game_id)

    def _work(self) -> None:
        while True:
            game_id = self._queue.get()
            try:
                analyse(game_id)
            except Exception:  # an analysis must never take the server down with it
                log.exception("the analysis of game %s failed", game_id)
                Analysis.objects.filter(game_id=game_id).update(status=Analysis.Status.FAILED)
            finally:
                connections.close_all()  # this thread's connections only
                with self._idle:
                    self._busy -= 1
                    self._idle.notify_all()


def _claim(game_id: int) -> Analysis | None:
    """Take the game's row if no living process has it: waiting, or running but stale."""
    stale = timezone.now() - STALE_AFTER
    taken = Analysis.objects.filter(
        Q(status=Analysis.Status.WAITING) | Q(status=Analysis.Status.RUNNING, updated_at__lt=stale),
        game_id=game_id,
    ).update(status=Analysis.Status.RUNNING, done=0, updated_at=timezone.now())
    return Analysis.objects.get(game_id=game_id) if taken else None


def order_of(game: Game, playouts: int) -> dict[str, Any]:
    """What the analysis process reads: the game as its seed, rules and moves."""
    return {
        "players": game.seats.count(),
        "seed": game.seed,
        "moves": list(game.moves.order_by("index").values_list("notation", flat=True)),
        "first_player": game.first_player,
        "no_gold_small": game.house_no_gold_small,
        "playouts": playouts,
        "search_seed": SEED,
        "low_priority": settings.SPLENDOR_ANALYSIS_LOW_PRIORITY,
    }


def start_process(order: dict[str, Any]) -> subprocess.Popen[str]:
    """Start `python -m game.writer.analysis_process` on this order; its lines to read."""
    child = subprocess.Popen(
        [sys.executable, "-m", "game.writer.analysis_process"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=PROJECT_DIR,
        text=True,
        encoding="utf-8",
    )
    assert child.stdin is not None
    child.stdin.write(json.dumps(order) + "\n")
    child.stdin.close()
    return child


def analyse(game_id: int) -> None:
    """Analyse one game in a process of its own, writing its progress, then its story."""
    row = retrying(lambda: _claim(game_id))
    if row is None:
        return
    with start_process(order_of(Game.objects.get(pk=game_id), row.playouts)) as child:
        assert child.stdout is not None
        story = _receive(child.stdout, row)
    if story is None:
        raise RuntimeError(f"the analysis process ended with code {child.returncode}")
    told = Story.from_dict(story)
    row.status = Analysis.Status.DONE
    row.story = story
    row.lowest = [told.lowest(seat) for seat in range(told.players)]
    row.done = row.total
    fields = ["status", "story", "lowest", "done", "updated_at"]
    retrying(lambda: row.save(update_fields=fields))


def _receive(lines: Iterable[str], row: Analysis) -> dict[str, Any] | None:
    """Read the child's lines until its story; write the progress now and then."""
    written = 0.0
    for line in lines:
        message = json.loads(line)
        if "story" in message:
            return dict(message["story"])
        row.done, row.total = int(message["done"]), int(message["total"])
        if time.monotonic() - written >= PROGRESS_EVERY:
            written = time.monotonic()
            retrying(lambda: row.save(update_fields=["done", "total", "updated_at"]))
    return None


def analyse_now(game_id: int, playouts: int | None = None) -> str:
    """Tell a finished game's story in this thread (a management command's way: it has
    no server to come back to it); the row's status at the end."""
    budget = playouts or settings.SPLENDOR_ANALYSIS_PLAYOUTS
    Analysis.objects.get_or_create(game_id=game_id, defaults={"playouts": budget})
    try:
        analyse(game_id)
    except Exception:
        log.exception("the analysis of game %s failed", game_id)
        Analysis.objects.filter(game_id=game_id).update(status=Analysis.Status.FAILED)
    return str(Analysis.objects.get(game_id=game_id).status)


analyst = Analyst()


def on_change(sender: Any, game: Game, **kwargs: Any) -> None:
    """A committed change that ended the game: tell its story (game.apps connects this)."""
    if game.status == Game.Status.OVER and settings.SPLENDOR_ANALYSIS:
        analyst.begin(game.pk)
