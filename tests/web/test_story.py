"""The story of a finished game: told in the background, then drawn on the end screens
and in the replay; never for a game still being played."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.test import Client, override_settings

from game.engine.story import Story
from game.models import Analysis, Game
from game.storage import analyses
from game.writer.analyst import analyst
from tests.web.helpers import game, open_lobby, start
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
    page = Client().get(f"/story/{g.code}/").content.decode()
    assert 'id="points-chart"' in page and 'id="chances-chart"' not in page
    assert 'hx-trigger="every 2s"' in page  # asks again while nothing is told
    analysed(g)
    page = Client().get(f"/story/{g.code}/").content.decode()
    assert 'id="chances-chart"' in page and "hx-trigger" not in page
    assert "turning-point" in page


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
