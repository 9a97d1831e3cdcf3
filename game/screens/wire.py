"""The wire between a page and the server: the messages a page sends, the server's answer
to a heartbeat, and the codes a screen's socket is closed with (why the server ended it,
and what the page does then).

A page sends JSON: {"action": notation, "version": n} (a move), {"hint": true,
"version": n} ("Suggest a move"), {"sync": true} (its whole view again) and the
heartbeat {"ping": true}, answered with PONG (game.web.inbound reads them all); the
page is handed HEARTBEAT and PONG with its vocabulary (game.screens.words). Every
other message of the server is HTML for htmx (game.screens.regions).

One table for everyone who names a close: the consumer (game.web.consumers) closes with
these, the page (static/js/connection.js) reads them from its vocabulary (game.screens.words,
JS_VOCABULARY["closes"]) and names no number itself, the benchmark's clients count them.

RFC 6455 leaves 4000-4999 to applications, and an application under Daphne may close
with nothing else but 1000 and 3000-4999: Autobahn refuses any other code ("invalid
close code"), the socket stays open and the consumer keeps receiving. The project's own
reasons are therefore all in 4000-4999, their last digits those of the HTTP status or
websocket code they stand for.
"""

from __future__ import annotations

from enum import IntEnum

# The page's heartbeat as static/js/connection.js sends it (JSON.stringify({ping: true})); with
# the way a client that spaces its JSON writes it, recognised without parsing.
HEARTBEAT = '{"ping":true}'
HEARTBEATS = frozenset({HEARTBEAT, '{"ping": true}'})
PONG = "pong"  # the server's answer to a heartbeat


class Close(IntEnum):
    """Why the server closed a screen's socket."""

    # The socket flooded the server (a script, not a page: see game.web.limits); 1008,
    # "policy violation", in the application's range. The page retries as after a blip.
    FLOOD = 4008
    # This phone holds no seat in the game (its seat was taken with the rejoin code, or
    # removed): the page goes to the join page.
    NO_SEAT = 4403
    # No such game (or no such socket path): the page reloads once, to say what is left.
    NO_GAME = 4404
    # A newer socket of this phone's seat took over (too many open): the page says the
    # game is open elsewhere and waits for a tap, or to be shown again.
    REPLACED = 4429


# As the page receives it: {"FLOOD": 4008, ...}.
CLOSES: dict[str, int] = {close.name: close.value for close in Close}
