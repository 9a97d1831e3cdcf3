"""LAN address discovery and the environment-driven settings.

No test sends traffic anywhere but loopback; fake adapters stand in for real ones.
"""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import ifaddr
import pytest
from django.conf import settings

from game.screens import lan_address
from tests.workers import own_redis_db

BASE_DIR = Path(__file__).resolve().parents[2]
POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
REDIS_URL = "redis://127.0.0.1:6379/0"  # read by settings, never connected to
IN_CI = os.environ.get("CI", "").lower() == "true"


def adapter(name: str, *addresses: str | tuple[str, int, int]) -> ifaddr.Adapter:
    ips = [ifaddr.IP(address, 24, name) for address in addresses]
    return ifaddr.Adapter(name, name, ips)


@pytest.fixture
def no_overrides(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv("SPLENDOR_HOST", raising=False)
    monkeypatch.delenv("SPLENDOR_ALLOWED_HOSTS", raising=False)
    return monkeypatch


@pytest.fixture
def home_machine(no_overrides: pytest.MonkeyPatch) -> None:
    """A laptop on home Wi-Fi with loopback, docker, a VPN and a link-local address."""
    adapters = [
        adapter("lo", "127.0.0.1", ("::1", 0, 0)),
        adapter("docker0", "172.17.0.1"),
        adapter("wg0", "10.8.0.2"),
        adapter("eth0", "169.254.10.20", "10.0.0.5"),
        adapter("wlan0", "192.168.1.23", ("fe80::1", 0, 2)),
        adapter("eth1", "172.20.0.9", "8.8.4.4"),
    ]
    no_overrides.setattr(ifaddr, "get_adapters", lambda: adapters)


@pytest.mark.usefixtures("home_machine")
def test_lan_addresses_skip_loopback_link_local_and_virtual_adapters() -> None:
    assert lan_address.lan_addresses() == ["192.168.1.23", "10.0.0.5", "172.20.0.9"]


@pytest.mark.usefixtures("home_machine")
def test_join_host_prefers_the_home_network() -> None:
    assert lan_address.join_host() == "192.168.1.23"


def test_join_host_honours_splendor_host(
    home_machine: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPLENDOR_HOST", "tv-laptop.lan")
    assert lan_address.join_host() == "tv-laptop.lan"
    assert "tv-laptop.lan" in lan_address.allowed_hosts()


def test_join_host_falls_back_to_loopback(no_overrides: pytest.MonkeyPatch) -> None:
    no_overrides.setattr(ifaddr, "get_adapters", lambda: [adapter("lo", "127.0.0.1")])
    assert lan_address.lan_addresses() == []
    assert lan_address.join_host() == "127.0.0.1"


def test_allowed_hosts_add_lan_and_extra_hosts_but_never_a_wildcard(
    home_machine: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPLENDOR_ALLOWED_HOSTS", "games.example, *,,192.168.1.23")
    hosts = lan_address.allowed_hosts()
    assert hosts[:3] == ["localhost", "127.0.0.1", "[::1]"]
    assert "192.168.1.23" in hosts
    assert "games.example" in hosts
    assert "*" not in hosts
    assert len(hosts) == len(set(hosts))


def test_the_running_settings_never_allow_every_host() -> None:
    assert "*" not in settings.ALLOWED_HOSTS
    assert "127.0.0.1" in settings.ALLOWED_HOSTS


def test_lan_address_module_does_not_import_django() -> None:
    code = "import sys, game.screens.lan_address; print('django' in sys.modules)"
    assert run_python(code, {}).strip() == "False"


def run_python(code: str, env: dict[str, str], check: bool = True, timeout: float = 60) -> str:
    """Run code with a clean settings environment in the project root; return stdout."""
    clean = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "SPLENDOR_DB_PATH"}
    }
    clean.update({"DJANGO_SETTINGS_MODULE": "splendor_site.settings"}, **env)
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=BASE_DIR,
        env=clean,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if check:
        assert result.returncode == 0, result.stderr
    return result.stdout


PRINT_BACKENDS = (
    "import json; from django.conf import settings; print(json.dumps(["
    "settings.DATABASES['default']['ENGINE'], "
    "settings.DATABASES['default']['CONN_MAX_AGE'], "
    "settings.CHANNEL_LAYERS['default']['BACKEND']]))"
)


def test_settings_use_postgres_and_redis_when_urls_are_set() -> None:
    out = run_python(PRINT_BACKENDS, {"DATABASE_URL": POSTGRES_URL, "REDIS_URL": REDIS_URL})
    assert json.loads(out) == [
        "game.postgresql",  # Django's, checking what its pool lends without a round trip
        0,  # connections go back to the pool after each use (see settings)
        "game.web.layers.RedisChannelLayer",
    ]


def test_settings_default_to_sqlite_and_the_in_memory_layer() -> None:
    code = PRINT_BACKENDS.replace(
        "settings.DATABASES['default']['CONN_MAX_AGE']",
        "settings.DATABASES['default']['OPTIONS']['transaction_mode']",
    )
    out = run_python(code, {})
    assert json.loads(out) == [
        "django.db.backends.sqlite3",
        "IMMEDIATE",
        "game.web.layers.InMemoryChannelLayer",
    ]


def require_service(port: int, name: str) -> None:
    """Skip when a local service is down, except in CI where it must be running."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5):  # a busy machine
            return
    except OSError:
        message = f"{name} is not listening on 127.0.0.1:{port}"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)


@pytest.mark.slow
def test_postgres_from_database_url_connects_and_passes_checks() -> None:
    require_service(5432, "PostgreSQL")
    env = {"DATABASE_URL": POSTGRES_URL}
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--database", "default"],
        cwd=BASE_DIR,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    code = (
        "import django; django.setup(); from django.db import connection; "
        "connection.ensure_connection(); print(connection.vendor)"
    )
    assert run_python(code, env).strip() == "postgresql"


REDIS_ROUND_TRIP = """
import asyncio, django
django.setup()
from channels.layers import get_channel_layer

from game.engine import new_game
from game.engine.projection import view_for
from game.storage.readmodel import Room, SeatInfo

# A change's message: its room and a seat's projection cross processes as JSON.
view = view_for(new_game(2, 7, 0), 0)
seats = (
    SeatInfo(0, "Ελένη 🦊", "human", True, "r1", id=5),
    SeatInfo(1, "", "bot", False, "r2", id=6),
)
room = Room(1, "ABCDEF", "playing", 0, False, "", seats)

async def main():
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "seat.changed", "n": 42, "room": room, "view": view})
    message = await asyncio.wait_for(layer.receive(channel), timeout=5)
    print(type(layer).__name__, message["n"], message["room"] == room, message["view"] == view)
    await layer.send(channel, {"type": "seat.changed", "room": room, "view": None})
    message = await asyncio.wait_for(layer.receive(channel), timeout=5)
    print(sorted(message), message["room"] == room)

