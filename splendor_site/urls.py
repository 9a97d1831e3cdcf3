"""Root URLs: everything lives in the game app, plus the language switch (and the admin)."""

from django.conf import settings
from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path

urlpatterns: list[URLPattern | URLResolver] = [
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("game.web.urls")),
]

if settings.SPLENDOR_ADMIN:
    urlpatterns.insert(0, path("admin/", admin.site.urls))

# The project's own error pages (also with DEBUG on for 400/403/500 raised in views).
handler400 = "game.web.views.bad_request"
handler403 = "game.web.views.permission_denied"
handler404 = "game.web.views.page_not_found"
handler500 = "game.web.views.server_error"
