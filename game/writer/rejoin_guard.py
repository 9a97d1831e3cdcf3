"""Slow down guessing of rejoin codes: a few wrong codes, then a pause.

Counted per game and per client (the phone's address) in Django's cache, which
is shared by every server process when REDIS_URL is set (settings.CACHES).
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.core.cache import cache


def _key(game_id: int, client: str) -> str:
    # Hashed: a client string may hold characters a cache key must not.
    digest = hashlib.sha256(client.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"rejoin-fails:{game_id}:{digest}"


def blocked(game_id: int, client: str) -> bool:
    """True while this client must wait before trying another code in this game."""
    return int(cache.get(_key(game_id, client), 0)) >= settings.SPLENDOR_REJOIN_TRIES


def failed(game_id: int, client: str) -> None:
    """Count one wrong code; the last allowed one starts a full pause."""
    key = _key(game_id, client)
    wait = settings.SPLENDOR_REJOIN_WAIT
    cache.add(key, 0, timeout=wait)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=wait)
        return
    if count >= settings.SPLENDOR_REJOIN_TRIES:
        cache.set(key, count, timeout=wait)


def succeeded(game_id: int, client: str) -> None:
    """A right code: forget this client's earlier mistakes."""
    cache.delete(_key(game_id, client))
