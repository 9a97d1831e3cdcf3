"""Request handling shared by every page."""

from __future__ import annotations

from django.http import HttpRequest
from django.middleware import common


class CommonMiddleware(common.CommonMiddleware):
    """Django's CommonMiddleware, but a form posted to a URL without its slash gets a 404.

    Django would redirect it (losing the form) or, with DEBUG on, fail with a server
    error; no page of ours posts to such a URL, so it is simply not found.
    """

    def should_redirect_with_slash(self, request: HttpRequest) -> bool:
        if request.method not in ("GET", "HEAD"):
            return False
        return bool(super().should_redirect_with_slash(request))
