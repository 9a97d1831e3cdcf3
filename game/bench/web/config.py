"""The web benchmark's sizes and the page's timings it copies (see docs/benchmarks.md)."""

from __future__ import annotations

from django.conf import settings

# Set in the child's environment: which part it runs ("sqlite" or "scale").
CHILD_ENV = "SPLENDOR_BENCH_WEB_PART"
SEATS = 4
SEED = 20_240_611
WAIT = 30.0  # seconds the screens may take to show one action before it counts as lost
MAX_ACTIONS = 1_000_000  # a bound on every loop, besides its time
MAX_CHANGES = 2_000  # far beyond any game's length
PROJECT_APP = "splendor_site.asgi:application"
BARE_APP = "game.bench.bare_fanout:application"
POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
QUICK = {
    "seconds": 1.5,
    "paced_seconds": 3.0,
    "games": 6,
    "busy_games": 3,
    "idle_sockets": 10,
    "restart_after": 3.0,
    "restart_down": 3.0,
    "raw_flood_seconds": 3.0,
    "analysis_seconds": 3.0,
}
# The page's heartbeat (static/js/connection.js): {"ping": true} every PING_EVERY seconds from
# every screen, each at a phase of its own (pages open at different moments). The page's
# timings are the server's settings ("The live connection's clock"): read from there.
PING_EVERY = float(settings.SPLENDOR_HEARTBEAT)
# The paced phase's p99 is also taken per bucket of this many seconds of each round: a
# step at the presence interval (a database write per socket every 10 s, in step on
# sockets that connected together) shows as buckets far above the median one.
BUCKET = 2.0
# The restart phase's screens reconnect as the page does (backoff in static/js/connection.js): a
# close, or no message for SILENT_AFTER seconds, ends a socket; the first retry comes
# after a random wait in RECONNECT_FIRST, the next ones after RECONNECT_BASE times 2 to
# the attempt's number, at most RECONNECT_CAP, times a random 0.5-1 (live.backoff). One
# socket per screen at a time.
SILENT_AFTER = float(settings.SPLENDOR_SILENT_AFTER)
RECONNECT_FIRST = (0.3 * settings.SPLENDOR_CLOCK, 0.9 * settings.SPLENDOR_CLOCK)
RECONNECT_BASE = 0.5 * settings.SPLENDOR_CLOCK
RECONNECT_CAP = float(settings.SPLENDOR_BACKOFF_CAP)
RESTART_BEFORE = 5.0  # seconds the games play before the server is killed
# Seconds the killed server stays down (a laptop restarting, a server started again by
# hand): long enough for every screen's backoff to reach its cap, as it does then.
RESTART_DOWN = 10.0
RESTART_WAIT = 60.0  # seconds the screens may take to be current again before it gives up
SCALE_ROUNDS = 3  # one worker, then two, this many times
# Part 1 measures the project and the bare server by turns, each phase in this many
# rounds, so that a slower minute of this shared machine weighs on both.
ROUNDS = 3
# Games dealt ahead for a measurement of busy games, per game and second measured: a
# game lasts about GAME_LENGTH actions and a busy game plays 10-25 a second here (the
# rest, if any, are dealt when needed).
REPLACED = 0.25
GAME_LENGTH = 100
FLOOD_SOCKETS = 20  # one phone's sockets (its cookie)...
FLOOD_RATE = 50.0  # ...each sending this many messages a second: 1,000 a second from one phone
FLOOD_ROUND_TRIPS = 40  # the other game's TV heartbeats timed, quiet and then under the flood
RAW_FLOOD_SECONDS = 30.0  # the raw flood: one client writing unread frames this long...
RAW_FLOOD_SOCKETS = 4  # ...from this many sockets of one phone (each opened again if ended;
# one more than SPLENDOR_SOCKETS_PER_SEAT, so the newest keeps replacing the oldest)
# The analysis scenario: the busy games by turns with a game's analysis running beside
# them (game.writer.analysis_process, as game.writer.analyst starts it when a game ends)
# and without. Its budget: a hundred times the server's default (48 playouts a position,
# about 30 s of a core for a 4-player game), so that it is at work throughout any round
# (it is killed at the round's end).
ANALYSIS_SECONDS = 30.0  # each way, over the ROUNDS rounds
# The --busy-games act once every ANALYSIS_PERIOD seconds each (40 actions a second for
# 10, about a fifth of the server's core), not back to back: with the server's core
# saturated, a process at nice 19 on it gets 2-3% of the core and a round shows nothing of
# what it does to a server with time to spare, as one whose games people play. Paced so,
# 10 games give 2,400 actions each way in 60 s: a p99 that held within 5% run to run.
ANALYSIS_PERIOD = 0.25
ANALYSIS_PLAYOUTS = 4_800
ANALYSIS_WARM_CPU = 0.5  # CPU seconds (its imports done) before the round is measured...
ANALYSIS_WARM_WAIT = 5.0  # ...waited for at most this long
