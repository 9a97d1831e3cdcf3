"""What tests/conftest.py's `pytest_sessionstart` relies on: under the README's command
(pytest-cov with xdist's workers), a `no_cover` test runs untraced, and every other test
is traced by the worker's coverage. Without the stray coverage stopped, the first test
here failed in every worker (pytest-cov's pause let the stray one trace on); if an
upgrade of pytest-cov or coverage changes either behaviour, one of these fails."""

from __future__ import annotations

import sys

import coverage
import pytest

from game.engine.setup import new_game


@pytest.mark.no_cover
def test_a_no_cover_test_runs_untraced() -> None:
    new_game(2, seed=1)  # the game's code runs, as in a playout
    assert sys.gettrace() is None, f"traced by {sys.gettrace()!r}"


def test_the_other_tests_are_traced_when_coverage_runs() -> None:
    new_game(2, seed=1)
    measuring = coverage.Coverage.current() is not None  # with --cov, as the README runs it
    assert (sys.gettrace() is not None) == measuring, (measuring, sys.gettrace())
