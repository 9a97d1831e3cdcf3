"""Websockets: find out who is watching, then pass on what the writer publishes.

One socket per screen. On connect (and on {"sync": true}) a screen reads the
game once and gets its whole view; after that it only receives the events the
writer publishes (game.writer.events) and sends the regions that changed for it
(game.screens.regions.Shown). A table screen follows the game's group, a phone only its
own seat's group, so a phone's projection never reaches another socket.
Whatever a screen sends (game.web.inbound), the consumer answers with a clear
message or ignores it; it never crashes, and its presence row goes when the
socket goes, however it goes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import time
from sys import intern
from typing import Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from game.engine.projection import TABLE, GameView, view_for
from game.languages import language_from_scope
from game.screens import hint_answers, jinja
from game.screens.join_qr import join_url
from game.screens.phone import phone_screen
from game.screens.regions import Shown
from game.screens.table import table_screen
from game.screens.wire import Close
from game.storage import presence, store
from game.storage.readmodel import Room, holder_of, read
from game.web import inbound, limits
from game.writer import events, games, liveness, moves, seating, standin

log = logging.getLogger(__name__)

PONG = "pong"


def speaking(language: str) -> contextlib.AbstractContextManager[None]:
    """Render in the screen's language (switching only when another one is active:
    switching costs more than a region that did not change)."""
    if translation.get_language() == language:
        return contextlib.nullcontext()
    return translation.override(language)


def _player_key(scope: dict[str, Any]) -> str:
    session = scope.get("session")
    return str(session.get("player_key", "")) if session is not None else ""


def _port(scope: dict[str, Any]) -> str:
    """Return the port the screen used, for the join link (the host is the LAN address)."""
    for name, value in scope.get("headers", []):
        if name == b"host":
            host: str = value.decode("latin-1")
            if ":" in host.rsplit("]", 1)[-1]:
                return host.rsplit(":", 1)[1]
            return "80"
    server = scope.get("server")
    return str(server[1]) if server else "8000"


def _who(scope: dict[str, Any], code: str, phone: bool) -> tuple[int, bool, int | None, str] | None:
    """Read who this socket is: (game id, is host, seat id of a phone, player key).

    A phone back from away plays its seat again at once: if a stand-in plays it,
    the seat is given back first.
    """
    player_key, code = _player_key(scope), code.upper()
    found = store.who(code, player_key)
    if found is not None and phone and found.stood_in:
        seating.take_seat_back(found.game_id, player_key)
        found = store.who(code, player_key)
    if found is None:
        return None
    is_host = bool(player_key) and found.host_key == player_key
    return found.game_id, is_host, found.seat_id, player_key


def _read_table(game_id: int) -> tuple[Room, GameView | None, str, presence.Here]:
    """A table screen's full view: one read of the game, its recent turns and presence."""
    room, _holders, state, log = read(game_id)
    view = view_for(state, TABLE) if state is not None else None
    return room, view, log, presence.here(game_id)


def _arrive(
    game_id: int, seat_id: int, channel: str
) -> tuple[Room, GameView | None, str, str, int]:
    """A phone that connects: count it as its seat's phone, then read its full view (one
    trip to the database thread)."""
    presence.arrive(game_id, seat_id, channel)
    return _read_seat(game_id, seat_id)


def _read_seat(game_id: int, seat_id: int) -> tuple[Room, GameView | None, str, str, int]:
    """A phone's full view: the room, its projection, recent turns, its holder and position."""
    room, holders, state, log = read(game_id)
    seat = next((s for s in room.seats if s.id == seat_id), None)
    if seat is None:
        return room, None, "", "", -1
    view = view_for(state, seat.position) if state is not None else None
    return room, view, log, holders.get(seat_id, ""), seat.position


class GameConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # Channels ships no types
    """A TV table (role "table") or a phone (role "seat") following one game."""

    game_id: int | None = None
    seat_id: int | None = None
    role: str = ""
    is_host: bool = False
    language: str = "en"
    holder: str = ""
    group: str = ""
    # What a table screen shows now, to re-render it when presence changes.
    room: Room | None = None
    view: GameView | None = None
    log: str = ""  # the recent turns (game.storage.history.encode_recent)
    here: presence.Here = presence.NOBODY
    here_at: float = 0.0  # time.monotonic() when `here` was read
    here_told: presence.Here | None = None  # sent by game.writer.liveness, not shown yet
    version: int = -1  # the game's version this screen last showed
    heard: float = 0.0  # time.monotonic() of the last message from the screen
    written: float = 0.0  # `heard` as game.writer.liveness last wrote it to the presence row
    gone: bool = False
    closing: bool = False  # the server closed this socket: nothing more is read or sent
    thinking: bool = False  # a hint is being computed for this socket
    hint_task: asyncio.Future[None] | None = None
    port: str = "8000"
    csrf: str = ""
    share: limits.Socket | None = None  # what this socket shares with its phone's others
    full_task: asyncio.Future[None] | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        # However the socket ends (a close, an error, a cancelled task), its
        # phone stops counting as present.
        try:
            await super().__call__(scope, receive, send)
        finally:
            if self.share is not None:
                limits.leave(self.share)
            await self.forget_presence()

    async def connect(self) -> None:
        events.serve_from(asyncio.get_running_loop())
        self.shown = Shown()
        kwargs = self.scope["url_route"]["kwargs"]
        self.role = kwargs["role"]
        who = await database_sync_to_async(_who)(self.scope, kwargs["code"], self.role == "seat")
        # A refusal is accepted, then closed with its code: closed before the
        # accept, Daphne answers the handshake with HTTP 403 and the page never
        # learns why (no such game; this phone holds no seat there).
        if who is None:
            await self.refuse(Close.NO_GAME)
            return
        game_id, self.is_host, seat_id, player_key = who
        if self.role == "seat" and seat_id is None:
            await self.refuse(Close.NO_SEAT)
            return
        self.holder = holder_of(player_key)
        # Interned: thousands of sockets share a few languages and ports.
        self.language = intern(language_from_scope(self.scope))
        self.port = intern(_port(self.scope))
        if self.is_host and self.role != "seat":
            # The host's lobby and rematch forms post with the CSRF cookie's secret,
            # which Django accepts as the form token.
            self.csrf = str((self.scope.get("cookies") or {}).get(settings.CSRF_COOKIE_NAME, ""))
        self.game_id = game_id
        if self.role == "seat":
            self.seat_id = seat_id
            self.group = events.seat_group(game_id, seat_id)
        else:
            self.group = events.table_group(game_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        self.heard = self.written = time.monotonic()  # the row below is written as heard now
        liveness.watch(self)
        # Limits per phone (game.web.limits): a newer socket of the seat replaces its oldest.
        self.share, oldest = limits.arrive(player_key, self.channel_name, self.role == "seat")
        for channel in oldest:
            await self.channel_layer.send(channel, {"type": "socket.replaced"})
        if self.seat_id is None:
            await self.send_full()
            return
        seat = await database_sync_to_async(_arrive)(game_id, self.seat_id, self.channel_name)
        await self.announce_presence(game_id)
        await self.show_seat(*seat)

    async def refuse(self, code: Close) -> None:
        """Tell the page why it may not follow this game (it goes away, not back)."""
        await self.accept()
        await self.close_with(code)

    async def close_with(self, code: Close) -> None:
        """Close the socket with one of the project's codes (game.screens.wire), once:
        what the screen sent meanwhile is not read, and nothing more is sent to it (its
        presence goes with the disconnect, as after any close)."""
        if self.closing:
            return
        self.closing = True
        await self.close(code=int(code))

    async def disconnect(self, code: int) -> None:
        await self.forget_presence()

    async def forget_presence(self) -> None:
        """Leave the group and drop this socket's presence (once, whatever happened)."""
        if self.game_id is None:
            return
        game_id, self.game_id = self.game_id, None
        liveness.forget(self)
        try:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            if self.seat_id is not None:
                await database_sync_to_async(presence.leave)(self.channel_name)
                await self.announce_presence(game_id)
                await database_sync_to_async(standin.phone_left)(game_id)
        except Exception:  # the layer or the database went away: the row expires by itself
            log.exception("Could not forget the presence of %s", self.channel_name)

    async def announce_presence(self, game_id: int) -> None:
        """Tell the game's table screens that a phone came or went."""
        await self.channel_layer.group_send(
            events.table_group(game_id), events.presence_changed(game_id)
        )

    # ------------------------------------------------------------ from the screen

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' dispatch without its check of the database connections before every
        message, a trip to the database thread each time: screens' changes, presence and
        heartbeats mostly need no database, and this consumer reaches it only through
        database_sync_to_async, which checks them around each call itself. Measured by
        turns in docs/performance.md; tests/web/test_tuning.py pins both behaviours."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.closing:  # closed by the server: what was on its way is not read
            return
        self.heard = time.monotonic()  # any message: the screen is there (game.writer.liveness)
        # The phone's rate first: a message over it costs no parsing and no translation.
        verdict = limits.allow(self.share, self.heard) if self.share else "ok"
        if verdict == "drop":
            return
        if verdict == "ok" and text_data in inbound.HEARTBEATS:
            await self.heartbeat()  # nothing to parse or translate
            return
        with translation.override(self.language):  # every answer in the screen's language
            try:
                if verdict == "ok":
                    await self.answer(inbound.read_message(text_data, bytes_data))
                else:
                    await self.over_rate(verdict)
            except Exception:  # never let one message close the socket with 1011
                log.exception("Message from %s failed", self.channel_name)
                await self.send_flash(_("Something went wrong; please try again."))

    async def over_rate(self, verdict: limits.Verdict) -> None:
        """A message over the phone's rate: told at most once a second, a flood closed."""
        if verdict == "tell":
            await self.send_flash(inbound.too_fast().problem)
        elif verdict == "close":
            await self.close_with(Close.FLOOD)

    async def answer(self, message: inbound.Inbound) -> None:
        if message.kind == "ping":
            await self.heartbeat()
        elif message.kind == "sync":
            await self.sync()
        elif message.kind == "bad":
            await self.send_flash(message.problem)
        elif self.seat_id is None:
            await self.send_flash(_("This screen shows the table; play from your phone."))
        elif message.kind == "hint":
            # One at a time for the phone, whatever its sockets; each keeps serving meanwhile.
            if not self.thinking and (self.share is None or limits.start_hint(self.share)):
                self.thinking = True
                self.hint_task = asyncio.ensure_future(self.hint(message.version))
        else:
            await self.play(message.action, message.version)

    async def heartbeat(self) -> None:
        """Answer a ping, and nothing more: `receive` noted that the screen is there, and
        game.writer.liveness keeps presence and versions for every screen of the process."""
        await self.send_quietly(PONG)

    async def play(self, action: str, version: int | None) -> None:
        with translation.override(self.language):
            try:
                await database_sync_to_async(moves.play)(
                    self.game_id, self.scope_player_key(), action, version
                )
            except games.Refused as refusal:
                # Only this screen hears about it; nothing changed anywhere.
                await self.send_flash(refusal.message)
                await self.send_full()

    async def hint(self, version: int | None) -> None:
        """Answer "Suggest a move" to this socket only; nothing changes."""
        try:
            with translation.override(self.language):
                try:
                    state, position, seen = await database_sync_to_async(
                        hint_answers.read_for_hint
                    )(self.game_id, self.seat_id, version)
                except hint_answers.NoHint as refusal:
                    await self.send_flash(refusal.message)
                    return
                # The search thinks for a second: off the event loop, with no database.
                game_id = self.game_id
                if game_id is None:
                    return  # the socket closed meanwhile
                hint = await asyncio.to_thread(
                    hint_answers.think_once, game_id, seen, state, position
                )
                if self.room is not None and self.room.version != seen:
                    return  # the game moved on meanwhile: this hint is no longer current
                await self.send_quietly(hint_answers.answer_html(hint_answers.shown(hint, seen)))
        except Exception:  # a task of its own: nobody else would hear of a failure
            log.exception("Hint for %s failed", self.channel_name)
            await self.send_flash(_("Something went wrong; please try again."))
        finally:
            self.thinking = False
            if self.share is not None:
                limits.end_hint(self.share)

    async def sync(self) -> None:
        """A full view asked for: now, or later once if the phone had one within a second."""
        wait = limits.full_view_wait(self.share, time.monotonic()) if self.share else 0.0
        if wait == 0:
            await self.send_full()
        elif wait is not None:
            self.full_task = asyncio.ensure_future(self.send_full_later(wait))

    async def send_full_later(self, wait: float) -> None:
        try:
            await asyncio.sleep(wait)
            if self.share is not None:
                limits.full_view_sent(self.share)
            await self.send_full()
        except Exception:  # a task of its own: nobody else would hear of a failure
            log.exception("Full view for %s failed", self.channel_name)

    async def socket_replaced(self, event: dict[str, Any]) -> None:
        """A newer socket of this phone's seat took over: close this one (Close.REPLACED),
        which the page reads as "open on another tab" and stops reconnecting until tapped."""
        await self.close_with(Close.REPLACED)

    def scope_player_key(self) -> str:
        return _player_key(self.scope)

    # ------------------------------------------------------------ from the writer

    async def table_changed(self, event: dict[str, Any]) -> None:
        self.room = event["room"]
        self.view = event["view"]
        self.log = event.get("log", "")
        await self.send_table()

    async def presence_changed(self, event: dict[str, Any]) -> None:
        """Re-read who is here (events from several sockets may arrive in any order),
        unless a read begun after the change was sent already showed it (the clock is
        this process's: another's change is always read)."""
        if self.seat_id is not None or self.game_id is None:
            return
        if event.get("pid") == os.getpid() and event.get("at", math.inf) < self.here_at:
            return
        read_at = time.monotonic()
        await self._show_presence(
            await database_sync_to_async(presence.here)(self.game_id), read_at
        )

    async def presence_shown(self, event: dict[str, Any]) -> None:
        """The game's presence as game.writer.liveness read it for every TV of the process."""
        shown = presence.Here(frozenset(event["connected"]), frozenset(event["reconnecting"]))
        await self._show_presence(shown, event["read_at"])

    async def screen_behind(self, event: dict[str, Any]) -> None:
        """A change this screen never heard of (its message was lost between processes),
        found by game.writer.liveness: show the game as it is now."""
        if self.version < event["version"]:
            await self.send_full()

    async def _show_presence(self, here: presence.Here, read_at: float) -> None:
        """Show which seats have a phone here (or reconnecting), if that changed and was
        not read before what the screen shows."""
        self.here_told = None
        if read_at < self.here_at:
            return
        self.here_at = read_at
        if here != self.here and self.room is not None:
            self.here = here
            await self.send_table()

    async def seat_changed(self, event: dict[str, Any]) -> None:
        room: Room = event["room"]
        if event["holder"] != self.holder:
            await self.send_gone(room.code)
            return
        # A phone keeps nothing but its region hashes: the next event brings all it needs.
        await self.send_phone(room, event["view"], event.get("log", ""), event["position"])

    # ------------------------------------------------------------ to the screen

    async def send_full(self) -> None:
        """Read the game once and send this screen its whole view."""
        if self.game_id is None:
            return
        self.shown.forget()
        if self.seat_id is None:
            read_at = time.monotonic()
            self.room, self.view, self.log, self.here = await database_sync_to_async(_read_table)(
                self.game_id
            )
            self.here_at, self.here_told = read_at, None
            await self.send_table()
            return
        await self.show_seat(*await database_sync_to_async(_read_seat)(self.game_id, self.seat_id))

    async def show_seat(
        self, room: Room, view: GameView | None, log: str, holder: str, position: int
    ) -> None:
        """Send a phone its whole view as read (or that it lost its seat)."""
        self.shown.forget()
        if holder != self.holder:
            await self.send_gone(room.code)
            return
        await self.send_phone(room, view, log, position)

    async def send_table(self) -> None:
        assert self.room is not None
        self.version = self.room.version
        room = self.room.with_presence(self.here.connected, self.here.reconnecting)
        with speaking(self.language):
            url = join_url(room.code, self.port)
            screen = table_screen(
                room,
                self.view,
                log=self.log,
                is_host=self.is_host,
                url=url,
                csrf=self.csrf,
            )
            await self.send_quietly(self.shown.frame(screen))

    async def send_phone(self, room: Room, view: GameView | None, log: str, position: int) -> None:
        self.version = room.version
        with speaking(self.language):
            await self.send_quietly(self.shown.frame(phone_screen(room, view, position, log)))

    async def send_gone(self, code: str) -> None:
        if self.gone:
            return
        self.gone = True
        with translation.override(self.language):
            html = jinja.render("phone/gone.html", {"oob": True, "code": code})
        await self.send_quietly(html)

    async def send_flash(self, message: str) -> None:
        html = jinja.render("parts/flash.html", {"message": message, "oob": True})
        await self.send_quietly(html)

    async def send_quietly(self, html: str) -> None:
        """Send, unless there is nothing or the socket closed meanwhile (it resyncs)."""
        if not html or self.closing:
            return
        try:
            await self.send(text_data=html)
        except Exception as error:  # Daphne raises a bare Exception on a closed protocol
            log.debug("Not sent to a closed socket: %s", error)
