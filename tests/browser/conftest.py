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
import socket
import subprocess
import warnings
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import TypeVar

import pytest
from playwright.sync_api import Browser, Playwright, expect, sync_playwright

from tests.browser.font_copies import FontCopies
from tests.browser.helpers import (
    ARTIFACTS,
    AXE,
    AXE_INSTALL,
    AXE_PACKAGE,
    AXE_PREFIX,
    BASE_DIR,
    CHROMIUM,
    FONT_SETUPS,
    LOOPBACK,
    Fonts,
    Phone,
    Recorder,
    Server,
    Table,
    font_setup,
    nowhere,
)
from tests.browser.live_server import LiveServer, serve
from tests.workers import artifact_name

R = TypeVar("R", bound=Recorder)

LAUNCH_ARGS = ["--disable-background-networking", "--disable-component-update", "--no-first-run"]

# The longest a test waits for a condition it expects on a page (Playwright's assertions;
# a screen's steps: helpers.Recorder). A condition met early ends the wait at once: this
# only keeps a busy machine (five workers, each with its browser and server, on two
# cores) from failing a test whose page took 5 s, Playwright's default, to get there.
expect.set_options(timeout=20_000)


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def _require_chromium() -> None:
    if Path(CHROMIUM).exists():
        return
    reason = f"{CHROMIUM} is missing: install it with `apt-get install -y chromium-headless-shell`"
    if _in_ci():
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
def closed_port() -> Iterator[int]:
    """A loopback port bound and never listening: nothing else can take it, and a
    connection to it is refused at once (the browsers' proxy for other addresses)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as hole:
        hole.bind((LOOPBACK, 0))
        yield int(hole.getsockname()[1])


@pytest.fixture(scope="package")
def browser(playwright_instance: Playwright, closed_port: int) -> Iterator[Browser]:
    browser = playwright_instance.chromium.launch(
        executable_path=CHROMIUM, args=LAUNCH_ARGS, proxy=nowhere(closed_port)
    )
    try:
        yield browser
    finally:
        browser.close()


@pytest.fixture(scope="package")
def other_fonts(
    playwright_instance: Playwright, tmp_path_factory: pytest.TempPathFactory, closed_port: int
) -> Iterator[list[tuple[Fonts, Browser]]]:
    """A Chromium for each font family alone (DejaVu, Liberation, Noto), all at once, for the
    layout tests, which play once and have each of them draw copies of what they show
    (font_copies.py). A family not installed is left out with a warning (in CI, where
    `.ci/run` installs all three, it fails)."""
    browsers: list[tuple[Fonts, Browser]] = []
    workdir = tmp_path_factory.mktemp("fonts")
    try:
        for name in FONT_SETUPS:
            setup = font_setup(name, workdir)
            if isinstance(setup, str):
                if _in_ci():
                    pytest.fail(f"The layout tests must run with every font in CI, but {setup}.")
                warnings.warn(f"Layout checks with {name} alone left out: {setup}.", stacklevel=1)
            elif setup.env is not None:
                launched = playwright_instance.chromium.launch(
                    executable_path=CHROMIUM,
                    args=LAUNCH_ARGS,
                    env=setup.env,
                    proxy=nowhere(closed_port),
                )
                browsers.append((setup, launched))
        yield browsers
    finally:
        for _setup, launched in browsers:
            launched.close()


@pytest.fixture
def font_copies(
    recorder: Recorder, other_fonts: list[tuple[Fonts, Browser]]
) -> Iterator[FontCopies]:
    """Pages of each other font setup that draw copies of the test's screens."""
    copies = FontCopies(other_fonts, recorder.server)
    yield copies
    foreign = copies.close()
    assert not foreign, "\n".join(foreign)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """No coverage while a browser test runs (pytest-cov's `no_cover`): the game's code it
    exercises runs in the server's subprocess, out of coverage's sight, and tracing the
    test's own process only slows Playwright's side of every page (the total coverage
    `.ci/run` reports is the same with or without these tests traced)."""
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.no_cover)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.when == "call":
        item.stash[FAILED_KEY] = report.failed
    return report


FAILED_KEY = pytest.StashKey[bool]()


@pytest.fixture(scope="module")
def story_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, browser: Browser
) -> Iterator[Server]:
    """A server of the module's own that tells a finished game's story, as a real one
    does (the package's server leaves stories out: its tests end many games)."""
    name = request.module.__name__.rsplit(".", 1)[-1].removeprefix("test_")
    for live in serve(tmp_path_factory, name, 1.0, stories=True):
        yield live.server


@pytest.fixture
def recorder(
    request: pytest.FixtureRequest, browser: Browser, splendor_server: Server
) -> Iterator[Recorder]:
    """Open TV and phone screens; on failure screenshot them all; then close them. A module
    that sets STORY_SERVER gets them on `story_server`."""
    server = splendor_server
    if getattr(request.module, "STORY_SERVER", False):
        server = request.getfixturevalue("story_server")
    rec = Recorder(browser=browser, server=server, test_name=request.node.name)
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
    """axe-core's script, installed with npm the first time a test needs it; without npm
    the accessibility checks skip (in CI they fail)."""
    reason = None if AXE.exists() else _install_axe()
    if AXE.exists():
        return AXE
    if _in_ci():
        pytest.fail(f"The accessibility tests must run in CI, but {reason}.")
    pytest.skip(f"Accessibility tests skipped: {reason}.")


def _install_axe() -> str | None:
    """Install axe-core into tests/browser/.axe once, whatever number of pytest-xdist
    workers ask at the same moment (the first holds a lock; the others wait, then find
    it installed). Returns why it is missing, if it is."""
    import fcntl  # POSIX only, as Debian's Chromium

    npm = shutil.which("npm")
    if npm is None:
        return (
            f"axe-core is missing ({AXE}) and so is npm to install it: "
            f"`apt-get install -y npm`, then `{AXE_INSTALL}`"
        )
    AXE_PREFIX.mkdir(exist_ok=True)
    with (AXE_PREFIX / "install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if AXE.exists():  # another worker installed it meanwhile
            return None
        try:
            done = subprocess.run(
                [npm, "install", "--prefix", AXE_PREFIX, "--no-audit", "--no-fund", AXE_PACKAGE],
                cwd=BASE_DIR,
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return f"axe-core is missing ({AXE}): `{AXE_INSTALL}` took over 10 minutes"
    if done.returncode or not AXE.exists():
        output = (done.stdout + done.stderr).strip()[-1000:]
        return f"axe-core is missing ({AXE}): `{AXE_INSTALL}` failed ({done.returncode}): {output}"
    return None
