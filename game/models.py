"""Persistence only: the bundled dataset and the games played with it.

The rules live in game.engine; these models store what the engine needs to
rebuild a game (seed, moves, snapshot) and who sits where.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from django.db import models
from django.utils.translation import gettext_lazy as _

from game.bot_levels import default_hard_bot_seconds
from game.engine.vocabulary import BOT_ROLES, GEM_COLOURS, PlayedOn, SeatRole
from game.languages import ROLE_LABELS

# Uppercase letters that cannot be misread on a TV or typed wrong on a phone (no I, O).
ROOM_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ"
ROOM_CODE_LENGTH = 6
REJOIN_CODE_LENGTH = 6


def new_room_code() -> str:
    """Return a random room code such as "KXPQRT" (uniqueness is checked by the caller)."""
    return "".join(secrets.choice(ROOM_CODE_ALPHABET) for _ in range(ROOM_CODE_LENGTH))


def new_player_key() -> str:
    """Return an unguessable key that identifies one browser, kept in its session."""
    return secrets.token_urlsafe(32)


def new_rejoin_code() -> str:
    """Return a short code a player can type to take their seat back on another phone."""
    return "".join(secrets.choice(ROOM_CODE_ALPHABET) for _ in range(REJOIN_CODE_LENGTH))


def new_seed() -> int:
    """Return a random seed that fits a signed 64-bit column."""
    return secrets.randbits(63)


class SnapshotField(models.TextField):  # type: ignore[type-arg]
    """JSON kept as plain text, read and written as Python data like a JSONField.

    PostgreSQL's jsonb parses the snapshot on every write and prints it again on
    every read: for the writer's one row per action that doubled PostgreSQL's CPU
    (580 µs a transaction against 263 µs as text, a 1.2 KB snapshot) and nothing
    queries inside the snapshot. Compact separators keep the row small.
    """

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        return None if value is None else json.loads(value)

    def to_python(self, value: Any) -> Any:
        return json.loads(value) if isinstance(value, str) else value

    def get_prep_value(self, value: Any) -> Any:
        return None if value is None else dumps_snapshot(value)

    def value_to_string(self, obj: Any) -> str:
        return dumps_snapshot(self.value_from_object(obj))


def dumps_snapshot(value: Any) -> str:
    """The text a snapshot is stored as."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class Card(models.Model):
    """A development card; id is its 1-based row in game/engine/data/cards.csv."""

    id = models.PositiveSmallIntegerField(primary_key=True)
    level = models.PositiveSmallIntegerField()
    bonus = models.CharField(max_length=5, choices=[(c.slug, c.slug) for c in GEM_COLOURS])
    points = models.PositiveSmallIntegerField()
    cost_white = models.PositiveSmallIntegerField()
    cost_blue = models.PositiveSmallIntegerField()
    cost_green = models.PositiveSmallIntegerField()
    cost_red = models.PositiveSmallIntegerField()
    cost_black = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"Card {self.id} (level {self.level}, {self.bonus}, {self.points} pts)"


class Noble(models.Model):
    """A noble tile; id is its 1-based row in game/engine/data/nobles.csv."""

    id = models.PositiveSmallIntegerField(primary_key=True)
    points = models.PositiveSmallIntegerField()
    req_white = models.PositiveSmallIntegerField()
    req_blue = models.PositiveSmallIntegerField()
    req_green = models.PositiveSmallIntegerField()
    req_red = models.PositiveSmallIntegerField()
    req_black = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"Noble {self.id} ({self.points} pts)"


class Game(models.Model):
    """One game in a room; a game is its seed plus its moves, `state` is a cached snapshot."""

    class Status(models.TextChoices):
        LOBBY = "lobby", _("waiting for players")
        PLAYING = "playing", _("playing")
        OVER = "over", _("over")

    code = models.CharField(max_length=ROOM_CODE_LENGTH, unique=True, default=new_room_code)
    seed = models.BigIntegerField(default=new_seed)
    house_no_gold_small = models.BooleanField(default=False)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.LOBBY)
    # The engine's JSON snapshot, set when the game starts.
    state = SnapshotField(null=True, blank=True)
    # Compare-and-swap: incremented on every applied move; an action built on an
    # older version is refused instead of being applied twice.
    version = models.PositiveIntegerField(default=0)
    # The game log's last turns as its writer told them (game.storage.history.Told, JSON),
    # continued at each move: derived from the seed and moves like `state`, and kept
    # so that no server process replays the game to show them. "" until a move.
    recent = models.TextField(blank=True, default="", editable=False)
    first_player = models.PositiveSmallIntegerField(null=True, blank=True)
    # Seconds a phone may be away on its turn before a bot plays for it; None: never.
    stand_in_after = models.PositiveSmallIntegerField(null=True, blank=True)
    # Seconds a hard bot thinks about each move (bot_levels.HARD_BOT_CHOICES); a new
    # game starts with settings.SPLENDOR_HARD_BOT_SECONDS, read when it is created.
    hard_bot_seconds = models.FloatField(default=default_hard_bot_seconds)
    # The session key of the screen that created the game: only it runs the lobby.
    host_key = models.CharField(max_length=64, blank=True)
    # Set on a finished game when the same players start a rematch.
    next_game = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The version whose bot turn a server process has claimed, and when it last
    # renewed that lease: one process plays each bot turn, and a lease not renewed
    # for bot_turns.BOT_LEASE is taken over (its process died).
    bot_claim = models.PositiveIntegerField(null=True, blank=True)
    bot_claimed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Game {self.code} ({self.status})"


