"""The session store: Django's database sessions, reading only keys Django could have made.

A session key comes from a cookie, so anything may arrive there. Django's database
store looks any key of 8 characters or more up in the database, and PostgreSQL
refuses text holding NUL: a hostile cookie made every page answer 500 there. Keys
Django makes are 32 lower-case letters and digits, so anything else is simply no
session (a new one is made if the page needs one), on every page and websocket.
"""

from __future__ import annotations

from django.contrib.sessions.backends import db
from django.utils.crypto import RANDOM_STRING_CHARS

KEY_CHARACTERS = frozenset(RANDOM_STRING_CHARS)


class SessionStore(db.SessionStore):
    def _validate_session_key(self, key: str | None) -> bool:
        # Django's own rule (8 characters or more), and only what its keys are made of.
        return bool(key and 8 <= len(key) <= 64 and KEY_CHARACTERS.issuperset(key))
