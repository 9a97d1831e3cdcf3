"""Websockets: find out who is watching, then pass on what the writer publishes.

One socket per screen. On connect (and on {"sync": true}) a screen reads the
game once and gets its whole view; after that it only receives the notices the
writer publishes (game.writer.notices), which its `Screen` (game.web.screen) turns
into the regions that changed for it. A table screen follows the game's group, a
phone only its own seat's group (a shared phone each of its seats'), so a phone's
projection never reaches another phone's socket; a shared phone draws a seat's hand only
while that seat is uncovered (game.web.screen).
Whatever a screen sends (game.web.inbound), the consumer answers with a clear
message or ignores it; it never crashes, and its presence row goes when the
socket goes, however it goes.
"""

from __future__ import annotations

import asyncio
import logging
import time
from sys import intern
from typing import Any, assert_never

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from game.engine import GameState
from game.engine.projection import TABLE, GameView, view_for
from game.languages import language_from_scope
from game.screens import hint_answers, jinja, tv_seat
from game.screens.wire import HEARTBEATS, PONG, Close
from game.storage import presence, store
from game.storage.readmodel import Room, holder_of, played_on_tv, read
from game.web import inbound, limits
from game.web.screen import Screen
from game.writer import games, liveness, moves, notices, seating, standin

log = logging.getLogger(__name__)


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


def _who(
    scope: dict[str, Any], code: str, phone: bool
) -> tuple[int, bool, tuple[int, ...], str] | None:
    """Read who this socket is: (game id, is host, seat ids of a phone, player key).

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
    return found.game_id, is_host, found.seat_ids, player_key


def _read_table(
    game_id: int,
) -> tuple[Room, GameView | None, str, presence.Here, GameView | None]:
    """A table screen's full view: one read of the game, its recent turns and presence,
    and the view in the open of a seat the TV plays, on its turn."""
    room, _holders, state, log = read(game_id)
    view = view_for(state, TABLE) if state is not None else None
    return room, view, log, presence.here(game_id), played_on_tv(room, state)


def _arrive(
    game_id: int, seat_id: int, channel: str
) -> tuple[Room, GameView | None, str, str, int]:
    """A phone that connects: count it as its seat's phone, then read its full view (one
    trip to the database thread)."""
    presence.arrive(game_id, seat_id, channel)
    return _read_seat(game_id, seat_id)


def _arrive_shared(
    watch: liveness.Watch, holder: str
) -> tuple[Room, dict[int, GameView], str, dict[int, str]]:
    """A shared phone that connects: count it as each of its seats' phone, then read."""
    for row, seat_id in zip(watch.all_rows, watch.seats, strict=True):
        presence.arrive(watch.game_id, seat_id, row)
    return _read_phone(watch.game_id, watch.seats, holder)


def _read_phone(
    game_id: int, seat_ids: tuple[int, ...], holder: str
) -> tuple[Room, dict[int, GameView], str, dict[int, str]]:
    """A shared phone's full view: the room, the projections of the seats it still holds
    (by seat id; the screen draws the uncovered one only), recent turns, and its seats'
    holders."""
    room, holders, state, log = read(game_id)
    seats = [s for s in room.seats if s.id in seat_ids]
    views: dict[int, GameView] = {}
    if state is not None:
        held = (s for s in seats if holders.get(s.id) == holder)
        views = {s.id: view_for(state, s.position) for s in held}
    return room, views, log, {s.id: holders.get(s.id, "") for s in seats}


def _read_seat(game_id: int, seat_id: int) -> tuple[Room, GameView | None, str, str, int]:
    """A phone's full view: the room, its projection, recent turns, its holder and position."""
    room, holders, state, log = read(game_id)
    seat = next((s for s in room.seats if s.id == seat_id), None)
    if seat is None:
        return room, None, "", "", -1
    view = view_for(state, seat.position) if state is not None else None
    return room, view, log, holders.get(seat_id, ""), seat.position


class GameConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # Channels ships no types
    """A TV table (role "table") or a phone (role "seat") following one game: it reads
    the socket and the notices, checks who may do what, and hands the rest to its
    `Screen`."""

    screen: Screen | None = None  # once the socket is known to follow a game
    closing: bool = False  # the server closed this socket: nothing more is read or sent
    hint_task: asyncio.Future[None] | None = None
    full_task: asyncio.Future[None] | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        # However the socket ends (a close, an error, a cancelled task), its
        # phone stops counting as present.
        try:
            await super().__call__(scope, receive, send)
        finally:
            if self.screen is not None:
                limits.leave(self.screen.share)
            await self.forget_presence()

    async def connect(self) -> None:
        notices.serve_from(asyncio.get_running_loop())
        kwargs = self.scope["url_route"]["kwargs"]
        role = kwargs["role"]
        who = await database_sync_to_async(_who)(self.scope, kwargs["code"], role == "seat")
        # A refusal is accepted, then closed with its code: closed before the
        # accept, Daphne answers the handshake with HTTP 403 and the page never
        # learns why (no such game; this phone holds no seat there).
        if who is None:
            await self.refuse(Close.NO_GAME)
            return
        game_id, is_host, seat_ids, player_key = who
        if role == "seat" and not seat_ids:
            await self.refuse(Close.NO_SEAT)
            return
        screen, replaced = self.screen_of(game_id, is_host, seat_ids, player_key, role)
        self.screen = screen
        for group in screen.groups:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()
        # The row below is written as heard now.
        screen.watch.heard = screen.watch.written = time.monotonic()
        liveness.watch(screen.watch)
        for channel in replaced:
            await notices.tell(self.channel_layer, channel, notices.SocketReplaced())
        if screen.seat_id is None:
            await self.send_full()
            return
        if screen.shared:
            phone = await database_sync_to_async(_arrive_shared)(screen.watch, screen.holder)
            await self.announce_presence(game_id)
            await self.send_quietly(screen.shared_read(*phone))
            return
        seat = await database_sync_to_async(_arrive)(game_id, screen.seat_id, self.channel_name)
        await self.announce_presence(game_id)
        await self.send_quietly(screen.seat_read(*seat))

    def screen_of(
        self, game_id: int, is_host: bool, seat_ids: tuple[int, ...], player_key: str, role: str
    ) -> tuple[Screen, list[str]]:
        """The screen this socket is, counted with its phone's other sockets, and the
        channels of those it replaces (game.web.limits: a newer socket of a seat replaces
        its oldest)."""
        seat = seat_ids[0] if role == "seat" and seat_ids else None
        also = seat_ids[1:] if seat is not None else ()
        share, replaced = limits.arrive(player_key, self.channel_name, seat is not None)
        csrf = ""
        if is_host and role != "seat":
            # The host's lobby and rematch forms post with the CSRF cookie's secret,
            # which Django accepts as the form token.
            csrf = str((self.scope.get("cookies") or {}).get(settings.CSRF_COOKIE_NAME, ""))
        screen = Screen(
            holder=holder_of(player_key),
            is_host=is_host,
            # Interned: thousands of sockets share a few languages and ports.
            language=intern(language_from_scope(self.scope)),
            port=intern(_port(self.scope)),
            csrf=csrf,
            watch=liveness.Watch(self.channel_name, game_id, seat, also),
            share=share,
        )
        return screen, replaced

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
        screen = self.screen
        if screen is None or screen.left:
            return
        screen.left = True
        liveness.forget(screen.watch)
        try:
            for group in screen.groups:
                await self.channel_layer.group_discard(group, self.channel_name)
            if screen.seat_id is not None:
                await database_sync_to_async(presence.leave)(
                    self.channel_name, screen.watch.all_rows[1:]
                )
                await self.announce_presence(screen.game_id)
                await database_sync_to_async(standin.phone_left)(screen.game_id)
        except Exception:  # the layer or the database went away: the row expires by itself
            log.exception("Could not forget the presence of %s", self.channel_name)

    async def let_go(self, screen: Screen) -> None:
        """A shared phone lost a seat (its rejoin code used elsewhere, a bot let play it):
        its presence row stops counting, so the seat can be taken back with its code."""
        for seat in screen.watch.lost:  # nor does it hear of the seat any more
            group = notices.seat_group(screen.game_id, seat)
            await self.channel_layer.group_discard(group, self.channel_name)
        rows = screen.watch.lost_rows
        if rows:
            await database_sync_to_async(presence.leave)(rows[0], rows[1:])
            await self.announce_presence(screen.game_id)

    async def announce_presence(self, game_id: int) -> None:
        """Tell the game's table screens that a phone came or went."""
        await notices.tell_group(
            self.channel_layer, notices.table_group(game_id), notices.presence_changed(game_id)
        )

    async def dispatch(self, message: dict[str, Any]) -> None:
        """A notice goes to `heed`, whole; the socket's own messages to Channels' handlers.

        Channels' dispatch also checks the database connections before every message, a
        trip to the database thread each time: screens' changes, presence and heartbeats
        mostly need no database, and this consumer reaches it only through
        database_sync_to_async, which checks them around each call itself. Measured by
        turns in docs/performance.md; tests/web/test_tuning.py pins both behaviours."""
        notice = notices.decode(message)
        if notice is not None:
            await self.heed(notice)
            return
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    # ------------------------------------------------------------ from the screen

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        screen = self.screen
        if self.closing or screen is None:  # closed by the server: what was on its way is not read
            return
        now = screen.watch.heard = time.monotonic()  # any message: the screen is there
        # The phone's rate first: a message over it costs no parsing and no translation.
        verdict = limits.allow(screen.share, now)
        if verdict == "drop":
            return
        if verdict == "ok" and text_data in HEARTBEATS:
            await self.heartbeat()  # nothing to parse or translate
            return
        with translation.override(screen.language):  # every answer in the screen's language
            try:
                if verdict == "ok":
                    await self.answer(screen, inbound.read_message(text_data, bytes_data))
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

    async def answer(self, screen: Screen, message: inbound.Inbound) -> None:
        if message.kind == "ping":
            await self.heartbeat()
        elif message.kind == "sync":
            await self.sync(screen)
        elif message.kind == "bad":
            await self.send_flash(message.problem)
        elif screen.seat_id is None:
            await self.at_the_table(screen, message)
        elif message.kind in ("uncover", "cover"):
            await self.pass_phone(screen, message)
        elif message.kind == "look":
            await self.send_flash(_("Only the TV shows the cards of a player at the TV."))
        elif message.kind == "hint":
            self.ask_hint(screen, message.version)
        else:
            await self.play(screen, message.action, message.version)

    async def pass_phone(self, screen: Screen, message: inbound.Inbound) -> None:
        """A shared phone's curtain: put it up for one of its seats ("cover"), or show
        the hand it asks for once its player taps ("uncover"); then its whole view."""
        if not screen.shared:
            return  # one seat: its hand is always shown
        if message.kind == "cover":
            screen.cover(message.seat)
        else:
            screen.uncover(message.seat)
        await self.send_full()

    def ask_hint(self, screen: Screen, version: int | None) -> None:
        """Start "Suggest a move" for this screen (see `hint`)."""
        # One at a time for the phone, whatever its sockets; each keeps serving meanwhile.
        if not screen.thinking and limits.start_hint(screen.share):
            screen.thinking = True
            self.hint_task = asyncio.ensure_future(self.hint(screen, version))

    async def at_the_table(self, screen: Screen, message: inbound.Inbound) -> None:
        """A table screen's message: only the host screen plays, for a seat played on the TV
        (game.writer.moves.play_on_tv says whether it may); any other is told why not."""
        if not screen.is_host:
            await self.send_flash(_("This screen shows the table; play from your phone."))
        elif message.kind == "look":
            await self.look(screen, message.slot, message.version)
        elif message.kind == "hint":
            self.ask_hint(screen, message.version)
        else:
            await self.play(screen, message.action, message.version)

    async def look(self, screen: Screen, slot: int, version: int | None) -> None:
        """Show the host screen the blind reserve its player holds, this once (the page
        removes it on release); nothing changes and nobody else is sent it."""
        try:
            card_id = await database_sync_to_async(tv_seat.read_look)(screen.game_id, slot, version)
        except tv_seat.NoLook as refusal:
            await self.send_flash(refusal.message)
            return
        await self.send_quietly(tv_seat.look_html(card_id, slot))

    async def heartbeat(self) -> None:
        """Answer a ping, and nothing more: `receive` noted that the screen is there, and
        game.writer.liveness keeps presence and versions for every screen of the process."""
        await self.send_quietly(PONG)

    async def play(self, screen: Screen, action: str, version: int | None) -> None:
        with translation.override(screen.language):
            try:
                await database_sync_to_async(self.apply)(screen, action, version)
            except games.Refused as refusal:
                # Only this screen hears about it; nothing changed anywhere.
                await self.send_flash(refusal.message)
                await self.send_full()

    def apply(self, screen: Screen, action: str, version: int | None) -> None:
        """A phone plays for its shown seat; a table screen (the host's: see at_the_table)
        for the seat on the TV whose turn it is."""
        key = self.scope_player_key()
        if screen.seat_id is None:
            moves.play_on_tv(screen.game_id, key, action, version)
        else:
            moves.play(screen.game_id, key, action, version, screen.shown_seat)

    async def hint(self, screen: Screen, version: int | None) -> None:
        """Answer "Suggest a move" to this socket only; nothing changes."""
        try:
            with translation.override(screen.language):
                try:
                    if screen.seat_id is not None and screen.shown_seat is None:
                        raise hint_answers.NoHint(_("A hint is only for your own turn."))
                    state, position, seen = await database_sync_to_async(self.read_for_hint)(
                        screen, version
                    )
                except hint_answers.NoHint as refusal:
                    await self.send_flash(refusal.message)
                    return
                if screen.left:
                    return  # the socket closed meanwhile
                # The search thinks for a second: off the event loop, with no database.
                hint = await asyncio.to_thread(
                    hint_answers.think_once, screen.game_id, seen, state, position
                )
                if screen.room is not None and screen.room.version != seen:
                    return  # the game moved on meanwhile: this hint is no longer current
                if screen.seat_id is None:  # the TV: a blind reserve's face stays hidden
                    shown = tv_seat.shown_in_the_open(hint, seen, state, position)
                else:
                    shown = hint_answers.shown(hint, seen)
                await self.send_quietly(hint_answers.answer_html(shown))
        except Exception:  # a task of its own: nobody else would hear of a failure
            log.exception("Hint for %s failed", self.channel_name)
            await self.send_flash(_("Something went wrong; please try again."))
        finally:
            screen.thinking = False
            limits.end_hint(screen.share)

    @staticmethod
    def read_for_hint(screen: Screen, version: int | None) -> tuple[GameState, int, int]:
        """What to hint from: the phone's shown seat, or on the host screen the TV seat to
        play (`hint` refuses a phone behind its curtain first)."""
        if screen.seat_id is None or screen.shown_seat is None:
            return tv_seat.read_for_tv_hint(screen.game_id, version)
        return hint_answers.read_for_hint(screen.game_id, screen.shown_seat, version)

    async def sync(self, screen: Screen) -> None:
        """A full view asked for: now, or later once if the phone had one within a second."""
        wait = limits.full_view_wait(screen.share, time.monotonic())
        if wait == 0:
            await self.send_full()
        elif wait is not None:
            self.full_task = asyncio.ensure_future(self.send_full_later(screen, wait))

    async def send_full_later(self, screen: Screen, wait: float) -> None:
        try:
            await asyncio.sleep(wait)
            limits.full_view_sent(screen.share)
            await self.send_full()
        except Exception:  # a task of its own: nobody else would hear of a failure
            log.exception("Full view for %s failed", self.channel_name)

    def scope_player_key(self) -> str:
        return _player_key(self.scope)

    # ------------------------------------------------------------ from the writer

    async def heed(self, notice: notices.Notice) -> None:
        """Show the screen what a notice changes for it (game.writer.notices)."""
        screen = self.screen
        if screen is None:
            return
        match notice:
            case notices.TableChanged():
                await self.send_quietly(screen.table_changed(notice))
            case notices.SeatChanged():
                # A phone keeps nothing but its region hashes: the notice brings all it needs
                # (a shared phone that lost one of its seats reads its others again).
                html = screen.seat_changed(notice)
                if html is None:
                    await self.let_go(screen)
                    await self.send_full()
                else:
                    await self.send_quietly(html)
            case notices.PresenceChanged():
                # Read again: notices from several sockets may arrive in any order.
                if not screen.left and screen.rereads(notice):
                    read_at = time.monotonic()
                    here = await database_sync_to_async(presence.here)(screen.game_id)
                    await self.send_quietly(screen.presence(here, read_at))
            case notices.PresenceShown():
                await self.send_quietly(screen.presence(notice.here, notice.read_at))
            case notices.ScreenBehind():
                # A change this screen never heard of: show the game as it is now.
                if screen.behind(notice):
                    await self.send_full()
            case notices.SocketReplaced():
                # The page reads Close.REPLACED as "open on another tab" and stops
                # reconnecting until tapped.
                await self.close_with(Close.REPLACED)
            case _:
                assert_never(notice)

    # ------------------------------------------------------------ to the screen

    async def send_full(self) -> None:
        """Read the game once and send this screen its whole view."""
        screen = self.screen
        if screen is None or screen.left:
            return
        screen.shown.forget()
        if screen.seat_id is None:
            read_at = time.monotonic()
            room, view, turns, here, open_view = await database_sync_to_async(_read_table)(
                screen.game_id
            )
            await self.send_quietly(screen.table_read(room, view, turns, here, read_at, open_view))
            return
        if screen.shared:
            phone = await database_sync_to_async(_read_phone)(
                screen.game_id, screen.watch.seats, screen.holder
            )
            await self.send_quietly(screen.shared_read(*phone))
            return
        seat = await database_sync_to_async(_read_seat)(screen.game_id, screen.seat_id)
        await self.send_quietly(screen.seat_read(*seat))

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
