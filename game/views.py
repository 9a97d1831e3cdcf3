"""Thin HTTP views."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def home(request: HttpRequest) -> HttpResponse:
    """Render the start page."""
    return render(request, "home.html")
