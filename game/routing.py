"""Websocket URL patterns, routed by splendor_site.asgi."""

from django.urls import URLPattern, URLResolver, re_path

from game.consumers import GameConsumer

websocket_urlpatterns: list[URLPattern | URLResolver] = [
    re_path(r"^ws/game/(?P<code>[A-Za-z]{4,8})/(?P<role>table|seat)/$", GameConsumer.as_asgi()),
]
