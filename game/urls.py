"""HTTP URLs of the game."""

from django.urls import path

from game import views

urlpatterns = [
    path("", views.home, name="home"),
]
