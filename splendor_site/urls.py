"""Root URLs: everything lives in the game app."""

from django.urls import include, path

urlpatterns = [
    path("", include("game.urls")),
]
