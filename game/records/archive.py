"""Game records: export a game as a small text file, read one back, check it, store it.

A game is its seed plus its moves, so a record holds exactly that and who sat
where; the engine replays it to check every move (docs/records.md
describes the format). Importing stores nothing unless every move replays.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.utils.translation import gettext as _

from game.bot_levels import LEVELS, level_of
from game.engine import ActionError, GameState, NotationError, new_game, outcome, parse_action
from game.engine.rules import apply_action
from game.engine.vocabulary import PlayedOn, SeatRole
from game.models import Game, Move, Seat, new_player_key
from game.storage import analyses, names
from game.writer import games, lobby, moves

FORMAT = "splendor-record 1"
# A seat is written as the role that chose its moves: a stand-in's moves were
# its player's game, so it is written as that player.
HUMAN = SeatRole.HUMAN
BOT = SeatRole.BOT
TV = PlayedOn.TV  # a human played on the TV, without a phone
OFFICIAL = "official"
NO_GOLD_SMALL = "no-gold-small"
PLAYING = "playing"
OVER = "over"
SEED_LIMIT = 2**63  # a seed is stored in a signed 64-bit column


class RecordError(Exception):
    """A record that cannot be read or does not replay; `message` says where and why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class SeatRecord:
    kind: str  # HUMAN, TV or BOT
    name: str  # a human's name; for a bot, its level


@dataclass(frozen=True, slots=True)
class Result:
    """How the game stood when it was exported."""

    status: str  # PLAYING or OVER
    points: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()


@dataclass(slots=True)
class Record:
    seed: int
    seats: list[SeatRecord]
    first_player: int
    no_gold_small: bool = False
    moves: list[str] = field(default_factory=list)
    result: Result = Result(PLAYING)
    code: str = ""
    played: str = ""
    # The seats that shared one phone (two players passing it round), one group each.
    shared_phones: list[tuple[int, ...]] = field(default_factory=list)
    # A finished game's story as comment lines (import ignores them and analyses anew).
    story: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- from the database


def _seat_record(seat: Seat) -> SeatRecord:
    if seat.role == SeatRole.BOT:
        return SeatRecord(BOT, level_of(seat.bot_level))
    return SeatRecord(TV if seat.on_tv else HUMAN, seat.name)


def _shared_phones(seats: list[Seat]) -> list[tuple[int, ...]]:
    """The positions of the seats each phone holding several held, by their first seat."""
    by_phone: dict[str, list[int]] = {}
    for seat in seats:
        if seat.player_key and seat.role != SeatRole.BOT:
            by_phone.setdefault(seat.player_key, []).append(seat.position)
    return sorted(tuple(sorted(group)) for group in by_phone.values() if len(group) > 1)


def result_of(state: GameState) -> Result:
    if not state.is_over:
        return Result(PLAYING)
    points = tuple(p.points for p in state.players)
    ended = outcome(state)
    return Result(OVER, points, ended.winners if ended else ())


def record_of(game: Game) -> Record:
    """Return the record of a started game (its seed, seats, moves and result)."""
    state = games.load_state(game)
    if state is None or game.first_player is None:
        raise RecordError(_("A game that has not started has no moves to export."))
    seats = list(game.seats.order_by("position"))
    return Record(
        seed=game.seed,
        seats=[_seat_record(s) for s in seats],
        first_player=game.first_player,
        no_gold_small=game.house_no_gold_small,
        moves=list(game.moves.order_by("index").values_list("notation", flat=True)),
        result=result_of(state),
        code=game.code,
        played=game.created_at.isoformat(timespec="seconds"),
        shared_phones=_shared_phones(seats),
        story=_story_lines(game),
    )


def _story_lines(game: Game) -> list[str]:
    """Each seat's chance of winning after each round and the turning point, for a
    person reading the record; nothing for a game not analysed (or not over)."""
    found = analyses.told(game)
    if found is None or found.story is None:
        return []
    story = found.story
    lines = ["the story (each seat's chance of winning in %, as the table could see it):"]
    for point in story.rounds():
        chances = " ".join(str(round(100 * c)) for c in point.chances)
        lines.append(f"round {point.round}: points {_numbers(point.points)}, chances {chances}")
    turning = story.turning_point()
    if turning is not None:
        lines.append(
            f"turning point: round {turning.turn.round}, turn {turning.turn.turn} "
            f"({' '.join(turning.turn.moves)}), seat {turning.seat}'s chance "
            f"{round(100 * turning.before)} -> {round(100 * turning.after)}"
        )
    return lines


# ---------------------------------------------------------------- text


def _numbers(values: tuple[int, ...]) -> str:
    return " ".join(str(v) for v in values)


