"""A compact position builder for scenario tests of the rules engine.

    state = position(
        players=2,
        bank="wwwwuuuuy",                      # or a dict {"w": 4, "y": 1}, or six counts
        seats=[{"tokens": "wwuy", "bonuses": "ggr", "reserved": [12, 40],
                "blind": [False, True], "points": 3}, {}],
        market={1: [1, 2, 3, 4], 3: [71]},     # short rows are padded with EMPTY
        decks={1: [5, 6]},                     # listed TOP FIRST: 5 is drawn next
        nobles=[1, 2],
        current=0,
        first=0,
    )

Token strings use the notation letters w u g r k and y for gold. A seat's
`bonuses` and `points` default to what its `cards` and `nobles` give; set them
directly when the cards themselves do not matter. The bank defaults to the
starting bank less what the seats hold. Card and noble conservation is out of
scope: only the cards a test names are anywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

from game.engine import (
    ActionError,
    GameState,
    IllegalActionError,
    PlayerState,
    apply_action,
    card,
    legal_actions,
    noble,
    parse_action,
)
from game.engine.actions import Action
from game.engine.colours import LETTER_TO_COLOUR
from game.engine.setup import starting_bank
from game.engine.state import EMPTY, MAIN

TokenSpec = str | Mapping[str, int] | Sequence[int] | None


def counts(spec: TokenSpec, size: int = 6) -> list[int]:
    """Per-colour counts from "wwuy", {"w": 2, "y": 1} or a list of counts.

    size=5 reads gems only (bonuses), and refuses gold.
    """
    if spec is not None and not isinstance(spec, str | Mapping):
        if len(spec) != size:
            raise ValueError(f"expected {size} counts, got {list(spec)}")
        return list(spec)
    result = [0] * 6
    if isinstance(spec, str):
        for letter in spec:
            result[LETTER_TO_COLOUR[letter]] += 1
    elif isinstance(spec, Mapping):
        for letter, n in spec.items():
            result[LETTER_TO_COLOUR[letter]] += n
    if any(result[size:]):
        raise ValueError(f"gold is not a bonus: {spec!r}")
    return result[:size]


def seat(data: Mapping[str, Any]) -> PlayerState:
    """Build one seat from a dict (see the module docstring)."""
    unknown = set(data) - {"tokens", "bonuses", "cards", "reserved", "blind", "nobles", "points"}
    if unknown:
        raise ValueError(f"unknown seat keys: {sorted(unknown)}")
    cards = list(data.get("cards", []))
    nobles = list(data.get("nobles", []))
    reserved = list(data.get("reserved", []))
    blind = list(data.get("blind", [False] * len(reserved)))
    if len(blind) != len(reserved):
        raise ValueError("blind must run parallel to reserved")
    if "bonuses" in data:
        bonuses = counts(data["bonuses"], size=5)
    else:
        bonuses = [0] * 5
        for card_id in cards:
            bonuses[card(card_id).bonus] += 1
    if "points" in data:
        points = int(data["points"])
    else:
        points = sum(card(c).points for c in cards) + sum(noble(n).points for n in nobles)
    return PlayerState(
        tokens=counts(data.get("tokens")),
        bonuses=bonuses,
        cards=cards,
        reserved=reserved,
        blind=blind,
        nobles=nobles,
        points=points,
    )


def position(
    players: int = 2,
    *,
    bank: TokenSpec = None,
    seats: Sequence[Mapping[str, Any]] = (),
    market: Mapping[int, Sequence[int]] | None = None,
    decks: Mapping[int, Sequence[int]] | None = None,
    nobles: Iterable[int] = (),
    current: int = 0,
    first: int = 0,
    final_round: bool = False,
    passes_in_row: int = 0,
    quiet_rounds: int = 0,
    seed: int = 0,
    no_gold_small: bool = False,
) -> GameState:
    """Return a GameState in the main phase of `current`'s turn."""
    if len(seats) > players:
        raise ValueError("more seats than players")
    holders = [seat(s) for s in seats]
    holders += [PlayerState() for _ in range(players - len(holders))]
    if bank is None:
        start = starting_bank(players, no_gold_small)
        held = [sum(p.tokens[c] for p in holders) for c in range(6)]
        bank_counts = [max(0, start[c] - held[c]) for c in range(6)]
    else:
        bank_counts = counts(bank)
    rows: list[list[int]] = []
    piles: list[list[int]] = []
    for level in (1, 2, 3):
        row = list((market or {}).get(level, []))
        if len(row) > 4:
            raise ValueError(f"level {level} shows at most four cards")
        for card_id in row:
            if card_id != EMPTY and card(card_id).level != level:
                raise ValueError(f"card {card_id} is not level {level}")
        rows.append(row + [EMPTY] * (4 - len(row)))
        pile = list((decks or {}).get(level, []))
        for card_id in pile:
            if card(card_id).level != level:
                raise ValueError(f"card {card_id} is not level {level}")
        piles.append(pile[::-1])  # the state keeps the top of a deck last
    return GameState(
        seed=seed,
        first_player=first,
        no_gold_small=no_gold_small,
        bank=bank_counts,
        decks=piles,
        market=rows,
        nobles=list(nobles),
        players=holders,
        current=current,
        phase=MAIN,
        final_round=final_round,
        passes_in_row=passes_in_row,
        quiet_rounds=quiet_rounds,
    )


def legal(state: GameState) -> set[str]:
    """The notations of every legal action now."""
    return {a.notation() for a in legal_actions(state)}


def play(state: GameState, *texts: str, seat: int | None = None) -> GameState:
    """Parse and apply each action in turn (in place); return the state.

    Each action must also be listed by legal_actions, so a scenario checks
    that the list offered to screens agrees with what apply_action accepts.
    """
    for text in texts:
        action = parse_action(text)
        offered = legal_actions(state)
        assert action in offered, f"{text!r} is not among the legal actions {sorted(legal(state))}"
        apply_action(state, action, seat=seat)
    return state


def assert_refused(
    state: GameState,
    text: str | Action | object,
    error_type: type[ActionError] = IllegalActionError,
    fragment: str = "",
    *,
    seat: int | None = None,
) -> ActionError:
    """Assert that the action is refused with this error and leaves the state untouched."""
    before = state.to_dict()
    with pytest.raises(ActionError) as caught:
        action = text if isinstance(text, Action) else parse_action(text)
        apply_action(state, action, seat=seat)
    error = caught.value
    assert type(error) is error_type, f"expected {error_type.__name__}, got {error!r}"
    assert fragment.lower() in str(error).lower(), f"{fragment!r} not in {str(error)!r}"
    assert state.to_dict() == before, "a refused action changed the state"
    if isinstance(error, IllegalActionError) and seat is None:
        action = text if isinstance(text, Action) else parse_action(text)
        assert action not in legal_actions(state), f"{text!r} is refused but listed as legal"
    return error


def tokens_of(state: GameState, seat_index: int) -> str:
    """A seat's tokens as notation letters, in colour order."""
    return letters(state.players[seat_index].tokens)


def bank_of(state: GameState) -> str:
    return letters(state.bank)


def letters(token_counts: Sequence[int]) -> str:
    return "".join("wugrky"[c] * n for c, n in enumerate(token_counts))


def total_tokens(state: GameState) -> list[int]:
    """Bank plus every seat's tokens, per colour (conserved by every action)."""
    return [state.bank[c] + sum(p.tokens[c] for p in state.players) for c in range(6)]


__all__ = [
    "assert_refused",
    "bank_of",
    "counts",
    "legal",
    "letters",
    "play",
    "position",
    "seat",
    "tokens_of",
    "total_tokens",
]
