"""What the TV and the phones both show, turned into template values.

Shared by game.screens.table and game.screens.phone; works on projections and the
room only (game.storage.readmodel), never on a GameState.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any

from game.engine import parse_action
from game.engine.actions import TAKE
from game.engine.colours import NAMES
from game.engine.projection import GameView
from game.engine.state import OVER, STALEMATE_ROUNDS
from game.screens import regions
from game.screens.pictures import ROMAN
from game.storage.household import own_win_label, win_label
from game.storage.readmodel import Room


@lru_cache(maxsize=256)
def last_taken(events: tuple[str, ...]) -> frozenset[str]:
    """The colours taken in the last turn (the bank marks their piles)."""
    return frozenset(NAMES[c] for e in events if e.startswith(TAKE) for c in parse_action(e).gems)


def players(view: GameView, room: Room) -> list[dict[str, Any]]:
    return [
        {
            "seat": seat,
            "view": player,
            "is_current": view.phase != OVER and player.seat == view.current,
            "is_first": player.seat == view.first_player,
            "acted_last": player.seat == view.last_turn_seat,
        }
        for seat, player in zip(room.seats, view.players, strict=True)
    ]


def outcome(view: GameView, room: Room) -> dict[str, Any] | None:
    result = view.outcome
    if result is None:
        return None
    rows = [
        {
            "place": place,
            "seat": room.seats[s],
            "points": result.points[s],
            "cards": result.cards[s],
            "winner": s in result.winners,
            # The winner's phone: "Your 5th win" (their wins in the household).
            "own_win": own_win_label(room.seats[s].wins) if room.seats[s].wins else "",
        }
        for place, s in enumerate(result.ranking, start=1)
    ]
    return {
        "rows": rows,
        # The TV: "Ada's 5th win" for each winning player (bots are not counted).
        "household_wins": [
            win_label(room.seats[s].name, room.seats[s].wins)
            for s in result.winners
            if room.seats[s].wins
        ],
        "winners": [room.seats[s] for s in result.winners],
        "shared": result.shared,
        "tie_break": result.tie_break,
        "ended_by_passes": result.ended_by_passes,
        "ended_by_stalemate": result.ended_by_stalemate,
        "stalemate_rounds": STALEMATE_ROUNDS,
    }


def levels(view: GameView) -> list[dict[str, Any]]:
    """The market rows, level III on top as the cards lie on the table."""
    return [
        {
            "level": level,
            "roman": ROMAN[level],
            "cards": view.market[level - 1],
            "deck": view.deck_counts[level - 1],
        }
        for level in (3, 2, 1)
    ]


def public(view: GameView) -> GameView:
    """The view with everything only its seat may see taken out (for shared regions)."""
    players = tuple(
        replace(
            p,
            reserved=tuple(replace(r, card=None) if r.blind else r for r in p.reserved),
        )
        for p in view.players
    )
    return replace(view, players=players, me=None, legal=(), affordable=frozenset(), payments=())


# The game log's list, by element id, newest first. The TV's frames add only the
# new turns and drop the oldest (regions.Shown), instead of re-sending the list.
LOG_LIST = "game-log-list"


def log_items(
    entries: list[dict[str, Any]], outcome: dict[str, Any] | None, game_id: int | None = None
) -> dict[str, str]:
    """The log's items: the end of the game, then each turn (history.named), newest first.

    With `game_id`, a turn is remembered by its game, number and player's name: a
    finished turn never changes, and the TV shows the same six at every change.
    """
    items: dict[str, str] = {}
    if outcome:
        items["log-end"] = regions.render("parts/log_end.html", {"outcome": outcome})
    for entry in entries:
        number = entry["turn"].number
        context = {"entry": entry}
        items[f"log-turn-{number}"] = (
            regions.render("parts/log_entry.html", context)
            if game_id is None
            else regions.render_by(
                (game_id, number, entry["name"]),
                "parts/log_entry.html",
                lambda c=context: c,  # type: ignore[misc]
            )
        )
    if not entries:
        items["log-empty"] = regions.render("parts/log_empty.html", {})
    return items
