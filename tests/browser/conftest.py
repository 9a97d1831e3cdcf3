"""Real-browser tests: a real server subprocess and Chromium driven by Playwright.

The server is `manage.py runserver --noreload` (Daphne) on a free loopback port
with its own SQLite file, so nothing here touches the test database or the
in-process channel layer of the other tests. Playwright's sync API is used in
plain (non-async) tests only, and everything is torn down when this package
finishes, before any pytest-asyncio test can run.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Callable, Generator, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Playwright, sync_playwright

from tests.browser.helpers import (
    ARTIFACTS,
    BASE_DIR,
    CHROMIUM,
    LOOPBACK,
    Phone,
    Recorder,
    Server,
    Table,
)

LAUNCH_ARGS = ["--disable-background-networking", "--disable-component-update", "--no-first-run"]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


LISTENING = b"Listening on TCP address"  # daphne.server's line once the port is open


def _copy_output(proc: subprocess.Popen[bytes], log: Path, ready: threading.Event) -> None:
    """Copy the server's output to its log; set `ready` once it listens (or it ended)."""
    assert proc.stdout is not None
    with log.open("wb") as out:
        for line in proc.stdout:
            out.write(line)
            out.flush()
            if LISTENING in line:
                ready.set()
    ready.set()  # the server ended: the caller finds out why


def _wait_for_server(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    """Wait for the server's own word that it listens, then check it answers."""
    ready = threading.Event()
    threading.Thread(target=_copy_output, args=(proc, log, ready), daemon=True).start()
    if not ready.wait(timeout=120) or proc.poll() is not None:
        raise RuntimeError(f"The server did not start:\n{log.read_text()[-3000:]}")
    with urllib.request.urlopen(url, timeout=30) as response:  # loopback only
        assert response.status == 200, f"The server answered {response.status} at {url}"


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
    workdir = tmp_path_factory.mktemp("live-server")
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "REDIS_URL", "SPLENDOR_ALLOWED_HOSTS")
    }
    env.update(
        SPLENDOR_DB_PATH=str(workdir / "db.sqlite3"),
        SPLENDOR_HOST=LOOPBACK,  # the QR code encodes a loopback URL
        SPLENDOR_BOT_DELAY="0.05",
        SPLENDOR_SECRET_KEY=secrets.token_urlsafe(50),
        SPLENDOR_DEBUG="1",  # runserver serves the static files
        PYTHONUNBUFFERED="1",
    )
    manage = [sys.executable, str(BASE_DIR / "manage.py")]
    subprocess.run(
        [*manage, "migrate", "--noinput", "-v", "0"],
        cwd=BASE_DIR,
        env=env,
        check=True,
        timeout=120,
    )
    port = _free_port()
    log = workdir / "server.log"
    proc = subprocess.Popen(
        [*manage, "runserver", f"{LOOPBACK}:{port}", "--noreload"],
        cwd=BASE_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    server = Server(url=f"http://{LOOPBACK}:{port}", port=port, log=log)
    try:
        _wait_for_server(server.url + "/", proc, log)
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        shutil.copyfile(log, ARTIFACTS / "server.log")


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
    try:
        yield rec
    finally:
        failed = request.node.stash.get(FAILED_KEY, False)
        if failed:
            rec.screenshot_all("failure")
        problems = rec.close_all()
        if problems and not failed:
            pytest.fail("\n".join(problems))


@pytest.fixture
def tv(recorder: Recorder) -> Table:
    """A TV that opened the start page."""
    return recorder.table()


@pytest.fixture
def new_phone(recorder: Recorder) -> Callable[..., Phone]:
    return recorder.phone
