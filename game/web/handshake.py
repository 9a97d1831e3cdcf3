"""Websocket handshakes checked as Django checks HTTP requests.

Channels' AllowedHostsOriginValidator compares only the Origin's host name with
ALLOWED_HOSTS: a page on the same host but another port (another program on the
laptop) could open a game's sockets with the player's cookie, and a foreign Host
header was never looked at. Here, as over HTTP:

- the Host header must be one Django answers (`validate_host` against
  ALLOWED_HOSTS, which follows the LAN addresses while the server runs);
- the Origin must be the page's own origin, scheme, host and port (what Django's
  CSRF check asks of a form), or one of CSRF_TRUSTED_ORIGINS. Channels'
  OriginValidator makes that comparison (default ports included) and refuses the
  handshake (HTTP 403) otherwise.

Behind a proxy the Host header is forwarded (`proxy_set_header Host $http_host`),
so the check is the same there.
"""

from __future__ import annotations

from typing import Any

from channels.security.websocket import OriginValidator, WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host


def _header(scope: dict[str, Any], name: bytes) -> str:
    for key, value in scope.get("headers", []):
        if key == name:
            return bytes(value).decode("latin-1")
    return ""


def page_origin(scope: dict[str, Any]) -> str | None:
    """The origin of the page that may open this socket, or None if its Host is foreign."""
    host = _header(scope, b"host")
    domain, _port = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return None
    scheme = "https" if scope.get("scheme") in ("wss", "https") else "http"
    return f"{scheme}://{host}"


class SameOriginValidator:
    """ASGI middleware for websockets: a known Host, and the page's own Origin."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: Any, receive: Any, send: Any) -> Any:
        origin = page_origin(scope)
        if origin is None:
            return await WebsocketDenier()(scope, receive, send)
        allowed = [origin, *settings.CSRF_TRUSTED_ORIGINS]
        return await OriginValidator(self.application, allowed)(scope, receive, send)
