"""Settings for Splendor at home, read from the environment.

With nothing set: SQLite file next to manage.py and the in-memory channel layer.
DATABASE_URL switches to PostgreSQL (or any dj-database-url URL), REDIS_URL to Redis.
"""

from __future__ import annotations

import os
import secrets
import sys
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import dj_database_url

from game.screens.lan_address import LiveHosts
from game.web.inbound import MAX_FRAME_BYTES

BASE_DIR = Path(__file__).resolve().parent.parent


def _env_flag(name: str, default: str) -> bool:
    return os.environ.get(name, default).strip().lower() in {"1", "true", "yes", "on"}


def _env_number(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, "") or default)
    except ValueError:
        return default


def _secret_key() -> str:
    """Return SPLENDOR_SECRET_KEY, else a key generated once and kept in .secret_key."""
    from_env = os.environ.get("SPLENDOR_SECRET_KEY", "").strip()
    if from_env:
        return from_env
    # A stored key keeps sessions (and so seats on phones) valid across restarts.
    path = BASE_DIR / ".secret_key"
    try:
        stored = path.read_text().strip()
    except FileNotFoundError:
        stored = ""
    if stored:
        return stored
    key = secrets.token_urlsafe(50)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process won the race: use its key
        return path.read_text().strip() or key
    with os.fdopen(fd, "w") as handle:
        handle.write(key + "\n")
    return key


SECRET_KEY = _secret_key()

# Off unless a developer asks: debug pages would show settings to every phone.
# Static files do not need it: WhiteNoise serves them (see MIDDLEWARE).
DEBUG = _env_flag("SPLENDOR_DEBUG", "0")

# Never "*"; re-read while running, so a new Wi-Fi address is accepted too.
ALLOWED_HOSTS = LiveHosts()

INSTALLED_APPS = [
    "game",  # first: its runserver (Daphne's, plus where the TV and phones go) wins
    "daphne",  # before staticfiles: makes runserver serve ASGI (HTTP and websockets)
    # Before staticfiles: runserver leaves static files to WhiteNoise, with or without DEBUG.
    "whitenoise.runserver_nostatic",
    "django.contrib.admin",  # mounted only with SPLENDOR_ADMIN (splendor_site/urls.py)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",  # {% htmx_script %}: htmx served from the package, no CDN
]

