"""Game records: export, import (checked by replaying), and replaying finished games."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction

from game.engine.bot_registry import make_bot
from game.models import Game, Move, Seat
from game.records import archive
from game.writer import bot_turns, games, lobby, moves
from tests.web.helpers import Table, game, open_lobby, shared_lobby, start

pytestmark = pytest.mark.django_db


def finish(table: Table) -> Game:
    """Play the game to its end: bots by the bot driver, phones with a greedy choice."""
    chooser = make_bot("greedy", 5)
    for _ in range(1000):
        g = game(table.game_id)
        if g.status == Game.Status.OVER:
            return g
        if not moves.play_bot_turn(g.id, g.version):
            state = games.load_state(g)
            assert state is not None
            if state.current not in {p.position for p in table.players}:
                # A transactional test's bot scheduler took the bot's turn first.
                bot_turns.scheduler.wait(timeout=60)
                continue
            player = table.player(state.current)
            action = chooser.choose(state, state.current)
            moves.play(g.id, player.key, action.notation(), g.version)
    raise AssertionError("the game did not end")


def finished_game(seed: int = 4, names: tuple[str, ...] = ("Ada",), bots: int = 1) -> Game:
    table = open_lobby(names, bots=bots, seed=seed)
    return finish(start(table, first_player=None))


def moves_of(g: Game) -> list[tuple[int, str]]:
    return list(Move.objects.filter(game=g).order_by("index").values_list("seat", "notation"))


def without_identity(text: str) -> str:
    """The record without the lines that name one stored copy (room code, date)."""
    return "".join(
        line for line in text.splitlines(keepends=True) if not line.startswith(("code:", "played:"))
    )


def test_export_then_import_gives_the_same_game() -> None:
    original = finished_game()
    text = archive.write(archive.record_of(original))
    copy = archive.store(archive.read(text))

    assert copy.pk != original.pk and copy.code != original.code
    assert copy.status == Game.Status.OVER
    assert (copy.seed, copy.first_player, copy.version) == (
        original.seed,
        original.first_player,
        original.version,
    )
    assert copy.state == original.state
    assert moves_of(copy) == moves_of(original)
    assert list(copy.seats.values_list("position", "name", "role", "bot_level")) == [
        (0, "Ada", "human", ""),
        (1, "Bot 1", "bot", "medium"),
    ]
    # Listed by when it was played (the record keeps whole seconds).
    copy.refresh_from_db()
    assert copy.created_at == original.created_at.replace(microsecond=0)
    assert without_identity(archive.write(archive.record_of(copy))) == without_identity(text)


def finish_any(game_id: int) -> Game:
    """Play a started game to its end through the engine's writer path, whoever sits where."""
    chooser = make_bot("greedy", 5)
    for _ in range(1000):
        g = game(game_id)
        if g.status == Game.Status.OVER:
            return g
        state = games.load_state(g)
        assert state is not None
        action = chooser.choose(state, state.current).notation()
        with transaction.atomic():
            moves._apply(games.lock(g.id), state.current, action, g.version)
    raise AssertionError("the game did not end")


def test_a_tv_seat_and_a_shared_phone_are_kept_by_export_and_import() -> None:
    table = shared_lobby(others=())  # Ada and Ben on one phone
    lobby.add_tv_player(table.game_id, table.host_key, "Cleo")
    original = finish_any(start(table, first_player=0).game_id)
    text = archive.write(archive.record_of(original))
    lines = text.splitlines()
    assert [line for line in lines if line.startswith("seat ")] == [
        "seat 0: human Ada",
        "seat 1: human Ben",
        "seat 2: tv Cleo",
    ]
    assert "shared-phones: 0 1" in lines
    copy = archive.store(archive.read(text))
    seats = list(copy.seats.order_by("position"))
    assert [(s.name, s.played_on) for s in seats] == [
        ("Ada", "phone"),
        ("Ben", "phone"),
        ("Cleo", "tv"),
    ]
    # One phone's seats stay together, under a key no browser of this household holds.
    assert seats[0].player_key and seats[0].player_key == seats[1].player_key
    assert seats[0].player_key not in Seat.objects.filter(game=original).values_list(
        "player_key", flat=True
    )
    assert not seats[2].player_key
    assert without_identity(archive.write(archive.record_of(copy))) == without_identity(text)


