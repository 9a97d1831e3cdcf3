"""The join link phones open and its QR code: made once per address, never per change."""

from __future__ import annotations

import time
from functools import lru_cache

import qrcode
import qrcode.image.svg

from game.network import join_host

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


@lru_cache(maxsize=64)
def qr_svg(url: str) -> str:
    """Return the URL as an inline SVG QR code (no Pillow needed); ~10 ms, so cached."""
    image = qrcode.make(url, image_factory=qrcode.image.svg.SvgPathFillImage, border=2)
    return str(image.to_string(encoding="unicode"))


def clear_cache() -> None:
    global _join_host_cache
    _join_host_cache = (float("-inf"), "")
