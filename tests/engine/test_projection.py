"""What each viewer may see: blind reserves, deck order, legal actions, affordability.

`visible_card_ids` and `assert_no_leak` are also used by the long playouts.
"""

from __future__ import annotations

import dataclasses

import pytest

from game.engine import GameState, card, new_game
from game.engine.actions import Action
from game.engine.projection import (
    SPECTATOR,
    TABLE,
    CardView,
    ColourCount,
    GameView,
    ReservedView,
    Viewer,
    view_for,
    views_for,
)
from game.engine.state import EMPTY, MAIN
from game.engine.vocabulary import ActionKind, Phase
from tests.engine.builder import play, position
from tests.engine.playouts import many_positions

# ---------------------------------------------------------------- helpers


# Types that cannot hold a CardView (ColourCount and Action are tuples of strings and ints).
# Words of the vocabulary are strings (a state's phase is one once it has moved).
LEAVES = frozenset({int, str, bool, float, type(None), ColourCount, Action, Phase, ActionKind})
_fields: dict[type, tuple[str, ...]] = {}


def card_views(node: object) -> list[CardView]:
    """Every CardView anywhere in a view: walk dataclasses, tuples, lists and sets."""
    found: list[CardView] = []
    stack = [node]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is CardView:
            found.append(item)  # type: ignore[arg-type]
        elif kind in LEAVES:
            continue
        elif isinstance(item, tuple | list | frozenset | set):
            stack.extend(item)
        else:
            stack.extend(getattr(item, name) for name in _field_names(item))
    return found


def _field_names(item: object) -> tuple[str, ...]:
    kind = type(item)
    if kind not in _fields:
        assert dataclasses.is_dataclass(item), f"unexpected {kind.__name__} in a view"
        _fields[kind] = tuple(f.name for f in dataclasses.fields(item))
    return _fields[kind]


def viewers(state: GameState) -> list[Viewer]:
    return [*range(state.num_players), TABLE, SPECTATOR]


def allowed_card_ids(state: GameState, viewer: Viewer) -> set[int]:
    """Cards this viewer may see the face of: never a deck card, never another's blind card."""
    allowed = {c for row in state.market for c in row if c != EMPTY}
    for seat, player in enumerate(state.players):
        allowed.update(player.cards)
        for card_id, blind in zip(player.reserved, player.blind, strict=True):
            if not blind or viewer == seat:
                allowed.add(card_id)
    return allowed


def assert_no_leak(state: GameState, view: GameView) -> None:
    """The view shows only allowed card faces, and blind cards only to their owner."""
    viewer = view.viewer
    shown = {v.id for v in card_views(view)}
    leaked = shown - allowed_card_ids(state, viewer)
    assert not leaked, f"{viewer!r} sees cards {sorted(leaked)} it may not"
    deck_cards = {c for deck in state.decks for c in deck}
    hinted = {c for c, _ in view.cheapest} | set(view.affordable)
    hinted |= {a.card for a in view.legal}
    assert not hinted & deck_cards, f"{viewer!r} gets hints about deck cards"
    for seat, (player, seen) in enumerate(zip(state.players, view.players, strict=True)):
        assert len(seen.reserved) == len(player.reserved)
        for card_id, blind, shown_card in zip(
            player.reserved, player.blind, seen.reserved, strict=True
        ):
            assert shown_card.blind == blind
            if blind and viewer != seat:
                assert shown_card.card is None, f"{viewer!r} sees seat {seat}'s blind card"
            else:
                assert shown_card.card is not None and shown_card.card.id == card_id


def blind_position() -> GameState:
    """Seat 0 has reserved card 41 blind and card 21 face up; card 50 tops deck 2."""
    return position(
        players=3,
        seats=[{"reserved": [41, 21], "blind": [True, False], "tokens": "wwuy"}],
        market={1: [1, 2, 3, 4], 2: [45, 46, 47, 48], 3: [71, 72, 73, 74]},
        decks={1: [5, 6], 2: [50, 51], 3: [75]},
        nobles=[1, 2, 3, 4],
        current=1,
    )


