"""Shared pytest configuration (keep it small: engine tests need no Django fixtures)."""

import compileall
import os
from collections.abc import Iterator
from pathlib import Path

import coverage
import pytest
from hypothesis import settings as hypothesis_settings

BASE_DIR = Path(__file__).resolve().parent.parent

# Tests never assert a duration (README, "Development"). Hypothesis's deadline (200 ms an
# example) is one, and parallel tests on a busy machine miss it: test_inbound failed as
# "flaky" with an example that took 302 ms, then 35 ms when Hypothesis tried it again.
hypothesis_settings.register_profile("splendor", deadline=None)
hypothesis_settings.load_profile("splendor")


@pytest.fixture
def base_dir() -> Path:
    """Return the project root (where manage.py lives)."""
    return BASE_DIR


# The fault tests at the real timings wait on real seconds (minutes each, about 9 in
# all) and compute little: two workers run them one after another, taking turns in the
# order collected (each worker with its own real-clock servers), while the others keep
# both cores busy. Spread over every worker, they left the cores idle at the start of a
# run; on one worker, they would end last once the rest takes under 9 minutes.
REAL_CLOCK_GROUP = "real-clock"
REAL_CLOCK_WORKERS = 2


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> Iterator[None]:
    """Before the other plugins: keep the tests of a module that share a module-scoped
    fixture (a server of its own, as tests/browser/test_faults.py's) on one pytest-xdist
    worker, so it starts once, not on every worker (`--dist loadgroup`; a plain run
    ignores the mark). After them (pytest-django's order), in a worker: the order in
    which the workers take the tests (`_dispatch_order`)."""
    real_clock = 0
    for item in items:
        if item.get_closest_marker("real_clock"):
            turn = real_clock % REAL_CLOCK_WORKERS
            item.add_marker(pytest.mark.xdist_group(f"{REAL_CLOCK_GROUP}-{turn}"))
            real_clock += 1
        info = getattr(item, "_fixtureinfo", None)
        if info is None or item.get_closest_marker("xdist_group"):
            continue
        if any(defs[-1].scope == "module" for defs in info.name2fixturedefs.values() if defs):
            item.add_marker(pytest.mark.xdist_group(f"module-{item.path.stem}"))
    yield
    if os.environ.get("PYTEST_XDIST_WORKER"):
        _dispatch_order(items)


def _dispatch_order(items: list[pytest.Item]) -> None:
    """Sort the tests in the order pytest-xdist's workers take them, each its next one
    when it is free (`--no-loadscope-reorder` keeps this order; a group goes where its
    latest test would): the long ones first, so that none starts last while the other
    workers have run out of tests, in pytest-django's order (Django's) where it matters.

    0. the real-clock groups (the longest, mostly waiting) and the other groups without a
       browser (the benchmarks, the engine's stories);
    1. slow tests without a database;
    2. database tests, the slow ones first;
    3. transactional database tests, the slow ones first: after the database tests, on
       every worker, as pytest-django has them, because their flush at the end empties
       the tables the migrations filled (the cards and nobles: test_dataset fails);
    4. browser modules with a server of their own (test_faults' and test_rest's on the
       compressed clock wait much of their time: begun with the real-clock groups, they
       left both cores half idle for the first minutes), then the other browser tests;
    5. the short rest.
    """
    ranks = {item.nodeid: _dispatch_rank(item) for item in items}
    groups: dict[str, tuple[int, bool]] = {}
    for item in items:
        group = _group(item)
        if group:
            groups[group] = max(groups.get(group, ranks[item.nodeid]), ranks[item.nodeid])
    items.sort(key=lambda item: groups.get(_group(item), ranks[item.nodeid]))


def _group(item: pytest.Item) -> str:
    """The test's pytest-xdist group ("" for none), named as xdist names it."""
    names = {
        str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
        for mark in item.iter_markers("xdist_group")
    }
    return "_".join(sorted(names))


def _dispatch_rank(item: pytest.Item) -> tuple[int, bool]:
    """The test's place in `_dispatch_order`, and False to go first within it (slow)."""
    fast = item.get_closest_marker("slow") is None
    marker = item.get_closest_marker("django_db")
    fixtures = getattr(item, "fixturenames", ())
    transactional = "transactional_db" in fixtures or bool(
        marker and (marker.kwargs.get("transaction") or (marker.args and marker.args[0]))
    )
    if transactional:
        return 3, fast
    if marker or "db" in fixtures:
        return 2, fast
    browser = item.get_closest_marker("browser") is not None
    if item.get_closest_marker("xdist_group"):
        return (4, False) if browser and not item.get_closest_marker("real_clock") else (0, fast)
    if not fast:
        return 1, False
    if browser:
        return 4, True
    return 5, False


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Fail a grouped test that pytest-xdist did not group: it names the group in the
    test's node id (`…@module-test_faults`), which pytest 9.2's structured node ids
    silently ignore (pytest-xdist issue 1386), running the group's tests on every worker."""
    grouped = item.get_closest_marker("xdist_group")
    if grouped and item.config.getoption("loadgroup", False) and "@" not in item.nodeid:
        pytest.fail(f"--dist loadgroup did not keep {item.nodeid} in its group on this pytest")


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """In an xdist worker, stop the coverage pytest-cov starts as if for the controller
    (it reads `-n` from the worker's arguments before it knows it is a worker) before it
    starts the worker's own. Left running, it traced on under pytest-cov's pause of the
    worker's coverage, so `no_cover` tests (playouts, browser tests) cost about twice
    their CPU. tests/test_coverage_pause.py pins it."""
    stray = coverage.Coverage.current()
    if stray is not None and hasattr(session.config, "workerinput"):
        stray.stop()
    if not hasattr(session.config, "workerinput"):
        compile_project()


# The project's packages, compiled once before the workers start.
COMPILED = ("game", "splendor_site", "tests")


def compile_project() -> None:
    """Write the project's bytecode (__pycache__) once. Every test server, migration,
    analysis and script is a Python process that imports the project; where
    PYTHONDONTWRITEBYTECODE is set (as on CI machines) none of them writes what it
    compiles, so each compiled the project anew: about 0.27 of the 1.1 CPU-s of a
    `manage.py check`, paid again by each of them."""
    for package in COMPILED:
        compileall.compile_dir(BASE_DIR / package, quiet=1, workers=1)
