"""The join link phones open and its QR code: made once per address, never per change."""

from __future__ import annotations

import re
import time
from functools import lru_cache
from typing import Any

import qrcode
from qrcode import util as qr_util

from game.screens.network import join_host

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


# The penalty rules of the standard (ISO/IEC 18004, 7.8.3) that pick a code's mask,
# run on whole rows and columns as text: runs of five or more alike, and the 1:1:3:1:1
# finder-like pattern with four light modules on either side.
_RUN = re.compile(r"0{5,}|1{5,}")
_FINDER_LIKE = re.compile(r"(?=10111010000|00001011101)")


@lru_cache(maxsize=8)
def _mask_rows(size: int) -> tuple[tuple[int, ...], ...]:
    """Each mask pattern's rows as bit sets (bit x: the module in column x is flipped)."""
    return tuple(
        tuple(
            sum(1 << x for x in range(size) if qr_util.mask_func(mask)(y, x)) for y in range(size)
        )
        for mask in range(8)
    )


def _penalty(rows: list[int], size: int) -> int:
    """The standard's penalty of a code whose dark modules are `rows` (bit sets), as
    qrcode.util.lost_point counts it from its matrix, in about half the time."""
    width = f"0{size}b"
    across = [format(row, width) for row in rows]
    down = ["".join(column) for column in zip(*across, strict=True)]
    text = "|".join(across + down)
    runs = _RUN.findall(text)
    points = sum(map(len, runs)) - 2 * len(runs)  # 3 for five alike, 1 more for each more
    points += 40 * len(_FINDER_LIKE.findall(text))
    full = (1 << size) - 1
    for upper, lower in zip(rows, rows[1:], strict=False):
        dark, light = upper & lower, ~(upper | lower) & full
        points += 3 * ((dark & dark >> 1).bit_count() + (light & light >> 1).bit_count())
    percent = float(sum(row.bit_count() for row in rows)) / (size**2)
    return points + 10 * int(abs(percent * 100 - 50) / 5)


class _Code(qrcode.QRCode):  # type: ignore[misc]
    """qrcode's QRCode, picking the same mask as the standard asks, faster.

    The library draws the whole code once per mask (eight times) to score each; here it
    is drawn once, and each mask's modules are that drawing with its data modules
    flipped where the two masks differ (the other modules are the same for all eight
    while the mask is chosen: the format bits are left light then).
    """

    data_rows: list[int] | None = None

    def map_data(self, data: Any, mask_pattern: int) -> None:
        if self.data_rows is None:  # the modules still empty are the data's
            self.data_rows = [
                sum(1 << x for x, module in enumerate(row) if module is None)
                for row in self.modules
            ]
        super().map_data(data, mask_pattern)

    def best_mask_pattern(self) -> int:
        self.data_rows = None
        self.makeImpl(True, 0)
        size, flips, data = self.modules_count, _mask_rows(self.modules_count), self.data_rows
        assert data is not None
        drawn = [sum(1 << x for x, dark in enumerate(row) if dark) for row in self.modules]
        scores = [
            _penalty(
                [
                    row ^ (cells & (zero ^ other))
                    for row, cells, zero, other in zip(
                        drawn, data, flips[0], flips[mask], strict=True
                    )
                ],
                size,
            )
            for mask in range(8)
        ]
        return scores.index(min(scores))  # the first of the lowest, as the library's


@lru_cache(maxsize=64)
def qr_svg(url: str, mask: int | None = None) -> str:
    """Return the URL as an inline SVG QR code (no Pillow needed), cached.

    Without `mask` the mask is picked as the standard asks (the join code, which every
    phone scans), as qrcode would pick it but faster (_Code). qrcode's SVG writer drew
    each module as its own rectangle and cost more than that; here each run of dark
    modules in a row is one rectangle.
    """
    code = _Code(border=QR_BORDER, mask_pattern=mask)
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