MIDDLEWARE = [
    # First: static files are answered before sessions, hosts or CSRF are looked at.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Only the server's own scripts and styles run in its pages.
    "game.web.middleware.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "game.web.middleware.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "splendor_site.urls"

TEMPLATES = [
    {
        # The project's pages (templates/) and the fragments the screens are updated with
        # (templates/jinja2/, rendered at every change): game.screens.environment.
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates" / "jinja2", BASE_DIR / "templates"],
        "APP_DIRS": False,
        "OPTIONS": {
            "environment": "game.screens.environment.environment",
            # Pages only: a fragment rendered for a screen gets no request.
            "context_processors": ["django.contrib.messages.context_processors.messages"],
        },
    },
    {
        # The admin's own templates (django.contrib.admin).
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "splendor_site.wsgi.application"
ASGI_APPLICATION = "splendor_site.asgi.application"
# The longest websocket message and frame `runserver` (Daphne) reads; a longer one
# closes its socket (1009) before it is read whole. The `daphne` command takes the same
# as --websocket-max-message-size and --websocket-max-frame-size.
DAPHNE_WEBSOCKET_MAX_MESSAGE_SIZE = DAPHNE_WEBSOCKET_MAX_FRAME_SIZE = MAX_FRAME_BYTES

# PostgreSQL only: the most connections one server process opens (its pool), and the
# seconds a request waits for a free one before it fails. Requests hold one for a few
# milliseconds; bots, the screens' database thread and the server's timers share them.
SPLENDOR_DB_POOL_SIZE = max(1, int(_env_number("SPLENDOR_DB_POOL_SIZE", 10)))
SPLENDOR_DB_POOL_TIMEOUT = _env_number("SPLENDOR_DB_POOL_TIMEOUT", 30)

DATABASE_URL = os.environ.get("DATABASE_URL", "").strip()
DATABASES: dict[str, dict[str, Any]]
if DATABASE_URL:
    DATABASES = {"default": dict(dj_database_url.parse(DATABASE_URL))}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # A pool per process: at most SPLENDOR_DB_POOL_SIZE connections whatever the
        # traffic. Under ASGI every request's sync work runs in a thread of its own, and
        # persistent connections (one per thread) piled up until PostgreSQL refused
        # everyone. A request, a screen's database call or a bot's step borrows a
        # connection and gives it back at its end (CONN_MAX_AGE 0); when all are lent,
        # it waits up to SPLENDOR_DB_POOL_TIMEOUT seconds for one. Each is checked as
        # it is lent, so one the server ended is replaced instead of failing a request
        # (game/postgresql: without the round trip of the pool's own check).
        DATABASES["default"].update(
            ENGINE="game.postgresql", CONN_MAX_AGE=0, CONN_HEALTH_CHECKS=False
        )
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": min(2, SPLENDOR_DB_POOL_SIZE),
            "max_size": SPLENDOR_DB_POOL_SIZE,
            "timeout": SPLENDOR_DB_POOL_TIMEOUT,
        }
else:
    DATABASES = {
        "default": {
            # Keep the connection open between uses (a new SQLite connection per screen
            # update cost more than the query). Channels runs all ORM work of a process
            # in one thread and closes connections older than this or broken around each
            # call; bot-turn threads close theirs.
            "CONN_MAX_AGE": 600,
            "CONN_HEALTH_CHECKS": True,
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": Path(os.environ.get("SPLENDOR_DB_PATH") or BASE_DIR / "db.sqlite3"),
            "OPTIONS": {
                # Take the write lock at BEGIN and use WAL: avoids most "database is locked".
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
                "timeout": 20,
            },
        }
    }

REDIS_URL = os.environ.get("REDIS_URL", "").strip()
CHANNEL_LAYERS: dict[str, dict[str, Any]]
if REDIS_URL:
    # Pub/sub channel names ignore Redis's database number: the prefix carries it, so
    # servers on different databases of one Redis never hear each other's games.
    _REDIS_DB = urlsplit(REDIS_URL).path.strip("/") or "0"
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "game.web.layers.RedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "prefix": f"splendor{_REDIS_DB}:"},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "game.web.layers.InMemoryChannelLayer"}}

# Seats are remembered in the session: keep phones seated for a long while.
# Django's database sessions, refusing cookies no session key could be (game/sessions.py).
SESSION_ENGINE = "game.web.sessions"
SESSION_COOKIE_AGE = 60 * 24 * 60 * 60
SESSION_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_HTTPONLY = True

# Counters that several server processes must share (wrong rejoin codes): Redis when
# there are several processes, else this process's memory (runserver is one process).
CACHES: dict[str, dict[str, Any]]
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "splendor",
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", "English"),
    ("fi", "Suomi"),
    ("de", "Deutsch"),
]
LOCALE_PATHS = [BASE_DIR / "game" / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
# Serve straight from static/ and the apps (no collectstatic step), so the README's
# one-line play command works on a fresh clone; re-scan on each request only in DEBUG.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG
# Files browsers ask for at the site's root (/favicon.ico), served as they are.
WHITENOISE_ROOT = BASE_DIR / "static" / "root"
# STATIC_ROOT only exists after an optional collectstatic: not worth a warning.
warnings.filterwarnings("ignore", message="No directory at: ", category=UserWarning)

# A real request is a few hundred bytes: refuse big bodies early (HTTP 400).
DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024
DATA_UPLOAD_MAX_NUMBER_FIELDS = 100
FILE_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024

# A friendly page for an expired form instead of Django's technical one.
CSRF_FAILURE_VIEW = "game.web.views.csrf_failure"
# Even with DEBUG on, error pages and reports hide the passwords in connection URLs.
DEFAULT_EXCEPTION_REPORTER_FILTER = "game.web.logs.SecretSafeReporterFilter"

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LOG_LEVEL = os.environ.get("SPLENDOR_LOG_LEVEL", "INFO").upper()
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
    },
    "filters": {"one_line": {"()": "game.web.logs.OneLineWarning"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain"},
        "console_one_line": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["one_line"],
        },
    },
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        "django": {"handlers": ["console"], "level": "INFO", "propagate": False},
        # Refused hostile requests (foreign Host header, oversized body): one line each.
        "django.security": {
            "handlers": ["console_one_line"],
            "level": "WARNING",
            "propagate": False,
        },
        "game": {"handlers": ["console"], "level": LOG_LEVEL, "propagate": False},
        # "Listening on TCP address …": the moment the server takes connections.
        "daphne.server": {"handlers": ["console"], "level": "INFO", "propagate": False},
    },
}