# ---------------------------------------------------------------- blind and face-up reserves


def test_blind_reserved_card_is_seen_only_by_its_owner() -> None:
    state = blind_position()
    owner = view_for(state, 0).players[0].reserved[0]
    assert owner == ReservedView(level=2, blind=True, card=owner.card)
    assert owner.card is not None and owner.card.id == 41
    for viewer in (1, 2, TABLE, SPECTATOR):
        assert view_for(state, viewer).players[0].reserved[0] == ReservedView(2, True, None)


def test_face_up_reserved_card_is_seen_by_everyone() -> None:
    state = blind_position()
    for viewer in viewers(state):
        shown = view_for(state, viewer).players[0].reserved[1]
        assert not shown.blind
        assert shown.card is not None and shown.card.id == 21


def test_the_owner_sees_its_blind_card_in_its_own_hand() -> None:
    me = view_for(blind_position(), 0).me
    assert me is not None
    assert [r.card.id if r.card else None for r in me.reserved] == [41, 21]


def test_reserving_from_a_deck_hides_the_card_from_others_at_once() -> None:
    state = new_game(2, seed=7, first_player=0)
    top = state.decks[0][-1]
    play(state, "reserve:d1")
    assert state.players[0].reserved == [top]
    own = view_for(state, 0).players[0].reserved[0]
    assert own.blind and own.card is not None and own.card.id == top
    for viewer in (1, TABLE, SPECTATOR):
        view = view_for(state, viewer)
        assert view.players[0].reserved == (ReservedView(1, True, None),)
        assert top not in {v.id for v in card_views(view)}
        assert_no_leak(state, view)


# ---------------------------------------------------------------- decks


@pytest.mark.parametrize("players", [2, 3, 4])
def test_no_view_shows_a_deck_card(players: int) -> None:
    state = new_game(players, seed=players)
    deck_cards = {c for deck in state.decks for c in deck}
    for viewer in viewers(state):
        view = view_for(state, viewer)
        shown = {v.id for v in card_views(view)}
        assert shown == {c for row in state.market for c in row}
        assert not shown & deck_cards
        assert view.deck_counts == tuple(len(d) for d in state.decks)
        assert_no_leak(state, view)


def test_a_view_does_not_depend_on_deck_order() -> None:
    state = blind_position()
    shuffled = state.copy()
    shuffled.decks = [list(reversed(d)) for d in shuffled.decks]
    for viewer in viewers(state):
        assert view_for(state, viewer) == view_for(shuffled, viewer)


def test_others_views_do_not_depend_on_which_card_was_reserved_blind() -> None:
    state = blind_position()
    swapped = state.copy()
    # Swap seat 0's blind card with the top of deck 2: only seat 0 may notice.
    swapped.players[0].reserved[0], swapped.decks[1][-1] = 50, 41
    for viewer in (1, 2, TABLE, SPECTATOR):
        assert view_for(state, viewer) == view_for(swapped, viewer)
    assert view_for(state, 0) != view_for(swapped, 0)


# ---------------------------------------------------------------- seat extras


def test_legal_actions_go_only_to_the_seat_whose_turn_it_is() -> None:
    state = blind_position()
    assert view_for(state, 1).legal  # seat 1 is to play
    for viewer in (0, 2, TABLE, SPECTATOR):
        assert view_for(state, viewer).legal == ()
    assert view_for(state, TABLE).me is None
    assert view_for(state, SPECTATOR).me is None
    assert view_for(state, 2).me == view_for(state, 2).players[2]


def test_no_legal_actions_once_the_game_is_over() -> None:
    state = blind_position()
    state.phase = "over"
    assert all(view_for(state, seat).legal == () for seat in range(3))


def test_legal_actions_in_the_return_phase_go_to_the_returning_seat() -> None:
    state = position(
        players=2,
        seats=[{"tokens": "wwwuuugggr"}],
        market={1: [1, 2, 3, 4]},
        decks={1: [5]},
        current=0,
    )
    play(state, "take:wug")
    assert state.phase == "return"
    assert all(a.kind == "return" for a in view_for(state, 0).legal)
    assert view_for(state, 1).legal == ()


