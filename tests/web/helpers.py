"""Helpers for web tests: set up games and sessions, open websockets, read fragments."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from html import unescape
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.backends.db import SessionStore
from django.db import connection

from game.engine import GameState, legal_actions, new_game, parse_action
from game.engine.rules import apply_action
from game.models import Game, Move, new_player_key
from game.screens.wire import PONG
from game.writer import games, lobby, moves, seating
from splendor_site.asgi import application

# A host name in ALLOWED_HOSTS, as a TV opened at http://localhost:8000 sends it.
HOST = "localhost:8000"
ORIGIN = "http://localhost:8000"
# A fixed deal, so a failure can be replayed.
SEED = 20240611

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
    game = lobby.create_game(host_key)
    Game.objects.filter(pk=game.pk).update(seed=seed)
    table = Table(game.id, game.code, host_key, new_session(host_key))
    for name in names:
        key = new_player_key()
        seat = seating.join_game(game.id, key, name)
        table.players.append(Player(name, key, new_session(key), seat.position))
    for _ in range(bots):
        lobby.add_bot(game.id, host_key)
    return table


def start(table: Table, first_player: int | None = 0) -> Table:
    lobby.start_game(table.game_id, table.host_key, first_player=first_player)
    return table


def started(
    names: tuple[str, ...] = ("Ada", "Bob"), bots: int = 0, first_player: int | None = 0
) -> Table:
    return start(open_lobby(names, bots), first_player)


def shared_lobby(others: tuple[str, ...] = ("Cy",)) -> Table:
    """Ada's phone also seats Ben (positions 0 and 1); then a phone for each of `others`."""
    table = open_lobby(("Ada",))
    ada = table.player(0)
    ben = seating.add_player(table.game_id, ada.key, "Ben")
    table.players.append(Player("Ben", ada.key, ada.session, ben.position))
    for name in others:
        key = new_player_key()
        seat = seating.join_game(table.game_id, key, name)
        table.players.append(Player(name, key, new_session(key), seat.position))
    return table


def shared_game(others: tuple[str, ...] = ("Cy",)) -> Table:
    """A shared phone's game, started with Ada (position 0) to play."""
    return start(shared_lobby(others), first_player=0)


def game(game_id: int) -> Game:
    return Game.objects.get(pk=game_id)


def state_of(game_id: int) -> GameState:
    state = games.load_state(game(game_id))
    assert state is not None
    return state


def legal(game_id: int) -> list[str]:
    """Return the notations the player to act may send now."""
    return [a.notation() for a in legal_actions(state_of(game_id))]


def play_as(table: Table, notation: str) -> int:
    """Play for whoever is to act (a phone) through moves.play; return the new version."""
    g = game(table.game_id)
    assert g.state is not None
    player = table.player(g.state["current"])
    moves.play(table.game_id, player.key, notation, g.version)
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

_META_VERSION = re.compile(r'id="(?:screen-meta|hand-meta)"[^>]*?data-version="(\d+)"')
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "wbr"}


@dataclass
class Element:
    """One element of an HTML text: its id, attributes and where it starts and ends."""

    tag: str
    source: str  # what the opening tag says after its name: read into `attrs` when asked
    start: int
    inner_start: int
    end: int = -1
    inner_end: int = -1
    depth: int = 0

    @cached_property
    def attrs(self) -> dict[str, str]:
        return _attrs(self.source)

    @property
    def id(self) -> str:
        # Most elements are only spanned: their attributes are read if they may hold an id.
        return self.attrs.get("id", "") if "id" in self.source.lower() else ""


