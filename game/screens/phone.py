"""HTML for a phone: the shared #status line and the private #hand, split into regions.

Takes the room and that seat's own projection. The status line is the same for
every phone of a game and rendered once per change and language; the hand's
regions are remembered by exactly what they show, so a region another phone
(or an earlier change) already rendered the same way costs nothing.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.utils.safestring import mark_safe
from markupsafe import escape

from game.engine.actions import BUY, PASS, RETURN, TAKE, Action
from game.engine.colours import NAMES
from game.engine.projection import ColourCount, GameView, PlayerView, colour_count
from game.engine.setup import MAX_PLAYERS
from game.engine.state import MAX_RESERVED, OVER
from game.engine.vocabulary import Phase
from game.languages import in_language
from game.screens import facts, jinja, pictures, regions
from game.screens.regions import STATIC
from game.storage import history
from game.storage.readmodel import Room


@regions.remembered_by(lambda room, view, log, oob: (room, log, oob))
def status(room: Room, view: GameView | None, log: str, oob: bool) -> tuple[str, dict[str, str]]:
    """The phone's #status region and its parts by id (see _status_items): the same for
    every seat of the game, so made once per change for every phone of the game.

    Built from any seat's projection, with what only that seat may see taken out,
    and the game's recent turns (game.storage.history.encode_recent) for the last-turn line.
    """
    if view is None:  # the lobby: who has joined so far
        context = {"snap": room, "oob": oob, "items": {}}
        return jinja.render("phone/status.html", context), {}
    items = _status_items(room, view, log)
    html = regions.around(
        "phone/status.html",
        (room.code, room.status, oob),
        lambda marks: {"snap": room, "oob": oob, "items": marks},
        items,
    )
    return html, items


@regions.remembered_by(lambda room, view, log: (room, log))
def _status_items(room: Room, view: GameView, log: str) -> dict[str, str]:
    """The status line's parts by id (turn, final round, each player's line, last turn):
    a change sends only the parts that changed (regions.Screen.lists)."""
    over = view.outcome is not None
    current_name = room.seats[view.current].name
    items: dict[str, str] = {
        "status-turn": regions.render_by(
            (over, current_name),
            "phone/status_turn.html",
            lambda: {"over": over, "current_name": current_name},
        )
    }
    if view.final_round and not over:
        items["final-round"] = regions.render("phone/final_round.html", {})
    for player in facts.players(facts.public(view), room):
        items[f"line-{player['seat'].position}"] = _player_line(player)
    turns = history.decode_recent(log)[:1]
    named = history.named(turns, [seat.name for seat in room.seats])
    last = named[0] if named else None
    key = (last["turn"], last["name"]) if last else None
    items["status-last"] = regions.render_by(
        key, "phone/status_last.html", lambda: {"last_turn": last}
    )
    return items


def _player_line(player: dict[str, Any]) -> str:
    """One player's line in the status: remembered by what it says, so a change
    renders only the line of the player who acted."""
    seat, view = player["seat"], player["view"]
    line = (
        str(seat.name),
        seat.position,
        player["is_current"],
        view.points,
        view.token_count,
        view.cards,
        tuple(r.level for r in view.reserved),
    )
    names = ("name", "position", "current", "points", "tokens", "cards", "reserved")
    return regions.render_by(
        line, "phone/player_line.html", lambda: dict(zip(names, line, strict=True))
    )


def _payments(view: GameView) -> dict[int, tuple[ColourCount, ...]]:
    """What each affordable card would cost this seat, cheapest way first."""
    return {
        card_id: tuple(colour_count(NAMES[c], n) for c, n in enumerate(payment) if n)
        for card_id, payment in view.cheapest
    }


def _legal(view: GameView) -> dict[str, Any]:
    """What the phone's controls need: the seat's legal takes, returns and pass (on its
    turn), and whether it may reserve, on its turn or on the next one.

    Buying and reserving are offered the same on and off turn (the sheets then do not
    change when the turn does); the phone enables them on its own turn only.
    """
    legal = view.legal
    assert view.me is not None
    return {
        "takes": [a.notation() for a in legal if a.kind == TAKE],
        "returns": [a.notation() for a in legal if a.kind == RETURN],
        "can_pass": any(a.kind == PASS for a in legal),
        "reserving": view.phase != OVER and len(view.me.reserved) < MAX_RESERVED,
        "payments": dict(view.payments),
    }


def _buy_option(card_id: int, payment: tuple[int, ...]) -> dict[str, Any]:
    """One way to pay for a card, as its sheet's button shows it."""
    paid = [colour_count(NAMES[c], n) for c, n in enumerate(payment) if n]
    return {
        "notation": Action(BUY, (), card_id, 0, payment).notation(),
        "paid": bool(paid),
        "paid_html": pictures.paid_html(paid),
    }


