"""The rules: which actions are legal now, and what applying one does.

`legal_actions` is the single source of what a screen may offer; `apply_action`
re-validates everything itself, so an action built from a stale screen or a
hand-written message is refused rather than trusted.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from itertools import combinations, product
from operator import ge, gt

from game.engine.actions import (
    BUY,
    NOBLE,
    PASS,
    PASS_ACTION,
    RESERVE,
    RETURN,
    TAKE,
    Action,
    IllegalActionError,
    MalformedActionError,
    check_form,
    parse_action,
)
from game.engine.cards import COSTS, LEVELS, NOBLES, card, noble
from game.engine.colours import COLOURS, GEMS, GOLD, NAMES
from game.engine.i18n import _
from game.engine.setup import new_game
from game.engine.state import (
    EMPTY,
    MAIN,
    MAX_RESERVED,
    OVER,
    PASSES,
    POINTS,
    STALEMATE,
    STALEMATE_ROUNDS,
    TOKEN_LIMIT,
    WINNING_POINTS,
    GameState,
    Outcome,
    PlayerState,
)
from game.engine.state import NOBLE as NOBLE_PHASE
from game.engine.state import RETURN as RETURN_PHASE
from game.engine.vocabulary import ActionKind

TAKE_TWO_MIN_PILE = 4
FEWEST_BONUSES_FOR_A_NOBLE = min(sum(n.requires) for n in NOBLES)
MAX_DIFFERENT = 3
# Whole sentences per case, so translations need no number agreement.
TAKE_DIFFERENT_MESSAGES = {
    3: _("Take three gems of three different colours."),
    2: _("Only two colours are left: take one gem of each."),
    1: _("Only one colour is left: take one gem of it."),
}


# ---------------------------------------------------------------- payments


def _due(cost: tuple[int, ...], bonuses: list[int]) -> tuple[int, int, int, int, int]:
    """What is left to pay per gem colour once the bonuses are counted."""
    w, u, g, r, k = cost
    bw, bu, bg, br, bk = bonuses
    return (
        w - bw if w > bw else 0,
        u - bu if u > bu else 0,
        g - bg if g > bg else 0,
        r - br if r > br else 0,
        k - bk if k > bk else 0,
    )


def affordable(player: PlayerState, card_ids: Iterable[int]) -> list[int]:
    """Return the cards among these that tokens plus gold cover after bonuses.

    Empty market spaces (EMPTY) among them are skipped.
    """
    b, t = player.bonuses, player.tokens
    # What the player covers per gem colour without gold.
    pw, pu, pg, pr, pk = b[0] + t[0], b[1] + t[1], b[2] + t[2], b[3] + t[3], b[4] + t[4]
    gold = t[GOLD]
    if not gold:  # most of a game: every colour must be covered, and the first gap settles it
        return [
            c
            for c in card_ids
            if c != EMPTY
            and (cost := COSTS[c])[0] <= pw
            and cost[1] <= pu
            and cost[2] <= pg
            and cost[3] <= pr
            and cost[4] <= pk
        ]
    found = []
    for card_id in card_ids:
        if card_id == EMPTY:
            continue
        # The hottest loop of legal_actions, run for every visible card: unrolled.
        w, u, g, r, k = COSTS[card_id]
        short = (
            (w - pw if w > pw else 0)
            + (u - pu if u > pu else 0)
            + (g - pg if g > pg else 0)
            + (r - pr if r > pr else 0)
            + (k - pk if k > pk else 0)
        )
        if short <= gold:
            found.append(card_id)
    return found


def owed(player: PlayerState, card_id: int) -> tuple[int, ...]:
    """Return what the player still owes per gem colour after their bonuses."""
    return _due(COSTS[card_id], player.bonuses)


def can_afford(player: PlayerState, card_id: int) -> bool:
    """Tell whether tokens plus gold cover the card after bonuses."""
    return bool(affordable(player, (card_id,)))


def cheapest_payment(player: PlayerState, card_id: int) -> tuple[int, ...] | None:
    """Return the payment that spends the least gold, or None if unaffordable."""
    due = owed(player, card_id)
    paid = [min(d, t) for d, t in zip(due, player.tokens, strict=False)]
    gold = sum(due) - sum(paid)
    if gold > player.tokens[GOLD]:
        return None
    return (*paid, gold)


def payments(player: PlayerState, card_id: int) -> list[tuple[int, ...]]:
    """Return every legal payment for the card, least gold first."""
    if not can_afford(player, card_id):
        return []
    return payments_when_affordable(player, card_id)


def payments_when_affordable(player: PlayerState, card_id: int) -> list[tuple[int, ...]]:
    """`payments` of a card already known to be affordable (not checked again)."""
    return _affordable_payments(owed(player, card_id), player.tokens)


def _affordable_payments(due: tuple[int, ...], tokens: list[int]) -> list[tuple[int, ...]]:
    """Every payment of `due` from `tokens`, least gold first; the tokens must suffice."""
    gold = tokens[GOLD]
    if gold == 0:
        return [(*due, 0)]
    # The cheapest way: own tokens first, gold for the rest.
    own = [d if d < t else t for d, t in zip(due, tokens, strict=False)]
    total = sum(due)
    needed = total - sum(own)
    if needed == gold or not any(own):
        return [(*own, needed)]  # no gold to spare, or no token that gold could replace
    # Per colour: how many of its own tokens to pay, most first (gold covers the rest).
    choices = []
    for c in GEMS:
        most = min(due[c], tokens[c])
        least = max(0, due[c] - gold)
        if least > most:
            return []
        choices.append(range(most, least - 1, -1))
    found = [(*paid, spent) for paid in product(*choices) if (spent := total - sum(paid)) <= gold]
    found.sort(key=lambda p: p[GOLD])
    return found


# ---------------------------------------------------------------- legal actions

# legal_actions hands out these shared values (actions are immutable) instead of
# building the same take and reserve actions again on every call.


def _takes_of_different_colours(mask: int) -> tuple[Action, ...]:
    """Every legal take of different gems when the colours in `mask` have tokens."""
    available = [c for c in GEMS if mask >> c & 1]
    size = min(MAX_DIFFERENT, len(available))
    return tuple(Action(TAKE, gems) for gems in combinations(available, size)) if size else ()


TAKE_DIFFERENT = tuple(_takes_of_different_colours(mask) for mask in range(1 << len(GEMS)))
TAKE_TWO = tuple(Action(TAKE, (c, c)) for c in GEMS)
RESERVE_CARD = tuple(Action(RESERVE, card=c) for c in range(len(COSTS)))  # by card id (0 unused)
RESERVE_DECK = tuple(Action(RESERVE, level=level) for level in LEVELS)  # by level - 1


def _take_actions(bank: list[int]) -> list[Action]:
    mask = 0
    twos = []
    for c in GEMS:
        if bank[c]:
            mask |= 1 << c
            if bank[c] >= TAKE_TWO_MIN_PILE:
                twos.append(TAKE_TWO[c])
    return [*TAKE_DIFFERENT[mask], *twos]


def _reserve_actions(state: GameState) -> list[Action]:
    actions = [RESERVE_CARD[card_id] for row in state.market for card_id in row if card_id]
    actions += [RESERVE_DECK[i] for i, deck in enumerate(state.decks) if deck]
    return actions


def _buyable(state: GameState, player: PlayerState) -> tuple[int, ...]:
    """The market spaces (EMPTY where a deck ran out) and the reserved cards."""
    market = state.market
    return (*market[0], *market[1], *market[2], *player.reserved)


def _buy_actions(state: GameState, player: PlayerState) -> list[Action]:
    tokens, bonuses = player.tokens, player.bonuses
    cards = affordable(player, _buyable(state, player))
    if not tokens[GOLD]:  # most purchases: with no gold there is one way to pay
        return [Action(BUY, (), c, 0, (*_due(COSTS[c], bonuses), 0)) for c in cards]
    actions = []
    for card_id in cards:
        due = _due(COSTS[card_id], bonuses)
        actions += [Action(BUY, (), card_id, 0, paid) for paid in _affordable_payments(due, tokens)]
    return actions


@lru_cache(maxsize=4096)
def _return_actions(tokens: tuple[int, ...], count: int) -> tuple[Action, ...]:
    held = [c for c in COLOURS for _ in range(tokens[c])]
    # Distinct multisets of `count` held tokens, in colour order.
    return tuple(Action(RETURN, gems) for gems in dict.fromkeys(combinations(held, count)))


def legal_actions(state: GameState) -> list[Action]:
    """Return every action the current player may take now."""
    phase = state.phase
    if phase == OVER:
        return []
    player = state.players[state.current]
    if phase == RETURN_PHASE:
        return list(_return_actions(tuple(player.tokens), state.to_return))
    if phase == NOBLE_PHASE:
        return [Action(NOBLE, noble=n) for n in state.noble_choices]
    actions = _take_actions(state.bank)
    if len(player.reserved) < MAX_RESERVED:
        actions += _reserve_actions(state)
    actions += _buy_actions(state, player)
    return actions or [PASS_ACTION]


def legal_kinds(state: GameState) -> list[ActionKind]:
    """Return the kinds of action in legal_actions(state), in their order, without listing them.

    A player who picks a kind first (RandomBot) then needs only that kind's actions.
    """
    phase = state.phase
    if phase != MAIN:
        return [] if phase == OVER else [RETURN if phase == RETURN_PHASE else NOBLE]
    player = state.players[state.current]
    bank = state.bank
    kinds = [TAKE] if bank[0] or bank[1] or bank[2] or bank[3] or bank[4] else []
    if len(player.reserved) < MAX_RESERVED and (
        any(state.decks) or any(card_id != EMPTY for row in state.market for card_id in row)
    ):
        kinds.append(RESERVE)
    if affordable(player, _buyable(state, player)):
        kinds.append(BUY)
    return kinds or [PASS]


def legal_actions_of_kind(state: GameState, kind: str) -> list[Action]:
    """Return the actions of this kind in legal_actions(state), in the same order.

    Only for a kind that legal_kinds(state) lists: each kind is built on its own.
    """
    if kind == TAKE:
        return _take_actions(state.bank)
    if kind == RESERVE:
        return _reserve_actions(state)
    if kind == BUY:
        return _buy_actions(state, state.players[state.current])
    return legal_actions(state)  # return, noble or pass: the only kind open then


# ---------------------------------------------------------------- validation


def _check_take(state: GameState, gems: tuple[int, ...]) -> None:
    bank = state.bank
    if GOLD in gems:
        raise IllegalActionError(_("Gold cannot be taken; reserve a card to get gold."))
    if len(gems) == 2 and gems[0] == gems[1]:
        if bank[gems[0]] < TAKE_TWO_MIN_PILE:
            raise IllegalActionError(
                _("You can take two %(colour)s gems only from a pile of at least four."),
                colour=NAMES[gems[0]],
            )
        return
    if len(set(gems)) != len(gems):
        raise IllegalActionError(_("Take gems of different colours, or two of one colour."))
    for c in gems:
        if bank[c] == 0:
            raise IllegalActionError(_("There are no %(colour)s gems left."), colour=NAMES[c])
    available = len(GEMS) - bank[:GOLD].count(0)
    required = min(MAX_DIFFERENT, available)
    if len(gems) != required:
        raise IllegalActionError(TAKE_DIFFERENT_MESSAGES[required])


def _check_reserve(state: GameState, player: PlayerState, action: Action) -> None:
    if len(player.reserved) >= MAX_RESERVED:
        raise IllegalActionError(_("You already have three reserved cards."))
    if action.card:
        if not any(action.card in row for row in state.market):
            raise IllegalActionError(_("That card is not on the table."))
    elif action.level not in LEVELS:
        raise IllegalActionError(_("There is no deck of that level."))
    elif not state.decks[action.level - 1]:
        raise IllegalActionError(_("That deck is empty."))


def _check_buy(state: GameState, player: PlayerState, action: Action) -> None:
    card_id = action.card
    market = state.market
    on_table = card_id != EMPTY and (
        card_id in market[0] or card_id in market[1] or card_id in market[2]
    )
    if not on_table and card_id not in player.reserved:
        raise IllegalActionError(_("You can buy only a card on the table or one you reserved."))
    payment = action.payment  # six counts, none negative: check_form saw to that
    due = owed(player, card_id)
    paid_exactly = sum(due) - sum(payment[:GOLD]) == payment[GOLD]
    if paid_exactly and not any(map(gt, payment, player.tokens)) and not any(map(gt, payment, due)):
        return
    # Something is wrong: say the most helpful thing first.
    if not can_afford(player, card_id):
        raise IllegalActionError(_("You cannot afford that card."))
    if any(map(gt, payment, player.tokens)):
        raise IllegalActionError(_("You do not have the tokens for that payment."))
    if any(map(gt, payment, due)):  # the five gem colours
        raise IllegalActionError(_("That payment pays more than the card costs."))
    raise IllegalActionError(_("That payment does not match the card's cost."))


def _check_return(state: GameState, player: PlayerState, gems: tuple[int, ...]) -> None:
    if len(gems) != state.to_return:
        raise IllegalActionError(
            _("Give back exactly %(count)s tokens to keep ten."), count=state.to_return
        )
    for c in set(gems):
        if gems.count(c) > player.tokens[c]:
            raise IllegalActionError(
                _("You do not have that many %(colour)s tokens."), colour=NAMES[c]
            )


def _check_phase(state: GameState, action: Action) -> None:
    phase = state.phase
    if phase == MAIN:  # the usual case first
        if action.kind in (RETURN, NOBLE):
            raise IllegalActionError(_("That is not an action you can take now."))
        return
    if phase == OVER:
        raise IllegalActionError(_("The game is over."))
    if phase == RETURN_PHASE and action.kind != RETURN:
        raise IllegalActionError(
            _("First give back %(count)s tokens to keep ten."), count=state.to_return
        )
    if phase == NOBLE_PHASE and action.kind != NOBLE:
        raise IllegalActionError(_("First choose which noble visits you."))


def validate(state: GameState, action: Action, seat: int | None = None) -> None:
    """Raise an ActionError unless the action is legal for `seat` now.

    MalformedActionError for an action or seat of the wrong type or shape,
    IllegalActionError for a well-formed action that the rules do not allow.
    """
    check_form(action)
    if seat is not None:
        if type(seat) is not int or not 0 <= seat < state.num_players:
            raise MalformedActionError(_("There is no such seat."))
        if seat != state.current and state.phase != OVER:
            raise IllegalActionError(_("It is not your turn."))
    _check_phase(state, action)
    player = state.players[state.current]
    kind = action.kind
    if kind == TAKE:
        _check_take(state, action.gems)
    elif kind == RESERVE:
        _check_reserve(state, player, action)
    elif kind == BUY:
        _check_buy(state, player, action)
    elif kind == RETURN:
        _check_return(state, player, action.gems)
    elif kind == NOBLE:
        if action.noble not in state.noble_choices:
            raise IllegalActionError(_("That noble cannot visit you."))
    elif kind == PASS:
        if legal_kinds(state) != [PASS]:
            raise IllegalActionError(_("You can pass only when no other action is possible."))
    else:
        raise IllegalActionError(_("That is not an action you can take now."))


# ---------------------------------------------------------------- applying


def _take_from_market(state: GameState, card_id: int) -> None:
    """Remove a face-up card and refill its space from its deck at once."""
    level = card(card_id).level
    row = state.market[level - 1]
    deck = state.decks[level - 1]
    slot = row.index(card_id)
    if deck:
        row[slot] = deck.pop()
        state.turn_refills.append((level, slot))
    else:
        row[slot] = EMPTY


def _apply_take(state: GameState, player: PlayerState, gems: tuple[int, ...]) -> None:
    for c in gems:
        state.bank[c] -= 1
        player.tokens[c] += 1


def _apply_reserve(state: GameState, player: PlayerState, action: Action) -> None:
    if action.card:
        _take_from_market(state, action.card)
        player.reserved.append(action.card)
        player.blind.append(False)
    else:
        player.reserved.append(state.decks[action.level - 1].pop())
        player.blind.append(True)
    # Reserving with no gold left is still legal; the player just gets none.
    if state.bank[GOLD] > 0:
        state.bank[GOLD] -= 1
        player.tokens[GOLD] += 1


def _apply_buy(state: GameState, player: PlayerState, action: Action) -> None:
    card_id = action.card
    if card_id in player.reserved:
        i = player.reserved.index(card_id)
        del player.reserved[i]
        del player.blind[i]
    else:
        _take_from_market(state, card_id)
    for c, n in enumerate(action.payment):
        player.tokens[c] -= n
        state.bank[c] += n
    bought = card(card_id)
    player.cards.append(card_id)
    player.bonuses[bought.bonus] += 1
    player.points += bought.points


def _apply_return(state: GameState, player: PlayerState, gems: tuple[int, ...]) -> None:
    for c in gems:
        player.tokens[c] -= 1
        state.bank[c] += 1
    state.to_return = 0


def _visit(state: GameState, player: PlayerState, noble_id: int) -> None:
    state.nobles.remove(noble_id)
    player.nobles.append(noble_id)
    player.points += noble(noble_id).points
    state.noble_choices = []


def qualifying_nobles(state: GameState, player: PlayerState) -> list[int]:
    """Return the nobles on the table whose requirement the bonuses meet."""
    bonuses = player.bonuses
    if sum(bonuses) < FEWEST_BONUSES_FOR_A_NOBLE:  # most turns of a game: no noble yet
        return []
    return [n for n in state.nobles if all(map(ge, bonuses, noble(n).requires))]


def _end_turn(state: GameState) -> None:
    if state.players[state.current].points >= WINNING_POINTS:
        state.final_round = True
    state.last_turn_seat = state.current
    state.last_turn_events = state.turn_events
    state.turn_events = []
    state.last_refills = state.turn_refills
    state.turn_refills = []
    state.turn += 1
    state.phase = MAIN
    state.current = (state.current + 1) % state.num_players
    # The round is finished when play comes back to the first player.
    round_done = state.current == state.first_player
    if round_done:
        state.quiet_rounds = state.quiet_rounds + 1 if state.round_is_quiet else 0
        state.round_is_quiet = True
    state.ended_by = _ending(state, round_done)
    if state.ended_by:
        state.phase = OVER


def _ending(state: GameState, round_done: bool) -> str:
    """Tell how the game ends after this turn, or "" if it goes on."""
    if state.passes_in_row >= state.num_players:
        return PASSES  # nobody can ever act again: this ends even a round in progress
    if round_done and state.final_round:
        return POINTS
    if round_done and state.quiet_rounds >= STALEMATE_ROUNDS:
        return STALEMATE
    return ""


def _nobles_then_end(state: GameState, player: PlayerState) -> None:
    """Let a noble visit (automatic if one qualifies), then end the turn."""
    candidates = qualifying_nobles(state, player)
    if len(candidates) > 1:
        state.phase = NOBLE_PHASE
        state.noble_choices = candidates
        return
    if candidates:
        _visit(state, player, candidates[0])
        state.turn_events.append(f"noble:{candidates[0]}")
    _end_turn(state)


def _after_main_action(state: GameState, player: PlayerState) -> None:
    excess = player.token_count() - TOKEN_LIMIT
    if excess > 0:
        state.phase = RETURN_PHASE
        state.to_return = excess
    else:
        _nobles_then_end(state, player)


@lru_cache(maxsize=4096)
def _notation(action: Action) -> str:
    # The few hundred legal actions recur all game long; a validated action is hashable.
    return action.notation()


def apply_action(state: GameState, action: Action, seat: int | None = None) -> None:
    """Validate the action for `seat` (default: whoever is to play), then apply it.

    The state is changed in place, and only when the action is legal: anything
    else raises an ActionError (never another exception) before any change.
    """
    validate(state, action, seat)
    apply_legal_action(state, action)


def apply_legal_action(state: GameState, action: Action) -> None:
    """Apply an action taken from legal_actions(state) of this very state, unchecked.

    The fast path for the engine's own players in their inner loops (bot games,
    playouts): their actions come from legal_actions, so validating them again
    would only repeat its work. Anything else goes through apply_action.
    """
    player = state.players[state.current]
    kind = action.kind
    state.moves += 1
    state.turn_events.append(_notation(action))
    if kind == RETURN:
        _apply_return(state, player, action.gems)
        _nobles_then_end(state, player)
        return
    if kind == NOBLE:
        _visit(state, player, action.noble)
        _end_turn(state)
        return
    if kind == PASS:
        state.passes_in_row += 1
    else:
        state.passes_in_row = 0
    if kind == TAKE:
        _apply_take(state, player, action.gems)
    elif kind == RESERVE:
        _apply_reserve(state, player, action)
        state.round_is_quiet = False
    elif kind == BUY:
        _apply_buy(state, player, action)
        state.round_is_quiet = False
    _after_main_action(state, player)


# ---------------------------------------------------------------- the end


def outcome(state: GameState) -> Outcome | None:
    """Return how the game ended, or None while it goes on."""
    if state.phase != OVER:
        return None
    points = tuple(p.points for p in state.players)
    cards = tuple(len(p.cards) for p in state.players)
    ranking = tuple(sorted(range(len(points)), key=lambda s: (-points[s], cards[s], s)))
    best = points[ranking[0]]
    leaders = [s for s in ranking if points[s] == best]
    fewest = min(cards[s] for s in leaders)
    winners = tuple(s for s in leaders if cards[s] == fewest)
    return Outcome(
        ranking=ranking,
        winners=winners,
        points=points,
        cards=cards,
        tie_break=len(leaders) > 1 and len(winners) < len(leaders),
        shared=len(winners) > 1,
        ended_by=state.ended_by,
    )


def replay(
    players: int,
    seed: int,
    moves: Iterable[str],
    *,
    first_player: int | None = None,
    no_gold_small: bool = False,
) -> GameState:
    """Rebuild a game from its seed and its list of moves in notation."""
    state = new_game(players, seed, first_player, no_gold_small)
    for text in moves:
        apply_action(state, parse_action(text))
    return state
