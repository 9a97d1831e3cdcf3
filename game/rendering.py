"""Turn a game into the HTML each screen receives.

Templates get projections (game.engine.projection) and seat names, never a
GameState, so a deck order or another seat's blind-reserved card cannot reach
a page. What every table screen shares is rendered once per change and cached;
only a phone's own hand is rendered per seat.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import qrcode
import qrcode.image.svg
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.safestring import mark_safe

from game import presence
from game.engine import GameState, parse_action
from game.engine.actions import BUY, NOBLE, RESERVE, RETURN, TAKE, Action
from game.engine.colours import NAMES
from game.engine.projection import (
    SPECTATOR,
    TABLE,
    ColourCount,
    GameView,
    card_view,
    noble_view,
    view_for,
)
from game.history import log_context
from game.models import Game
from game.network import join_host
from game.services import STAND_IN, load_state
from game.templatetags.splendor import card as card_html
from game.templatetags.splendor import chip, gem
from game.templatetags.splendor import noble as noble_html

ROMAN = {1: "I", 2: "II", 3: "III"}


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """What a screen may show about a seat: never its player key."""

    position: int
    name: str
    is_bot: bool
    connected: bool
    rejoin_code: str
    stand_in: bool = False  # a bot playing for a player who left


@dataclass(frozen=True, slots=True)
class Room:
    """What any screen may know about a game besides its projection.

    Templates get this as `snap`, never the Snapshot: the full GameState
    (deck order, blind cards) stays out of every template context.
    """

    id: int
    code: str
    status: str
    version: int
    no_gold_small: bool
    next_code: str
    seats: tuple[SeatInfo, ...]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One consistent read of a game from the database: the room and the full state."""

    room: Room
    state: GameState | None

    @property
    def code(self) -> str:
        return self.room.code

    @property
    def seats(self) -> tuple[SeatInfo, ...]:
        return self.room.seats

    @property
    def signature(self) -> Room:
        """Everything besides the viewer that changes what a screen shows."""
        return self.room


def load_snapshot(game_id: int) -> Snapshot:
    game = Game.objects.select_related("next_game").get(pk=game_id)
    here = presence.connected(game.id)
    seats = tuple(
        SeatInfo(
            s.position,
            s.name,
            s.is_bot,
            s.is_bot or s.pk in here,
            s.rejoin_code,
            stand_in=s.bot_kind == STAND_IN,
        )
        for s in game.seats.order_by("position")
    )
    room = Room(
        id=game.id,
        code=game.code,
        status=game.status,
        version=game.version,
        no_gold_small=game.house_no_gold_small,
        next_code=game.next_game.code if game.next_game else "",
        seats=seats,
    )
    return Snapshot(room=room, state=load_state(game))


# ---------------------------------------------------------------- caching

_CACHE_SIZE = 256
_shared: OrderedDict[tuple[Any, ...], str] = OrderedDict()


def cached(key: tuple[Any, ...], render: Callable[[], str]) -> str:
    """Render once per key (a change of game, viewer kind or language), then reuse."""
    html = _shared.get(key)
    if html is None:
        html = render()
        _shared[key] = html
        if len(_shared) > _CACHE_SIZE:
            _shared.popitem(last=False)
    else:
        _shared.move_to_end(key)
    return html


def clear_cache() -> None:
    global _join_host_cache
    _shared.clear()
    _join_host_cache = (float("-inf"), "")


# ---------------------------------------------------------------- join link


_JOIN_HOST_TTL = 30.0  # seconds; a laptop's Wi-Fi address rarely changes mid-game
_join_host_cache: tuple[float, str] = (float("-inf"), "")


def _cached_join_host() -> str:
    """Return join_host(), looked up at most every 30 s (listing adapters costs ~1 ms)."""
    global _join_host_cache
    looked_up, host = _join_host_cache
    if time.monotonic() - looked_up > _JOIN_HOST_TTL:
        host = join_host()
        _join_host_cache = (time.monotonic(), host)
    return host


def join_url(code: str, port: int | str | None) -> str:
    """Return the address phones open; never "localhost", which a phone cannot reach."""
    port_part = f":{port}" if port and str(port) not in ("80", "") else ""
    return f"http://{_cached_join_host()}{port_part}/join/{code}/"


