"""The README's proxy configuration, for real: nginx in front of two Daphne workers.

The README shows how to run several server processes behind nginx, sending every
websocket of a game to one worker by its room code. This runs that very
configuration (read from README.md, only the ports changed) with two Daphne
workers on a throwaway PostgreSQL database and a Redis db of the tests' own, and
plays two games through it: their pages load through the proxy, every screen
follows the game, and each game's sockets all reach one worker. Skipped where
nginx is not installed (CI installs it); only loopback is ever contacted.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from game.bench.client import LOOPBACK, ScreenSocket
from game.bench.loopback import Server, daphne, free_port, serve
from tests.web.test_restart import BASE_DIR, environment, http_get, run_python
from tests.web.test_scale_out import SETUP, first_view, throwaway_database, wait_for_version
from tests.web.test_settings import require_service
from tests.workers import own_redis_db

README = BASE_DIR / "README.md"
APPLICATION = "splendor_site.asgi:application"


def readme_nginx(proxy: int, workers: tuple[int, int]) -> str:
    """The README's nginx configuration, listening on `proxy` with these workers."""
    found = re.search(r"```nginx\n(.*?)```", README.read_text(), re.S)
    assert found, "README.md shows no nginx configuration"
    text = found.group(1)
    for old, new in (
        ("listen 8000;", f"listen {LOOPBACK}:{proxy};"),
        ("server 127.0.0.1:8001;", f"server {LOOPBACK}:{workers[0]};"),
        ("server 127.0.0.1:8002;", f"server {LOOPBACK}:{workers[1]};"),
    ):
        assert old in text, f"the README's nginx configuration no longer has {old!r}"
        text = text.replace(old, new)
    return text


def nginx(config: str, port: int, folder: Path) -> contextlib.AbstractContextManager[Server]:
    """Run nginx in the foreground with this http configuration, its files in `folder`
    (started and stopped as the project's own servers are: game.bench.loopback)."""
    temporary = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    main = (
        f"daemon off;\npid {folder / 'nginx.pid'};\nerror_log stderr;\n"
        f"events {{}}\nhttp {{\n    access_log {folder / 'access.log'};\n"
        + "".join(f"    {name}_temp_path {folder / name};\n" for name in temporary)
        + config
        + "}\n"
    )
    conf = folder / "nginx.conf"
    conf.write_text(main)
    binary = shutil.which("nginx")
    assert binary is not None
    return serve([binary, "-c", str(conf)], port, {}, folder / "nginx.log", folder)


# Games played through the proxy. Their codes are random, and the proxy hashes them to
# the two workers: with six, all on one worker (a failed test) was 1 in 32, and it
# happened in a CI run; with fourteen it is 1 in 8,192.
GAMES = 14


def rooms_served(log: Path) -> set[str]:
    """The room codes whose websockets this worker accepted (its access log)."""
    return set(re.findall(r'"WSCONNECT /ws/game/([^/]+)/', log.read_text()))


@pytest.mark.slow
def test_the_readme_proxy_sends_every_socket_of_a_game_to_one_worker(tmp_path: Path) -> None:
    if shutil.which("nginx") is None:
        reason = "nginx is not installed: install it with `apt-get install -y nginx-light`"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"The proxy test must run in CI, but {reason}.")
        pytest.skip(reason)
    require_service(5432, "PostgreSQL")
    require_service(6379, "Redis")
    with own_redis_db() as layer_db, throwaway_database() as database_url:
        env = environment(tmp_path / "unused.sqlite3")  # DATABASE_URL wins over it
        env.update(DATABASE_URL=database_url, REDIS_URL=layer_db.url, SPLENDOR_HOST=LOOPBACK)
        run_python(env, "manage.py", "migrate", "--noinput", "--verbosity", "0")
        games = [json.loads(run_python(env, "-c", SETUP)) for _ in range(GAMES)]
        logs = (tmp_path / "worker1.log", tmp_path / "worker2.log")
        proxy = free_port()
        with (
            daphne(APPLICATION, env, logs[0], BASE_DIR) as one,
            daphne(APPLICATION, env, logs[1], BASE_DIR) as two,
            nginx(readme_nginx(proxy, (one.port, two.port)), proxy, tmp_path),
        ):
            for game in games:
                play_through_the_proxy(proxy, game)
        served = [rooms_served(log) for log in logs]
    codes = {game["code"] for game in games}
    # Each game on one worker, and both workers used (all on one: 1 in 2 ** (GAMES - 1)).
    assert served[0] | served[1] == codes, served
    assert not served[0] & served[1], served
    assert served[0] and served[1], served


def play_through_the_proxy(proxy: int, game: dict[str, object]) -> None:
    """Load the host's page, open the TV and both phones, play one action, see it."""
    code = str(game["code"])
    host, ada, bob = (str(s) for s in game["sessions"])  # type: ignore[attr-defined]
    assert code in http_get(proxy, f"/host/{code}/", host)
    screens = [
        ScreenSocket(proxy, f"/ws/game/{code}/{role}/", session)
        for role, session in (("table", host), ("seat", ada), ("seat", bob))
    ]
    try:
        version = first_view(screens[0])[0]
        for screen in screens[1:]:
            assert first_view(screen)[0] == version
        screens[1].send_json({"action": "take:wug", "version": version})
        for screen, who in zip(screens, ("the TV", "Ada", "Bob"), strict=True):
            wait_for_version(screen, version + 1, who)
    finally:
        for screen in screens:
            screen.close()
