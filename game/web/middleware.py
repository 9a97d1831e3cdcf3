"""Request handling shared by every page."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponseBase, HttpResponsePermanentRedirect
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


# Only the server's own scripts, styles, pictures and sockets: no inline script, style
# element, style attribute or event handler runs, so a name or text that slipped past
# escaping could not run either. Pictures may also be data: URLs (small images inlined
# in a stylesheet). 'self' in connect-src covers the page's websocket on the same host
# and port (CSP Level 3: ws: and wss: match 'self' as http: and https: do).
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "frame-ancestors 'none'",
        "base-uri 'self'",
        "form-action 'self'",
    )
)


class ContentSecurityPolicyMiddleware:
    """Send CONTENT_SECURITY_POLICY with every page (Django 5.2 has no built-in CSP).

    With DEBUG on, Django's own technical error pages (inline styles and scripts)
    are left without it, so a developer can read them.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if settings.DEBUG and response.status_code >= 400:
            return response
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        return response