asyncio.run(main())
"""


@pytest.mark.slow
def test_redis_channel_layer_round_trip() -> None:
    require_service(6379, "Redis")
    with own_redis_db() as db:
        out = run_python(REDIS_ROUND_TRIP, {"REDIS_URL": db.url})
    lines = out.splitlines()
    assert lines[0].split() == ["RedisChannelLayer", "42", "True", "True"]
    assert lines[1] == "['room', 'type', 'view'] True"


def test_allowed_hosts_follow_a_new_wifi_address_while_running(
    no_overrides: pytest.MonkeyPatch,
) -> None:
    no_overrides.setattr(ifaddr, "get_adapters", lambda: [adapter("wlan0", "192.168.1.23")])
    hosts = lan_address.LiveHosts()
    assert "192.168.1.23" in hosts
    # The router hands the laptop a new address: the QR code will show it soon.
    no_overrides.setattr(ifaddr, "get_adapters", lambda: [adapter("wlan0", "192.168.1.77")])
    assert "192.168.1.77" not in hosts  # re-read at most every REFRESH seconds
    hosts.checked -= lan_address.LiveHosts.REFRESH + 1
    assert "192.168.1.77" in list(hosts)
    assert "192.168.1.23" not in hosts
    assert "*" not in hosts


REDIS_AUDIENCES = """
import asyncio, django, os
django.setup()
from channels.layers import get_channel_layer

