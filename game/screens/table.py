"""HTML for the TV: the #screen element, split into regions (game.screens.regions).

Takes the room (with presence applied) and the table's projection; every
region is rendered once per change and language in the process and shared by
every table screen. QR codes are made once per address (game.screens.join_qr) and kept
by the browser (hx-preserve): a screen that already shows one gets an empty
placeholder, never the SVG again.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.utils.safestring import mark_safe
from markupsafe import escape

from game.bot_levels import STAND_IN_CHOICES, hard_bot_choices, seconds_label
from game.engine.projection import GameView
from game.engine.state import OVER
from game.languages import in_language
from game.screens import facts, jinja, regions
from game.screens.join_qr import REJOIN_MASK, qr_svg, rejoin_url
from game.screens.phone import phone_screen, whole_hand
from game.screens.pictures import ROMAN
from game.screens.pictures import card as card_html
from game.screens.regions import STATIC
from game.storage import history
from game.storage.readmodel import Room


def _lobby(room: Room, is_host: bool, url: str, csrf: str, qr: dict[str, Any]) -> str:
    qr["join-qr"] = partial(qr_svg, url)
    context = {
        "snap": room,
        "is_host": is_host,
        "csrf": csrf,
        "join_url": url,
        "seats": room.seats,
        "can_start": 2 <= len(room.seats) <= 4,
        "stand_in_choices": STAND_IN_CHOICES,
        # (value posted, label in this screen's language, chosen now)
        "think_choices": [
            (f"{s:g}", seconds_label(s), s == room.hard_bot_seconds) for s in hard_bot_choices()
        ],
    }
    return regions.render("host/lobby.html", context)


NOTHING_JUST = history.just_of(None)


def _player(
    player: dict[str, Any], room: Room, host: dict[str, Any], qr: dict[str, Any]
) -> dict[str, str]:
    """A player's panel by parts (header, bonuses, tokens, cards): a take re-sends that
    player's tokens and score, not the whole panel."""
    seat, view = player["seat"], player["view"]
    position = seat.position
    # The last turn's markers belong to the seat that played it: the other panels
    # get none, so they stay as cached and are not sent again.
    just = host["just"] if host["just"]["seat"] == position else NOTHING_JUST
    link = ""
    if host["is_host"] and not seat.bot_plays and not seat.connected:
        # The host screen shows a rejoin QR for each seat whose phone is away.
        link = rejoin_url(host["url"], seat.rejoin_code)
        qr[f"rejoin-qr-{position}-{seat.rejoin_code}"] = partial(qr_svg, link, REJOIN_MASK)
    # Not is_current / acted_last: the meta region carries those (see table_screen).
    # A later seat of a shared phone is marked with the phone's first player's name.
    shares = room.seats[seat.shares_with].name if seat.shares_with >= 0 else ""
    p = {
        "seat": seat,
        "view": view,
        "is_first": player["is_first"],
        "rejoin_url": link,
        "shares": shares,
    }
    context = {
        "p": p,
        "snap": {"code": room.code},
        "is_host": host["is_host"],
        "csrf": host["csrf"],
        "outcome": host["over"],
        "roman": ROMAN,
        "just": just,
    }
    # Each part's key holds the markers that part shows, no more: with every marker in
    # it, a seat's bonuses were drawn again at each of its turns and the turn after.
    keys = {
        "head": (
            seat,
            shares,
            p["is_first"],
            link,
            view.points,
            host["is_host"],
            host["csrf"],
            host["over"],
        ),
        "bonuses": (position, view.bonuses, just.get("bonus")),
        "tokens": (position, view.tokens, view.token_count),
    }
    if view.reserved or view.nobles:
        marks = (just["cards"], just["blind"], just.get("noble"))
        keys["cards"] = (position, view.reserved, view.nobles, marks)
    return {
        f"player-{position}-{part}": regions.render_by(
            (room.code, key), f"parts/player/{part}.html", lambda: context
        )
        for part, key in keys.items()
    }


MARKET_PARTS = (f"{STATIC}market", f"{STATIC}row-", "table-deck-", "table-slot-")