def _progress(view: GameView) -> list[dict[str, Any]]:
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


@regions.remembered_by(
    lambda view, legal, pays: (
        view.market,
        view.deck_counts,
        legal["reserving"],
        tuple(pays.items()),
    )
)
def _market(view: GameView, legal: dict[str, Any], pays: dict[int, Any]) -> dict[str, str]:
    """The market as this phone sees it: one region per deck and per card space, so a
    bought card or a changed price sends one space, not the whole market.

    Remembered whole by what it shows: most changes leave a phone's market as it was.
    """
    found: dict[str, str] = {f"{STATIC}market": regions.render("phone/regions/market.html", {})}
    for row in facts.levels(view):
        level = row["level"]
        found[f"{STATIC}row-{level}"] = f'<div class="market-row level-{level}">'
        found[f"deck-{level}"] = regions.render(
            "phone/regions/market_deck.html",
            {
                "level": level,
                "roman": row["roman"],
                "deck": row["deck"],
                "blind": legal["reserving"] and row["deck"] > 0,
            },
        )
        for index, card in enumerate(row["cards"]):
            slot = (f"{level}-{index}", card, pays.get(card.id) if card else None)
            found[f"slot-{level}-{index}"] = regions.render_by(
                slot,
                "phone/regions/market_slot.html",
                lambda slot=slot: dict(zip(("slot", "card", "pay"), slot, strict=True)),  # type: ignore[misc]
            )
        found[f"{STATIC}row-{level}-end"] = "</div>"
    found[f"{STATIC}market-end"] = "</section>"
    return found


@regions.remembered_by(
    lambda view, legal: (
        view.market,
        view.deck_counts,
        legal["reserving"],
        view.bank[5].amount > 0,
        view.payments,
        view.me.reserved,
    )
)
def _sheets(view: GameView, legal: dict[str, Any]) -> dict[str, str]:
    """One action sheet per card and deck the phone can open; nothing is sent from them
    until a button in them is tapped. Remembered whole by what they show."""
    gold = view.bank[5].amount
    found: dict[str, str] = {}
    for row in facts.levels(view):
        for card in row["cards"]:
            if card is not None:
                found[f"sheet-card-{card.id}"] = _card_sheet(card, legal, gold, True)
        level = row["level"]
        found[f"sheet-deck-{level}"] = regions.render(
            "phone/regions/deck_sheet.html",
            {
                "level": level,
                "roman": row["roman"],
                "can_reserve": legal["reserving"] and row["deck"] > 0,
                "gold": gold,
            },
        )
    assert view.me is not None
    for reserved in view.me.reserved:
        if reserved.card is not None:
            card = reserved.card
            found[f"sheet-card-{card.id}"] = _card_sheet(card, legal, gold, False)
    return found


def _card_sheet(card: Any, legal: dict[str, Any], gold: int, market: bool) -> str:
    sheet = (card, legal["payments"].get(card.id, ()), market and legal["reserving"], bool(gold))
    return regions.render_by(sheet, "phone/card_sheet.html", lambda: _sheet_context(*sheet))


def _sheet_context(
    card: Any, ways: tuple[tuple[int, ...], ...], can_reserve: bool, gold: bool
) -> dict[str, Any]:
    return {
        "card": card,
        "options": [_buy_option(card.id, payment) for payment in ways],
        "can_reserve": can_reserve,
        "gold": gold,
    }


TAKE_PILE = "take-pile-"


@regions.remembered_by(lambda view, my_turn, takes: (view.bank, my_turn, tuple(takes)))
def _take_items(view: GameView, my_turn: bool, takes: list[str]) -> dict[str, str]:
    """The take picker's parts by id: its legal takes, a button per pile, the gold and,
    on the phone's own turn, Clear/Take: a take re-sends only the piles it changed.
    Remembered whole by what they show."""
    items: dict[str, str] = {
        # Written out (format_html would make a SafeString, which the cache would keep).
        "take-legal": f'<span id="take-legal" hidden data-legal="{escape(",".join(takes))}"></span>'
    }
    for t in view.bank[:5]:
        items[f"{TAKE_PILE}{t.colour}"] = regions.render_by(
            (t, my_turn),
            "phone/take_button.html",
            lambda t=t: {"t": t, "my_turn": my_turn},  # type: ignore[misc]
        )
    gold = view.bank[5].amount
    items[f"{TAKE_PILE}gold"] = regions.render_by(
        gold, "phone/take_gold.html", lambda: {"gold": gold}
    )
    if my_turn:
        items["take-actions"] = regions.render("phone/take_actions.html", {})
        items["take-hint"] = regions.render("phone/take_hint.html", {})
    return items


