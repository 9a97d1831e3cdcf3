"""Settings for Splendor at home, read from the environment.

With nothing set: SQLite file next to manage.py and the in-memory channel layer.
DATABASE_URL switches to PostgreSQL (or any dj-database-url URL), REDIS_URL to Redis.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

import dj_database_url

from game.network import LiveHosts

BASE_DIR = Path(__file__).resolve().parent.parent


def _env_flag(name: str, default: str) -> bool:
    return os.environ.get(name, default).strip().lower() in {"1", "true", "yes", "on"}


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

# On by default: a home server run with `runserver` must serve static files.
DEBUG = _env_flag("SPLENDOR_DEBUG", "1")

# Never "*"; re-read while running, so a new Wi-Fi address is accepted too.
ALLOWED_HOSTS = LiveHosts()

INSTALLED_APPS = [
    "game",  # first: its runserver (Daphne's, plus where the TV and phones go) wins
    "daphne",  # before staticfiles: makes runserver serve ASGI (HTTP and websockets)
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "template_partials",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "splendor_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "splendor_site.wsgi.application"
ASGI_APPLICATION = "splendor_site.asgi.application"

DATABASE_URL = os.environ.get("DATABASE_URL", "").strip()
DATABASES: dict[str, dict[str, Any]]
if DATABASE_URL:
    # Under ASGI each request may run in a different thread: no persistent connections.
    DATABASES = {"default": dict(dj_database_url.parse(DATABASE_URL, conn_max_age=0))}
else:
    DATABASES = {
        "default": {
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
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL]},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# Seats are remembered in the session: keep phones seated for a long while.
SESSION_COOKIE_AGE = 60 * 24 * 60 * 60
SESSION_COOKIE_SAMESITE = "Lax"

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

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LOG_LEVEL = os.environ.get("SPLENDOR_LOG_LEVEL", "INFO").upper()
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain"},
    },
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        "django": {"handlers": ["console"], "level": "INFO", "propagate": False},
        "game": {"handlers": ["console"], "level": LOG_LEVEL, "propagate": False},
    },
}

# Seconds a bot waits before each action, so people can follow what it does.
SPLENDOR_BOT_DELAY = float(os.environ.get("SPLENDOR_BOT_DELAY", "1.2"))
