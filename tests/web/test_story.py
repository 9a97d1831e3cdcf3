"""The story of a finished game: told in the background, then drawn on the end screens
and in the replay; never for a game still being played."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html import unescape
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from django.utils import timezone

from game.engine import Outcome, apply_action, new_game, outcome
from game.engine.bots import GreedyBot
from game.engine.story import Story
from game.models import Analysis, Game, Move, new_player_key
from game.records import archive
from game.storage import analyses, household
from game.writer import analysis_process, games
from game.writer.analyst import STALE_AFTER, analyst, order_of, start_process
from tests.web.helpers import Table, game, open_lobby, start
from tests.web.test_archive import finish, finished_game
from tests.web.test_views import client_for

pytestmark = pytest.mark.django_db(transaction=True)

PLAYOUTS = 3  # the real analysis, on a budget a test can wait for


def analysed(g: Game) -> Story:
    analyst.begin(g.pk, PLAYOUTS)
    analyst.wait(timeout=120)
    row = Analysis.objects.get(game=g)
    assert row.status == Analysis.Status.DONE, row
    found = analyses.told(g)
    assert found is not None and found.story is not None
    return found.story


def test_a_finished_game_is_analysed_in_its_own_process_and_kept() -> None:
    g = finished_game(seed=5, names=("Ada", "Ben"), bots=1)
    story = analysed(g)
    assert story.players == 3 and story.playouts == PLAYOUTS
    row = Analysis.objects.get(game=g)
    assert row.done == row.total > 0
    final = story.turns[-1]
    assert sum(final.chances) == pytest.approx(1)


def test_the_tv_story_draws_the_points_at_once_and_the_chances_once_told() -> None:
    g = finished_game(seed=5, names=("Ada", "Ben"), bots=0)
    with override_settings(SPLENDOR_ANALYSIS=True):
        page = Client().get(f"/story/{g.code}/").content.decode()
    assert 'id="points-chart"' in page and 'id="chances-chart"' not in page
    assert 'hx-trigger="every 2s"' in page  # asks again while nothing is told
    assert "story-progress" in page
    analysed(g)
    page = Client().get(f"/story/{g.code}/").content.decode()
    assert 'id="chances-chart"' in page and "hx-trigger" not in page
    assert "turning-point" in page


def test_where_stories_are_not_told_the_end_screens_do_not_wait_for_one() -> None:
    table, g = finished_table()
    with override_settings(SPLENDOR_ANALYSIS=False):
        tv = Client().get(f"/story/{g.code}/").content.decode()
        phone = client_for(table.player(0).key).get(f"/story/{g.code}/mine/").content.decode()
    for page in (tv, phone):
        assert "hx-trigger" not in page and "story-progress" not in page
    assert 'id="points-chart"' in tv and "my-summary" in phone
    assert not Analysis.objects.filter(game=g).exists()


def test_a_finished_game_without_a_story_gets_one_when_its_end_screen_asks() -> None:
    g = finished_game(seed=5, names=("Ada", "Ben"), bots=0)  # its end came with stories off
    with override_settings(SPLENDOR_ANALYSIS=True):
        Client().get(f"/story/{g.code}/")
        analyst.wait(timeout=120)
    assert Analysis.objects.get(game=g).status == Analysis.Status.DONE


def test_a_game_being_played_has_no_story() -> None:
    g = start(open_lobby(("Ada", "Ben")), first_player=0)
    assert Client().get(f"/story/{g.code}/").status_code == 404
    assert analyses.told(game(g.game_id)) is None


def test_the_replay_draws_the_chart_with_links_to_each_round() -> None:
    g = finished_game(seed=5, names=("Ada", "Ben"), bots=0)
    analysed(g)
    page = unescape(Client().get(f"/replay/{g.code}/?step=3").content.decode())
    assert 'id="replay-story"' in page
    assert re.search(rf'href="/replay/{g.code}/\?step=\d+&chart=1"', page)


def finished_table(
    names: tuple[str, ...] = ("Ada", "Ben"), bots: int = 0, seed: int = 5
) -> tuple[Table, Game]:
    table = open_lobby(names, bots=bots, seed=seed)
    return table, finish(start(table, first_player=None))


def test_each_phone_gets_its_own_summary_and_no_one_elses() -> None:
    table, g = finished_table()
    analysed(g)
    ada = client_for(table.player(0).key).get(f"/story/{g.code}/mine/").content.decode()
    assert ada.count('class="my-summary"') == 1 and "Your game" in ada
    assert "best-move" in ada or "worst-move" in ada
    assert "Ben" in ada  # against the winner, or the best of the others for a winner
    assert Client().get(f"/story/{g.code}/mine/").status_code == 404  # no seat: no summary
    stranger = client_for("someone-else").get(f"/story/{g.code}/mine/")
    assert stranger.status_code == 404


def test_a_shared_phone_gets_a_summary_for_each_of_its_players() -> None:
    table, g = finished_table(("Ada", "Ben", "Cy"))
    ada = table.player(0).key
    g.seats.filter(position=1).update(player_key=ada)  # Ben played on Ada's phone
    with override_settings(SPLENDOR_ANALYSIS=True):
        page = client_for(ada).get(f"/story/{g.code}/mine/").content.decode()
    analyst.wait(timeout=120)  # the story it asked for, told before the test's data goes
    assert page.count('class="my-summary"') == 2
    assert "Ada's game" in unescape(page) and "Ben's game" in unescape(page)
    assert 'hx-trigger="every 3s"' in page  # the analysis is not told yet: it asks again


def test_a_finished_game_starts_its_analysis_when_the_setting_is_on() -> None:
    with override_settings(SPLENDOR_ANALYSIS=True, SPLENDOR_ANALYSIS_PLAYOUTS=PLAYOUTS):
        g = finished_game(seed=6, names=("Ada", "Ben"), bots=0)
        analyst.wait(timeout=120)
    assert Analysis.objects.get(game=g).status == Analysis.Status.DONE
    running = start(open_lobby(("Cy", "Di")), first_player=0)
    assert not Analysis.objects.filter(game_id=running.game_id).exists()


def test_an_analysis_left_by_a_stopped_server_is_taken_up_again() -> None:
    g = finished_game(seed=5, names=("Ada", "Ben"), bots=0)
    Analysis.objects.create(game=g, playouts=PLAYOUTS, status=Analysis.Status.RUNNING, done=4)
    analyst.catch_up()  # running, but written to just now: a living process has it
    analyst.wait(timeout=120)
    assert Analysis.objects.get(game=g).status == Analysis.Status.RUNNING
    Analysis.objects.filter(game=g).update(updated_at=timezone.now() - STALE_AFTER * 2)
    analyst.catch_up()
    analyst.wait(timeout=120)
    assert Analysis.objects.get(game=g).status == Analysis.Status.DONE


def test_an_analysis_that_fails_says_so_and_the_points_still_show() -> None:
    g = finished_game(seed=5, names=("Ada", "Ben"), bots=0)
    last = Move.objects.filter(game=g).order_by("index").last()
    assert last is not None
    Move.objects.filter(pk=last.pk).update(notation="take:zzz")  # a record gone bad
    analyst.begin(g.pk, PLAYOUTS)
    analyst.wait(timeout=120)
    assert Analysis.objects.get(game=g).status == Analysis.Status.FAILED
    Move.objects.filter(pk=last.pk).update(notation=last.notation)
    page = Client().get(f"/story/{g.code}/").content.decode()
    assert "could not be worked out" in page and "hx-trigger" not in page
    assert 'id="points-chart"' in page


def test_an_imported_finished_game_is_analysed_by_the_import_command(tmp_path: Path) -> None:
    g = finished_game(seed=5, names=("Ada", "Ben"), bots=0)
    path = tmp_path / "game.txt"
    path.write_text(archive.write(archive.record_of(g)), encoding="utf-8")
    out = StringIO()
    with override_settings(SPLENDOR_ANALYSIS_PLAYOUTS=PLAYOUTS):
        call_command("import_game", str(path), stdout=out)
    copy = Game.objects.exclude(pk=g.pk).get(status=Game.Status.OVER)
    assert Analysis.objects.get(game=copy).status == Analysis.Status.DONE
    assert "Analysis: done." in out.getvalue()


def stepped_aside(pid: int) -> bool:
    """At nice 19 and, where the system has it, SCHED_IDLE."""
    if os.getpriority(os.PRIO_PROCESS, pid) != analysis_process.NICENESS:
        return False
    return not hasattr(os, "SCHED_IDLE") or os.sched_getscheduler(pid) == os.SCHED_IDLE


def test_the_analysis_process_runs_only_when_nothing_else_wants_the_core() -> None:
    """Niceness 19 and, where the system has it, SCHED_IDLE: what bench_web's figure for
    games played beside an analysis relies on (docs/benchmarks.md)."""
    g = finished_game(seed=5, names=("Ada", "Ben"), bots=0)
    with override_settings(SPLENDOR_ANALYSIS_LOW_PRIORITY=True):  # as a server runs it
        order = order_of(g, playouts=10_000)  # busy far longer than this test
    with start_process(order) as child:  # busy far longer than this
        try:
            # Its first line says it is at work, which it starts after stepping aside.
            assert child.stdout is not None
            assert json.loads(child.stdout.readline()) == {"done": 0, "total": 0}
            assert stepped_aside(child.pid)
        finally:
            child.kill()


def test_an_analysis_process_whose_server_died_before_the_game_came_ends_quietly() -> None:
    """A server killed as it started an analysis leaves it no game to read (its standard
    input ends): the process ends without a traceback in the server's log, which the
    crash tests read (tests/web/test_server_faults.py); the row is taken up again later."""
    done = subprocess.run(
        [sys.executable, "-m", "game.writer.analysis_process"],
        cwd=Path(__file__).resolve().parents[2],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (1, "", "")


def test_a_records_story_is_for_people_and_an_import_tells_it_anew() -> None:
    g = finished_game(seed=5, names=("Ada", "Ben"), bots=0)
    assert "# round" not in archive.write(archive.record_of(g))  # not told yet: nothing
    story = analysed(g)
    text = archive.write(archive.record_of(g))
    rounds = [line for line in text.splitlines() if line.startswith("# round ")]
    assert len(rounds) == len(story.rounds())
    last = story.rounds()[-1]
    chances = " ".join(str(round(100 * c)) for c in last.chances)
    assert rounds[-1].endswith(f"chances {chances}")
    turning = story.turning_point()
    assert turning is not None and f"# turning point: round {turning.turn.round}," in text
    copy = archive.store(archive.read(text))  # the comments change nothing of the game
    assert list(copy.moves.values_list("notation", flat=True)) == list(
        g.moves.values_list("notation", flat=True)
    )


def test_the_players_page_counts_comebacks_from_the_stories() -> None:
    first = finished_game(seed=5, names=("Ada", "Ben"), bots=0)
    story = analysed(first)
    row = Analysis.objects.get(game=first)
    assert row.lowest == [story.lowest(seat) for seat in range(2)]
    second = finished_game(seed=6, names=("Ada", "Ben"), bots=0)
    winners = {g.pk: outcome_of(g).winners for g in (first, second)}
    # The first game's winner had once fallen to 10%, the second's never below 50%.
    low = {first.pk: 0.1, second.pk: 0.5}
    for g in (first, second):
        lowest = [0.0, 0.0]
        for seat in winners[g.pk]:
            lowest[seat] = low[g.pk]
        Analysis.objects.update_or_create(
            game=g, defaults={"playouts": 1, "status": Analysis.Status.DONE, "lowest": lowest}
        )
    expected = dict.fromkeys(("Ada", "Ben"), 0)
    for seat in winners[first.pk]:
        expected[("Ada", "Ben")[seat]] += 1
    figures = {f.entry.name: f.comebacks for f in household.figures(household.games_played())}
    assert figures == expected
    page = Client().get("/players/").content.decode()
    for name, count in expected.items():
        line = re.search(rf'data-key="{name.lower()}">.*?</tr>', page, re.S)
        assert line and f'data-label="Comebacks">{count}</td>' in line.group(0)


def outcome_of(g: Game) -> Outcome:
    state = games.load_state(g)
    assert state is not None
    found = outcome(state)
    assert found is not None
    return found


def test_a_phone_whose_player_was_visited_by_nobles_shows_them() -> None:
    g = archive.store(greedy_record(3, seed=2))  # a noble visits seat 2
    analysed(g)
    state = games.load_state(g)
    assert state is not None
    seat = next(s for s, player in enumerate(state.players) if player.nobles)
    key = new_player_key()  # an imported game's seats have no phone: give this one one
    g.seats.filter(position=seat).update(player_key=key)
    page = client_for(key).get(f"/story/{g.code}/mine/")
    assert page.status_code == 200
    count = len(state.players[seat].nobles)
    text = unescape(page.content.decode())
    assert f"{count} noble{'s' if count > 1 else ''} visited you." in text
    assert text.count('class="noble') >= count


def greedy_record(players: int, seed: int) -> archive.Record:
    """A whole game of greedy bots, its seats people by name."""
    state = new_game(players, seed)
    bots = [GreedyBot(seed * 10 + s) for s in range(players)]
    moves = []
    while not state.is_over:
        action = bots[state.current].choose(state, state.current)
        apply_action(state, action)
        moves.append(action.notation())
    names = ("Ada", "Ben", "Cy", "Di")[:players]
    return archive.Record(
        seed=seed,
        seats=[archive.SeatRecord(archive.HUMAN, name) for name in names],
        first_player=state.first_player,
        moves=moves,
        result=archive.result_of(state),
    )