@lru_cache(maxsize=64)
def qr_svg(url: str) -> str:
    """Return the URL as an inline SVG QR code (no Pillow needed)."""
    image = qrcode.make(url, image_factory=qrcode.image.svg.SvgPathFillImage, border=2)
    return str(image.to_string(encoding="unicode"))


# ---------------------------------------------------------------- presentation


def _chips_html(paid: list[ColourCount]) -> str:
    chips = "".join(chip(p.colour, p.amount) for p in paid)
    return mark_safe(f'<span class="paid">{chips}</span>')  # each chip is escaped HTML


def describe_event(text: str) -> dict[str, Any]:
    """Turn one recorded event of the last turn into what a template shows.

    The pictures (gems, card, noble) come as ready HTML so each event is one
    translatable sentence with placeholders, in whatever word order a language needs.
    """
    action: Action = parse_action(text)
    event: dict[str, Any] = {"kind": action.kind}
    if action.kind in (TAKE, RETURN):
        event["gems_html"] = mark_safe("".join(gem(NAMES[c]) for c in action.gems))
    elif action.kind == RESERVE:
        event["card_html"] = card_html(card_view(action.card)) if action.card else ""
        event["level"] = ROMAN[action.level] if action.level else ""
    elif action.kind == BUY:
        event["card_html"] = card_html(card_view(action.card))
        paid = [ColourCount(NAMES[c], n) for c, n in enumerate(action.payment) if n]
        event["paid_html"] = _chips_html(paid)
    elif action.kind == NOBLE:
        event["noble_html"] = noble_html(noble_view(action.noble))
    return event


def _players(view: GameView, snap: Snapshot) -> list[dict[str, Any]]:
    return [
        {
            "seat": seat,
            "view": player,
            "is_current": view.phase != "over" and player.seat == view.current,
            "is_first": player.seat == view.first_player,
            "acted_last": player.seat == view.last_turn_seat,
        }
        for seat, player in zip(snap.seats, view.players, strict=True)
    ]


def _outcome(view: GameView, snap: Snapshot) -> dict[str, Any] | None:
    result = view.outcome
    if result is None:
        return None
    rows = [
        {
            "place": place,
            "seat": snap.seats[s],
            "points": result.points[s],
            "cards": result.cards[s],
            "winner": s in result.winners,
        }
        for place, s in enumerate(result.ranking, start=1)
    ]
    return {
        "rows": rows,
        "winners": [snap.seats[s] for s in result.winners],
        "shared": result.shared,
        "tie_break": result.tie_break,
        "ended_by_passes": result.ended_by_passes,
    }


def _common(view: GameView, snap: Snapshot) -> dict[str, Any]:
    names = [seat.name for seat in snap.seats]
    return log_context(snap.room.id, snap.room.version, names) | {
        "snap": snap.room,
        "view": view,
        "players": _players(view, snap),
        "current_seat": snap.seats[view.current],
        "last_seat": snap.seats[view.last_turn_seat] if view.last_turn_seat >= 0 else None,
        "last_events": [describe_event(e) for e in view.last_turn_events],
        "last_taken": {
            NAMES[c]
            for e in view.last_turn_events
            if e.startswith(TAKE)
            for c in parse_action(e).gems
        },
        "outcome": _outcome(view, snap),
        "roman": ROMAN,
        # Level III on top, as the cards lie on the table.
        "levels": [
            {"level": level, "roman": ROMAN[level], "cards": view.market[level - 1], "deck": count}
            for level, count in ((lv, view.deck_counts[lv - 1]) for lv in (3, 2, 1))
        ],
    }


# ---------------------------------------------------------------- the table screen


def table_context(snap: Snapshot, *, is_host: bool, url: str, csrf: str = "") -> dict[str, Any]:
    context: dict[str, Any] = {
        "snap": snap.room,
        "is_host": is_host,
        "csrf": csrf if is_host else "",
        "join_url": url,
        "qr": qr_svg(url),
        "seats": snap.seats,
        "can_start": 2 <= len(snap.seats) <= 4,
    }
    if snap.state is not None:
        context.update(_common(view_for(snap.state, TABLE if is_host else SPECTATOR), snap))
        if is_host:
            _add_rejoin_codes(context["players"], url)
    return context


