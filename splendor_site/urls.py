"""Root URLs: everything lives in the game app, plus the language switch (and the admin)."""

from django.conf import settings
from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path

urlpatterns: list[URLPattern | URLResolver] = [
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("game.urls")),
]

if settings.SPLENDOR_ADMIN:
    urlpatterns.insert(0, path("admin/", admin.site.urls))
