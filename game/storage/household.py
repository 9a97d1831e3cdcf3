"""The household history: who played the games kept on this server, and who won.

Figures come from the finished games only (a game is over once, then never
changes): each seat's name, matched without regard to case, and the result the
engine gives for the game's snapshot. Bots count by their level, a stand-in as
the player it played for. A forgotten seat (Seat.forgotten) is left out, and
only it: the others' games and figures stay as they were.

Names are matched in Python with str.casefold(): SQLite's lower() folds ASCII
only, so "ŁUKASZ" and "łukasz" would be two players there and one on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from game.bot_levels import level_of
from game.engine import GameState, outcome
from game.engine.state import Outcome
from game.engine.vocabulary import BotLevel, SeatRole
from game.models import Analysis, Game, Seat
from game.storage.names import clean_name

BOT_KEY = "bot:"  # a bot level's key: "bot:hard"; a player's key is their folded name
_STATES_AT_ONCE = 500  # game ids in one query (SQLite allows 999 parameters in older builds)
# A win counts as a comeback when the winner's chance had fallen to this or less.
COMEBACK_BELOW = 0.25


@lru_cache(maxsize=4096)
def key_of(name: str) -> str:
    """The key a player's name is matched by: "Ada", "ADA" and " ada " are one player."""
    return clean_name(name).casefold()


def bot_label(level: str) -> str:
    """A bot level's name in the history, in the language being rendered."""
    labels = {
        BotLevel.EASY: _("Bot (easy)"),
        BotLevel.MEDIUM: _("Bot (medium)"),
        BotLevel.HARD: _("Bot (hard)"),
    }
    return labels[level_of(level)]


def ordinal(number: int) -> str:
    """Say a count in order: "5th" in English, "5." in German and Finnish."""
    if number % 100 in (11, 12, 13):
        pattern = pgettext("ordinal 11, 12, 13", "%(number)sth")
    elif number % 10 == 1:
        pattern = pgettext("ordinal 1", "%(number)sst")
    elif number % 10 == 2:
        pattern = pgettext("ordinal 2", "%(number)snd")
    elif number % 10 == 3:
        pattern = pgettext("ordinal 3", "%(number)srd")
    else:
        pattern = pgettext("ordinal 0, 4-9", "%(number)sth")
    return pattern % {"number": number}


def win_label(name: str, wins: int) -> str:
    """What the TV's end screen says of a winner: "Ada's 5th win"."""
    return _("%(name)s's %(ordinal)s win") % {"name": name, "ordinal": ordinal(wins)}


def own_win_label(wins: int) -> str:
    """What a winner's phone says: "Your 5th win"."""
    return _("Your %(ordinal)s win") % {"ordinal": ordinal(wins)}


# ---------------------------------------------------------------- the games played


@dataclass(frozen=True, slots=True)
class Entry:
    """Who sat in a seat, for the history: a player by name, or a bot level."""

    key: str
    name: str  # a player's name as typed; "" for a bot level (bot_label says it)
    level: str = ""  # a bot's level; "" for a player

    @property
    def label(self) -> str:
        return bot_label(self.level) if self.level else self.name


@dataclass(frozen=True, slots=True)
class Placing:
    """How one entry did in one game: its best seat there (a level may have two bots)."""

    entry: Entry
    points: int
    place: int  # 1 is first; players who share a win share place 1
    won: bool
    # A win after the entry's chance of winning had fallen to COMEBACK_BELOW or less
    # (the game's analysis, game.engine.story; False for a game not analysed).
    comeback: bool = False


@dataclass(frozen=True, slots=True)
class Played:
    """One finished game: when, and how each entry in it did."""

    game_id: int
    code: str
    when: datetime
    placings: dict[str, Placing]  # by entry key

    def better(self, first: str, second: str) -> bool:
        """True if `first` finished ahead of `second` in this game."""
        return self.placings[first].place < self.placings[second].place


@dataclass(frozen=True, slots=True)
class _SeatRow:
    game_id: int
    position: int
    name: str
    role: str
    bot_level: str


def _entry(seat: _SeatRow) -> Entry:
    return _entry_of(seat.name, seat.role == SeatRole.BOT, seat.bot_level)


# A household has a few names, on thousands of seats.
@lru_cache(maxsize=4096)
def _entry_of(name: str, bot: bool, bot_level: str) -> Entry:
    if bot:
        level = level_of(bot_level)
        return Entry(BOT_KEY + level, "", level)
    name = clean_name(name)
    return Entry(name.casefold(), name)


def _finished(until: Game | None) -> Any:
    """The finished games, oldest first; with `until`, only those up to that one."""
    games = Game.objects.filter(status=Game.Status.OVER)
    if until is not None:
        games = games.filter(
            Q(created_at__lt=until.created_at) | Q(created_at=until.created_at, id__lte=until.id)
        )
    return games


