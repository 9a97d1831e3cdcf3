"""Actions as small immutable values with a compact text notation.

Notation (all lower case, colours as letters w u g r k and gold y):
    take:wug        three different gems (fewer only when fewer colours are left)
    take:rr         two gems of one colour
    reserve:17      reserve face-up card 17
    reserve:d2      reserve the top card of the level-2 deck, blind
    buy:17:wwuy     buy card 17 paying these tokens ("-" when it is free)
    return:wy       give back these tokens when over ten
    noble:3         choose noble 3 when several qualify
    pass            only when nothing else is legal
"""

from __future__ import annotations

from typing import Any, NamedTuple

from game.engine.colours import GOLD, LETTER_TO_COLOUR, LETTERS, counts_to_colours
from game.engine.i18n import _
from game.engine.vocabulary import ActionKind

TAKE = ActionKind.TAKE
RESERVE = ActionKind.RESERVE
BUY = ActionKind.BUY
RETURN = ActionKind.RETURN
NOBLE = ActionKind.NOBLE
PASS = ActionKind.PASS
KINDS: tuple[ActionKind, ...] = tuple(ActionKind)


class ActionError(Exception):
    """An action that cannot be applied. The message is a translatable template."""

    def __init__(self, template: str, **params: Any) -> None:
        self.template = template
        self.params = params
        super().__init__(template % params if params else template)


class NotationError(ActionError):
    """The action text cannot be understood at all."""


class IllegalActionError(ActionError):
    """The action is well-formed but the rules do not allow it now."""


class MalformedActionError(ActionError):
    """An action object built in code has fields of the wrong type or shape.

    Text always parses into a well-formed Action; this guards the engine against
    callers that build Action values (or pass anything else) by hand.
    """


class Action(NamedTuple):
    """One action. Only the fields of its kind are used; the others stay empty.

    gems: sorted colour indices taken (TAKE) or given back (RETURN).
    card: the card id (RESERVE face up, BUY); level: the deck (blind RESERVE).
    payment: six per-colour token counts paid (BUY), gold last.
    """

    kind: str  # an ActionKind
    gems: tuple[int, ...] = ()
    card: int = 0
    level: int = 0
    payment: tuple[int, ...] = ()
    noble: int = 0

    def notation(self) -> str:
        """Return the compact text form; parse_action reads it back."""
        kind = self.kind
        if kind in (TAKE, RETURN):
            return f"{kind}:{_letters(self.gems)}"
        if kind == RESERVE:
            return f"reserve:{self.card}" if self.card else f"reserve:d{self.level}"
        if kind == BUY:
            paid = _letters(counts_to_colours(self.payment)) or "-"
            return f"buy:{self.card}:{paid}"
        if kind == NOBLE:
            return f"noble:{self.noble}"
        return PASS

    def __str__(self) -> str:
        return self.notation()


def _letters(colours: tuple[int, ...]) -> str:
    return "".join(LETTERS[c] for c in colours)


def take(*colours: int) -> Action:
    """Take gems of these colours (indices)."""
    return Action(TAKE, gems=tuple(sorted(colours)))


def give_back(*colours: int) -> Action:
    """Return these tokens to the bank."""
    return Action(RETURN, gems=tuple(sorted(colours)))


def reserve_card(card_id: int) -> Action:
    return Action(RESERVE, card=card_id)


def reserve_blind(level: int) -> Action:
    return Action(RESERVE, level=level)


def buy(card_id: int, payment: tuple[int, ...] | list[int]) -> Action:
    return Action(BUY, card=card_id, payment=tuple(payment))


def choose_noble(noble_id: int) -> Action:
    return Action(NOBLE, noble=noble_id)


PASS_ACTION = Action(PASS)

MALFORMED = _("That action is not well-formed.")


def _is_colours(gems: tuple[object, ...]) -> bool:
    """A non-empty, sorted tuple of colour indices, as take() and the notation build it."""
    previous = 0
    for c in gems:
        if type(c) is not int or not previous <= c <= GOLD:
            return False
        previous = c
    return bool(gems)


