"""The writer: the lobby, seats, moves, bots and rematches, against the real database.

Every refusal must raise Refused and leave the stored game exactly as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import pytest

from game.engine import legal_actions
from game.engine.bot_registry import make_bot
from game.models import Game, Move, Seat, new_player_key
from game.storage import names
from game.writer import games, lobby, moves, seating
from tests.web.helpers import (
    Table,
    fingerprint,
    game,
    legal,
    open_lobby,
    play_as,
    start,
    started,
    state_of,
)

pytestmark = pytest.mark.django_db

Refused = games.Refused


def seats(game_id: int) -> list[tuple[int, str, bool]]:
    rows = Seat.objects.filter(game_id=game_id).order_by("position")
    return [(s.position, s.name, s.bot_plays) for s in rows]


def refused_and_unchanged(game_id: int, call: Callable[[], Any]) -> str:
    """Assert the call raises Refused and changes nothing stored; return the message."""
    before = fingerprint(game_id)
    with pytest.raises(Refused) as refusal:
        call()
    assert fingerprint(game_id) == before
    assert refusal.value.message
    return refusal.value.message


def play_to_the_end(table: Table) -> None:
    """Finish the game through the writer: greedy choices for the phones, bots for the bots."""
    chooser = make_bot("greedy", 7)
    for _ in range(1000):
        g = game(table.game_id)
        if g.status == Game.Status.OVER:
            return
        if moves.bot_to_play(g) is not None:
            assert moves.play_bot_turn(g.id, g.version)
            continue
        state = state_of(g.id)
        play_as(table, chooser.choose(state, state.current).notation())
    raise AssertionError("the game did not end")


# ---------------------------------------------------------------- the lobby


def test_join_seats_players_in_order_with_cleaned_names() -> None:
    table = open_lobby(("  Ada   Lovelace ", "Bob\t\n"))
    assert seats(table.game_id) == [(0, "Ada Lovelace", False), (1, "Bob", False)]
    long = seating.join_game(table.game_id, new_player_key(), "x" * 100)
    assert long.name == "x" * names.NAME_MAX
    assert long.position == 2


@pytest.mark.parametrize("name", ["", "   ", "\t\n"])
def test_join_without_a_name_is_refused(name: str) -> None:
    table = open_lobby(("Ada",))
    refused_and_unchanged(
        table.game_id, lambda: seating.join_game(table.game_id, new_player_key(), name)
    )


def test_joining_again_keeps_the_seat_and_remembers_the_new_name() -> None:
    table = open_lobby(("Ada", "Bob"))
    ada = table.player(0)
    seat = seating.join_game(table.game_id, ada.key, "Ada L.")
    assert (seat.position, seat.name) == (0, "Ada L.")
    assert seats(table.game_id) == [(0, "Ada L.", False), (1, "Bob", False)]


def test_a_fifth_player_is_refused() -> None:
    table = open_lobby(("A", "B", "C", "D"))
    message = refused_and_unchanged(
        table.game_id, lambda: seating.join_game(table.game_id, new_player_key(), "E")
    )
    assert "full" in message


def test_joining_after_the_start_is_refused_but_a_seated_player_keeps_the_seat() -> None:
    table = started(("Ada", "Bob"))
    refused_and_unchanged(
        table.game_id, lambda: seating.join_game(table.game_id, new_player_key(), "Late")
    )
    assert seating.join_game(table.game_id, table.player(1).key, "Bob").position == 1


def test_the_host_adds_and_removes_bots_and_seats_are_renumbered() -> None:
    table = open_lobby(("Ada", "Bob"))
    lobby.add_bot(table.game_id, table.host_key)
    lobby.add_bot(table.game_id, table.host_key, "random")
    assert seats(table.game_id) == [
        (0, "Ada", False),
        (1, "Bob", False),
        (2, "Bot 1", True),
        (3, "Bot 2", True),
    ]
    assert (
        Seat.objects.get(game_id=table.game_id, position=3).bot_level == "easy"
    )  # random plays easy
    refused_and_unchanged(table.game_id, lambda: lobby.add_bot(table.game_id, table.host_key))

    lobby.remove_seat(table.game_id, table.host_key, 1)
    assert seats(table.game_id) == [(0, "Ada", False), (1, "Bot 1", True), (2, "Bot 2", True)]
    # Bob's key no longer holds a seat; he may join again at the end.
    assert games.seat_of(game(table.game_id), table.player(1).key) is None
    assert seating.join_game(table.game_id, table.player(1).key, "Bob").position == 3
    refused_and_unchanged(
        table.game_id, lambda: lobby.remove_seat(table.game_id, table.host_key, 7)
    )


def test_bot_names_stay_distinct_after_a_bot_is_removed() -> None:
    table = open_lobby(("Ada",), bots=2)  # Bot 1, Bot 2
    lobby.remove_seat(table.game_id, table.host_key, 1)  # Bot 1 leaves
    lobby.add_bot(table.game_id, table.host_key)
    names = [name for _position, name, _bot in seats(table.game_id)]
    assert len(set(names)) == len(names), names


def test_an_unknown_bot_kind_is_refused() -> None:
    table = open_lobby(("Ada",))
    refused_and_unchanged(
        table.game_id, lambda: lobby.add_bot(table.game_id, table.host_key, "evil")
    )


@pytest.mark.parametrize("who", ["player", "stranger", "nobody"])
def test_only_the_host_runs_the_lobby(who: str) -> None:
    table = open_lobby(("Ada", "Bob"), bots=1)
    key = {"player": table.player(0).key, "stranger": new_player_key(), "nobody": ""}[who]
    gid = table.game_id
    refused_and_unchanged(gid, lambda: lobby.add_bot(gid, key))
    refused_and_unchanged(gid, lambda: lobby.remove_seat(gid, key, 0))
    refused_and_unchanged(gid, lambda: lobby.start_game(gid, key))
    assert game(gid).status == Game.Status.LOBBY


@pytest.mark.parametrize("players", [0, 1])
def test_start_needs_two_players(players: int) -> None:
    table = open_lobby(("Ada",)[:players])
    message = refused_and_unchanged(
        table.game_id, lambda: lobby.start_game(table.game_id, table.host_key)
    )
    assert "two to four" in message


@pytest.mark.parametrize(("humans", "bots"), [(2, 0), (1, 1), (2, 1), (1, 3), (4, 0)])
def test_start_deals_for_two_to_four_seats(humans: int, bots: int) -> None:
    table = open_lobby(("A", "B", "C", "D")[:humans], bots=bots)
    g = lobby.start_game(table.game_id, table.host_key)
    g.refresh_from_db()
    assert g.status == Game.Status.PLAYING
    assert g.version == 0
    assert len(state_of(g.id).players) == humans + bots
    assert g.state == games.replay_game(g).to_dict()
    # The lobby is closed now.
    refused_and_unchanged(g.id, lambda: lobby.start_game(g.id, table.host_key))
    refused_and_unchanged(g.id, lambda: lobby.add_bot(g.id, table.host_key))
    refused_and_unchanged(g.id, lambda: lobby.remove_seat(g.id, table.host_key, 0))


def test_start_with_a_chosen_first_player() -> None:
    table = started(("Ada", "Bob"), first_player=1)
    g = game(table.game_id)
    assert g.first_player == 1
    assert state_of(g.id).current == 1


def test_rejoin_moves_the_seat_to_the_new_phone() -> None:
    table = started(("Ada", "Bob"))
    bob = table.player(1)
    code = Seat.objects.get(game_id=table.game_id, position=1).rejoin_code
    new_phone = new_player_key()
    seat = seating.rejoin(table.game_id, new_phone, f"  {code.lower()} ")
    assert seat.position == 1
    g = game(table.game_id)
    assert games.seat_of(g, new_phone).position == 1  # type: ignore[union-attr]
    assert games.seat_of(g, bob.key) is None
    # The old phone can no longer play for Bob; the new one can.
    play_as(table, legal(table.game_id)[0])  # Ada
    state = state_of(table.game_id)
    action = legal_actions(state)[0].notation()
    refused_and_unchanged(g.id, lambda: moves.play(g.id, bob.key, action, 1))
    moves.play(g.id, new_phone, action, 1)
    assert game(g.id).version == 2


def test_rejoin_keeps_the_other_seat_of_that_phone() -> None:
    # The phone becomes a shared phone (issue 33): it takes the seat and keeps its own.
    table = open_lobby(("Ada", "Bob"))
    ada, bob = table.player(0), table.player(1)
    code = Seat.objects.get(game_id=table.game_id, position=1).rejoin_code
    seating.rejoin(table.game_id, ada.key, code)
    g = game(table.game_id)
    assert [s.position for s in games.seats_of(g, ada.key)] == [0, 1]
    assert Seat.objects.get(game_id=g.id, position=0).player_key == ada.key
    assert games.seat_of(g, bob.key) is None


@pytest.mark.parametrize("code", ["", "NOPE", "ZZZZZZ"])
def test_rejoin_with_a_wrong_code_is_refused(code: str) -> None:
    table = started(("Ada", "Bob"))
    refused_and_unchanged(
        table.game_id, lambda: seating.rejoin(table.game_id, new_player_key(), code)
    )


def test_a_bot_seat_cannot_be_taken_with_its_code() -> None:
    table = started(("Ada",), bots=1)
    code = Seat.objects.get(game_id=table.game_id, position=1).rejoin_code
    refused_and_unchanged(
        table.game_id, lambda: seating.rejoin(table.game_id, new_player_key(), code)
    )


# ---------------------------------------------------------------- play


def test_play_applies_records_and_announces_after_commit(
    django_capture_on_commit_callbacks: Any,
) -> None:
    table = started(("Ada", "Bob"))
    before = state_of(table.game_id)
    with django_capture_on_commit_callbacks() as callbacks:
        moves.play(table.game_id, table.player(0).key, "TAKE:GUW", 0)
    assert len(callbacks) == 1
    g = game(table.game_id)
    assert g.version == 1
    move = Move.objects.get(game=g)
    assert (move.index, move.seat, move.notation) == (0, 0, "take:wug")
    after = state_of(g.id)
    assert after.current == 1
    assert after.players[0].tokens == [1, 1, 1, 0, 0, 0]
    assert after.bank[:3] == [b - 1 for b in before.bank[:3]]


def test_the_stored_game_equals_its_replay_after_many_moves() -> None:
    table = started(("Ada", "Bob", "Cy"), first_player=2)
    chooser = make_bot("greedy", 3)
    for expected in range(1, 31):
        state = state_of(table.game_id)
        assert play_as(table, chooser.choose(state, state.current).notation()) == expected
    g = game(table.game_id)
    assert g.version == 30 == Move.objects.filter(game=g).count()
    assert list(Move.objects.filter(game=g).values_list("index", flat=True)) == list(range(30))
    assert g.state == games.replay_game(g).to_dict()


def test_a_reserved_blind_card_is_in_the_snapshot_and_the_replay() -> None:
    table = started(("Ada", "Bob"))
    top = state_of(table.game_id).decks[0][-1]
    play_as(table, "reserve:d1")
    g = game(table.game_id)
    state = state_of(g.id)
    assert state.players[0].reserved == [top]
    assert state.players[0].blind == [True]
    assert state.players[0].tokens[5] == 1
    assert g.state == games.replay_game(g).to_dict()


@pytest.fixture
def midgame() -> Table:
    """Two phones, two moves played: Ada took white, blue, green; Bob took red, black, white."""
    table = started(("Ada", "Bob"))
    play_as(table, "take:wug")
    play_as(table, "take:wrk")
    return table


def test_out_of_turn_is_refused(midgame: Table) -> None:
    gid, bob = midgame.game_id, midgame.player(1)
    message = refused_and_unchanged(gid, lambda: moves.play(gid, bob.key, "take:wug", 2))
    assert "not your turn" in message


def test_a_double_tap_is_applied_once(midgame: Table) -> None:
    gid, ada = midgame.game_id, midgame.player(0)
    moves.play(gid, ada.key, "take:ugr", 2)
    refused_and_unchanged(gid, lambda: moves.play(gid, ada.key, "take:ugr", 2))
    assert game(gid).version == 3


@pytest.mark.parametrize("version", [0, 1, 3, 99, -1])
def test_a_stale_or_future_version_is_refused(midgame: Table, version: int) -> None:
    gid, ada = midgame.game_id, midgame.player(0)
    refused_and_unchanged(gid, lambda: moves.play(gid, ada.key, "take:ugr", version))


@pytest.mark.parametrize("version", ["abc", None, "", [2], {"v": 2}, "2.0", 2.5], ids=repr)
def test_a_version_that_is_not_an_integer_is_refused(midgame: Table, version: Any) -> None:
    # The game is at version 2: a sloppy int() would read 2.5 as 2.
    gid, ada = midgame.game_id, midgame.player(0)
    refused_and_unchanged(gid, lambda: moves.play(gid, ada.key, "take:ugr", version))


def test_a_boolean_version_is_refused() -> None:
    # At version 1, int(True) == 1 would let a JSON `true` pass as a version.
    table = started(("Ada", "Bob"))
    play_as(table, "take:wug")
    gid, bob = table.game_id, table.player(1)
    refused_and_unchanged(gid, lambda: moves.play(gid, bob.key, "take:wrk", True))


def test_a_version_sent_as_a_string_of_digits_is_accepted(midgame: Table) -> None:
    # The phone's page sends data-version as read from the DOM: a string.
    moves.play(midgame.game_id, midgame.player(0).key, "take:ugr", "2")
    assert game(midgame.game_id).version == 3


@pytest.mark.parametrize(
    "text",
    ["take:xyz", "", "   ", None, 123, ["take:wug"], "take", "buy:1", "reserve:d9x", "x" * 10240],
    ids=lambda t: repr(t)[:20],
)
def test_malformed_actions_are_refused(midgame: Table, text: Any) -> None:
    gid, ada = midgame.game_id, midgame.player(0)
    refused_and_unchanged(gid, lambda: moves.play(gid, ada.key, text, 2))


@pytest.mark.parametrize(
    "text",
    [
        "take:ww",  # white pile is down to 2 (4 - 2): two of a colour need four
        "take:yug",  # gold cannot be taken
        "take:ug",  # three colours are still available
        "take:uug",
        "reserve:999",
        "reserve:d4",
        "buy:1:-",
        "return:w",
        "noble:1",
        "pass",
    ],
)
def test_illegal_actions_are_refused(midgame: Table, text: str) -> None:
    gid, ada = midgame.game_id, midgame.player(0)
    refused_and_unchanged(gid, lambda: moves.play(gid, ada.key, text, 2))


def test_take_two_from_a_pile_of_three_is_refused() -> None:
    table = started(("Ada", "Bob", "Cy"))  # five of each colour with three players
    play_as(table, "take:wug")
    play_as(table, "take:wrk")  # white: 3 left
    gid, cy = table.game_id, table.player(2)
    assert state_of(gid).bank[0] == 3
    message = refused_and_unchanged(gid, lambda: moves.play(gid, cy.key, "take:ww", 2))
    assert "four" in message


def test_play_in_the_lobby_is_refused() -> None:
    table = open_lobby(("Ada", "Bob"))
    gid, ada = table.game_id, table.player(0)
    refused_and_unchanged(gid, lambda: moves.play(gid, ada.key, "take:wug", 0))


@pytest.mark.parametrize("key", ["", "not-a-seat", "host"])
def test_play_without_a_seat_is_refused(midgame: Table, key: str) -> None:
    gid = midgame.game_id
    key = midgame.host_key if key == "host" else key
    message = refused_and_unchanged(gid, lambda: moves.play(gid, key, "take:ugr", 2))
    assert "seat" in message


def test_play_in_an_unknown_game_is_refused() -> None:
    with pytest.raises(Refused):
        moves.play(987654, "anyone", "take:wug", 0)


def test_a_refusal_announces_nothing(
    midgame: Table, django_capture_on_commit_callbacks: Any
) -> None:
    gid, bob = midgame.game_id, midgame.player(1)
    with django_capture_on_commit_callbacks() as callbacks, pytest.raises(Refused):
        moves.play(gid, bob.key, "take:wug", 2)
    assert callbacks == []


# ---------------------------------------------------------------- bots, the end, rematch


def test_a_bot_plays_one_legal_move_on_its_turn() -> None:
    table = started(("Ada",), bots=1, first_player=1)
    gid = table.game_id
    before = state_of(gid)
    legal_now = {a.notation() for a in legal_actions(before)}
    assert moves.play_bot_turn(gid, 0) is True
    g = game(gid)
    assert g.version >= 1
    first = Move.objects.filter(game=g).order_by("index").first()
    assert first is not None and first.seat == 1 and first.notation in legal_now
    assert g.state == games.replay_game(g).to_dict()


def test_a_bot_turn_with_a_wrong_version_does_nothing() -> None:
    table = started(("Ada",), bots=1, first_player=1)
    gid = table.game_id
    for wrong in (1, 5, -1):
        before = fingerprint(gid)
        assert moves.play_bot_turn(gid, wrong) is False
        assert fingerprint(gid) == before


def test_a_bot_turn_when_a_phone_is_to_play_does_nothing() -> None:
    table = started(("Ada",), bots=1, first_player=0)
    before = fingerprint(table.game_id)
    assert moves.play_bot_turn(table.game_id, 0) is False
    assert fingerprint(table.game_id) == before


@pytest.fixture
def finished() -> Table:
    table = started(("Ada", "Bob"), bots=1, first_player=2)
    play_to_the_end(table)
    return table


def test_a_finished_game_refuses_every_action(finished: Table) -> None:
    g = game(finished.game_id)
    assert g.status == Game.Status.OVER
    assert state_of(g.id).is_over
    assert g.state == games.replay_game(g).to_dict()
    for player in finished.players:
        for text in ("take:wug", "pass", "buy:1:-"):
            refused_and_unchanged(g.id, partial(moves.play, g.id, player.key, text, g.version))
    assert moves.play_bot_turn(g.id, g.version) is False


def test_rematch_starts_a_new_game_with_the_same_seats(finished: Table) -> None:
    old = game(finished.game_id)
    fresh = lobby.rematch(old.id, finished.host_key)
    old.refresh_from_db()
    assert old.next_game_id == fresh.id
    fresh.refresh_from_db()
    assert fresh.status == Game.Status.PLAYING
    assert fresh.state is not None and fresh.version == 0
    assert fresh.host_key == finished.host_key
    assert fresh.code != old.code
    assert fresh.house_no_gold_small == old.house_no_gold_small

    def seat_rows(game_id: int) -> list[tuple[Any, ...]]:
        return list(
            Seat.objects.filter(game_id=game_id)
            .order_by("position")
            .values_list("position", "name", "player_key", "role", "bot_level")
        )

    assert seat_rows(fresh.id) == seat_rows(old.id)
    # Asking again (a second tap) returns the same rematch.
    assert lobby.rematch(old.id, finished.host_key).id == fresh.id
    assert Game.objects.count() == 2


def test_only_the_host_starts_a_rematch_and_only_after_the_end(finished: Table) -> None:
    gid = finished.game_id
    refused_and_unchanged(gid, lambda: lobby.rematch(gid, finished.player(0).key))
    playing = started(("Cy", "Di"))
    refused_and_unchanged(playing.game_id, lambda: lobby.rematch(playing.game_id, playing.host_key))


def test_start_is_refused_for_a_second_start() -> None:
    table = open_lobby(("Ada", "Bob"))
    start(table)
    refused_and_unchanged(table.game_id, lambda: lobby.start_game(table.game_id, table.host_key))
