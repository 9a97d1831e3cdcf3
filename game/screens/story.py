"""The story of a finished game as the screens draw it: charts and sentences.

The points per round come from replaying the game (so the end screen draws them at
once); each seat's chance of winning, the marks and the turning point come from
the analysis (game.engine.story), once it is done. Only finished games get here
(game.storage.analyses.told): chances are never shown while a game is played.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from markupsafe import Markup

from game.engine.actions import parse_action
from game.engine.cards import card
from game.engine.colours import GEMS, NAMES
from game.engine.projection import card_view, noble_view
from game.engine.rules import apply_action, replay
from game.engine.rules import outcome as state_outcome
from game.engine.setup import new_game
from game.engine.state import GameState
from game.engine.story import PlayedGame, Story, Swing, TurnPoint
from game.languages import COLOUR_LABELS
from game.screens import charts, jinja
from game.storage import history
from game.storage.analyses import Told


# The TV's charts are drawn for the 720p screen's size (1 unit = 1 CSS px there),
# so their text is TV_FONT px or more on any TV; the phone's for a 360 px phone.
@dataclass(frozen=True, slots=True)
class Size:
    """A chart's viewBox and its text size, in the same units."""

    width: int
    height: int
    font: int


TV_CHART = Size(760, 270, 24)
REPLAY_CHART = Size(1100, 320, 24)
PHONE_CHART = Size(360, 200, 14)
LEAD_CHANGES_TOLD = 2  # the TV tells the last few lead changes, not all of them
TRAILING_SPACE = re.compile(r"\s+</span>")


@dataclass(frozen=True, slots=True)
class Points:
    """Every seat's points at the deal and at the end of each round (the last may be cut
    short), and the number of turns played by then."""

    rounds: tuple[tuple[int, ...], ...]
    turns: tuple[int, ...]


def points_by_round(game: PlayedGame) -> Points:
    """Replay the game: each seat's prestige after every round (cheap: no playouts)."""
    state = new_game(game.players, game.seed, game.first_player, game.no_gold_small)
    rounds = [tuple(p.points for p in state.players)]
    turns = [0]
    for text in game.moves:
        apply_action(state, parse_action(text))
        if state.turn != turns[-1] and state.turn % game.players == 0:
            rounds.append(tuple(p.points for p in state.players))
            turns.append(state.turn)
    if state.turn != turns[-1]:
        rounds.append(tuple(p.points for p in state.players))
        turns.append(state.turn)
    return Points(tuple(rounds), tuple(turns))


def _round_labels(count: int) -> list[str]:
    return [_("Deal") if x == 0 else str(x) for x in range(count)]


def _link_label(x: int) -> str:
    """What a round's link on a chart says to a screen reader."""
    return _("Go to the deal") if x == 0 else _("Go to round %(round)s") % {"round": x}


def _series(names: Sequence[str], rows: Sequence[Sequence[float]]) -> list[charts.Series]:
    return [
        charts.Series(name, position, [row[position] for row in rows])
        for position, name in enumerate(names)
    ]


def _mark_label(point: TurnPoint, kind: str, thing: int, names: Sequence[str]) -> str:
    name = names[point.seat] if point.seat >= 0 else ""
    if kind == "noble":
        return _("Round %(round)s: a noble visited %(name)s (3 points)") % {
            "round": point.round,
            "name": name,
        }
    bought = card(thing)
    return _("Round %(round)s: %(name)s bought a level %(level)s card worth %(points)s") % {
        "round": point.round,
        "name": name,
        "level": bought.level,
        "points": bought.points,
    }


def _marks(story: Story | None, names: Sequence[str]) -> list[charts.ChartMark]:
    if story is None:
        return []
    return [
        charts.ChartMark(point.round, point.seat, kind, _mark_label(point, kind, thing, names))
        for point, kind, thing in story.marks()
    ]


