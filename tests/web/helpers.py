"""Helpers for web tests: set up games and sessions, open websockets, read fragments."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.backends.db import SessionStore
from django.db import connection

from game import services
from game.engine import GameState, legal_actions, new_game, parse_action
from game.engine.rules import apply_action
from game.models import Game, Move, new_player_key
from splendor_site.asgi import application

# A host name in ALLOWED_HOSTS, as a TV opened at http://localhost:8000 sends it.
HOST = "localhost:8000"
ORIGIN = "http://localhost:8000"
# A fixed deal, so a failure can be replayed.
SEED = 20240611

_VERSION = re.compile(r'id="(?:screen|hand)"[^>]*?data-version="(\d+)"')
_CARD_IDS = re.compile(r'data-card="(\d+)"|sheet-card-(\d+)|data-action="(?:buy|reserve):(\d+)')


# ---------------------------------------------------------------- database set-up (sync)


@dataclass
class Player:
    name: str
    key: str
    session: str  # the session key to send as the sessionid cookie
    position: int


@dataclass
class Table:
    game_id: int
    code: str
    host_key: str
    host_session: str
    players: list[Player] = field(default_factory=list)

    def player(self, position: int) -> Player:
        return next(p for p in self.players if p.position == position)


def new_session(player_key: str | None = None) -> str:
    """Store a server-side session (holding this player key) and return its key."""
    store = SessionStore()
    if player_key is not None:
        store["player_key"] = player_key
    store.create()
    assert store.session_key is not None
    return store.session_key


def open_lobby(names: tuple[str, ...] = ("Ada", "Bob"), bots: int = 0, seed: int = SEED) -> Table:
    """Create a game in the lobby with these phones seated (each with a session), then bots."""
    host_key = new_player_key()
    game = services.create_game(host_key)
    Game.objects.filter(pk=game.pk).update(seed=seed)
    table = Table(game.id, game.code, host_key, new_session(host_key))
    for name in names:
        key = new_player_key()
        seat = services.join_game(game.id, key, name)
        table.players.append(Player(name, key, new_session(key), seat.position))
    for _ in range(bots):
        services.add_bot(game.id, host_key)
    return table


def start(table: Table, first_player: int | None = 0) -> Table:
    services.start_game(table.game_id, table.host_key, first_player=first_player)
    return table


def started(
    names: tuple[str, ...] = ("Ada", "Bob"), bots: int = 0, first_player: int | None = 0
) -> Table:
    return start(open_lobby(names, bots), first_player)


def game(game_id: int) -> Game:
    return Game.objects.get(pk=game_id)


def state_of(game_id: int) -> GameState:
    state = services.load_state(game(game_id))
    assert state is not None
    return state


def legal(game_id: int) -> list[str]:
    """Return the notations the player to act may send now."""
    return [a.notation() for a in legal_actions(state_of(game_id))]


def play_as(table: Table, notation: str) -> int:
    """Play for whoever is to act (a phone) through services.play; return the new version."""
    g = game(table.game_id)
    assert g.state is not None
    player = table.player(g.state["current"])
    services.play(table.game_id, player.key, notation, g.version)
    return game(table.game_id).version


def fingerprint(game_id: int) -> tuple[Any, ...]:
    """Return the raw stored rows of a game, its seats and its moves (to compare byte for byte)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM game_game WHERE id = %s", [game_id])
        row = cursor.fetchone()
        cursor.execute("SELECT * FROM game_seat WHERE game_id = %s ORDER BY id", [game_id])
        seats = cursor.fetchall()
        cursor.execute("SELECT * FROM game_move WHERE game_id = %s ORDER BY id", [game_id])
        moves = cursor.fetchall()
    return (row, tuple(seats), tuple(moves))


def states_by_version(game_id: int) -> list[GameState]:
    """Return the game's state after 0, 1, 2, ... moves (index = version)."""
    g = game(game_id)
    state = new_game(g.seats.count(), g.seed, g.first_player, g.house_no_gold_small)
    states = [state.copy()]
    for notation in (
        Move.objects.filter(game=g).order_by("index").values_list("notation", flat=True)
    ):
        apply_action(state, parse_action(notation))
        states.append(state.copy())
    return states


def visible_cards(state: GameState, seat: int | None) -> set[int]:
    """Cards a viewer may see: the market, bought cards, face-up reserves, its own blind ones."""
    ids = {c for row in state.market for c in row if c}
    for position, player in enumerate(state.players):
        ids.update(player.cards)
        ids.update(
            c
            for c, blind in zip(player.reserved, player.blind, strict=True)
            if not blind or position == seat
        )
    return ids


# ---------------------------------------------------------------- reading fragments


class _OobParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("hx-swap-oob") and found.get("id"):
            self.ids.append(str(found["id"]))