from game.engine import new_game
from game.engine.projection import TABLE, view_for
from game.web.layers import RedisChannelLayer
from game.storage.readmodel import Room, SeatInfo

view = view_for(new_game(2, 7, 0), TABLE)
seats = (
    SeatInfo(0, "Łukasz", "human", True, "r1", id=5),
    SeatInfo(1, "", "bot", False, "r2", id=6),
)
room = Room(1, "ABCDEF", "playing", 0, False, "", seats)

async def main():
    layer = get_channel_layer()
    # Another server on another database of the same Redis, with the same game ids.
    neighbour = RedisChannelLayer(hosts=[os.environ["NEIGHBOUR_URL"]],
                                  prefix=os.environ["NEIGHBOUR_PREFIX"])
    tv, spectator, elsewhere = (await layer.new_channel(), await layer.new_channel(),
                                await neighbour.new_channel())
    for channel in (tv, spectator):
        await layer.group_add("game-1", channel)
    await neighbour.group_add("game-1", elsewhere)
    await neighbour.group_send("game-1", {"type": "table.changed", "n": 1, "room": room})
    heard = await asyncio.wait_for(neighbour.receive(elsewhere), timeout=5)
    await layer.group_send("game-1", {"type": "table.changed", "n": 2, "room": room, "view": view})
    first, second = [await asyncio.wait_for(layer.receive(c), timeout=5) for c in (tv, spectator)]
    print(heard["n"], first["n"], second["n"], first["room"] == room, first["view"] == view,
          first is not second, first["view"] is second["view"])
    # A change's messages to all its audiences go in one round trip, in order.
    await layer.group_add("game-1-seat-5", spectator)
    await layer.group_send_many([
        ("game-1", {"type": "table.changed", "n": 3, "room": room}),
        ("game-1-seat-5", {"type": "seat.changed", "n": 4, "room": room, "view": view}),
        ("game-1", {"type": "table.changed", "n": 5, "room": room}),
    ])
    tv_heard = [(await asyncio.wait_for(layer.receive(tv), timeout=5))["n"] for _ in range(2)]
    heard = [(await asyncio.wait_for(layer.receive(spectator), timeout=5))["n"] for _ in range(3)]
    print(tv_heard, heard)

asyncio.run(main())
"""


@pytest.mark.slow
def test_redis_audiences_decode_once_and_stay_on_their_database() -> None:
    """Two screens of one process get one decoded projection (each its own message);
    a server on another Redis database never hears this one's games."""
    require_service(6379, "Redis")
    with own_redis_db() as db, own_redis_db() as neighbour:
        env = {"REDIS_URL": db.url, "NEIGHBOUR_URL": neighbour.url}
        out = run_python(REDIS_AUDIENCES, {**env, "NEIGHBOUR_PREFIX": neighbour.prefix})
    # The neighbour's own message reached only it; this server's screens heard only theirs.
    first, batch = out.splitlines()
    assert first.split() == ["1", "2", "2", "True", "True", "True", "True"]
    assert batch == "[3, 5] [3, 4, 5]"


def test_the_redis_layer_names_carry_the_database_number() -> None:
    """Pub/sub ignores Redis's database number, so the layer's prefix carries it."""
    code = (
        "import json, django; django.setup(); from django.conf import settings; "
        "print(json.dumps(settings.CHANNEL_LAYERS['default']['CONFIG']))"
    )
    on_nine = json.loads(run_python(code, {"REDIS_URL": "redis://127.0.0.1:6379/9"}))
    assert on_nine == {"hosts": ["redis://127.0.0.1:6379/9"], "prefix": "splendor9:"}
    assert json.loads(run_python(code, {"REDIS_URL": "redis://127.0.0.1:6379"}))["prefix"] == (
        "splendor0:"
    )