def points_chart(
    points: Points,
    names: Sequence[str],
    story: Story | None,
    size: Size,
    link: Callable[[int], str] | None = None,
    current: int | None = None,
) -> Markup:
    top = max(15, *(max(row) for row in points.rounds))
    return charts.line_chart(
        _series(names, points.rounds),
        x_labels=_round_labels(len(points.rounds)),
        y_max=top,
        y_ticks=[0, 5, 10, 15] + ([top] if top > 15 else []),
        marks=_marks(story, names),
        current=current,
        link=link,
        link_label=_link_label,
        title=_("Prestige points after each round"),
        description=_points_description(points, names),
        width=size.width,
        height=size.height,
        font=size.font,
    )


def _points_description(points: Points, names: Sequence[str]) -> str:
    last = points.rounds[-1]
    return "; ".join(
        _("%(name)s: %(points)s points") % {"name": name, "points": last[position]}
        for position, name in enumerate(names)
    )


def chances_chart(
    story: Story,
    names: Sequence[str],
    size: Size,
    link: Callable[[int], str] | None = None,
    current: int | None = None,
) -> Markup:
    rounds = story.rounds()
    rows = [list(point.chances) for point in rounds]
    return charts.line_chart(
        _series(names, rows),
        x_labels=_round_labels(len(rounds)),
        y_max=1,
        y_ticks=[0, 0.25, 0.5, 0.75, 1],
        percent=True,
        current=current,
        link=link,
        link_label=_link_label,
        title=_("Chance of winning after each round, as the table could see it"),
        description=_(
            "Estimated from many games played out from each position by the hard bot's "
            "search, without knowing the decks or anyone's face-down reserved cards."
        ),
        width=size.width,
        height=size.height,
        font=size.font,
    )


# ---------------------------------------------------------------- in words


def _percent(chance: float) -> int:
    return round(100 * chance)


def _turn_sentence(game: PlayedGame, names: Sequence[str], number: int) -> Markup:
    """What happened in turn `number` (1-based), in the game log's own words."""
    told = history.replay_history(
        game.players,
        game.seed,
        game.moves,
        first_player=game.first_player,
        no_gold_small=game.no_gold_small,
    )
    for turn in told.turns:
        if turn.number == number:
            html = jinja.render("parts/turn_events.html", {"turn": turn, "name": names[turn.seat]})
            # Django's safe string, rendered escaped; a sentence's end follows its last word.
            return Markup(TRAILING_SPACE.sub("</span>", str(html)).strip())
    return Markup("")


def _swing_words(swing: Swing, names: Sequence[str]) -> str:
    values = {
        "name": names[swing.seat],
        "before": _percent(swing.before),
        "after": _percent(swing.after),
    }
    if swing.after >= swing.before:
        return _("%(name)s's chance rose from %(before)s%% to %(after)s%%.") % values
    return _("%(name)s's chance fell from %(before)s%% to %(after)s%%.") % values


def _lead_lines(story: Story, names: Sequence[str]) -> list[str]:
    lines = []
    for change in story.lead_changes()[-LEAD_CHANGES_TOLD:]:
        leader = change.leaders[0]
        lines.append(
            _("Round %(round)s: %(name)s took the lead with %(points)s points.")
            % {
                "round": change.turn.round,
                "name": names[leader],
                "points": change.turn.points[leader],
            }
        )
    return lines


def words(story: Story, game: PlayedGame, names: Sequence[str]) -> dict[str, Any]:
    """The turning point and the lead changes, for the templates."""
    turning = story.turning_point()
    found: dict[str, Any] = {"leads": _lead_lines(story, names), "turning": None}
    if turning is not None:
        found["turning"] = {
            "round": turning.turn.round,
            "what": _turn_sentence(game, names, turning.turn.turn),
            "swing": _swing_words(turning, names),
        }
    return found


# ---------------------------------------------------------------- the screens