@regions.remembered_by(lambda view: (view.market, view.deck_counts, view.last_refills))
def _market(view: GameView) -> dict[str, str]:
    """The market: one region per deck and per card space (a buy changes one space).

    A space the last turn refilled is marked (its card sits in a highlighted slot).
    Remembered whole by what it shows: most changes leave the market as it was.
    """
    refilled = frozenset(view.last_refills)
    found = {f"{STATIC}market": '<div class="market">'}
    for row in facts.levels(view):
        level = row["level"]
        found[f"{STATIC}row-{level}"] = f'<div class="market-row level-{level}">'
        found[f"table-deck-{level}"] = regions.render(
            "host/regions/market_deck.html",
            {"level": level, "roman": row["roman"], "deck": row["deck"]},
        )
        for index, card in enumerate(row["cards"]):
            slot = f"table-slot-{level}-{index}"
            if card is None:
                found[slot] = f'<div id="{slot}" class="card card-empty"></div>'
            elif (level, index) in refilled:
                found[slot] = (
                    f'<div id="{slot}" class="just-slot just" data-just="refill">'
                    f"{card_html(card)}</div>"
                )
            else:  # the card as drawn everywhere, with the space's id
                found[slot] = card_html(card).replace(
                    '<div class="card ', f'<div id="{slot}" class="card ', 1
                )
        found[f"{STATIC}row-{level}-end"] = "</div>"
    found[f"{STATIC}market-end"] = "</div>"
    return found


def _log(
    room: Room, log: str | None, outcome: dict[str, Any] | None
) -> tuple[dict[str, str], dict[str, tuple[str, dict[str, str]]]]:
    """The last turn told in sentences, and the last few turns (newest first).

    Also returns the log as a list region (regions.Screen.lists), so a change
    sends the TV only its new turn.
    """
    turns = history.decode_recent(log or "")
    names = [seat.name for seat in room.seats]
    entries = history.named(turns, names)
    last = entries[0] if entries else None
    found: dict[str, str] = {
        "last-turn": regions.render_by(
            (room.id, last["turn"].number, last["name"]) if last else None,  # type: ignore[attr-defined]
            "host/regions/last_turn.html",
            lambda: {"last_turn": last},
        )
    }
    lists: dict[str, tuple[str, dict[str, str]]] = {}
    if log is not None:  # a replay shows no log
        items = facts.log_items(entries, outcome, room.id)
        # By place, not by id: the turns' ids change at every turn, the skeleton need not.
        found["game-log"] = regions.around(
            "parts/game_log.html",
            (),
            lambda marks: {"items": tuple(marks.values())},
            {str(place): html for place, html in enumerate(items.values())},
        )
        lists["game-log"] = (facts.LOG_LIST, items)
    return found, lists


def _table(
    room: Room,
    view: GameView,
    host: dict[str, Any],
    qr: dict[str, Any],
    log: str | None,
    lists: dict[str, tuple[str, dict[str, str]]],
) -> dict[str, str]:
    outcome = facts.outcome(view, room)
    turns = history.decode_recent(log or "")
    found: dict[str, str] = {}
    found["nobles"] = regions.render("host/regions/nobles.html", {"nobles": view.nobles})
    found.update(_market(view))
    found["bank"] = regions.render(
        "host/regions/bank.html",
        {"bank": view.bank, "last_taken": facts.last_taken(view.last_turn_events)},
    )
    found["final-banner"] = regions.absent("final-banner")
    if view.final_round and outcome is None:
        found["final-banner"] = regions.render("host/regions/final_banner.html", {})
    found["turn-line"] = regions.render(
        "host/regions/turn_line.html",
        {
            "outcome": outcome is not None,
            "current_name": room.seats[view.current].name,
            "phase": view.phase,
            "to_return": view.to_return,
        },
    )
    told, told_lists = _log(room, log, outcome)
    found.update(told)
    lists.update(told_lists)
    just = history.just_of(turns[0] if turns else None)
    host = {**host, "over": outcome is not None, "just": just}
    for player in facts.players(view, room):
        position = player["seat"].position
        parts = _player(player, room, host, qr)
        found[f"player-{position}"] = regions.around(
            "parts/player.html",
            position,
            lambda marks, position=position: {  # type: ignore[misc]
                "position": position,
                "parts": tuple(marks.values()),
            },
            parts,
        )
        lists[f"player-{position}"] = ("", parts)
    qr["corner-qr"] = partial(qr_svg, host["url"])
    found["corner-join"] = regions.render(
        "host/regions/corner_join.html", {"join_url": host["url"], "code": room.code}
    )
    # Kept in place as an empty element until the game ends, as the final banner is:
    # the layout then stays the same, and the last change sends the TV what changed,
    # not its whole screen (34 KB, the slowest change of a game).
    found["end"] = regions.absent("end")
    if outcome is not None:
        context = {"outcome": outcome, "is_host": host["is_host"], "csrf": host["csrf"]}
        context["snap"] = {"code": room.code}
        # The game's story (game.web.story_views), asked for as the end screen appears; a
        # replay (no join address) draws its own.
        context["story"] = bool(host["url"])
        found["end"] = regions.render("host/regions/end.html", context)
    return found


