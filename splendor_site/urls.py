"""Root URLs: everything lives in the game app, plus the language switch."""

from django.urls import include, path

urlpatterns = [
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("game.urls")),
]

# The project's own error pages (also with DEBUG on for 400/403/500 raised in views).
handler400 = "game.views.bad_request"
handler403 = "game.views.permission_denied"
handler404 = "game.views.page_not_found"
handler500 = "game.views.server_error"