# A tag, its attributes quoted or not (a quoted value may hold ">"), and one attribute.
_ANY_TAG = re.compile(r"""<(/?)([a-zA-Z][\w:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>""")
_ATTR = re.compile(r"""([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?""")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def _attrs(text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for m in _ATTR.finditer(text):
        name, value = m.group(1).lower(), next((g for g in m.groups()[1:] if g is not None), "")
        found.setdefault(name, unescape(value))
    return found


def _spans(text: str) -> list[Element]:
    """Find every element of an HTML text with its span (outerHTML and innerHTML): a scan
    of its tags, a twentieth of html.parser's time (test_frames parses a million tags)."""
    hidden = _COMMENT.sub(lambda m: " " * len(m.group()), text)
    opened: list[Element] = []
    found: list[Element] = []
    for m in _ANY_TAG.finditer(hidden):
        closing, tag, rest = m.group(1), m.group(2).lower(), m.group(3)
        if closing:
            while opened:
                element = opened.pop()
                element.inner_end, element.end = m.start(), m.end()
                if element.tag == tag:
                    break
            continue
        element = Element(tag, rest, m.start(), m.end(), depth=len(opened))
        found.append(element)
        if tag in _VOID or rest.rstrip().endswith("/"):
            element.end = element.inner_end = m.end()
        else:
            opened.append(element)
    return found


def elements(html: str) -> list[Element]:
    return _spans(html)


def oob_ids(html: str) -> list[str]:
    """Return the ids of the out-of-band regions in one message, in order."""
    return [e.id for e in elements(html) if e.attrs.get("hx-swap-oob") and e.id]


def version_of(html: str) -> int | None:
    """The version a screen shows (its meta region), or None."""
    match = _META_VERSION.search(html)
    return int(match.group(1)) if match else None


def my_turn(html: str) -> bool:
    """Whether a phone's view says it is this seat's turn (from its meta region)."""
    return 'data-my-turn="1"' in region(html, "hand-meta")


def card_ids(html: str) -> set[int]:
    """Every card id a message names: data-card, action sheets, action buttons."""
    return {int(next(g for g in m.groups() if g)) for m in _CARD_IDS.finditer(html)}


# What only a hand shows: its own regions, its gem and card controls, its cards.
HAND_MARKS = (
    'id="my-hand"',
    'id="my-tokens"',
    'id="take-picker"',
    'id="market"',
    "data-action=",
    "data-pick=",
    "data-card=",
    "sheet-card-",
)


def hand_free(html: str) -> bool:
    """Nothing of any hand: no hand region, control or card outside the status line (the
    same on every phone: its last turn may show a market card someone bought)."""
    private = "".join(
        html[e.start : e.end]
        for e in elements(html)
        if e.depth == 0 and not e.id.startswith(("status", "line-", "final-round"))
    )
    return not any(mark in private for mark in HAND_MARKS) and not card_ids(private)


def region(html: str, region_id: str) -> str:
    """Return the outer HTML of the element with this id."""
    found = find_element(html, region_id)
    assert found is not None, f"no #{region_id} in message"
    return html[found.start : found.end]


def player_panel(html: str, position: int) -> str:
    """Return the TV's panel of one seat (parts/player.html)."""
    return region(html, f"player-{position}")


class Page:
    """What a browser would show after applying every message (htmx's out-of-band swaps)."""

    def __init__(self) -> None:
        self.html = ""

    def apply(self, message: str) -> None:
        if message == PONG:
            return
        for element in [e for e in elements(message) if e.depth == 0]:
            self._swap(message, element)

    def _swap(self, message: str, element: Element) -> None:
        how = element.attrs.get("hx-swap-oob", "true")
        outer = message[element.start : element.end].replace(f' hx-swap-oob="{how}"', "", 1)
        if how.startswith(("beforeend:#", "afterbegin:#")):
            target = self._find(how.split("#", 1)[1])
            assert target is not None, f"no {how}"
            inner = message[element.inner_start : element.inner_end]
            at = target.inner_end if how.startswith("beforeend") else target.inner_start
            self.html = self.html[:at] + inner + self.html[at:]
            return
        target = self._find(element.id)
        if target is None:
            self.html += outer  # a top-level region the page did not have yet
        elif how == "delete":
            self.html = self.html[: target.start] + self.html[target.end :]
        else:
            self.html = self.html[: target.start] + outer + self.html[target.end :]

    def _find(self, element_id: str) -> Element | None:
        return find_element(self.html, element_id)


_TAG = re.compile(r"<(/?)([a-zA-Z][\w-]*)([^>]*)>")


def find_element(html: str, element_id: str) -> Element | None:
    """Find one element by id quickly (a scan of tags from its start, not a full parse)."""
    at = html.find(f' id="{element_id}"')
    if at < 0:
        return None
    start = html.rfind("<", 0, at)
    first = _TAG.match(html, start)
    assert first is not None
    tag = first.group(2).lower()
    element = Element(tag, f' id="{element_id}"', start, first.end())
    if tag in _VOID or first.group(3).endswith("/"):
        element.end = element.inner_end = first.end()
        return element
    depth = 0
    for match in _TAG.finditer(html, start):
        closing, name = match.group(1), match.group(2).lower()
        if name in _VOID or match.group(3).endswith("/"):
            continue
        depth += -1 if closing else 1
        if depth == 0:
            element.inner_end, element.end = match.start(), match.end()
            return element
    raise AssertionError(f"#{element_id} is never closed")


# ---------------------------------------------------------------- live screens (async)


class Screen:
    """One websocket to the full ASGI application, with everything it received.

    `page` is what the browser would show after every message so far; waits are
    for a condition on it (a version, a text), never for a quiet period.
    """

    def __init__(self, communicator: WebsocketCommunicator, label: str, seat: int | None):
        self.communicator = communicator
        self.label = label
        self.seat = seat
        self.log: list[str] = []
        self.versions: list[int | None] = []  # the version shown after each message
        self.page = Page()

    async def receive(self, timeout: float = 10) -> str:
        message = await self.communicator.receive_from(timeout)
        assert isinstance(message, str)
        self.log.append(message)
        self.page.apply(message)
        self.versions.append(version_of(self.page.html))
        return message

    @property
    def view(self) -> str:
        return self.page.html

    async def until(self, predicate: Callable[[str], bool], timeout: float = 10) -> str:
        """Receive until what the screen shows matches; return what it shows."""
        deadline = time.monotonic() + timeout
        while not self.page.html or not predicate(self.page.html):
            left = deadline - time.monotonic()
            assert left > 0, f"{self.label} never showed the expected view"
            await self.receive(left)
        return self.page.html

    async def until_version(self, version: int, timeout: float = 10) -> str:
        """Receive until the screen shows this version; return what it shows."""
        return await self.until(lambda html: version_of(html) == version, timeout)

    async def barrier(self, timeout: float = 10) -> list[str]:
        """Ping and receive up to the answer; return what arrived before it.

        The socket answers in order, so anything the server sent this screen
        before it read the ping arrives first: a test can tell "nothing was
        sent" without waiting for a quiet period.
        """
        await self.send({"ping": True})
        before: list[str] = []
        while (message := await self.receive(timeout)) != PONG:
            before.append(message)
        return before

    async def before_version(self, version: int, timeout: float = 10) -> list[str]:
        """Receive until the screen shows `version`; return the messages that came first.

        To tell that an action sent a screen nothing, a test makes the next change
        itself and expects it to be the next thing the screen hears: changes reach a
        screen in the order they were made, so this waits for a version, never for
        a quiet period.
        """
        mark = len(self.log)
        await self.until_version(version, timeout)
        return self.log[mark:-1]

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
        connected, detail = await communicator.connect(timeout=15)  # a busy CI machine
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