@regions.remembered_by(
    lambda me, pays: (me, tuple(pays.get(r.card.id) if r.card else None for r in me.reserved))
)
def _hand_items(me: PlayerView, pays: dict[int, Any]) -> dict[str, str]:
    """The phone's own hand by parts (points, tokens, bonuses, reserved cards, nobles):
    taking gems re-sends the tokens, not the whole hand. Remembered whole."""
    reserved = tuple((r, pays.get(r.card.id) if r.card else None) for r in me.reserved)
    parts: dict[str, tuple[str, dict[str, Any]]] = {
        "my-score": ("score", {"points": me.points}),
        "my-tokens": ("tokens", {"tokens": me.tokens, "total": me.token_count}),
        "my-bonuses": ("bonuses", {"bonuses": me.bonuses}),
        "my-reserved-count": ("reserved_count", {"count": len(me.reserved)}),
        "my-reserved": ("reserved", {"reserved": reserved}),
    }
    if me.nobles:
        parts["my-nobles"] = ("nobles", {"nobles": me.nobles})
    return {
        iid: regions.render(f"phone/hand/{name}.html", ctx) for iid, (name, ctx) in parts.items()
    }


def _playing(
    room: Room,
    view: GameView,
    position: int,
    legal: dict[str, Any],
    pays: dict[int, Any],
    lists: dict[str, tuple[str, dict[str, str]]],
) -> dict[str, str]:
    assert view.me is not None
    my_turn = view.phase != OVER and view.current == position
    found: dict[str, str] = {}
    found["turn"] = regions.render(
        "phone/regions/turn.html",
        {
            "outcome": facts.outcome(view, room),
            "code": room.code,
            "me_position": position,
            "my_turn": my_turn,
            "phase": view.phase,
            "to_return": view.to_return,
            "can_pass": legal["can_pass"],
            "current_name": room.seats[view.current].name,
        },
    )
    # "Suggest a move" (game.screens.hint_answers): a fresh, empty answer at every version, so
    # an answer computed for an older version has nowhere to appear.
    found["hint"] = regions.absent("hint")
    if my_turn:
        found["hint"] = regions.render("phone/regions/hint.html", {"version": room.version})
    # Controls that come and go stay in place as empty elements, so the phone's
    # layout (its list of regions) stays the same and only what changed is sent.
    found["return-picker"] = regions.absent("return-picker")
    found["noble-choice"] = regions.absent("noble-choice")
    found["pass-panel"] = regions.absent("pass-panel")
    found["take-picker"] = regions.absent("take-picker")
    if my_turn and view.phase == Phase.RETURN:
        found["return-picker"] = regions.render(
            "phone/regions/return_picker.html",
            {"tokens": view.me.tokens, "returns": legal["returns"]},
        )
    if my_turn and view.phase == Phase.NOBLE:
        found["noble-choice"] = regions.render(
            "phone/regions/noble_choice.html",
            {"nobles": view.nobles, "choices": view.noble_choices},
        )
    if my_turn and legal["can_pass"]:
        found["pass-panel"] = regions.render("phone/regions/pass.html", {})
    if view.phase == Phase.MAIN:
        items = _take_items(view, my_turn, legal["takes"])
        found["take-picker"] = regions.around(
            "phone/regions/take_picker.html",
            (),
            lambda marks: {
                "legal": marks["take-legal"],
                "piles": [mark for iid, mark in marks.items() if iid.startswith(TAKE_PILE)],
                "actions": [marks[iid] for iid in ("take-actions", "take-hint") if iid in marks],
            },
            items,
        )
        lists["take-picker"] = ("", items)
    found.update(_market(view, legal, pays))
    items = _hand_items(view.me, pays)
    found["my-hand"] = regions.around(
        "phone/regions/my_hand.html", (), lambda marks: {"items": marks}, items
    )
    lists["my-hand"] = ("", items)
    found["progress"] = regions.render_by(
        (view.nobles, view.me.bonuses),
        "phone/regions/progress.html",
        lambda: {"progress": _progress(view)},
    )
    return found


def phone_screen(
    room: Room,
    view: GameView | None,
    position: int,
    log: str = "",
    others: tuple[int, ...] = (),
) -> regions.Screen:
    """The phone's regions (#status and the inside of #hand) for its seat.

    `log` is the game's recent turns (game.storage.history.encode_recent); `others` the
    positions of the phone's other seats (a shared phone: its hand says whose it is).
    """
    with in_language():
        return _phone_screen(room, view, position, log, others)


def _meta(version: str, my_turn: bool, phase: str, covered: bool = False) -> str:
    """The hand's attributes as they should now be (app.js copies them onto #hand)."""
    # Written out, not format_html: made for every phone at every change.
    marks = (" my-turn" if my_turn else "") + (" covered" if covered else "")
    cls = f"hand phase-{escape(phase)}{marks}"
    return (
        f'<div id="hand-meta" hidden data-version="{escape(version)}"'
        f' data-my-turn="{"1" if my_turn else "0"}" data-phase="{escape(phase)}"'
        f' data-class="{cls}"></div>'
    )


