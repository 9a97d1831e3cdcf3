"""game.screens.join_qr: every code drawn decodes to its address."""

from __future__ import annotations

import random
import string

import pytest

from game.screens.join_qr import REJOIN_MASK, qr_svg
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


@pytest.mark.parametrize("url", addresses(6, seed=9))
def test_a_drawn_code_decodes_to_its_address(url: str) -> None:
    assert decode_qr(qr_svg(url)) == url
    assert decode_qr(qr_svg(url, REJOIN_MASK)) == url
