"""`manage.py runserver`: Daphne's (HTTP and websockets), plus where to go.

Besides Django's banner (which names the address it listens on, such as
0.0.0.0, that no browser should open) it prints the address to open on the
TV and the address phones use, the one in the QR code.
"""

from __future__ import annotations

from typing import Any

from daphne.management.commands.runserver import Command as DaphneRunserver
from django.utils.translation import gettext as _

from game.screens.lan_address import join_host

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
EVERY_INTERFACE = {"0.0.0.0", "::", ""}


def where_to_go(addr: str, port: int | str) -> str:
    """The lines telling the host where the TV and the phones go."""
    tv_host = "localhost" if addr in EVERY_INTERFACE else addr
    lines = [
        "",
        _("Open on the TV (this computer's browser): %(url)s")
        % {"url": f"http://{tv_host}:{port}/"},
    ]
    if addr in LOOPBACK:
        lines.append(
            _(
                "Phones cannot reach this server: it only listens on this computer. "
                "Start it with `runserver 0.0.0.0:%(port)s` to play with phones."
            )
            % {"port": port}
        )
    else:
        phone_url = f"http://{join_host()}:{port}/"
        lines.append(
            _("Phones join at %(url)s (the QR code on the TV); same Wi-Fi as this computer.")
            % {"url": phone_url}
        )
    return "\n".join(lines) + "\n\n"


class Command(DaphneRunserver):  # type: ignore[misc]  # Channels ships no types
    def get_application(self, options: dict[str, Any]) -> Any:
        # Called once, right after the banner and before the server starts.
        self.stdout.write(where_to_go(self.addr, self.port))
        return super().get_application(options)
