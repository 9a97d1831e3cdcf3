"""Root URLs: everything lives in the game app, plus the language switch."""

from django.urls import include, path

urlpatterns = [
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("game.urls")),
]
