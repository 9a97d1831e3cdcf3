"""A phone taps "Suggest a move", sees one sentence and opens the same confirm step."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.game_setup import by_turn, start_game
from tests.browser.helpers import Recorder, Table

pytestmark = pytest.mark.browser


def test_the_hint_button_suggests_and_nothing_is_played_until_confirmed(
    recorder: Recorder, tv: Table
) -> None:
    _url, phones = start_game(recorder, tv, ("Ada", "Bob"))
    phone, other = by_turn(phones)
    expect(other.page.locator("#hint [data-hint]")).to_have_count(0)  # only on one's turn
    version = phone.version()

    phone.page.locator("#hint [data-hint]").tap()
    answer = phone.page.locator(f"#hint-answer-{version}[data-hint-action]")
    expect(answer).to_be_visible(timeout=15000)
    notation = answer.get_attribute("data-hint-action") or ""
    sentence = answer.locator("p").first.inner_text()
    assert sentence.endswith(".") and "%(" not in sentence

    answer.locator("button").tap()  # "Show me"
    kind = notation.split(":")[0]
    if kind == "take":
        picker = phone.page.locator("[data-picker=take]")
        letters = notation.split(":")[1]
        expect(picker.locator(".gem-button.selected")).to_have_count(len(set(letters)))
        confirm = picker.locator("[data-confirm]")
        expect(confirm).to_be_enabled()
    else:
        sheet = phone.page.locator("#sheet")
        expect(sheet).to_be_visible()
        confirm = sheet.locator(f'[data-action="{notation}"]')
        expect(confirm).to_have_count(1)
    # Nothing was played: the TV and the phone still show the same version.
    assert phone.version() == version and tv.version() == version

    confirm.tap()
    assert phone.wait_version(version) == version + 1
    expect(phone.page.locator(f"#hint-answer-{version}")).to_have_count(0)  # gone with its turn
