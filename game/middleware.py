"""Request handling shared by every page."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponsePermanentRedirect
from django.middleware import common


class CommonMiddleware(common.CommonMiddleware):
    """Django's CommonMiddleware, but a form posted to a URL without its slash gets a 404.

    Django would redirect it (losing the form) or, with DEBUG on, fail with a server
    error; no page of ours posts to such a URL, so it is simply not found.
    """

    def process_request(self, request: HttpRequest) -> HttpResponsePermanentRedirect | None:
        _refuse_big_bodies(request)
        return super().process_request(request)

    def should_redirect_with_slash(self, request: HttpRequest) -> bool:
        if request.method not in ("GET", "HEAD"):
            return False
        return bool(super().should_redirect_with_slash(request))


def _refuse_big_bodies(request: HttpRequest) -> None:
    """Answer an oversized body with a 400 whether or not the view reads it.

    Django only checks DATA_UPLOAD_MAX_MEMORY_SIZE when a view reads the form.
    """
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if limit is not None and length > limit:
        raise RequestDataTooBig("Request body exceeded settings.DATA_UPLOAD_MAX_MEMORY_SIZE.")
