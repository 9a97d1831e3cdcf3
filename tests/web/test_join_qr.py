"""game.screens.join_qr: the join code's mask is the one the standard (and qrcode) picks, found
faster; every code drawn decodes to its address."""

from __future__ import annotations

import random
import string

import pytest
import qrcode
from qrcode import util

from game.screens.join_qr import QR_BORDER, REJOIN_MASK, _Code, _penalty, qr_svg
from tests.web.test_views import decode_qr


def addresses(count: int, seed: int) -> list[str]:
    """Join and rejoin links of many lengths, so codes of many sizes (versions 2 to 14,
    version information from 7 on)."""
    chance = random.Random(seed)
    found = []
    for _ in range(count):
        host = f"192.168.{chance.randint(0, 255)}.{chance.randint(0, 255)}"
        code = "".join(chance.choices(string.ascii_uppercase, k=4))
        tail = "".join(
            chance.choices(string.ascii_letters + string.digits, k=chance.randint(0, 250))
        )
        found.append(f"http://{host}:{chance.randint(80, 65535)}/join/{code}/?rejoin={tail}")
    return found


def stock(url: str, mask: int | None = None) -> qrcode.QRCode:
    code = qrcode.QRCode(border=QR_BORDER, mask_pattern=mask)
    code.add_data(url)
    code.make(fit=True)
    return code


@pytest.mark.parametrize("url", addresses(30, seed=4))
def test_each_mask_scores_as_the_library_scores_it_and_the_same_mask_wins(url: str) -> None:
    library = stock(url)
    for mask in range(8):
        library.makeImpl(True, mask)
        rows = [sum(1 << x for x, dark in enumerate(row) if dark) for row in library.modules]
        assert _penalty(rows, library.modules_count) == util.lost_point(library.modules)
    ours = _Code(border=QR_BORDER)
    ours.add_data(url)
    ours.make(fit=True)
    assert ours.get_matrix() == stock(url).get_matrix()  # the same code, module for module
    assert ours.best_mask_pattern() == stock(url).best_mask_pattern()


@pytest.mark.parametrize("url", addresses(6, seed=9))
def test_a_drawn_code_decodes_to_its_address(url: str) -> None:
    assert decode_qr(qr_svg(url)) == url
    assert decode_qr(qr_svg(url, REJOIN_MASK)) == url
