"""The TV opens a game, phones scan its QR code and join, the host starts."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import LOOPBACK, Phone, Recorder, Server, Table, decode_qr

pytestmark = pytest.mark.browser


def test_tv_qr_code_phones_join_live_and_host_starts(
    recorder: Recorder, tv: Table, splendor_server: Server
) -> None:
    shown_url = tv.new_game(splendor_server)
    code = tv.code
    qr = tv.page.locator("#join-qr")

    # The QR code, as a camera would see it, holds exactly the URL printed under it.
    decoded = decode_qr(qr.screenshot())
    assert decoded == [shown_url], f"QR decodes to {decoded}, the TV prints {shown_url!r}"
    assert qr.get_attribute("data-url") == shown_url
    parts = urlsplit(shown_url)
    assert (parts.hostname, parts.port, parts.path) == (
        LOOPBACK,
        splendor_server.port,
        f"/join/{code}/",
    )
    expect(tv.page.locator(".lobby .room-code strong")).to_have_text(code)

    # The lobby must update over the socket: this marker would vanish on a reload.
    tv.page.evaluate("window.__noReload = true")
    phones: list[Phone] = []
    for name in ("Aino", "Bertil"):
        phone = recorder.phone(name)
        taps = phone.join(decoded[0], name)
        assert taps <= 2, f"{name} needed {taps} taps to sit down"
        expect(phone.page.locator("#hand .seated")).to_contain_text(name)
        phones.append(phone)
        expect(tv.page.locator(".lobby-seat .seat-name")).to_have_text([p.name for p in phones])
    assert tv.page.evaluate("window.__noReload === true"), "the TV lobby reloaded"
    # Each phone hears about the other too.
    expect(phones[0].page.locator(".status .names")).to_contain_text("Bertil")
    tv.settle()
    tv.shot("lobby")
    phones[0].shot("phone-lobby")

    tv.start()
    for phone in phones:
        expect(phone.page.locator("#hand.phase-main")).to_be_visible()
    turns = [phone.my_turn() for phone in phones]
    assert sorted(turns) == [False, True], f"exactly one phone should be on turn: {turns}"
    expect(tv.page.locator(".player")).to_have_count(2)
    expect(tv.page.locator(".market .card[data-card]")).to_have_count(12)
    tv.settle()
    tv.shot("table")


def test_the_host_picks_how_long_a_hard_bot_thinks(tv: Table, splendor_server: Server) -> None:
    tv.new_game(splendor_server)
    label = "How long a hard bot thinks about each move"
    select = tv.page.get_by_label(label)
    expect(select).to_have_value("1")  # the server's default
    select.select_option("2")
    with tv.page.expect_navigation():  # the form posts, then the host page reloads
        tv.page.locator("#hard-bot-seconds-save").click()
    tv.wait_connected()
    expect(tv.page.get_by_label(label)).to_have_value("2")
    tv.page.reload()
    tv.wait_connected()
    expect(tv.page.get_by_label(label)).to_have_value("2")
    expect(tv.page.locator(".messages")).to_have_count(0)