def _seat_rows(games: Any) -> dict[int, list[_SeatRow]]:
    """The seats of these games that the history counts, by game (one query)."""
    rows: dict[int, list[_SeatRow]] = {}
    found = (
        Seat.objects.filter(game__in=games.values("id"), forgotten=False)
        .order_by()
        .values_list("game_id", "position", "name", "role", "bot_level")
    )
    for row in found.iterator(chunk_size=2000):
        seat = _SeatRow(*row)
        if seat.name.strip() or seat.role == SeatRole.BOT:
            rows.setdefault(seat.game_id, []).append(seat)
    return rows


def _outcome(snapshot: Any) -> Outcome | None:
    """How a finished game ended, from its snapshot (SnapshotField reads it as a dict)."""
    return outcome(GameState.from_dict(snapshot)) if snapshot else None


# A finished game never changes: its outcome is read from its snapshot once per
# process, kept by the game's id and creation time (on SQLite the id of a deleted
# newest game comes back).
_outcomes: dict[tuple[int, datetime], Outcome | None] = {}
_OUTCOMES_KEPT = 20_000


def _outcomes_of(games: list[tuple[int, str, datetime]]) -> dict[int, Outcome | None]:
    """Each game's outcome by id: remembered, or read from the snapshots in one query."""
    found = {game_id: _outcomes.get((game_id, when)) for game_id, _code, when in games}
    unread = [game_id for game_id, _code, when in games if (game_id, when) not in _outcomes]
    if unread:
        if len(_outcomes) + len(unread) > _OUTCOMES_KEPT:
            _outcomes.clear()
        rows = Game.objects.filter(pk__in=unread).values_list("id", "created_at", "state")
        for game_id, when, snapshot in rows:
            found[game_id] = _outcomes[(game_id, when)] = _outcome(snapshot)
    return found


def _results(game_ids: list[int]) -> Iterator[tuple[int, str, datetime, Outcome]]:
    """Each game's code, date and outcome, a few queries in all."""
    for start in range(0, len(game_ids), _STATES_AT_ONCE):
        chunk = game_ids[start : start + _STATES_AT_ONCE]
        games = list(Game.objects.filter(pk__in=chunk).values_list("id", "code", "created_at"))
        outcomes = _outcomes_of(games)
        for game_id, code, when in games:
            ended = outcomes[game_id]
            if ended is not None:
                yield game_id, code, when, ended


def _lowest_of(game_ids: list[int]) -> dict[int, list[float]]:
    """Each analysed game's lowest chance per seat (a query per _STATES_AT_ONCE games)."""
    found: dict[int, list[float]] = {}
    for start in range(0, len(game_ids), _STATES_AT_ONCE):
        chunk = game_ids[start : start + _STATES_AT_ONCE]
        rows = Analysis.objects.filter(game_id__in=chunk, lowest__isnull=False)
        for game_id, low in rows.values_list("game_id", "lowest"):
            found[game_id] = [float(chance) for chance in low or ()]
    return found


def _placings(
    seats: list[_SeatRow], ended: Outcome, lowest: list[float] | None = None
) -> dict[str, Placing]:
    places = {position: place for place, position in enumerate(ended.ranking, start=1)}
    for position in ended.winners:  # a shared win is first place for each winner
        places[position] = 1
    placings: dict[str, Placing] = {}
    for seat in seats:
        if seat.position >= len(ended.points):
            continue
        entry = _entry(seat)
        won = seat.position in ended.winners
        low = lowest[seat.position] if lowest and seat.position < len(lowest) else 1.0
        placing = Placing(
            entry,
            ended.points[seat.position],
            places[seat.position],
            won,
            comeback=won and low <= COMEBACK_BELOW,
        )
        kept = placings.get(entry.key)
        if kept is None or (placing.place, -placing.points) < (kept.place, -kept.points):
            placings[entry.key] = placing
    return placings


def games_played(until: Game | None = None, keys: Iterable[str] | None = None) -> list[Played]:
    """The finished games kept, oldest first, with how each entry did.

    `until` stops at that game (in the order games were played); `keys` keeps
    only the games in which one of these entries played.
    """
    games = _finished(until)
    seats = _seat_rows(games)
    if keys is not None:
        wanted = set(keys)
        seats = {
            game_id: rows
            for game_id, rows in seats.items()
            if any(_entry(seat).key in wanted for seat in rows)
        }
    lowest = _lowest_of(sorted(seats))
    played = [
        Played(game_id, code, when, _placings(seats[game_id], ended, lowest.get(game_id)))
        for game_id, code, when, ended in _results(sorted(seats))
    ]
    played.sort(key=lambda p: (p.when, p.game_id))
    return played


# ---------------------------------------------------------------- figures