class Seat(models.Model):
    """A place at the table, held by a phone (via the session token) or a bot."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()  # 0-3: the engine's seat number
    # Up to names.NAME_MAX characters as people count them; an emoji may be several
    # code points, so the column holds names.NAME_MAX_CODE_POINTS.
    name = models.CharField(max_length=64)
    # The player key from the session of the phone holding this seat; blank for bots.
    # Never sent to a page: the session cookie is the only thing a phone presents.
    # Several seats may share one (players passing one phone round: a shared phone).
    player_key = models.CharField(max_length=64, blank=True, db_index=True)
    rejoin_code = models.CharField(max_length=8, default=new_rejoin_code)
    # Who plays the seat: a phone, a bot the host added, or a bot standing in for a
    # phone that is away (its player key and rejoin code still take the seat back).
    role = models.CharField(
        max_length=16,
        choices=[(role.value, ROLE_LABELS[role]) for role in SeatRole],
        default=SeatRole.HUMAN.value,
    )
    # A bot's level (a vocabulary.BotLevel); blank for the other roles (a stand-in
    # plays at bot_levels.DEFAULT_LEVEL).
    bot_level = models.CharField(max_length=32, blank=True)
    # Where a human seat plays: its phone, or the host screen (a player without a phone,
    # added there in the lobby: never away, no rejoin code, a stand-in only on request).
    played_on = models.CharField(
        max_length=8,
        choices=[(p.value, p.value) for p in PlayedOn],
        default=PlayedOn.PHONE.value,
    )
    # A bot's number among the game's bots: its name is rendered per language from
    # its level and number (game.bot_levels.seat_name); 0 for humans and older bots.
    bot_number = models.PositiveSmallIntegerField(default=0)
    # Left out of the household history ("Forget Ada" on the Players page): the game
    # and its replay keep the seat as it was played; only the history skips it.
    forgotten = models.BooleanField(default=False)

    class Meta:
        ordering = ["game", "position"]
        constraints = [
            models.UniqueConstraint(fields=["game", "position"], name="unique_seat_position"),
            models.CheckConstraint(
                condition=models.Q(position__lte=3), name="seat_position_0_to_3"
            ),
        ]

    def __str__(self) -> str:
        return f"Seat {self.position} of {self.game_id}: {self.name}"

    @property
    def bot_plays(self) -> bool:
        """A bot chooses this seat's moves: one the host added, or a stand-in."""
        return self.role in BOT_ROLES

    @property
    def on_tv(self) -> bool:
        """A player without a phone: the host screen plays this seat."""
        return self.played_on == PlayedOn.TV


class Move(models.Model):
    """One applied action, in the engine's text notation."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves")
    index = models.PositiveIntegerField()  # 0-based
    seat = models.PositiveSmallIntegerField()
    notation = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["index"]
        constraints = [
            models.UniqueConstraint(fields=["game", "index"], name="unique_move_index"),
        ]

    def __str__(self) -> str:
        return f"Move {self.index} of {self.game_id}: {self.notation}"


class Presence(models.Model):
    """A phone socket and when it was last heard from: which seats have a phone, in
    every process (game.storage.presence).

    Each process writes its own sockets' rows once a tick (game.writer.liveness); a row not
    written for a while (a silent phone, a closed socket, a process that died) makes
    its seat "reconnecting", then away, so no seat stays "present" forever.
    """

    channel = models.CharField(max_length=200, primary_key=True)  # the socket's channel name
    game_id = models.PositiveIntegerField(db_index=True)
    seat_id = models.PositiveIntegerField()
    seen_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"Seat {self.seat_id} of game {self.game_id} on {self.channel}"


class Analysis(models.Model):
    """The story of a finished game (game.engine.story), computed once in the background.

    Made when the game ends (or is imported finished); `done` of `total` positions
    are analysed while it runs, so the screens can show its progress. `story` is
    `Story.to_dict()` once done. The chances it holds are shown only for a game that
    is over: the row is made only then.
    """

    class Status(models.TextChoices):
        WAITING = "waiting"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="analysis")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.WAITING)
    playouts = models.PositiveIntegerField()
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    story = models.JSONField(null=True, blank=True)
    # Each seat's lowest chance of winning during the game (Story.lowest): the Players
    # page counts comebacks from it without reading every story.
    lowest = models.JSONField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Analysis of game {self.game_id} ({self.status} {self.done}/{self.total})"
