"""The channel layer of a single server process (runserver): Channels' in-memory
layer, with its housekeeping done at most once a second.

The stock layer walks every channel and every group to drop expired messages on
each send and each receive; with a few hundred sockets that walk costs more
than delivering the message. Messages expire after a minute, so doing it once a
second changes nothing a screen can notice.
"""

from __future__ import annotations

import time

from channels.layers import InMemoryChannelLayer as StockInMemoryChannelLayer


class InMemoryChannelLayer(StockInMemoryChannelLayer):
    CLEAN_EVERY = 1.0  # seconds between walks over all channels and groups

    _cleaned_at = 0.0

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._cleaned_at < self.CLEAN_EVERY:
            return
        self._cleaned_at = now
        super()._clean_expired()  # type: ignore[no-untyped-call]