def oob_ids(html: str) -> list[str]:
    """Return the ids of the out-of-band regions in one message, in order."""
    parser = _OobParser()
    parser.feed(html)
    return parser.ids


def version_of(html: str) -> int | None:
    match = _VERSION.search(html)
    return int(match.group(1)) if match else None


def card_ids(html: str) -> set[int]:
    """Every card id a message names: data-card, action sheets, action buttons."""
    return {int(next(g for g in m.groups() if g)) for m in _CARD_IDS.finditer(html)}


def region(html: str, region_id: str) -> str:
    """Return the text of one top-level region of a message (up to the next region)."""
    start = html.find(f'id="{region_id}"')
    assert start >= 0, f"no #{region_id} in message"
    ends = [
        html.find(f'id="{other}"', start + 1)
        for other in ("screen", "status", "hand", "flash")
        if other != region_id
    ]
    ends = [e for e in ends if e > start]
    return html[start : min(ends)] if ends else html[start:]


def player_panel(html: str, position: int) -> str:
    """Return the TV's panel of one seat (parts/player.html)."""
    match = re.search(
        rf'<section class="player[^"]*" data-seat="{position}">.*?</section>', html, re.S
    )
    assert match, f"no player panel for seat {position}"
    return match.group(0)


# ---------------------------------------------------------------- live screens (async)


class Screen:
    """One websocket to the full ASGI application, with everything it received."""

    def __init__(self, communicator: WebsocketCommunicator, label: str, seat: int | None):
        self.communicator = communicator
        self.label = label
        self.seat = seat
        self.log: list[str] = []

    async def receive(self, timeout: float = 3) -> str:
        message = await self.communicator.receive_from(timeout)
        assert isinstance(message, str)
        self.log.append(message)
        return message

    async def until(self, predicate: Callable[[str], bool], timeout: float = 5) -> str:
        """Return the latest message if it matches, else receive until one does."""
        if self.log and predicate(self.log[-1]):
            return self.log[-1]
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"{self.label} never received the expected view"
            message = await self.receive(left)
            if predicate(message):
                return message

    async def until_version(self, version: int, timeout: float = 5) -> str:
        """Receive until a full view of this version arrives; return that message."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"{self.label} never saw version {version}"
            message = await self.receive(left)
            if version_of(message) == version:
                return message

    async def settle(self, quiet: float = 0.12) -> list[str]:
        """Receive until nothing more arrives for `quiet` seconds."""
        received = []
        while not await self.communicator.receive_nothing(timeout=quiet):
            received.append(await self.receive())
        return received

    async def nothing(self, timeout: float = 0.15) -> bool:
        return await self.communicator.receive_nothing(timeout=timeout)

    async def send(self, message: Any) -> None:
        await self.send_text(json.dumps(message))

    async def send_text(self, text: str) -> None:
        await self.communicator.send_input({"type": "websocket.receive", "text": text})

    async def send_bytes(self, data: bytes) -> None:
        await self.communicator.send_input({"type": "websocket.receive", "bytes": data})

    async def close(self) -> None:
        await self.communicator.disconnect()


class Screens:
    """Opens websockets; the `screens` fixture closes them all after the test."""

    def __init__(self) -> None:
        self.opened: list[WebsocketCommunicator] = []

    async def try_open(
        self,
        code: str,
        role: str,
        session: str | None = None,
        *,
        origin: str = ORIGIN,
        host: str = HOST,
        label: str = "",
        seat: int | None = None,
        cookies: str = "",
    ) -> tuple[bool, Any, Screen]:
        headers = [(b"host", host.encode()), (b"origin", origin.encode())]
        jar = [f"sessionid={session}"] if session is not None else []
        if cookies:
            jar.append(cookies)
        if jar:
            headers.append((b"cookie", "; ".join(jar).encode()))
        communicator = WebsocketCommunicator(application, f"/ws/game/{code}/{role}/", headers)
        self.opened.append(communicator)
        connected, detail = await communicator.connect(timeout=3)
        return connected, detail, Screen(communicator, label or role, seat)

    async def tv(self, table: Table, session: str | None = None, label: str = "tv") -> Screen:
        """Open the table screen (the host's session unless another is given)."""
        connected, detail, screen = await self.try_open(
            table.code, "table", session or table.host_session, label=label
        )
        assert connected, f"{label} refused: {detail}"
        return screen

    async def phone(self, table: Table, position: int, label: str = "") -> Screen:
        player = table.player(position)
        connected, detail, screen = await self.try_open(
            table.code, "seat", player.session, label=label or player.name, seat=position
        )
        assert connected, f"phone {player.name} refused: {detail}"
        return screen

    async def close_all(self) -> None:
        for communicator in self.opened:
            # Already closed, or the app ended with an error the test saw.
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await communicator.disconnect()
        self.opened.clear()


# Sync helpers for async tests.
db = database_sync_to_async
