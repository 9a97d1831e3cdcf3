"""Get a game to the table quickly: a TV, phones that joined by its link, bots."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.helpers import Phone, Recorder, Table, settle


def start_game(
    recorder: Recorder, tv: Table, names: tuple[str, ...], bots: int = 0
) -> tuple[str, list[Phone]]:
    """Open a game on the TV, seat phones (in this order) and bots, start it.

    Returns the join URL and the phones, each with its seat known.
    """
    url = tv.new_game(recorder.server)
    phones = []
    for name in names:
        phone = recorder.phone(name)
        phone.join(url, name)
        phones.append(phone)
    for _ in range(bots):
        tv.add_bot()
    expect(tv.page.locator(".lobby-seat")).to_have_count(len(names) + bots)
    tv.start()
    for phone in phones:
        expect(phone.page.locator("#hand.phase-main, #hand.phase-return")).to_have_count(1)
    settle(tv, *phones)
    return url, phones


def by_turn(phones: list[Phone]) -> tuple[Phone, Phone]:
    """Return (the phone whose turn it is, the other one) of two phones."""
    first, second = phones
    return (first, second) if first.my_turn() else (second, first)
