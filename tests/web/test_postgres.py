"""The PostgreSQL configuration, for real: a throwaway database, migrations, play, locks.

SQLite is the default; a home server that outgrows it sets DATABASE_URL. This
checks that the one-function-per-change design holds there too: the row lock
serialises two phones acting on the same version, so exactly one wins.
"""

from __future__ import annotations

import secrets

import pytest

from tests.web.test_settings import POSTGRES_URL, require_service, run_python

PLAY_ON_POSTGRES = """
import threading, django
django.setup()
from django.core.management import call_command
from django.db import connection
call_command("migrate", verbosity=0)
from game.writer import games, lobby, moves, seating
from game.models import Card, Game, Move, Noble, Seat

game = lobby.create_game("host")
for key, name in (("ka", "Ada"), ("kb", "Bob")):
    seating.join_game(game.id, key, name)
lobby.start_game(game.id, "host", first_player=0)
moves.play(game.id, "ka", "take:wug", 0)
moves.play(game.id, "kb", "reserve:d1", 1)

# Two taps on the same version, at the same moment, from Ada's two phones.
results = []
def tap(text):
    try:
        moves.play(game.id, "ka", text, 2)
        results.append("applied")
    except games.Refused:
        results.append("refused")
    finally:
        connection.close()
threads = [threading.Thread(target=tap, args=(t,)) for t in ("take:rk", "take:rkw")]
for t in threads: t.start()
for t in threads: t.join()

game.refresh_from_db()
print(connection.vendor, Card.objects.count(), Noble.objects.count())
print(sorted(results), game.version, Move.objects.filter(game=game).count())
print(games.replay_game(game).to_dict() == game.state)

# The writer's plain SQL (game.storage.store) reads what the ORM reads, types included.
from django.db import transaction
from game.storage import store
with transaction.atomic():
    fast, rows = store.lock_game(game.id)
deferred = fast.get_deferred_fields()
names = [f.attname for f in Game._meta.concrete_fields if f.attname not in deferred]
pairs = [(getattr(fast, n), getattr(game, n)) for n in names]
same = all(a == b and type(a) is type(b) for a, b in pairs)
orm_seats = [
    {f.attname: getattr(s, f.attname) for f in Seat._meta.concrete_fields}
    for s in game.seats.order_by("position")
]
fast_seats = [{f.attname: getattr(s, f.attname) for f in Seat._meta.concrete_fields} for s in rows]
types = {type(getattr(s, f.attname)) for s in rows for f in Seat._meta.concrete_fields}
orm_moves = list(Move.objects.filter(game=game).values_list("notation", flat=True))
fast_moves = store.moves_between(game.id, 0, 9)
same_seats = fast_seats == orm_seats and types <= {int, str, bool}
print(same, len(names) > 8, same_seats, fast_moves == orm_moves)

# An action is two statements on PostgreSQL (in its transaction): the game locked with its
# seats, the move saved.
from django.test.utils import CaptureQueriesContext
from game.engine import legal_actions
game.refresh_from_db()
action = legal_actions(games.load_state(game))[0].notation()
with CaptureQueriesContext(connection) as statements:
    moves.play(game.id, "kb", action, game.version)
print([q["sql"].split()[0] for q in statements.captured_queries])

# A connecting screen's reads (storage.store) and presence rows (storage.presence), in plain SQL.
from datetime import timedelta
from django.utils import timezone
from game.storage import presence
from game.models import Presence
game.refresh_from_db()
read = store.read_game(game.id)
ada = game.seats.get(position=0)
print(
    [getattr(read[0], n) for n in names] == [getattr(game, n) for n in names],
    [s.pk for s in read[1]] == [s.pk for s in game.seats.order_by("position")],
    store.who(game.code, "ka") == (game.id, "host", ada.pk, False, (ada.pk,)),
    store.who("NOPE", "ka") is None,
    store.progress(game.id) == (game.version, game.status, game.stand_in_after),
)
presence.arrive(game.id, ada.pk, "ada-phone")
presence.arrive(game.id, ada.pk, "ada-phone")
Presence.objects.create(channel="ghost", game_id=game.id, seat_id=99,
                        seen_at=timezone.now() - timedelta(minutes=5))
here = presence.connected(game.id)
heard = timezone.now() - timedelta(seconds=1)
presence.refresh([("ada-phone", heard)])
refreshed = Presence.objects.get(channel="ada-phone").seen_at == heard
presence.arrive(game.id, ada.pk, "ada-tablet")
presence.forget_ghosts()
ghost_gone = not Presence.objects.filter(channel="ghost").exists()
presence.leave("ada-phone")
presence.leave("ada-tablet")
left = presence.here(game.id) == presence.Here(reconnecting=frozenset({ada.pk}))
versions = store.versions([game.id, 0]) == {game.id: game.version}
print(here == {ada.pk}, ghost_gone, refreshed and left, versions)
"""