def test_affordable_counts_bonuses() -> None:
    assert card(1).cost == (0, 0, 0, 2, 1)  # two red, one black
    state = position(
        players=3,
        seats=[
            {"tokens": "k", "bonuses": "rr"},
            {"tokens": "rk", "bonuses": "r"},
            {"tokens": "rk"},
        ],
        market={1: [1]},
    )
    assert 1 in view_for(state, 0).affordable
    assert 1 in view_for(state, 1).affordable
    assert 1 not in view_for(state, 2).affordable  # one red short without bonuses
    assert dict(view_for(state, 0).cheapest)[1] == (0, 0, 0, 0, 1, 0)
    assert dict(view_for(state, 1).cheapest)[1] == (0, 0, 0, 1, 1, 0)
    assert "buy:1:k" in {a.notation() for a in view_for(state, 0).legal}


def test_affordable_includes_own_reserved_cards_only() -> None:
    state = position(
        players=2,
        seats=[{"reserved": [1], "blind": [True], "tokens": "rrk"}, {"tokens": "y"}],
        current=1,
    )
    rich = state.copy()
    rich.players[1].tokens = [5, 5, 5, 5, 5, 5]
    assert 1 in view_for(state, 0).affordable
    assert 1 not in view_for(rich, 1).affordable
    assert view_for(state, TABLE).affordable == frozenset()


# ---------------------------------------------------------------- viewers


@pytest.mark.parametrize("viewer", ["tv", "", "TABLE", -1, 3, 2.0, None])
def test_view_for_rejects_unknown_viewers(viewer: object) -> None:
    state = new_game(3, seed=1)
    with pytest.raises(ValueError):
        view_for(state, viewer)  # type: ignore[arg-type]


def test_views_are_immutable_and_versioned() -> None:
    state = new_game(2, seed=3, first_player=0)
    view = view_for(state, TABLE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.phase = "over"  # type: ignore[misc]
    play(state, "take:wug")
    assert view_for(state, TABLE).version == view.version + 1
    assert view_for(state, TABLE).phase == MAIN


def test_views_made_together_are_those_made_one_at_a_time() -> None:
    """The writer makes every audience's view of a change at once (views_for), sharing
    the public part: each must still be exactly that viewer's view, and leak nothing."""
    blind_positions = 0
    for state in many_positions(games=6, max_moves=200):
        viewers: list[Viewer] = [TABLE, SPECTATOR, *range(state.num_players)]
        together = views_for(state, viewers)
        assert list(together) == viewers
        for viewer in viewers:
            alone = views_for(state, (viewer,))[viewer]
            assert together[viewer] == alone
            assert_no_leak(state, together[viewer])
        blind_positions += any(any(p.blind) for p in state.players)
        for seat in range(state.num_players):
            others = [p for s, p in enumerate(together[seat].players) if s != seat]
            assert others == [p for s, p in enumerate(together[TABLE].players) if s != seat]
    assert blind_positions > 0  # the positions include blind reserves


def test_views_for_refuses_an_unknown_viewer_among_known_ones() -> None:
    state = new_game(2, seed=5)
    with pytest.raises(ValueError):
        views_for(state, (TABLE, 0, 2))


def test_views_share_one_object_for_each_colour_and_amount() -> None:
    """Views are remembered for seconds by the screens' caches: every count in them is
    one shared object, not one per view (fewer objects for the garbage collector)."""
    shared: dict[ColourCount, ColourCount] = {}
    for state in many_positions(games=3, max_moves=120):
        for view in views_for(state, [TABLE, *range(state.num_players)]).values():
            counts = [*view.bank, *(c for p in view.players for c in (*p.tokens, *p.bonuses))]
            counts += [c for row in view.market for card in row if card for c in card.cost]
            for count in counts:
                assert shared.setdefault(count, count) is count, count
    assert len(shared) > 30