def write(record: Record) -> str:
    """Return the record as text (docs/records.md)."""
    lines = [
        "# Splendor at home: one game. Format: docs/records.md",
        f"format: {FORMAT}",
        f"code: {record.code}",
        f"played: {record.played}",
        f"seed: {record.seed}",
        f"house-rule: {NO_GOLD_SMALL if record.no_gold_small else OFFICIAL}",
        f"first-player: {record.first_player}",
    ]
    lines += [f"seat {n}: {s.kind} {s.name}" for n, s in enumerate(record.seats)]
    if record.shared_phones:
        lines.append(f"shared-phones: {', '.join(_numbers(g) for g in record.shared_phones)}")
    lines.append(f"moves: {len(record.moves)}")
    lines += [f"{number}. {notation}" for number, notation in enumerate(record.moves, start=1)]
    lines.append(f"result: {record.result.status}")
    if record.result.status == OVER:
        lines.append(f"points: {_numbers(record.result.points)}")
        lines.append(f"winners: {_numbers(record.result.winners)}")
    lines += [f"# {line}" for line in record.story]
    return "\n".join(lines) + "\n"


def _bad_line(number: int, line: str) -> RecordError:
    return RecordError(
        _("Line %(number)s cannot be read: %(line)s") % {"number": number, "line": line[:80]}
    )


def _int(text: str, number: int, line: str) -> int:
    text = text.strip()
    if not (text.isascii() and text.lstrip("-").isdigit()):
        raise _bad_line(number, line)
    return int(text)


def _ints(text: str, number: int, line: str) -> tuple[int, ...]:
    return tuple(_int(part, number, line) for part in text.split())


def _seat(rest: str, number: int, line: str) -> SeatRecord:
    kind, _space, name = rest.strip().partition(" ")
    name = names.clean_name(name)
    if kind == BOT and name in LEVELS:
        return SeatRecord(BOT, name)
    if kind in (HUMAN, TV) and name:
        return SeatRecord(kind, name)
    raise _bad_line(number, line)


def _groups(text: str, seats: list[SeatRecord]) -> list[tuple[int, ...]]:
    """Read `shared-phones`: groups of two or more human seats, each seat in one group."""
    groups = [_ints(part, 0, "shared-phones") for part in text.split(",")] if text else []
    seen = [n for group in groups for n in group]
    humans = {n for n, seat in enumerate(seats) if seat.kind == HUMAN}
    if any(len(g) < 2 for g in groups) or len(seen) != len(set(seen)) or set(seen) - humans:
        raise RecordError(_("The record's shared phones name seats that cannot share one."))
    return [tuple(sorted(g)) for g in groups]


def read(text: str) -> Record:
    """Read a record's text; raise RecordError naming the first line it cannot read."""
    fields: dict[str, str] = {}
    seats: list[SeatRecord] = []
    moves: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, colon, rest = line.partition(":")
        head, dot, notation = line.partition(". ")
        if dot and head.isdigit():
            if int(head) != len(moves) + 1:
                raise _bad_line(number, line)
            moves.append(notation.strip())
        elif colon and key.startswith("seat ") and key[5:].isdigit():
            if int(key[5:]) != len(seats):
                raise _bad_line(number, line)
            seats.append(_seat(rest, number, line))
        elif colon and key in _KEYS and key not in fields:
            fields[key] = rest.strip()
        else:
            raise _bad_line(number, line)
    return _record(fields, seats, moves)


_KEYS = (
    "format",
    "code",
    "played",
    "seed",
    "house-rule",
    "first-player",
    "moves",
    "result",
    "points",
    "winners",
    "shared-phones",
)


def _record(fields: dict[str, str], seats: list[SeatRecord], moves: list[str]) -> Record:
    if fields.get("format") != FORMAT:
        raise RecordError(_("This is not a Splendor at home game record (format 1)."))
    missing = [k for k in ("seed", "first-player", "moves", "result") if k not in fields]
    if missing:
        raise RecordError(_("The record lacks: %(fields)s") % {"fields": ", ".join(missing)})
    if _int(fields["moves"], 0, "moves") != len(moves):
        raise RecordError(_("The record says it has a different number of moves."))
    if fields.get("house-rule", OFFICIAL) not in (OFFICIAL, NO_GOLD_SMALL):
        raise RecordError(_("The record names an unknown house rule."))
    status = fields["result"]
    if status not in (PLAYING, OVER):
        raise RecordError(_("The record names an unknown result."))
    seed = _int(fields["seed"], 0, "seed")
    if not -SEED_LIMIT <= seed < SEED_LIMIT:
        raise RecordError(_("The record's seed is too large."))
    return Record(
        seed=seed,
        seats=seats,
        first_player=_int(fields["first-player"], 0, "first-player"),
        no_gold_small=fields.get("house-rule") == NO_GOLD_SMALL,
        moves=moves,
        result=Result(
            status,
            _ints(fields.get("points", ""), 0, "points"),
            _ints(fields.get("winners", ""), 0, "winners"),
        ),
        code=fields.get("code", ""),
        played=fields.get("played", ""),
        shared_phones=_groups(fields.get("shared-phones", ""), seats),
    )


