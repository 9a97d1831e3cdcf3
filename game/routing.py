"""Websocket URL patterns, routed by splendor_site.asgi."""

from django.urls import URLPattern, URLResolver

websocket_urlpatterns: list[URLPattern | URLResolver] = []