def _is_payment(payment: tuple[object, ...]) -> bool:
    """Six per-colour counts, none negative."""
    return len(payment) == GOLD + 1 and all(type(n) is int and n >= 0 for n in payment)


def check_form(action: object) -> None:
    """Raise MalformedActionError unless `action` is an Action the notation could express.

    Every field has its type (ints, not floats or bools; tuples of the right
    length), nothing is negative, colours are colour indices, and the fields
    its kind does not use are empty. Whether the numbers name a card on the
    table or a deck that exists is for the rules to say.
    """
    if not isinstance(action, Action) or len(action) != len(Action._fields):
        raise MalformedActionError(MALFORMED)
    kind, gems, card_id, level, payment, noble_id = action
    typed = (
        isinstance(kind, str)  # a word of ActionKind, or the plain string read from notation
        and type(gems) is tuple
        and type(card_id) is int
        and type(level) is int
        and type(payment) is tuple
        and type(noble_id) is int
    )
    if not typed or card_id < 0 or level < 0 or noble_id < 0:
        raise MalformedActionError(MALFORMED)
    # Each kind uses only its own fields; the others must keep their defaults.
    if kind in (TAKE, RETURN):
        ok = not (card_id or level or payment or noble_id) and _is_colours(gems)
    elif kind == RESERVE:
        ok = not (gems or payment or noble_id or (card_id and level))
    elif kind == BUY:
        ok = not (gems or level or noble_id) and _is_payment(payment)
    elif kind == NOBLE:
        ok = not (gems or card_id or level or payment)
    else:
        ok = kind == PASS and not (gems or card_id or level or payment or noble_id)
    if not ok:
        raise MalformedActionError(MALFORMED)


def _parse_colours(text: str, *, gold: bool) -> tuple[int, ...]:
    if not text:
        raise NotationError(_("No gems were named."))
    colours = []
    for letter in text:
        colour = LETTER_TO_COLOUR.get(letter)
        if colour is None or (colour == GOLD and not gold):
            raise NotationError(_("“%(letter)s” is not a gem colour."), letter=letter)
        colours.append(colour)
    return tuple(sorted(colours))


NUMBER_MESSAGES = {
    "card": _("“%(text)s” is not a card number."),
    "deck": _("“%(text)s” is not a deck number."),
    "noble": _("“%(text)s” is not a noble number."),
}


def _parse_int(text: str, what: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 3:
        raise NotationError(NUMBER_MESSAGES[what], text=text)
    return int(text)


def _parse_payment(text: str) -> tuple[int, ...]:
    counts = [0] * 6
    if text != "-":
        for c in _parse_colours(text, gold=True):
            counts[c] += 1
    return tuple(counts)


def parse_action(text: object) -> Action:
    """Read an action from its notation; raise NotationError if it is malformed."""
    if not isinstance(text, str) or len(text) > 64:
        raise NotationError(_("The action could not be read."))
    parts = text.strip().lower().split(":")
    kind, args = parts[0], parts[1:]
    if kind == PASS and not args:
        return PASS_ACTION
    if kind in (TAKE, RETURN) and len(args) == 1:
        return Action(kind, gems=_parse_colours(args[0], gold=kind == RETURN))
    if kind == RESERVE and len(args) == 1:
        arg = args[0]
        if arg.startswith("d"):
            return reserve_blind(_parse_int(arg[1:], "deck"))
        return reserve_card(_parse_int(arg, "card"))
    if kind == BUY and len(args) == 2:
        return buy(_parse_int(args[0], "card"), _parse_payment(args[1]))
    if kind == NOBLE and len(args) == 1:
        return choose_noble(_parse_int(args[0], "noble"))
    raise NotationError(_("The action could not be read."))


__all__ = [
    "BUY",
    "KINDS",
    "NOBLE",
    "PASS",
    "PASS_ACTION",
    "RESERVE",
    "RETURN",
    "TAKE",
    "Action",
    "ActionError",
    "IllegalActionError",
    "MalformedActionError",
    "NotationError",
    "buy",
    "check_form",
    "choose_noble",
    "give_back",
    "parse_action",
    "reserve_blind",
    "reserve_card",
    "take",
]