def _phone_screen(
    room: Room, view: GameView | None, position: int, log: str, others: tuple[int, ...]
) -> regions.Screen:
    my_turn = view is not None and view.phase != OVER and view.current == position
    phase = view.phase if view is not None else room.status
    status_html, status_parts = status(room, view, log, oob=False)
    found: dict[str, str] = {
        "status": status_html,
        "hand-meta": _meta(str(int(room.version)), my_turn, phase),
    }
    found.update(_redirect(room))
    sheets: dict[str, str] = {}
    lists: dict[str, tuple[str, dict[str, str]]] = {}
    if view is None:
        found["seated"] = regions.render(
            "phone/regions/seated.html",
            {
                "me_name": room.seats[position].name,
                "others": [room.seats[p].name for p in others],
                "code": room.code,
                "can_add": len(room.seats) < MAX_PLAYERS,
            },
        )
    else:
        if others:
            found["whose-hand"] = _whose_hand(room, position, others)
        legal = _legal(view)
        # What the seat can afford, shown on its cards until the game ends.
        pays = _payments(view) if view.phase != OVER else {}
        lists["status"] = ("", status_parts)
        found.update(_playing(room, view, position, legal, pays, lists))
        sheets = _sheets(view, legal)
    shell = {"version": room.version, "my_turn": my_turn, "phase": phase}
    # A partial of the parts, not a closure over the screen: that would be a reference
    # cycle, left for the garbage collector, whose runs then held every screen for
    # 10-30 ms (bench_web).
    full = partial(_full_phone, found, sheets, shell)
    return regions.Screen(found, full, sheets, shell, lists=lists)


def _redirect(room: Room) -> dict[str, str]:
    """A rematch: the phone follows its seat to the next game."""
    if not room.next_code:
        return {}
    return {
        "hand-redirect": regions.render(
            "phone/regions/redirect.html", {"next_code": room.next_code}
        )
    }


def _mates(room: Room, others: tuple[int, ...]) -> list[dict[str, Any]]:
    return [{"position": p, "name": room.seats[p].name} for p in others]


def _whose_hand(room: Room, position: int, others: tuple[int, ...]) -> str:
    """A shared phone's bar above the hand: whose hand it is, and passing it on."""
    return regions.render(
        "phone/regions/whose_hand.html",
        {"name": room.seats[position].name, "others": _mates(room, others)},
    )


def curtain_screen(
    room: Room, view: GameView, position: int, log: str, others: tuple[int, ...]
) -> regions.Screen:
    """A shared phone between two of its players: "Pass the phone to Ben", and nothing
    of any hand (the public #status only). `view` is any of the phone's projections (for
    the status line, which every phone shows alike); `position` the seat asked for."""
    with in_language():
        status_html, status_parts = status(room, view, log, oob=False)
        found = {
            "status": status_html,
            "hand-meta": _meta("", False, view.phase, covered=True),
            **_redirect(room),
            "curtain": regions.render(
                "phone/regions/curtain.html",
                {
                    "name": room.seats[position].name,
                    "position": position,
                    "others": _mates(room, others),
                },
            ),
        }
    shell = {"version": "", "my_turn": False, "phase": view.phase, "covered": True}
    full = partial(_full_phone, found, {}, shell)
    return regions.Screen(found, full, {}, shell, lists={"status": ("", status_parts)})


def asked_for(positions: tuple[int, ...], current: int, players: int) -> int:
    """Which of a shared phone's seats its curtain asks for: the one whose turn it is,
    else the next of them to play."""
    return min(positions, key=lambda p: (p - current) % players)


def _full_phone(found: dict[str, str], sheets: dict[str, str], shell: dict[str, Any]) -> str:
    return regions.oob(found["status"], "status") + _hand(found, sheets, shell, oob=True)


def whole_hand(screen: regions.Screen, *, oob: bool, tag: str = "main") -> str:
    """The whole #hand element around its regions and action sheets (a <div> inside the
    TV's page, whose <main> is the table)."""
    return _hand(screen.regions, screen.sheets, screen.shell, oob=oob, tag=tag)


def _hand(
    found: dict[str, str],
    sheets: dict[str, str],
    shell: dict[str, Any],
    *,
    oob: bool,
    tag: str = "main",
) -> str:
    inside = [v for k, v in found.items() if k != "status"]
    inside.append('<div id="sheets">' + "".join(sheets.values()) + "</div>")
    context = {**shell, "oob": oob, "tag": tag, "body": mark_safe("\n".join(inside))}
    return jinja.render("phone/hand.html", context)