@dataclass(frozen=True, slots=True)
class Figures:
    """One entry's line on the Players page."""

    entry: Entry
    games: int
    wins: int
    average: float
    best: int
    last: Played
    played: tuple[Played, ...] = ()  # the entry's games, oldest first
    comebacks: int = 0  # wins after its chance had fallen to COMEBACK_BELOW or less

    @property
    def last_placing(self) -> Placing:
        return self.last.placings[self.entry.key]

    def recent(self, count: int) -> list[tuple[Played, Placing]]:
        """The entry's last `count` games and how it did in each, oldest first."""
        key = self.entry.key
        return [(game, game.placings[key]) for game in self.played[-count:]] if count > 0 else []

    def win_rates(self) -> list[float]:
        """The share of its games the entry had won after each of them (a shared win counts)."""
        key = self.entry.key
        rates, wins = [], 0
        for number, game in enumerate(self.played, start=1):
            wins += game.placings[key].won
            rates.append(wins / number)
        return rates


def figures(played: list[Played]) -> list[Figures]:
    """Each entry's games, wins (a shared win counts for each), average and best points
    and last game; players first by wins, then bot levels."""
    by_key: dict[str, list[Played]] = {}
    for game in played:
        for key in game.placings:
            by_key.setdefault(key, []).append(game)
    found = []
    for key, games in by_key.items():
        placings = [g.placings[key] for g in games]
        points = [p.points for p in placings]
        latest = games[-1]
        found.append(
            Figures(
                entry=latest.placings[key].entry,  # as the name was typed last
                games=len(games),
                wins=sum(p.won for p in placings),
                average=sum(points) / len(points),
                best=max(points),
                last=latest,
                played=tuple(games),
                comebacks=sum(p.comeback for p in placings),
            )
        )
    found.sort(key=lambda f: (bool(f.entry.level), -f.wins, -f.games, f.entry.key))
    return found


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """Two entries in the games both played."""

    first: Entry
    second: Entry
    together: int
    first_wins: int
    second_wins: int
    first_ahead: int  # games in which the first finished ahead of the second
    second_ahead: int
    last: Played | None


def head_to_head(played: list[Played], first: Figures, second: Figures) -> HeadToHead:
    """How the two did in the games both played (a shared win counts for each)."""
    a, b = first.entry.key, second.entry.key
    both = [g for g in played if a in g.placings and b in g.placings]
    return HeadToHead(
        first=first.entry,
        second=second.entry,
        together=len(both),
        first_wins=sum(g.placings[a].won for g in both),
        second_wins=sum(g.placings[b].won for g in both),
        first_ahead=sum(g.better(a, b) for g in both),
        second_ahead=sum(g.better(b, a) for g in both),
        last=both[-1] if both else None,
    )


# ---------------------------------------------------------------- the end screen


def wins_at_end(game: Game, seats: Iterable[Seat]) -> dict[int, int]:
    """Each winning player's wins in the household, this game included, by seat position.

    Counts the games played up to this one, so an old game's end screen says
    the same later. Bots are left out (their level is not a player).
    """
    return dict(_wins_at_end(game.id, game.created_at, _seat_key(seats)))


def _seat_key(seats: Iterable[Seat]) -> tuple[tuple[int, str, bool], ...]:
    return tuple((s.position, s.name, s.role == SeatRole.BOT) for s in seats if not s.forgotten)


# A finished game's end screen asks again at each connect and resync: once per
# game and process is enough (Forget clears it).
@lru_cache(maxsize=256)
def _wins_at_end(
    game_id: int, created_at: datetime, seats: tuple[tuple[int, str, bool], ...]
) -> tuple[tuple[int, int], ...]:
    humans = {position: key_of(name) for position, name, bot in seats if not bot}
    if not humans:
        return ()
    until = Game(id=game_id, created_at=created_at)
    played = games_played(until, humans.values())
    this = next((g for g in played if g.game_id == game_id), None)
    if this is None:
        return ()
    wins = {
        key: sum(g.placings[key].won for g in played if key in g.placings)
        for key in humans.values()
    }
    return tuple(
        (position, wins[key])
        for position, key in sorted(humans.items())
        if key in this.placings and this.placings[key].won
    )


# ---------------------------------------------------------------- forgetting a player


def forget(name: str) -> int:
    """Leave this player (any spelling) out of the history; return how many seats.

    No game is deleted and no other seat changes: the player's games stay in the
    list of games and their replays, and the others keep their figures.
    """
    key = key_of(name)
    if not key:
        return 0
    candidates = Seat.objects.filter(forgotten=False).exclude(role=SeatRole.BOT)
    ids = [
        seat_id
        for seat_id, seat_name in candidates.values_list("id", "name").iterator(chunk_size=2000)
        if key_of(seat_name) == key
    ]
    with transaction.atomic():
        for start in range(0, len(ids), _STATES_AT_ONCE):
            Seat.objects.filter(pk__in=ids[start : start + _STATES_AT_ONCE]).update(forgotten=True)
    _wins_at_end.cache_clear()
    return len(ids)
