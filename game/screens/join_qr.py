"""The join link phones open and its QR code: made once per address, never per change."""

from __future__ import annotations

import time
from functools import lru_cache

import qrcode

from game.screens.lan_address import join_host

_JOIN_HOST_TTL = 30.0  # seconds; a laptop's Wi-Fi address rarely changes mid-game
_join_host_cache: tuple[float, str] = (float("-inf"), "")


def _cached_join_host() -> str:
    """Return join_host(), looked up at most every 30 s (listing adapters costs ~1 ms)."""
    global _join_host_cache
    looked_up, host = _join_host_cache
    if time.monotonic() - looked_up > _JOIN_HOST_TTL:
        host = join_host()
        _join_host_cache = (time.monotonic(), host)
    return host


def join_url(code: str, port: int | str | None) -> str:
    """Return the address phones open; never "localhost", which a phone cannot reach."""
    port_part = f":{port}" if port and str(port) not in ("80", "") else ""
    return f"http://{_cached_join_host()}{port_part}/join/{code}/"


def rejoin_url(url: str, rejoin_code: str) -> str:
    return f"{url}?rejoin={rejoin_code}"


QR_BORDER = 2  # modules of quiet zone around the code


# A seat's rejoin code is drawn with this mask: trying all eight for the one with
# the fewest scanning hazards took 7 ms of the 8 a code costs, and a TV drawing the
# codes of four seats at once held every screen of the server for that long. The
# code is printed beside it, for a phone that cannot read it.
REJOIN_MASK = 0


@lru_cache(maxsize=64)
def qr_svg(url: str, mask: int | None = None) -> str:
    """Return the URL as an inline SVG QR code (no Pillow needed), cached.

    Without `mask` qrcode picks the mask as the standard asks (the join code, which
    every phone scans); it is drawn once per address. qrcode's SVG writer drew
    each module as its own rectangle and cost more than that; here each run of dark
    modules in a row is one rectangle.
    """
    code = qrcode.QRCode(border=QR_BORDER, mask_pattern=mask)
    code.add_data(url)
    code.make(fit=True)
    rows = code.get_matrix()  # the quiet zone included
    size = len(rows)
    path = "".join(_runs(y, row) for y, row in enumerate(rows))
    return (
        f'<svg width="{size}mm" height="{size}mm" version="1.1" viewBox="0 0 {size} {size}"'
        ' xmlns="http://www.w3.org/2000/svg"><rect fill="white" x="0" y="0" width="100%"'
        f' height="100%" /><path d="{path}" fill="#000000" /></svg>'
    )


def _runs(y: int, row: list[bool]) -> str:
    """One rectangle per run of dark modules in a row of the code."""
    found = []
    x, size = 0, len(row)
    while x < size:
        if not row[x]:
            x += 1
            continue
        start = x
        while x < size and row[x]:
            x += 1
        found.append(f"M{start},{y}H{x}V{y + 1}H{start}z")
    return "".join(found)


def clear_cache() -> None:
    global _join_host_cache
    _join_host_cache = (float("-inf"), "")