# The Django admin (view-only games, seats, moves, cards, nobles) at /admin/. Off by
# default: a game night needs no accounts, and a page that takes passwords does not
# belong on a home network unless the host wants it (then: createsuperuser).
SPLENDOR_ADMIN = _env_flag("SPLENDOR_ADMIN", "0")

# Seconds a bot waits before each action, so people can follow what it does.
SPLENDOR_BOT_DELAY = float(os.environ.get("SPLENDOR_BOT_DELAY", "1.2"))
# Seconds the hard (search) bot thinks about each move; the pause above is not added.
SPLENDOR_HARD_BOT_SECONDS = float(os.environ.get("SPLENDOR_HARD_BOT_SECONDS", "1.0"))
# Each server process looks for bot turns that no process is playing (after a
# restart, or when the process that claimed one died) every two seconds or so. Off
# under pytest unless a test asks: a test's games are its own.
SPLENDOR_BOT_SWEEP = _env_flag("SPLENDOR_BOT_SWEEP", "0" if "pytest" in sys.modules else "1")
# The story of each finished game (game.writer.analyst): greedy playouts per position
# for each seat's chance of winning (48: about 30 s for a game of four, in a process
# of its own at low priority, one analysis at a time). Off under pytest unless a test
# asks: most tests end games they never look at again.
SPLENDOR_ANALYSIS = _env_flag("SPLENDOR_ANALYSIS", "0" if "pytest" in sys.modules else "1")
SPLENDOR_ANALYSIS_PLAYOUTS = max(1, int(_env_number("SPLENDOR_ANALYSIS_PLAYOUTS", 48)))
# The analysis runs at the lowest priority (nice 19 and SCHED_IDLE: only on a core nothing
# else wants). A test machine whose cores are always busy would never get to it: its
# tests and test servers run it at the ordinary priority (0).
SPLENDOR_ANALYSIS_LOW_PRIORITY = _env_flag("SPLENDOR_ANALYSIS_LOW_PRIORITY", "1")
# Seconds the search thinks when a player asks "Suggest a move".
SPLENDOR_HINT_SECONDS = float(os.environ.get("SPLENDOR_HINT_SECONDS", "1.0"))


# Clean-up (python manage.py cleanup, and the server by itself every few hours):
# finished games are kept a year for replays, lobbies nobody started a day.
SPLENDOR_KEEP_FINISHED_DAYS = _env_number("SPLENDOR_KEEP_FINISHED_DAYS", 365)
SPLENDOR_KEEP_UNFINISHED_DAYS = _env_number("SPLENDOR_KEEP_UNFINISHED_DAYS", 365)
SPLENDOR_KEEP_LOBBY_HOURS = _env_number("SPLENDOR_KEEP_LOBBY_HOURS", 24)
# Seconds between the server's own clean-ups (0: never). Never under pytest unless a
# test asks, so a test run does not delete rows behind the tests' backs.
SPLENDOR_CLEANUP_EVERY = _env_number(
    "SPLENDOR_CLEANUP_EVERY", 0 if "pytest" in sys.modules else 3600
)

