"""Real-browser tests: a real server subprocess and Chromium driven by Playwright.

The server is `manage.py runserver --noreload` (Daphne) on a free loopback port
with its own SQLite file, so nothing here touches the test database or the
in-process channel layer of the other tests. Playwright's sync API is used in
plain (non-async) tests only, and everything is torn down when this package
finishes, before any pytest-asyncio test can run.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import TypeVar

import pytest
from playwright.sync_api import Browser, Playwright, sync_playwright

from tests.browser.helpers import (
    ARTIFACTS,
    AXE,
    AXE_INSTALL,
    CHROMIUM,
    Phone,
    Recorder,
    Server,
    Table,
)
from tests.browser.live_server import LiveServer
from tests.workers import artifact_name

R = TypeVar("R", bound=Recorder)

LAUNCH_ARGS = ["--disable-background-networking", "--disable-component-update", "--no-first-run"]


def _require_chromium() -> None:
    if Path(CHROMIUM).exists():
        return
    reason = f"{CHROMIUM} is missing: install it with `apt-get install -y chromium`"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"Browser tests must run in CI, but {reason}.")
    pytest.skip(f"Browser tests skipped: {reason}.")


@pytest.fixture(scope="package")
def splendor_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Run the real server (Daphne through runserver) on a free loopback port."""
    _require_chromium()
    ARTIFACTS.mkdir(exist_ok=True)
    live = LiveServer(tmp_path_factory.mktemp("live-server"))
    try:
        live.start()
        yield live.server
    finally:
        live.stop()
        for log in live.logs():
            name = artifact_name(log.name.replace("server-0", "server"))
            shutil.copyfile(log, ARTIFACTS / name)


def recording(request: pytest.FixtureRequest, recorder: R) -> Iterator[R]:
    """Yield the recorder; on failure screenshot its screens; then close them, failing
    the test on what they logged."""
    try:
        yield recorder
    finally:
        failed = request.node.stash.get(FAILED_KEY, False)
        if failed:
            recorder.screenshot_all("failure")
        problems = recorder.close_all()
        if problems and not failed:
            pytest.fail("\n".join(problems))


@pytest.fixture(scope="package")
def playwright_instance(splendor_server: Server) -> Iterator[Playwright]:
    # Sync Playwright refuses to start inside a running asyncio loop: these
    # tests are plain functions, and this fixture ends with the package.
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="package")
def browser(playwright_instance: Playwright) -> Iterator[Browser]:
    browser = playwright_instance.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
    try:
        yield browser
    finally:
        browser.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.when == "call":
        item.stash[FAILED_KEY] = report.failed
    return report


FAILED_KEY = pytest.StashKey[bool]()


@pytest.fixture
def recorder(
    request: pytest.FixtureRequest, browser: Browser, splendor_server: Server
) -> Iterator[Recorder]:
    """Open TV and phone screens; on failure screenshot them all; then close them."""
    rec = Recorder(browser=browser, server=splendor_server, test_name=request.node.name)
    yield from recording(request, rec)


@pytest.fixture
def tv(recorder: Recorder) -> Table:
    """A TV that opened the start page."""
    return recorder.table()


@pytest.fixture
def new_phone(recorder: Recorder) -> Callable[..., Phone]:
    return recorder.phone


@pytest.fixture(scope="package")
def axe() -> Path:
    """axe-core's script; the accessibility checks fail in CI without it, else skip."""
    if AXE.exists():
        return AXE
    reason = f"axe-core is missing ({AXE}): install it with `{AXE_INSTALL}`"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"The accessibility tests must run in CI, but {reason}.")
    pytest.skip(f"Accessibility tests skipped: {reason}.")
