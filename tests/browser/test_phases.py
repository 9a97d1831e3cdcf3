"""The rarer phases of a turn, on a phone: choosing a noble, a forced pass, paying with gold.

Each test reaches a real position: tests/browser/positions.py finds a seed and
the moves of a bot game that lead to it (pure engine, on every run). The game
is opened on the TV and two phones join by its link as usual; the seed is then
set in the server's database before the TV's Start button deals, and the moves
are replayed through moves.play by a `manage.py shell` next to the server.
That process cannot reach the server's sockets, so the screens reload. The
phone on turn then does the interesting part by tapping.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from typing import Any

import pytest
from playwright.sync_api import expect

from game.engine import GameState, apply_action, parse_action
from game.engine.cards import card, noble
from game.engine.colours import GOLD
from tests.browser.helpers import (
    BASE_DIR,
    CHIPS_JS,
    Phone,
    Recorder,
    Server,
    Table,
    settle,
)
from tests.browser.positions import (
    Position,
    find_forced_pass,
    find_gold_payment,
    find_noble_choice,
)

pytestmark = pytest.mark.browser

NAMES = ("Aino", "Bertil")  # seats 0 and 1, in the order they join

# Run by `manage.py shell -c` against the server's database; the job comes on stdin.
DB_SCRIPT = """
import json, sys
from game.writer import moves
from game.models import Game

job = json.loads(sys.stdin.read())
game = Game.objects.get(code=job["code"])
if "seed" in job:
    assert game.status == Game.Status.LOBBY, game.status
    game.seed = job["seed"]
    game.save(update_fields=["seed"])
for text in job.get("moves", ()):
    game.refresh_from_db()
    seat = game.seats.get(position=game.state["current"])
    moves.play(game.id, seat.player_key, text, game.version)