# Messages a phone (all its sockets together; a TV without a session: each socket) may
# send a second on average (twice as many at once) before it is told to slow down, at
# most once a second: far above what anyone taps, it only stops a flood.
SPLENDOR_SOCKET_RATE = _env_number("SPLENDOR_SOCKET_RATE", 10)
# Open sockets one phone may have on its seat: one more closes its oldest (game.screens.wire
# Close.REPLACED: the page says the game is open elsewhere).
SPLENDOR_SOCKETS_PER_SEAT = int(_env_number("SPLENDOR_SOCKETS_PER_SEAT", 3))

# Wrong rejoin codes: after this many from one client for one game, wait this long.
SPLENDOR_REJOIN_TRIES = int(_env_number("SPLENDOR_REJOIN_TRIES", 5))
SPLENDOR_REJOIN_WAIT = _env_number("SPLENDOR_REJOIN_WAIT", 60)

# The live connection's clock, in seconds. The page receives these (base.html, as
# milliseconds) and runs its connection on them; the server's presence, liveness and bot
# leases use the same ones. SPLENDOR_CLOCK scales every default at once: the tests run
# the same state machine five times faster with 0.2. A value set on its own is taken as
# it is.
SPLENDOR_CLOCK = max(0.01, _env_number("SPLENDOR_CLOCK", 1))


def _clocked(name: str, default: float) -> float:
    return _env_number(name, default * SPLENDOR_CLOCK)


# Between two heartbeats of a page (the server answers each with "pong").
SPLENDOR_HEARTBEAT = _clocked("SPLENDOR_HEARTBEAT", 2)
# Nothing heard for this long: the page says "reconnecting", and the server counts the
# phone as silent.
SPLENDOR_SILENT_AFTER = _clocked("SPLENDOR_SILENT_AFTER", 4)
# Nothing heard for this long: the page drops its socket and opens another.
SPLENDOR_DEAD_AFTER = _clocked("SPLENDOR_DEAD_AFTER", 6)
# The longest a handshake may take (a paused server accepts and never answers).
SPLENDOR_OPEN_WITHIN = _clocked("SPLENDOR_OPEN_WITHIN", 5)
# The longest the answer to a check may take when a page is shown again.
SPLENDOR_CHECK_WITHIN = _clocked("SPLENDOR_CHECK_WITHIN", 3)
# The longest wait between two attempts to reconnect (1-2 s with jitter): a screen is
# current within 3 s of its server coming back, however long it was away.
SPLENDOR_BACKOFF_CAP = _clocked("SPLENDOR_BACKOFF_CAP", 2)
# The longest wait between two attempts while the page rests: its browser says it is
# offline, or the page is hidden (a locked phone). It reconnects at once when the network
# or the page comes back; this only bounds what a phone without a network tries meanwhile.
SPLENDOR_REST_RETRY = _clocked("SPLENDOR_REST_RETRY", 30)
# How long a move tapped while the connection is down waits to be sent.
SPLENDOR_HOLD_MOVE = _clocked("SPLENDOR_HOLD_MOVE", 12)
# Seconds a seat whose phone went silent (or whose socket closed) shows "reconnecting"
# on the TV before it is away (its rejoin code, its QR and "Let a bot play"): a phone
# back within it never shows its code.
SPLENDOR_PRESENCE_GRACE = _clocked("SPLENDOR_PRESENCE_GRACE", 20)
# A process's claim on a bot turn lasts this long unless it renews it (game.writer.bot_turns):
# a turn held by a process that died is taken over by another this long after.
SPLENDOR_BOT_LEASE = _clocked("SPLENDOR_BOT_LEASE", 5)
# Between two writes of a process's presence rows (game.writer.liveness), at most.
SPLENDOR_LIVENESS_TICK = _clocked("SPLENDOR_LIVENESS_TICK", 1)