@pytest.mark.parametrize(
    "groups", ["0", "0 1, 1 2", "0 2", "0 9", "0 x"], ids=["alone", "twice", "tv", "none", "text"]
)
def test_shared_phones_that_cannot_be_are_refused(groups: str) -> None:
    text = "\n".join(
        [
            "format: splendor-record 1",
            "seed: 5",
            "first-player: 0",
            "seat 0: human Ada",
            "seat 1: human Ben",
            "seat 2: tv Cleo",
            f"shared-phones: {groups}",
            "moves: 0",
            "result: playing",
        ]
    )
    before = stored_rows()
    with pytest.raises(archive.RecordError):
        archive.store(archive.read(text))
    assert stored_rows() == before


def test_a_record_reads_as_documented() -> None:
    original = finished_game(seed=9, names=("Ada", "Bob"), bots=0)
    text = archive.write(archive.record_of(original))
    lines = text.splitlines()
    assert "format: splendor-record 1" in lines
    assert f"seed: {original.seed}" in lines
    assert "house-rule: official" in lines
    assert "seat 0: human Ada" in lines and "seat 1: human Bob" in lines
    assert f"moves: {original.version}" in lines
    first = Move.objects.get(game=original, index=0).notation
    assert f"1. {first}" in lines
    assert "result: over" in lines


def corrupt(text: str, number: int, notation: str) -> str:
    lines = [
        f"{number}. {notation}" if line.startswith(f"{number}. ") else line
        for line in text.splitlines()
    ]
    return "\n".join(lines) + "\n"


def stored_rows() -> tuple[int, int, int]:
    return Game.objects.count(), Seat.objects.count(), Move.objects.count()


@pytest.mark.parametrize(
    ("notation", "reason"),
    [
        ("take:www", "Take gems of different colours, or two of one colour."),
        ("nonsense", "that action could not be read."),
    ],
)
def test_a_record_whose_move_does_not_replay_is_refused_and_nothing_is_stored(
    notation: str, reason: str
) -> None:
    text = archive.write(archive.record_of(finished_game()))
    before = stored_rows()
    with pytest.raises(archive.RecordError) as refused:
        archive.store(archive.read(corrupt(text, 7, notation)))
    assert refused.value.message == f"Move 7 does not replay: {reason}"
    assert stored_rows() == before


def test_a_record_claiming_another_result_is_refused() -> None:
    text = archive.write(archive.record_of(finished_game()))
    points = next(line for line in text.splitlines() if line.startswith("points:"))
    wrong = text.replace(points, "points: 30 30")
    with pytest.raises(archive.RecordError, match="not to the result"):
        archive.store(archive.read(wrong))


@pytest.mark.parametrize(
    "change",
    [
        lambda t: t.replace("format: splendor-record 1", "format: splendor-record 2"),
        lambda t: t.replace("3. ", "4. ", 1),  # a move number skipped
        lambda t: t.replace("seat 1: bot medium", "seat 1: bot clever"),
        lambda t: t + "what is this\n",
    ],
)
def test_an_unreadable_record_is_refused(change: object) -> None:
    text = archive.write(archive.record_of(finished_game()))
    assert callable(change)
    with pytest.raises(archive.RecordError):
        archive.read(change(text))


SMALL = """format: splendor-record 1
seed: 5
first-player: 0
seat 0: human Ada
seat 1: bot easy
moves: 1
1. take:wug
result: playing
"""


