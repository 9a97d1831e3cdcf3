"""Logging helpers used by settings.LOGGING."""

from __future__ import annotations

import logging
import re

from django.views.debug import SafeExceptionReporterFilter


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


class SecretSafeReporterFilter(SafeExceptionReporterFilter):
    """Hide connection URLs (DATABASE_URL, REDIS_URL and where they end up) in error reports.

    Django's filter hides settings named like KEY, PASS or SECRET; a password inside
    a URL would otherwise show on a DEBUG page or in an error report.
    """

    hidden_settings = re.compile(
        r"API|TOKEN|KEY|SECRET|PASS|SIGNATURE|HTTP_COOKIE|_URL$|^CACHES$|^CHANNEL_LAYERS$",
        flags=re.IGNORECASE,
    )
