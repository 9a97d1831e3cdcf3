"""WSGI entry point (HTTP only; websockets need ASGI)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "splendor_site.settings")

application = get_wsgi_application()