game.refresh_from_db()
result = {
    "status": game.status,
    "seed": game.seed,
    "no_gold_small": game.house_no_gold_small,
    "version": game.version,
    "state": game.state,
    "moves": list(game.moves.order_by("index").values_list("notation", flat=True)),
}
print("RESULT " + json.dumps(result))
"""


def in_server_db(server: Server, job: dict[str, Any]) -> dict[str, Any]:
    """Run DB_SCRIPT on the live server's SQLite file; return what it read back."""
    database = server.log.parent / "db.sqlite3"  # where conftest puts the server's database
    assert database.exists(), f"no server database at {database}"
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "REDIS_URL", "SPLENDOR_ALLOWED_HOSTS")
    }
    env.update(
        SPLENDOR_DB_PATH=str(database),
        SPLENDOR_SECRET_KEY=secrets.token_urlsafe(50),  # never touch the repo's .secret_key
        PYTHONUNBUFFERED="1",
    )
    done = subprocess.run(
        [sys.executable, str(BASE_DIR / "manage.py"), "shell", "-v", "0", "-c", DB_SCRIPT],
        cwd=BASE_DIR,
        env=env,
        input=json.dumps(job),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, f"manage.py shell failed:\n{done.stderr[-3000:]}"
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    result: dict[str, Any] = json.loads(line.removeprefix("RESULT "))
    return result


def open_game(recorder: Recorder, tv: Table, *, no_gold_small: bool = False) -> list[Phone]:
    """Open a game on the TV (house rule ticked if asked); two phones join by its link."""
    if no_gold_small:
        page = tv.page
        page.goto(recorder.server.url + "/")
        page.locator(".house-rules summary").click()
        page.locator("input[name=no_gold_small]").check()
        page.locator("#new-game").click()
        page.wait_for_url(re.compile(r"/host/[A-Z0-9]+/$"))
        expect(page.locator("#join-qr")).to_be_visible()
        tv.wait_connected()
        url = page.locator(".lobby .join-url").inner_text().strip()
    else:
        url = tv.new_game(recorder.server)
    phones = []
    for name in NAMES:
        phone = recorder.phone(name)
        phone.join(url, name)
        phones.append(phone)
    expect(tv.page.locator(".lobby-seat")).to_have_count(len(NAMES))
    return phones


def reach(recorder: Recorder, tv: Table, phones: list[Phone], found: Position) -> Phone:
    """Deal the seed with the TV's Start button, replay the moves; return the phone on turn."""
    server = recorder.server
    lobby = in_server_db(server, {"code": tv.code, "seed": found.seed})
    assert (lobby["seed"], lobby["no_gold_small"]) == (found.seed, found.no_gold_small)
    tv.start()  # the seed draws the first player, as it did in the search
    for phone in phones:
        expect(phone.page.locator("#hand.phase-main")).to_have_count(1)
    settle(tv, *phones)
    replayed = in_server_db(server, {"code": tv.code, "moves": found.moves})
    # The game in the database is exactly the position the search found.
    assert replayed["moves"] == list(found.moves)
    assert replayed["state"] == found.state.to_dict()
    version = len(found.moves)
    assert replayed["version"] == version
    # The server's screens were not told: reload them all.
    tv.page.reload()
    expect(tv.page.locator(".table")).to_be_visible()
    tv.wait_connected()
    for phone in phones:
        phone.page.reload()
        phone.wait_connected()
    for screen in (tv, *phones):
        assert screen.reach(version) == version, f"{screen.label} went past version {version}"
    settle(tv, *phones)
    for seat, phone in enumerate(phones):
        assert phone.seat() == seat
        assert phone.my_turn() == (seat == found.seat)
    return phones[found.seat]


def sheets_with_actions(phone: Phone) -> list[str]:
    """The action sheets (card and deck templates) that hold any action button."""
    found: list[str] = phone.page.evaluate(
        "() => [...document.querySelectorAll('#hand template')]"
        ".filter(t => t.content.querySelector('[data-action]')).map(t => t.id)"
    )
    return found


def enabled_sheet_actions(phone: Phone) -> list[str]:
    """The actions a tap could send from the phone's sheets, opened one by one."""
    found: list[str] = []
    sheet = phone.page.locator("#sheet")
    for opener in phone.page.locator("#hand button[data-open]").all():
        opener.tap()
        expect(sheet).to_be_visible()
        found += [
            b.get_attribute("data-action") or ""
            for b in sheet.locator("[data-action]:enabled").all()
        ]
        sheet.locator("[data-close]").tap()
        expect(sheet).to_be_hidden()
    return found


def after(state: GameState, *moves: str) -> dict[str, Any]:
    """The state after these moves, as the database stores it."""
    state = state.copy()
    for text in moves:
        apply_action(state, parse_action(text))
    return state.to_dict()


def test_choose_between_two_nobles(recorder: Recorder, tv: Table) -> None:
    found = find_noble_choice()
    assert found is not None, "no bot game in the seed range reached a choice of nobles"
    print(
        f"noble choice: seed {found.position.seed} {found.position.bots}, "
        f"{len(found.position.moves)} moves, then {found.buy} -> nobles {found.choices}"
    )
    position = found.position
    seat = position.seat
    phones = open_game(recorder, tv)
    phone = reach(recorder, tv, phones, position)
    other = phones[1 - seat]

    # ---- The buy that brings two nobles at once, tapped in the card's sheet.
    card_id = int(found.buy.split(":")[1])
    before = phone.version()
    phone.page.locator(f'#hand button[data-open="sheet-card-{card_id}"]').tap()
    sheet = phone.page.locator("#sheet")
    expect(sheet).to_be_visible()
    sheet.locator(f'[data-action="{found.buy}"]').tap()
    phone.wait_version(before)

    panel = phone.page.locator("#hand .nobles-choice")
    expect(panel).to_be_visible()
    expect(panel.locator("h2")).to_have_text("Choose a noble")
    expect(phone.page.locator("#hand.phase-noble")).to_have_count(1)
    expect(phone.page.locator("#hand .your-turn")).to_contain_text("Several nobles")
    buttons = panel.locator(".noble-button")
    expect(buttons).to_have_count(len(found.choices))
    offered = sorted(b.get_attribute("data-action") or "" for b in buttons.all())
    assert offered == sorted(f"noble:{n}" for n in found.choices)
    # Nothing else can be done meanwhile: no gem picker, no buy or reserve from any sheet.
    expect(phone.page.locator("[data-picker]")).to_have_count(0)
    assert enabled_sheet_actions(phone) == []
    # A sheet whose actions wait says they wait for this step, not for "your turn".
    for screen, step in ((phone, True), (other, False)):
        screen.reach(phone.version())
        waiting = sheets_with_actions(screen)
        assert waiting, f"no sheet with actions to read the note on ({screen})"
        screen.page.locator(f'#hand button[data-open="{waiting[0]}"]').tap()
        opened = screen.page.locator("#sheet")
        note = "once this step of your turn is done" if step else "on your turn"
        expect(opened.locator("[data-turn-note]")).to_have_text(f"You can do this {note}.")
        opened.locator("[data-close]").tap()
        expect(opened).to_be_hidden()
    tv.wait_version(before)
    expect(tv.page.locator(".turn-line")).to_contain_text("choosing a noble")
    other.reach(phone.version())
    assert not other.my_turn()
    expect(other.page.locator("#hand .nobles-choice")).to_have_count(0)
    phone.shot("phone-noble-choice")

    # ---- Tap the last one offered: it asks first (the dialog is accepted), then it visits.
    chosen = found.choices[-1]
    rest = [n for n in found.choices if n != chosen]
    questions: list[str] = []
    phone.page.on("dialog", lambda dialog: questions.append(dialog.message))  # watch() accepts
    before = phone.version()
    panel.locator(f'.noble-button[data-action="noble:{chosen}"]').tap()
    phone.wait_version(before)
    assert questions == ["Choose this noble?"]
    expect(phone.page.locator("#hand .nobles-choice")).to_have_count(0)
    expect(phone.page.locator(f'.my-hand .noble[data-noble="{chosen}"]')).to_be_visible()

    tv.wait_version(before)
    mine = tv.player(seat)
    expect(mine.locator(f'.reserved .noble[data-noble="{chosen}"]')).to_be_visible()
    points = position.state.players[seat].points + card(card_id).points + noble(chosen).points
    expect(mine.locator(".score")).to_have_text(str(points))
    table_nobles = tv.page.locator(".board .nobles")
    expect(table_nobles.locator(f'.noble[data-noble="{chosen}"]')).to_have_count(0)
    for left in rest:
        expect(table_nobles.locator(f'.noble[data-noble="{left}"]')).to_be_visible()
        expect(mine.locator(f'.noble[data-noble="{left}"]')).to_have_count(0)
    expect(tv.page.locator(".turn-line")).to_contain_text(f"{NAMES[1 - seat]}’s turn")
    other.wait_turn()
    assert other.my_turn(), "the turn did not pass to the other phone"
    tv.shot("table-noble-chosen")

    final = in_server_db(recorder.server, {"code": tv.code})
    assert final["state"] == after(position.state, found.buy, f"noble:{chosen}")


def test_forced_pass(recorder: Recorder, tv: Table) -> None:
    position = find_forced_pass()
    assert position is not None, "no bot game in the seed range came to a forced pass"
    print(f"forced pass: seed {position.seed} {position.bots}, {len(position.moves)} moves")
    seat = position.seat
    phones = open_game(recorder, tv, no_gold_small=True)
    phone = reach(recorder, tv, phones, position)
    other = phones[1 - seat]

    state = phone.state()
    assert state["phase"] == "main" and state["canPass"], state
    assert (state["takes"], state["affordable"], state["decks"]) == ([], [], []), state
    expect(phone.page.locator("#hand .your-turn")).to_contain_text("No action is possible")
    # The gem picker is there but nothing in it can be tapped: the bank has no gems.
    picker = phone.page.locator("[data-picker=take]")
    for gem in picker.locator("[data-pick]").all():
        expect(gem).to_be_disabled()
        expect(gem.locator(".have")).to_have_text("0")
    expect(picker.locator("[data-confirm]")).to_be_disabled()
    # The only action on the page is Pass: no sheet offers a buy or a reserve.
    actions = phone.page.locator("#hand [data-action]")
    expect(actions).to_have_count(1)
    expect(actions).to_have_attribute("data-action", "pass")
    assert sheets_with_actions(phone) == []
    expect(phone.page.locator(".my-hand .reserved .card-button")).to_have_count(3)
    opener = phone.page.locator("#hand .card-button[data-open]").first
    opener.tap()
    sheet = phone.page.locator("#sheet")
    expect(sheet).to_be_visible()
    expect(sheet.locator("[data-action]")).to_have_count(0)
    expect(sheet).to_contain_text("You cannot afford this card yet")
    sheet.locator("[data-close]").tap()
    expect(sheet).to_be_hidden()
    phone.shot("phone-forced-pass")

    # ---- Pass: the turn goes to the other phone, which has something to do.
    before = phone.version()
    actions.tap()
    phone.wait_version(before)
    tv.wait_version(before)
    expect(tv.page.locator(".turn-line")).to_contain_text(f"{NAMES[1 - seat]}’s turn")
    expect(tv.page.locator("#last-turn")).to_contain_text("could not act and passed")
    assert not phone.my_turn()
    expect(phone.page.locator("#hand [data-action=pass]")).to_have_count(0)
    other.wait_turn()
    assert other.my_turn(), "the turn did not pass to the other phone"
    other_state = other.state()
    assert not other_state["canPass"], other_state
    expect(other.page.locator("#hand .your-turn")).to_contain_text("Take gems, or tap a card")

    final = in_server_db(recorder.server, {"code": tv.code})
    assert final["state"] == after(position.state, "pass")
    assert final["state"]["passes_in_row"] == 1


def test_pay_with_gold_instead_of_gems(recorder: Recorder, tv: Table) -> None:
    found = find_gold_payment()
    assert found is not None, "no bot game in the seed range offered a gold payment"
    print(
        f"gold payment: seed {found.position.seed} {found.position.bots}, "
        f"{len(found.position.moves)} moves, card {found.card}: {found.payments}"
    )
    position = found.position
    seat = position.seat
    phones = open_game(recorder, tv)
    phone = reach(recorder, tv, phones, position)

    opener = phone.page.locator(f'#hand button[data-open="sheet-card-{found.card}"]')
    expect(opener).to_have_class(re.compile(r"\baffordable\b"))
    # The price shown on the card is the cheapest way: gems only.
    expect(opener.locator(".pay-line .gem-gold")).to_have_count(0)
    opener.tap()
    sheet = phone.page.locator("#sheet")
    expect(sheet).to_be_visible()
    buttons = sheet.locator(f'[data-action^="buy:{found.card}:"]')
    expect(buttons).to_have_count(len(found.payments))
    offered = [b.get_attribute("data-action") for b in buttons.all()]
    assert offered == list(found.payments), "not the engine's payments, least gold first"
    first, alternative = buttons.nth(0), buttons.nth(1)
    expect(first).to_have_class(re.compile(r"\bprimary\b"))
    expect(first).not_to_contain_text("Or buy, paying")
    assert "gold" not in first.locator(".paid").evaluate(CHIPS_JS)
    expect(alternative).to_have_class(re.compile(r"\balt\b"))
    expect(alternative).to_contain_text("Or buy, paying")
    gold = found.gold[1]
    assert gold > 0
    assert alternative.locator(".paid").evaluate(CHIPS_JS)["gold"] == gold
    expect(sheet.locator(".hint")).to_contain_text("Or spend gold instead of gems")
    phone.shot("phone-gold-payment")

    bank_gold = tv.bank()["gold"]
    hand_gold = tv.tokens(seat)["gold"]
    assert hand_gold == position.state.players[seat].tokens[GOLD] > 0
    cards = tv.cards_bought(seat)
    before = phone.version()
    alternative.tap()
    phone.wait_version(before)
    tv.wait_version(before)
    tv.wait_chips(".board .bank", {"gold": bank_gold + gold})
    assert tv.tokens(seat)["gold"] == hand_gold - gold
    assert tv.cards_bought(seat) == cards + 1
    expect(tv.page.locator(f'.market .card[data-card="{found.card}"]')).to_have_count(0)
    expect(tv.page.locator("#last-turn .paid .chip-gold")).to_have_count(1)

    final = in_server_db(recorder.server, {"code": tv.code})
    assert final["moves"][-1] == found.payments[1]
    assert final["state"] == after(position.state, found.payments[1])
    assert final["state"]["bank"][GOLD] == bank_gold + gold