def test_a_small_handwritten_record_imports() -> None:
    g = archive.store(archive.read(SMALL))
    assert (g.seed, g.version, g.status) == (5, 1, Game.Status.PLAYING)
    assert list(g.seats.values_list("name", "role", "bot_level", "bot_number")) == [
        ("Ada", "human", "", 0),
        ("Bot 1", "bot", "easy", 1),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\x00\xff garbage",
        SMALL.replace("seed: 5", "seed: 99999999999999999999"),
        SMALL.replace("seed: 5", "seed: five"),
        SMALL.replace("first-player: 0", "first-player: 7"),
        SMALL.replace(
            "seat 1: bot easy",
            "seat 1: bot easy\nseat 2: human C\nseat 3: human D\nseat 4: human E",
        ),
        SMALL.replace("seat 1: bot easy\n", ""),
        SMALL.replace("moves: 1", "moves: 2"),
        SMALL.replace("result: playing", "result: won"),
        SMALL.replace("result: playing", "result: over\npoints: 0 0\nwinners: 0 1"),
        SMALL.replace("seed: 5", "seed: 5\nseed: 6"),
        SMALL.replace("seat 0: human Ada", "seat 0: human    "),
    ],
)
def test_a_broken_record_is_refused_with_a_reason_and_nothing_is_stored(text: str) -> None:
    before = stored_rows()
    with pytest.raises(archive.RecordError) as refused:
        archive.store(archive.read(text))
    assert refused.value.message
    assert stored_rows() == before


def test_a_move_after_the_end_is_refused() -> None:
    text = archive.write(archive.record_of(finished_game()))
    moves = int(next(ln for ln in text.splitlines() if ln.startswith("moves:")).split()[1])
    extra = text.replace(f"moves: {moves}\n", f"moves: {moves + 1}\n").replace(
        "result: over", f"{moves + 1}. take:wug\nresult: over"
    )
    with pytest.raises(archive.RecordError) as refused:
        archive.store(archive.read(extra))
    assert refused.value.message == f"Move {moves + 1} does not replay: The game is over."


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_replaying_finished_games_reproduces_their_stored_final_state(seed: int) -> None:
    g = finished_game(seed=seed, names=("Ada", "Bob"), bots=2)
    assert games.replay_game(g).to_dict() == g.state
    assert archive.replay(archive.record_of(g)).state.to_dict() == g.state


def test_a_running_game_exports_and_imports_as_running() -> None:
    table = start(open_lobby(("Ada",), bots=1), first_player=0)
    moves.play(table.game_id, table.player(0).key, "take:wug", 0)
    copy = archive.store(archive.read(archive.write(archive.record_of(game(table.game_id)))))
    assert copy.status == Game.Status.PLAYING
    assert copy.state == game(table.game_id).state


def test_a_game_in_the_lobby_has_nothing_to_export() -> None:
    table = open_lobby(("Ada", "Bob"))
    with pytest.raises(archive.RecordError):
        archive.record_of(game(table.game_id))


def test_the_commands_export_import_and_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    original = finished_game()
    path = tmp_path / "game.txt"
    call_command("export_game", original.code.lower(), output=str(path))

    call_command("replay_game", str(path))
    printed = capsys.readouterr().out
    assert "result: over, winners" in printed
    assert f"moves: {original.version}" in printed

    call_command("import_game", str(path))
    assert "Imported game" in capsys.readouterr().out
    assert Game.objects.exclude(pk=original.pk).get().state == original.state

    # Saved again by a Windows editor (BOM, CRLF), it still reads.
    path.write_bytes(b"\xef\xbb\xbf" + path.read_text().replace("\n", "\r\n").encode())
    call_command("replay_game", str(path))
    assert "result: over, winners" in capsys.readouterr().out

    path.write_text(corrupt(path.read_text(), 3, "take:www"))
    before = stored_rows()
    with pytest.raises(CommandError, match="Move 3 does not replay"):
        call_command("import_game", str(path))
    assert stored_rows() == before
