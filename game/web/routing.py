"""Websocket URL patterns, routed by splendor_site.asgi."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, re_path

from game.web.consumers import GameConsumer

websocket_urlpatterns: list[URLPattern | URLResolver] = [
    re_path(r"^ws/game/(?P<code>[A-Za-z]{4,8})/(?P<role>table|seat)/$", GameConsumer.as_asgi()),
]
