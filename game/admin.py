"""The Django admin: a window on games, seats, moves and the bundled dataset.

It shows, it does not play: game.writer is the only code that changes a game
(lock, validate, record the move, tell the screens), so nothing here can add or
change a row. Cards and nobles must equal the engine's data (see game.checks).
Only a finished game may be deleted (housekeeping); one still being played
or waiting in its lobby has screens attached to it.

While a game is not over, its seed and snapshot are not shown: they give away
the deck order. Session keys never are: they would let a reader take a seat.
The admin is reachable only when SPLENDOR_ADMIN is set (splendor_site/urls.py).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from game.engine.vocabulary import GEM_COLOURS
from game.models import Card, Game, Move, Noble, Seat, dumps_snapshot


class ViewOnly:
    """Admin permissions for rows that only game.writer (or a migration) may write."""

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(Card)
class CardAdmin(ViewOnly, admin.ModelAdmin):
    list_display = ("id", "level", "bonus", "points", *(f"cost_{c.slug}" for c in GEM_COLOURS))
    list_filter = ("level", "bonus", "points")


@admin.register(Noble)
class NobleAdmin(ViewOnly, admin.ModelAdmin):
    list_display = ("id", "points", *(f"req_{c.slug}" for c in GEM_COLOURS))


class SeatInline(ViewOnly, admin.TabularInline):
    model = Seat
    fields = readonly_fields = ("position", "name", "role", "bot_level", "rejoin_code")
    extra = 0


class MoveInline(ViewOnly, admin.TabularInline):
    model = Move
    fields = readonly_fields = ("index", "seat", "notation", "created_at")
    extra = 0


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("code", "status", "version", "players", "created_at", "updated_at")
    list_filter = ("status",)
    search_fields = ("code", "seats__name")
    inlines = (SeatInline, MoveInline)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        fields = ["code", "status", "version", "first_player", "house_no_gold_small"]
        fields += ["next_game", "created_at", "updated_at"]
        if obj is not None and obj.status == Game.Status.OVER:
            fields += ["seed", "snapshot"]  # the deck order no longer matters
        return fields

    @admin.display(description=_("Snapshot"))
    def snapshot(self, game: Game) -> str:
        """The engine's state as it is stored: JSON."""
        return dumps_snapshot(game.state)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        return self.get_fields(request, obj)

    @admin.display(description=_("Players"))
    def players(self, game: Game) -> str:
        return ", ".join(seat.name for seat in game.seats.all())

    def get_queryset(self, request: HttpRequest) -> Any:
        return super().get_queryset(request).prefetch_related("seats")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Asked without obj for the list's delete action; before deleting, Django asks
        # again for every selected game (get_deleted_objects), and refuses unfinished ones.
        allowed = super().has_delete_permission(request, obj)
        return allowed and (obj is None or obj.status == Game.Status.OVER)

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> Any:
        """Seats and moves go with their game, though none may be deleted on its own."""
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        perms_needed -= {Seat._meta.verbose_name, Move._meta.verbose_name}
        return deleted, counts, perms_needed, protected


@admin.register(Seat)
class SeatAdmin(ViewOnly, admin.ModelAdmin):
    list_display = ("game", "position", "name", "role", "bot_level")
    list_select_related = ("game",)
    fields = readonly_fields = ("game", "position", "name", "role", "bot_level", "rejoin_code")


@admin.register(Move)
class MoveAdmin(ViewOnly, admin.ModelAdmin):
    list_display = ("game", "index", "seat", "notation", "created_at")
    list_select_related = ("game",)
    fields = readonly_fields = ("game", "index", "seat", "notation", "created_at")
