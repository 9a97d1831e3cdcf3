"""Logging helpers used by settings.LOGGING."""

from __future__ import annotations

import logging


class OneLineWarning(logging.Filter):
    """Log a refused hostile request (foreign Host, huge body) as one warning line.

    Django logs these SuspiciousOperations as errors with a traceback; they are the
    client's fault, answered with a 400, and must not look like a server failure.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        if record.levelno > logging.WARNING:
            record.levelno = logging.WARNING
            record.levelname = logging.getLevelName(logging.WARNING)
        return True