def table_screen(
    room: Room,
    view: GameView | None,
    *,
    log: str | None = "",
    is_host: bool,
    url: str,
    csrf: str = "",
    open_view: GameView | None = None,
) -> regions.Screen:
    """The TV's regions for this room and projection.

    `log` is the game's recent turns (game.storage.history.encode_recent; None shows no
    log, as a replay). `csrf` is the host screen's token for its forms. QR codes come as empty
    elements; `Screen.qr` fills them in only for a browser that lacks them. `open_view`
    is the view in the open of a seat the TV plays, on its turn: the host screen then shows
    that seat's turn panel (tv_turn).
    """
    with in_language():
        found = _table_screen(room, view, log=log, is_host=is_host, url=url, csrf=csrf)
        if view is not None:
            panel = tv_turn(room, open_view, log or "") if is_host and open_view else ""
            found.regions["tv-turn"] = panel or regions.absent("tv-turn")
        return found


def tv_turn(room: Room, view: GameView, log: str) -> str:
    """The turn of a seat the TV plays, as its phone would show it (the phone's regions
    and sheets, from its view in the open: its blind reserves face down)."""
    seat = room.seats[view.viewer] if isinstance(view.viewer, int) else None
    if seat is None or not seat.tv_plays:
        return ""
    hand = whole_hand(phone_screen(room, view, seat.position, log), oob=False, tag="div")
    return jinja.render("host/tv_turn.html", {"name": seat.name, "hand": hand})


def _table_screen(
    room: Room, view: GameView | None, *, log: str | None, is_host: bool, url: str, csrf: str
) -> regions.Screen:
    csrf = csrf if is_host else ""
    qr: dict[str, Any] = {}
    current = acted_last = -1
    if view is not None:
        # Which panel is highlighted travels here, so a panel is re-sent only when
        # that player's holdings change (app.js sets the classes).
        current = view.current if view.phase != OVER else -1
        acted_last = view.last_turn_seat
    status = escape(room.status)
    found: dict[str, str] = {
        # Written out, not format_html: made for every table screen at every change.
        "screen-meta": (
            f'<div id="screen-meta" hidden data-version="{int(room.version)}"'
            f' data-status="{status}" data-class="screen screen-{status}"'
            f' data-current="{int(current)}" data-acted-last="{int(acted_last)}"></div>'
        )
    }
    if room.next_code and is_host:
        found["screen-redirect"] = regions.render(
            "host/regions/redirect.html", {"next_code": room.next_code}
        )
    lists: dict[str, tuple[str, dict[str, str]]] = {}
    if view is None:
        found["lobby"] = _lobby(room, is_host, url, csrf, qr)
    else:
        host = {"is_host": is_host, "url": url, "csrf": csrf}
        found.update(_table(room, view, host, qr, log, lists))

    def full() -> str:
        return whole_screen(room, found, oob=True)

    return regions.Screen(found, full, qr=qr, lists=lists)


def whole_screen(room: Room, found: dict[str, str], *, oob: bool) -> str:
    """The whole #screen element around its regions."""
    parts = {k.replace("-", "_"): mark_safe(v) for k, v in found.items()}
    players = "".join(v for k, v in found.items() if k.startswith("player-"))
    parts["players"] = mark_safe(players)
    market = "".join(v for k, v in found.items() if k.startswith(MARKET_PARTS))
    parts["market"] = mark_safe(market)
    context = {
        "status": room.status,
        "version": room.version,
        "oob": oob,
        "regions": parts,
    }
    return jinja.render("host/screen.html", context)