def on_postgres(code: str) -> list[str]:
    """Run code on a throwaway PostgreSQL database; return the lines it printed."""
    require_service(5432, "PostgreSQL")
    name = f"splendor_test_{secrets.token_hex(4)}"
    admin = "import psycopg; c = psycopg.connect({!r}, autocommit=True); c.execute({!r})"
    run_python(admin.format(POSTGRES_URL, f"CREATE DATABASE {name}"), {})
    try:
        url = POSTGRES_URL.rsplit("/", 1)[0] + "/" + name
        env = {"DATABASE_URL": url, "ADMIN_URL": POSTGRES_URL}
        return run_python(code, env).strip().splitlines()
    finally:
        run_python(admin.format(POSTGRES_URL, f"DROP DATABASE IF EXISTS {name}"), {})


@pytest.mark.slow
def test_a_game_on_postgres_serialises_simultaneous_actions() -> None:
    lines = on_postgres(PLAY_ON_POSTGRES)
    assert lines[0] == "postgresql 90 10"
    # One of the two taps lands (version 3); the other was built on version 2 and is refused.
    assert lines[1] == "['applied', 'refused'] 3 3"
    assert lines[2] == "True"
    assert lines[3] == "True True True True"
    assert lines[4] == "['BEGIN', 'SELECT', 'WITH', 'COMMIT']"
    assert lines[5] == "True True True True True"
    assert lines[6] == "True True True True"


HEALTH_ON_POSTGRES = """
import os, django
django.setup()
from django.conf import settings
from django.core.management import call_command
from django.db import close_old_connections, connection
import psycopg
from psycopg_pool import ConnectionPool
call_command("migrate", verbosity=0)
from game.writer import games, lobby, moves, seating
from game.engine import legal_actions

checks = []  # the pool's check: an empty query, a round trip
plain = ConnectionPool.check_connection
ConnectionPool.check_connection = staticmethod(lambda conn: checks.append(1) or plain(conn))

game = lobby.create_game("host")
for key, name in (("ka", "Ada"), ("kb", "Bob")):
    seating.join_game(game.id, key, name)
lobby.start_game(game.id, "host", first_player=0)

def act():
    close_old_connections()  # as Channels does around every database call
    game.refresh_from_db()
    state = games.load_state(game)
    key = ("ka", "kb")[state.current]
    moves.play(game.id, key, legal_actions(state)[0].notation(), game.version)
    close_old_connections()

for _ in range(3):
    act()
pool = connection.pool
print(connection.vendor, pool.max_size == settings.SPLENDOR_DB_POOL_SIZE, connection.connection)
print(len(checks))
# The server ends every session of the pool's idle connections, as a restart of
# PostgreSQL does.
name = settings.DATABASES["default"]["NAME"]
with psycopg.connect(os.environ["ADMIN_URL"], autocommit=True) as admin:
    ended = admin.execute(
        # Waits (up to 30 s) until each session is over: its goodbye has been sent.
        "SELECT pg_terminate_backend(pid, 30000) FROM pg_stat_activity WHERE datname = %s",
        [name],
    ).fetchall()
act()  # the lent connections that heard from the server are checked, dropped, replaced
game.refresh_from_db()
print(len(ended) >= 1, game.version, len(checks) >= 1)
"""


@pytest.mark.slow
def test_a_pooled_connection_is_checked_without_a_round_trip_and_replaced_if_broken() -> None:
    lines = on_postgres(HEALTH_ON_POSTGRES)
    # Three actions, each connection given back to the pool after use.
    assert lines[0] == "postgresql True None"
    # Lent quiet connections are not checked with a round trip.
    assert lines[1] == "0"
    # The server ended the pooled sessions: the next action gets a sound one and is applied.
    assert lines[2] == "True 4 True"
