"""Shared pytest configuration (keep it small: engine tests need no Django fixtures)."""

from pathlib import Path

import pytest

BASE_DIR = Path(__file__).resolve().parent.parent


@pytest.fixture
def base_dir() -> Path:
    """Return the project root (where manage.py lives)."""
    return BASE_DIR


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Keep the tests of a module that share a module-scoped fixture (a server of its
    own, as tests/browser/test_faults.py's) on one pytest-xdist worker, so it starts
    once, not on every worker (`--dist loadgroup`; a plain run ignores the mark)."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None or item.get_closest_marker("xdist_group"):
            continue
        if any(defs[-1].scope == "module" for defs in info.name2fixturedefs.values() if defs):
            item.add_marker(pytest.mark.xdist_group(f"module-{item.path.stem}"))


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Fail a grouped test that pytest-xdist did not group: it names the group in the
    test's node id (`…@module-test_faults`), which pytest 9.2's structured node ids
    silently ignore (pytest-xdist issue 1386), running the group's tests on every worker."""
    grouped = item.get_closest_marker("xdist_group")
    if grouped and item.config.getoption("loadgroup", False) and "@" not in item.nodeid:
        pytest.fail(f"--dist loadgroup did not keep {item.nodeid} in its group on this pytest")