def _add_rejoin_codes(players: list[dict[str, Any]], url: str) -> None:
    """Give the host screen a rejoin QR for each seat whose phone is away."""
    for player in players:
        seat = player["seat"]
        if not seat.is_bot and not seat.connected:
            player["rejoin_qr"] = qr_svg(f"{url}?rejoin={seat.rejoin_code}")


def render_table(
    snap: Snapshot, *, is_host: bool, url: str, oob: bool = False, csrf: str = ""
) -> str:
    """Return the TV's #screen region, rendered once per change and language.

    `csrf` is the host screen's CSRF token for its lobby and rematch forms.
    """
    csrf = csrf if is_host else ""
    key = ("table", snap.signature, is_host, url, oob, csrf, translation.get_language())

    def render() -> str:
        context = table_context(snap, is_host=is_host, url=url, csrf=csrf)
        context["oob"] = oob
        return render_to_string("host/screen.html", context)

    return cached(key, render)


# ---------------------------------------------------------------- the phone


def _group_legal(legal: tuple[Action, ...]) -> dict[str, Any]:
    """Sort the seat's legal actions into what the phone's controls need."""
    buys: dict[int, list[dict[str, Any]]] = {}
    reserves: set[int] = set()
    blind: set[int] = set()
    for action in legal:
        if action.kind == BUY:
            paid = [ColourCount(NAMES[c], n) for c, n in enumerate(action.payment) if n]
            buys.setdefault(action.card, []).append(
                {"notation": action.notation(), "paid": paid, "paid_html": _chips_html(paid)}
            )
        elif action.kind == RESERVE and action.card:
            reserves.add(action.card)
        elif action.kind == RESERVE:
            blind.add(action.level)
    return {
        "takes": [a.notation() for a in legal if a.kind == TAKE],
        "returns": [a.notation() for a in legal if a.kind == RETURN],
        "buys": buys,
        "reserves": reserves,
        "blind": blind,
        "can_pass": any(a.kind == "pass" for a in legal),
    }


def _noble_progress(view: GameView) -> list[dict[str, Any]]:
    assert view.me is not None
    have = {b.colour: b.amount for b in view.me.bonuses}
    return [
        {
            "noble": noble,
            "needs": [
                {"colour": r.colour, "need": r.amount, "have": min(have[r.colour], r.amount)}
                for r in noble.requires
            ],
            "missing": sum(max(0, r.amount - have[r.colour]) for r in noble.requires),
        }
        for noble in view.nobles
    ]


def phone_context(snap: Snapshot, position: int) -> dict[str, Any]:
    context: dict[str, Any] = {
        "snap": snap.room,
        "me_seat": snap.seats[position],
        "seats": snap.seats,
    }
    if snap.state is None:
        return context
    view = view_for(snap.state, position)
    context.update(_common(view, snap))
    context.update(
        me=view.me,
        my_turn=view.phase != "over" and view.current == position,
        # Buying is possible only in the main phase: not after the end, nor
        # while giving back tokens or choosing a noble.
        affordable=view.affordable if view.phase == "main" else frozenset(),
        legal=_group_legal(view.legal),
        # What each affordable card would cost this seat, cheapest way first.
        cheapest={
            card_id: [ColourCount(NAMES[c], n) for c, n in enumerate(payment) if n]
            for card_id, payment in view.cheapest
        },
        progress=_noble_progress(view),
    )
    return context


def render_phone_status(snap: Snapshot, oob: bool = False) -> str:
    """Return the phone's shared #status region: the same for every seat."""
    key = ("status", snap.signature, oob, translation.get_language())

    def render() -> str:
        context: dict[str, Any] = {"snap": snap.room, "oob": oob}
        if snap.state is not None:
            context.update(_common(view_for(snap.state, SPECTATOR), snap))
        return render_to_string("phone/status.html", context)

    return cached(key, render)


def render_phone_hand(snap: Snapshot, position: int, oob: bool = False) -> str:
    """Return the phone's private #hand region for one seat."""
    context = phone_context(snap, position)
    context["oob"] = oob
    return render_to_string("phone/hand.html", context)
