"""ASGI entry point: HTTP through Django, websockets through Channels."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "splendor_site.settings")

# Initialise Django (apps, models) before importing anything that uses the ORM.
django_asgi_app = get_asgi_application()

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.layers import get_channel_layer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.sessions import SessionMiddlewareStack  # noqa: E402
from django.urls import re_path  # noqa: E402

from game.screens.wire import Close  # noqa: E402
from game.web import flow  # noqa: E402
from game.web.handshake import SameOriginValidator  # noqa: E402
from game.web.routing import websocket_urlpatterns  # noqa: E402
from game.web.startup import Starting  # noqa: E402
from game.writer import analyst, bot_turns, housekeeping  # noqa: E402


class NoSuchSocket(AsyncWebsocketConsumer):
    """Any other websocket path: refused politely (Close.NO_GAME), not a server error."""

    async def connect(self) -> None:
        await self.close(code=int(Close.NO_GAME))


application = Starting(
    ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            # Seats are identified by a token in the Django session; there are no user accounts.
            # The handshake is checked as HTTP is: a known Host, the page's own Origin.
            "websocket": SameOriginValidator(
                SessionMiddlewareStack(
                    URLRouter([*websocket_urlpatterns, re_path(r"", NoSuchSocket.as_asgi())])
                )
            ),
        }
    )
)

# Daphne's websockets read no further ahead of the consumers than a few messages, and
# one whose client reads nothing is dropped (game.web.flow; Daphne makes its protocol
# only once it serves, after importing this module).
flow.install()

# The process's one channel layer, made now, before any thread can ask for it:
# channels makes it on first use without a lock, and a bot's thread racing the event
# loop made a second one that no screen listened to.
get_channel_layer()

# Old games and sessions are deleted now and then (never under pytest unless asked).
housekeeping.start_in_background()
# Bot turns nobody plays (the server restarted, another process died) are taken up.
bot_turns.scheduler.start_sweep()
# The stories of finished games not yet told (the server stopped during one) are told.
analyst.analyst.start()
