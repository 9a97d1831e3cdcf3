"""Websockets: find out who is watching, send them their view, nothing else.

One socket per screen. On connect and after every change the screen receives
its whole regions again (idempotent), so a screen that slept, reloaded or
missed a message is simply up to date after its next message.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _

from game import presence, rendering, services
from game.languages import language_from_scope
from game.models import Game, Seat

log = logging.getLogger(__name__)

# Bot drivers running in this process, one per game at most.
_bot_drivers: dict[int, asyncio.Task[None]] = {}


def _find_game(code: str) -> Game | None:
    return Game.objects.filter(code=code.upper()).first()


def _seat_id_for(game: Game, player_key: str) -> int | None:
    seat = services.seat_of(game, player_key)
    return seat.pk if seat is not None and not seat.is_bot else None


def _position_of(seat_id: int, player_key: str) -> int | None:
    """Return the seat's position now, or None if this phone no longer holds it.

    Looked up on every render: positions shift when a lobby seat is removed, and
    a rejoin code can hand the seat to another phone.
    """
    row = Seat.objects.filter(pk=seat_id, player_key=player_key).values("position").first()
    return row["position"] if row else None


def _player_key(scope: dict[str, Any]) -> str:
    session = scope.get("session")
    return str(session.get("player_key", "")) if session is not None else ""


def _port(scope: dict[str, Any]) -> str:
    """Return the port the screen used, for the join link (the host is the LAN address)."""
    for name, value in scope.get("headers", []):
        if name == b"host":
            host = value.decode("latin-1")
            if ":" in host.rsplit("]", 1)[-1]:
                return host.rsplit(":", 1)[1]
            return "80"
    server = scope.get("server")
    return str(server[1]) if server else "8000"


class GameConsumer(AsyncWebsocketConsumer):
    """A TV table (role "table") or a phone (role "seat") following one game."""

    game_id: int
    role: str
    seat_id: int | None
    is_host: bool
    language: str
    player_key: str
    last_html: str = ""

    async def connect(self) -> None:
        kwargs = self.scope["url_route"]["kwargs"]
        self.role = kwargs["role"]
        # Reading the session touches the database: do it once, in a thread.
        player_key = await database_sync_to_async(_player_key)(self.scope)
        self.player_key = player_key
        game = await database_sync_to_async(_find_game)(kwargs["code"])
        if game is None:
            await self.close(code=4404)
            return
        self.game_id = game.id
        self.is_host = bool(player_key) and game.host_key == player_key
        self.seat_id = None
        if self.role == "seat":
            self.seat_id = await database_sync_to_async(_seat_id_for)(game, player_key)
            if self.seat_id is None:
                await self.close(code=4403)
                return
            presence.arrive(self.game_id, self.seat_id)
        self.language = language_from_scope(self.scope)
        await self.channel_layer.group_add(services.group_name(self.game_id), self.channel_name)
        await self.accept()
        await self.send_view()
        if self.seat_id is not None:
            # Let the host screen see this seat is back.
            await self.announce_presence()
        self.drive_bots_if_needed()

    async def disconnect(self, code: int) -> None:
        if not hasattr(self, "game_id"):
            return
        await self.channel_layer.group_discard(services.group_name(self.game_id), self.channel_name)
        if self.seat_id is not None:
            presence.leave(self.game_id, self.seat_id)
            await self.announce_presence()

    async def announce_presence(self) -> None:
        group = services.group_name(self.game_id)
        await self.channel_layer.group_send(group, {"type": "game.changed"})

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            message = json.loads(text_data or "")
        except ValueError:
            message = None
        if not isinstance(message, dict):
            await self.send_flash(_("That action could not be read."))
            return
        if message.get("sync"):
            await self.send_view(force=True)
            return
        if self.seat_id is None:
            await self.send_flash(_("This screen shows the table; play from your phone."))
            return
        await self.play(message.get("action"), message.get("version"))

    async def play(self, action: Any, version: Any) -> None:
        player_key = self.player_key
        with translation.override(self.language):
            try:
                await database_sync_to_async(services.play)(
                    self.game_id, player_key, action, version
                )
            except services.Refused as refusal:
                # Only this screen hears about it; nothing changed anywhere.
                await self.send_flash(refusal.message)
                await self.send_view(force=True)

    async def game_changed(self, event: dict[str, Any]) -> None:
        await self.send_view()
        self.drive_bots_if_needed()

    async def send_view(self, force: bool = False) -> None:
        """Send this screen its regions, unless they are exactly what it already shows.

        Skipping identical views keeps a phone's half-made gem selection when
        only something it does not show changed (another phone reconnecting).
        """
        with translation.override(self.language):
            html = await database_sync_to_async(self.render)()
        if force or html != self.last_html:
            self.last_html = html
            await self.send_quietly(html)

    def render(self) -> str:
        """Read the game and render this screen's regions (runs in a worker thread)."""
        snap = rendering.load_snapshot(self.game_id)
        if self.seat_id is None:
            url = rendering.join_url(snap.code, _port(self.scope))
            # The host's lobby and rematch forms post with the CSRF cookie's secret,
            # which Django accepts as the form token.
            csrf = str((self.scope.get("cookies") or {}).get(settings.CSRF_COOKIE_NAME, ""))
            return rendering.render_table(snap, is_host=self.is_host, url=url, oob=True, csrf=csrf)
        position = _position_of(self.seat_id, self.player_key)
        if position is None:
            return render_to_string("phone/gone.html", {"oob": True, "code": snap.code})
        return rendering.render_phone_status(snap, oob=True) + rendering.render_phone_hand(
            snap, position, oob=True
        )

    async def send_flash(self, message: str) -> None:
        html = render_to_string("parts/flash.html", {"message": message, "oob": True})
        await self.send_quietly(html)

    async def send_quietly(self, html: str) -> None:
        """Send, unless the socket closed meanwhile: it gets the full view on reconnect."""
        try:
            await self.send(text_data=html)
        except Exception as error:  # Daphne raises a bare Exception on a closed protocol
            log.debug("Not sent to a closed socket: %s", error)

    def drive_bots_if_needed(self) -> None:
        task = _bot_drivers.get(self.game_id)
        if task is None or task.done():
            _bot_drivers[self.game_id] = asyncio.ensure_future(drive_bots(self.game_id))


def _bot_version(game_id: int) -> int | None:
    game = Game.objects.get(pk=game_id)
    return game.version if services.bot_to_play(game) is not None else None


async def drive_bots(game_id: int) -> None:
    """Play the bots' turns, pausing so people can follow, until a human is to play."""
    while True:
        version = await database_sync_to_async(_bot_version)(game_id)
        if version is None:
            return
        await asyncio.sleep(settings.SPLENDOR_BOT_DELAY)
        try:
            moved = await database_sync_to_async(services.play_bot_turn)(game_id, version)
        except Exception:  # a bot must never take the server down with it
            log.exception("Bot turn failed in game %s", game_id)
            return
        if not moved:
            return
