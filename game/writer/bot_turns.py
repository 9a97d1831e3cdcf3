"""Bot turns: who plays a bot's move, when, and who takes it over if its process dies.

A change that leaves a bot to play (game.writer.changes) schedules its one
move here, whatever screens are connected: the process claims the turn in the
game's row, pauses so the move can be seen, and plays it (game.writer.moves) in
a worker thread, off the event loop, so a slow bot blocks no socket.

A claim on a bot turn is a lease: its holder renews it every BOT_LEASE_RENEW while
the bot pauses and thinks. One not renewed for BOT_LEASE belongs to a process that
died (or froze): any process's sweep finds the turn and takes it over.
"""

from __future__ import annotations

import threading
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connections
from django.db.models import F, IntegerField, JSONField, Q
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast
from django.utils import timezone

from game.engine.vocabulary import BOT_ROLES
from game.models import Game
from game.writer import background, standin
from game.writer.moves import play_bot_turn

BOT_LEASE = timedelta(seconds=settings.SPLENDOR_BOT_LEASE)
BOT_LEASE_RENEW = 0.3 * settings.SPLENDOR_BOT_LEASE
# Seconds between two sweeps of one process (each jittered by up to half).
BOT_SWEEP_EVERY = 0.4 * settings.SPLENDOR_BOT_LEASE


class Scheduler:
    """The bot turns of this process: the threads that play them, the turns it holds or
    is about to claim (its sweep leaves them alone), and its sweep."""

    def __init__(self) -> None:
        self.timers = background.Timers("bot turn")
        self._mine: set[tuple[int, int]] = set()
        self._mine_lock = threading.Lock()
        self._sweeper: threading.Thread | None = None
        self._sweeping = threading.Lock()

    def schedule(self, game_id: int, version: int, delay: float | None = None) -> None:
        """Claim the bot's move at this version and play it after the visible pause, in a
        worker thread.

        Called after a committed change that left a bot to play, whatever screens
        are connected, and by the sweep for a turn nobody holds.
        """
        pause = settings.SPLENDOR_BOT_DELAY if delay is None else delay
        with self._mine_lock:
            if (game_id, version) in self._mine:
                return
            self._mine.add((game_id, version))
        self.timers.after(0, self._run, game_id, version, pause)

    def _run(self, game_id: int, version: int, pause: float) -> None:
        try:
            claimed_at = background.retrying(lambda: claim(game_id, version))
            if claimed_at is None:
                return  # another process holds it, or the game moved on
            held = background.Lease(Claim(game_id, version, claimed_at).renew, BOT_LEASE_RENEW)
            with held as lease:
                if pause > 0:
                    connections.close_all()  # no connection held while the bot pauses
                    if self.timers.stopping.wait(pause):
                        return
                if not lease.lost.is_set():  # else another process took the turn over
                    background.retrying(lambda: play_bot_turn(game_id, version))
        finally:
            with self._mine_lock:
                self._mine.discard((game_id, version))

    def sweep(self) -> int:
        """Schedule every bot turn nobody holds (after a start, or a process's death);
        return how many."""
        found = pending()
        for game_id, version in found:
            self.schedule(game_id, version, delay=0)
        return len(found)

    def start_sweep(self) -> bool:
        """Sweep for pending bot turns now and then every ~BOT_SWEEP_EVERY seconds, once
        per process (started with the server); resume the waits for away phones first.

        Off under pytest unless a test asks (settings.SPLENDOR_BOT_SWEEP): a test's
        games are its own.
        """
        if not settings.SPLENDOR_BOT_SWEEP:
            return False
        with self._sweeping:
            if self._sweeper is None:
                self._sweeper = background.every(
                    BOT_SWEEP_EVERY, self._sweep_once, "splendor-bot-sweep"
                )
        return True

    def _sweep_once(self) -> None:
        standin.resume_checks()  # a restart's or a dead worker's checks died with it
        self.sweep()

    def wait(self, timeout: float = 30.0) -> None:
        """Wait until every scheduled bot turn has been played, including the turns they
        schedule in turn (a clean stop; tests wait for the move instead of polling)."""
        self.timers.wait(timeout)

    def cancel(self) -> None:
        """Stop every scheduled bot turn that has not started (tests)."""
        self.timers.cancel()


scheduler = Scheduler()


def on_change(sender: type[Game], *, game: Game, bot_next: bool, **_: Any) -> None:
    """After a committed change (changes.next_turn): a bot to play gets its move."""
    if bot_next:
        scheduler.schedule(game.id, game.version)


def _live_claim(now: datetime, version: Any) -> Q:
    return Q(bot_claim=version, bot_claimed_at__gte=now - BOT_LEASE)


def claim(game_id: int, version: int) -> datetime | None:
    """Claim the bot turn at this version for this process (compare-and-swap); return
    the claim's time (its holder renews it with it), or None if it is not free.

    Several processes (or a sweep) may schedule the same turn; only the one whose
    UPDATE matches plays it, unless it stops renewing its lease.
    """
    now = timezone.now()
    mine = Game.objects.filter(pk=game_id, version=version, status=Game.Status.PLAYING)
    taken = mine.exclude(_live_claim(now, version)).update(bot_claim=version, bot_claimed_at=now)
    return now if taken == 1 else None


class Claim:
    """This process's claim on one bot turn, renewed from the time it was last renewed
    (each renewal moves the row's time: renewing from the first would fail the second)."""

    def __init__(self, game_id: int, version: int, claimed_at: datetime) -> None:
        self.game_id, self.version, self.at = game_id, version, claimed_at

    def renew(self) -> bool:
        """Renew the claim; False once it is no longer ours."""
        renewed = renew(self.game_id, self.version, self.at)
        if renewed is None:
            return False
        self.at = renewed
        return True


def renew(game_id: int, version: int, claimed_at: datetime) -> datetime | None:
    """Renew this process's claim made (or last renewed) at `claimed_at`; return the new
    time, or None if the claim is no longer ours (taken over, or the game moved on)."""
    now = timezone.now()
    ours = Game.objects.filter(pk=game_id, version=version, bot_claim=version)
    return now if ours.filter(bot_claimed_at=claimed_at).update(bot_claimed_at=now) == 1 else None


def pending() -> list[tuple[int, int]]:
    """Return (game id, version) of every running game where a bot is to play and no
    process holds a live claim on its turn, in one query."""
    now = timezone.now()
    # The seat to play, read from the snapshot by the database (JSON kept as text).
    current = Cast(KeyTextTransform("current", Cast("state", JSONField())), IntegerField())
    games = (
        Game.objects.filter(status=Game.Status.PLAYING)
        .exclude(Q(bot_claim=F("version"), bot_claimed_at__gte=now - BOT_LEASE))
        .annotate(current=current)
        .filter(seats__role__in=BOT_ROLES, seats__position=F("current"))
    )
    return sorted(games.values_list("pk", "version"))