# ---------------------------------------------------------------- checking by replaying


@dataclass(frozen=True, slots=True)
class Replayed:
    state: GameState
    movers: list[int]  # the seat that made each move


def _refuse_move(number: int, reason: str) -> RecordError:
    return RecordError(
        _("Move %(number)s does not replay: %(reason)s") % {"number": number, "reason": reason}
    )


def replay(record: Record) -> Replayed:
    """Replay the record with the engine; raise RecordError at the first move that fails."""
    try:
        state = new_game(len(record.seats), record.seed, record.first_player, record.no_gold_small)
    except ValueError:
        raise RecordError(_("The record's seats or first player do not make a game.")) from None
    movers = []
    for number, notation in enumerate(record.moves, start=1):
        movers.append(state.current)
        try:
            apply_action(state, parse_action(notation))
        except NotationError:
            raise _refuse_move(number, _("that action could not be read.")) from None
        except ActionError as error:
            raise _refuse_move(number, moves.explain(error)) from None
    _check_result(record.result, state)
    return Replayed(state, movers)


def _check_result(claimed: Result, state: GameState) -> None:
    if result_of(state) != claimed:
        raise RecordError(_("The moves replay, but not to the result the record states."))


# ---------------------------------------------------------------- storing


def store(record: Record) -> Game:
    """Replay the record, then store it as a new game; nothing is stored if it fails."""
    replayed = replay(record)
    state = replayed.state
    with transaction.atomic():
        game = lobby.create_game("", no_gold_small=record.no_gold_small)
        game.seed = record.seed
        game.first_player = record.first_player
        game.state = state.to_dict()
        game.version = state.moves
        game.status = Game.Status.OVER if state.is_over else Game.Status.PLAYING
        game.save()
        _keep_date(game, record.played)
        Seat.objects.bulk_create(_seat_rows(game, record.seats, record.shared_phones))
        Move.objects.bulk_create(
            Move(game=game, index=index, seat=seat, notation=notation)
            for index, (seat, notation) in enumerate(
                zip(replayed.movers, record.moves, strict=True)
            )
        )
    return game


def _keep_date(game: Game, played: str) -> None:
    """List an imported game by when it was played, if the record says so."""
    try:
        when = datetime.fromisoformat(played)
    except ValueError:
        return
    if when.tzinfo is not None:
        Game.objects.filter(pk=game.pk).update(created_at=when)


def _seat_rows(
    game: Game, seats: list[SeatRecord], shared_phones: list[tuple[int, ...]]
) -> list[Seat]:
    # A phone's seats are kept together under a key no browser holds (the game is only
    # replayed), so that screens still say "shares Ada's phone".
    phones = {n: key for group in shared_phones for key in [new_player_key()] for n in group}
    rows = []
    bots = 0
    for position, seat in enumerate(seats):
        if seat.kind == BOT:
            bots += 1
            rows.append(
                Seat(
                    game=game,
                    position=position,
                    name=f"Bot {bots}",
                    role=SeatRole.BOT,
                    bot_level=seat.name,
                    bot_number=bots,
                )
            )
        else:
            played_on = PlayedOn.TV if seat.kind == TV else PlayedOn.PHONE
            key = phones.get(position, "")
            row = Seat(game=game, position=position, name=seat.name, played_on=played_on)
            row.player_key = key
            rows.append(row)
    return rows


def final_position(record: Record) -> str:
    """Return the replayed final position and result as plain text (replay_game)."""
    state = replay(record).state
    lines = [f"moves: {state.moves}  turns: {state.turn}  phase: {state.phase}"]
    for n, (seat, player) in enumerate(zip(record.seats, state.players, strict=True)):
        lines.append(
            f"seat {n} ({seat.kind} {seat.name}): {player.points} points, "
            f"{len(player.cards)} cards, tokens {_numbers(tuple(player.tokens))}, "
            f"nobles {_numbers(tuple(player.nobles)) or '-'}"
        )
    lines.append(f"bank: {_numbers(tuple(state.bank))}")
    lines.append("market: " + " | ".join(_numbers(tuple(row)) for row in state.market))
    result = result_of(state)
    if result.status == OVER:
        lines.append(f"result: over, winners {_numbers(result.winners)}")
    else:
        lines.append(f"result: playing, seat {state.current} to act")
    return "\n".join(lines)