def tv_context(told: Told | None, game: PlayedGame, names: Sequence[str]) -> dict[str, Any]:
    """The TV end screen's story: the points at once, the chances once analysed."""
    story = told.story if told else None
    context: dict[str, Any] = {
        "told": told,
        "points_chart": points_chart(points_by_round(game), names, story, TV_CHART),
        "chances_chart": None,
        "words": None,
        "names": names,
        "marks": [charts.seat_mark(p) for p in range(len(names))],
        "mark_keys": {kind: charts.mark_key(kind) for kind in charts.MARK_KINDS},
    }
    if story is not None:
        context["chances_chart"] = chances_chart(story, names, TV_CHART)
        context["words"] = words(story, game, names)
    return context


def _colour_bars(state: GameState, position: int) -> list[charts.Bar]:
    """The seat's purchased cards per gem colour (the label says the colour)."""
    counts = [0] * len(GEMS)
    for card_id in state.players[position].cards:
        counts[card(card_id).bonus] += 1
    return [charts.Bar(str(COLOUR_LABELS[NAMES[c]]), counts[c], f"bar-{NAMES[c]}") for c in GEMS]


def _action_of(notation: str) -> dict[str, Any] | None:
    """A move as the templates describe it (story/action.html), or None for none."""
    if not notation:
        return None
    action = parse_action(notation)
    return {
        "kind": action.kind,
        "gems": [NAMES[c] for c in action.gems],
        "card": card_view(action.card) if action.card else None,
        "level": action.level,
    }


def _judged(story: Story, swing: Swing | None) -> dict[str, Any] | None:
    """One of the seat's turns as the analysis judged it, and the hard bot's choice there."""
    if swing is None:
        return None
    return {
        "round": swing.turn.round,
        "played": _action_of(swing.turn.moves[0]) if swing.turn.moves else None,
        "before": _percent(swing.before),
        "after": _percent(swing.after),
        "better": _action_of(story.better.get(swing.turn.turn, "")),
    }


def _rival(state: GameState, position: int) -> int:
    """The winner to compare with; for a winner, the best of the others."""
    result = state_outcome(state)
    winners = [w for w in (result.winners if result else ()) if w != position]
    if winners:
        return winners[0]
    others = [s for s in range(state.num_players) if s != position]
    return max(others, key=lambda s: state.players[s].points)


def phone_context(
    told: Told | None, game: PlayedGame, names: Sequence[str], position: int
) -> dict[str, Any]:
    """A phone's own summary: its points against the winner's, its cards by colour, its
    nobles, and the turns the analysis liked best and least."""
    state = replay(
        game.players,
        game.seed,
        game.moves,
        first_player=game.first_player,
        no_gold_small=game.no_gold_small,
    )
    rival = _rival(state, position)
    points = points_by_round(game)
    pair = [names[position], names[rival]]
    rows = [(row[position], row[rival]) for row in points.rounds]
    story = told.story if told else None
    return {
        "name": names[position],
        "position": position,
        "rival": names[rival],
        "points_chart": charts.line_chart(
            [
                charts.Series(pair[0], position, [r[0] for r in rows]),
                charts.Series(pair[1], rival, [r[1] for r in rows]),
            ],
            x_labels=_round_labels(len(rows)),
            y_max=max(15, *(max(r) for r in rows)),
            y_ticks=[0, 5, 10, 15],
            title=_("Your points and %(name)s's after each round") % {"name": names[rival]},
            description=_points_description(points, names),
            width=PHONE_CHART.width,
            height=PHONE_CHART.height,
            font=PHONE_CHART.font,
        ),
        "bars": charts.bars(
            _colour_bars(state, position),
            title=_("Cards bought by colour"),
            description=_("How many cards of each colour you bought."),
            width=PHONE_CHART.width,
            font=PHONE_CHART.font,
        ),
        "nobles": [noble_view(n) for n in state.players[position].nobles],
        "best": _judged(story, story.best_turn(position)) if story else None,
        "worst": _judged(story, story.worst_turn(position)) if story else None,
        "told": told,
    }
