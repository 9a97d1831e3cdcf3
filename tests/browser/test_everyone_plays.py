"""Issue 33 as a family plays it: Tia has no phone and plays on the TV, Ada and Ben share
Ada's phone, and a bot makes four. A whole game at a human's pace through the real
pages (the TV with the mouse and the keyboard, the phone with taps), checking on the
way what each of them would see: the curtain between the phone's two players with
nothing of either hand behind it, a card Tia reserved blind seen only while held,
reloads that come back to the TV's turn and to the curtain (never straight to a hand),
no serious accessibility finding on the TV's turn and on the curtain, and everyone on
the end screens. Then the server killed and started again during Tia's turn with the
phone behind its curtain: nothing lost, the curtain first, Tia's turn played on."""

from __future__ import annotations

import re
import sqlite3
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.conftest import recording
from tests.browser.helpers import (
    PHONE_STATE_JS,
    Phone,
    Recorder,
    Table,
    axe_violations,
    next_frame,
)
from tests.browser.live_server import COMPRESSED, LiveServer, serve
from tests.browser.test_shared_phone import add_second_player, behind_the_curtain

pytestmark = pytest.mark.browser

TURN = "#tv-turn #hand"
PAUSE = 150  # milliseconds a person's click or key press lasts
TIME_CAP = 150.0  # seconds of play before the game must have ended
TURN_CAP = 200  # human turns (TV and phone)
# Anything of a hand drawn in the phone's page, counted from the moment it is set up:
# a hand shown before its player tapped (after a reconnect, say) would be seen.
HAND_WATCH = """
() => {
  window.__handDrawn = 0;
  const look = () => {
    if (document.querySelector('#my-hand, #whose-hand, #hand [data-card], #hand [data-pick]'))
      window.__handDrawn += 1;
  };
  new MutationObserver(look).observe(document, {subtree: true, childList: true});
  look();
}
"""
PHONE_WAITS = (
    "v => !!document.querySelector('#curtain')"
    " || Number(document.querySelector('#hand')?.dataset.version) > v"
    " || !!document.querySelector('#hand.phase-over')"
)
CURTAIN_OR_TURN = (
    "() => !!document.querySelector('#curtain') || !!document.querySelector('#hand.my-turn')"
    " || !!document.querySelector('#hand.phase-over')"
)


def pause(screen: Table | Phone) -> None:
    """A person looks before they tap: the page has drawn what it holds (the taps and
    key presses themselves last PAUSE, as a person's do)."""
    next_frame(screen.page)


def whose_turn(tv: Table, humans: tuple[str, ...]) -> str:
    """Wait until the TV says a person is to play (the bot plays by itself) or the game is
    over; return that name ("" when over)."""
    wanted = "|".join(re.escape(n) for n in humans)
    line = tv.page.locator("#turn-line")
    expect(line).to_have_text(re.compile(rf"^(Game over|({wanted})’s turn)"))
    text = line.inner_text()
    return "" if text.startswith("Game over") else text.split("’s turn")[0]


# ---------------------------------------------------------------- the TV's turns


def tv_state(tv: Table) -> dict[str, Any]:
    expect(tv.page.locator(TURN)).to_have_count(1)
    state: dict[str, Any] = tv.page.evaluate(PHONE_STATE_JS)
    return state


def tv_click(tv: Table, selector: str) -> None:
    pause(tv)
    tv.page.locator(selector).first.click(delay=PAUSE)


def tv_take(tv: Table, takes: list[str]) -> None:
    take = max(takes, key=len)
    for letter in take:
        tv_click(tv, f"{TURN} [data-picker=take] [data-pick={letter}]")
    tv_click(tv, f"{TURN} [data-picker=take] [data-confirm]")


def tv_reserve_blind(tv: Table) -> None:
    """With the keyboard: the lowest deck left on the board, Enter, then its sheet's
    reserve, Enter."""
    deck = tv.page.locator('.board [id^="table-deck-"][data-tv-open]').first
    level = (deck.get_attribute("id") or "").rsplit("-", 1)[-1]
    deck.focus()
    pause(tv)
    tv.page.keyboard.press("Enter", delay=PAUSE)
    reserve = tv.page.locator(f'#sheet [data-action="reserve:d{level}"]')
    expect(reserve).to_be_focused()
    pause(tv)
    tv.page.keyboard.press("Enter", delay=PAUSE)


def hold_to_look(tv: Table) -> None:
    """The blind card's face is in the page while the mouse holds it, and gone after."""
    face_down = tv.page.locator(f'{TURN} [data-look="0"]')
    look = tv.page.locator("#tv-look .card[data-card]")
    expect(face_down).to_be_visible()
    expect(look).to_have_count(0)
    face_down.hover()
    tv.page.mouse.down()
    expect(look).to_have_count(1)
    expect(look).to_be_visible()
    seen = look.get_attribute("data-card")
    pause(tv)
    tv.page.mouse.up()
    expect(look).to_have_count(0)
    assert seen and f'data-card="{seen}"' not in tv.page.content(), (
        f"card {seen} is still in the TV's page after the release"
    )


def tv_plays(tv: Table, state: dict[str, Any]) -> str:
    """One move for Tia with the mouse: give back, a noble, pass, buy the best card on the
    board, else the longest take, else reserve blind."""
    before = tv.version()
    if state["phase"] == "return":
        for letter in state["returns"][0]:
            tv_click(tv, f"{TURN} [data-picker=return] [data-pick={letter}]")
        tv_click(tv, f"{TURN} [data-picker=return] [data-confirm]")
        kind = "return"
    elif state["phase"] == "noble" or state["nobles"]:
        tv_click(tv, f"{TURN} .noble-button")
        kind = "noble"
    elif state["canPass"]:
        tv_click(tv, f"{TURN} [data-action=pass]")
        kind = "pass"
    else:
        on_board = [
            card
            for card in state["affordable"]
            if tv.page.locator(f'.board [data-tv-open="{card["open"]}"]').count()
        ]
        if on_board:
            best = max(on_board, key=lambda card: card["points"])
            tv_click(tv, f'.board [data-tv-open="{best["open"]}"]')
            expect(tv.page.locator("#sheet")).to_be_visible()
            tv_click(tv, '#sheet [data-action^="buy:"]')
            kind = "buy"
        elif state["takes"]:
            tv_take(tv, state["takes"])
            kind = "take"
        else:
            tv_reserve_blind(tv)
            kind = "reserve"
    tv.wait_version(before)
    return kind


# ---------------------------------------------------------------- the phone's turns


def tap(phone: Phone, selector: str) -> None:
    pause(phone)
    phone.page.locator(selector).first.tap()


def phone_plays(phone: Phone) -> str:
    """One move by taps, a person's pace: as Phone.play_turn, a pause before each tap."""
    state = phone.state()
    assert state["myTurn"], f"{phone.label}: not my turn: {state}"
    if state["phase"] == "return":
        for letter in state["returns"][0]:
            tap(phone, f"[data-picker=return] [data-pick={letter}]")
        tap(phone, "[data-picker=return] [data-confirm]")
        return "return"
    if state["phase"] == "noble" or state["nobles"]:
        tap(phone, ".noble-button")
        return "noble"
    if state["canPass"]:
        tap(phone, "#hand [data-action=pass]")
        return "pass"
    if state["affordable"]:
        best = max(state["affordable"], key=lambda card: card["points"])
        tap(phone, f'#hand button[data-open="{best["open"]}"]')
        expect(phone.page.locator("#sheet")).to_be_visible()
        tap(phone, '#sheet [data-action^="buy:"]')
        return "buy"
    if state["takes"]:
        for letter in max(state["takes"], key=len):
            tap(phone, f"[data-picker=take] [data-pick={letter}]")
        tap(phone, "[data-picker=take] [data-confirm]")
        return "take"
    tap(phone, f'#hand button[data-open="{state["decks"][0]}"]')
    tap(phone, '#sheet [data-action^="reserve:"]')
    return "reserve"


def reload_to_the_curtain(phone: Phone, asked: str) -> None:
    """Reload the phone: the page as served is the curtain (no hand), and after its
    socket's first view still the curtain, asking for `asked`."""
    answer = phone.page.reload()
    assert answer is not None
    served = answer.text()
    assert 'id="curtain"' in served, "the reloaded page was not served behind its curtain"
    assert 'id="my-hand"' not in served and "’s hand" not in served, "a hand was served"
    phone.wait_connected()
    phone.settle()
    assert behind_the_curtain(phone) == asked


def uncover(phone: Phone, name: str) -> None:
    pause(phone)
    phone.page.locator("#uncover").tap()
    expect(phone.page.locator("#whose-hand .whose")).to_have_text(f"{name}’s hand")
    expect(phone.page.locator("#hand.my-turn")).to_have_count(1)


# ---------------------------------------------------------------- the game


def seat_the_family(recorder: Recorder, tv: Table) -> tuple[Phone, str]:
    """Tia on the TV's lobby, Ada's phone with Ben on it, a bot; return the phone and the
    bot's name."""
    url = tv.new_game(recorder.server)
    tv.page.locator("#tv-player-name").click()
    tv.page.keyboard.type("Tia")
    with tv.page.expect_navigation():
        tv.page.locator("#add-tv-player").click()
    tv.wait_connected()
    expect(tv.page.locator(".lobby-seat")).to_have_count(1)
    phone = recorder.phone("Ada+Ben")
    phone.join(url, "Ada")
    add_second_player(phone, "Ben")
    expect(phone.page.locator("#seated")).to_contain_text("Also playing on this phone: Ben.")
    expect(tv.page.locator(".lobby-seat")).to_have_count(3)
    tv.add_bot()
    names = tv.lobby_names()
    assert names[:3] == ["Tia", "Ada", "Ben"], names
    return phone, names[3]


def the_marks(tv: Table) -> None:
    """The TV's seat panels: Tia plays on the TV, Ben shares Ada's phone (and nobody else
    carries either mark)."""
    expect(tv.page.locator('.player[data-seat="0"] .tv-tag')).to_have_text("plays on the TV")
    expect(tv.page.locator('.player[data-seat="0"] .tv-tag')).to_be_visible()
    expect(tv.page.locator('.player[data-seat="2"] .tag.shares')).to_be_visible()
    expect(tv.page.locator(".player .tv-tag")).to_have_count(1)
    expect(tv.page.locator('.player[data-seat="2"] .tag.shares')).to_have_text("shares Ada’s phone")
    expect(tv.page.locator(".player .tag.shares")).to_have_count(1)


@pytest.mark.slow  # a whole game at a human pace: about 70 s, so it starts early
def test_a_family_plays_a_whole_game_tv_seat_shared_phone_and_bot(
    recorder: Recorder, tv: Table, axe: Path
) -> None:
    phone, bot = seat_the_family(recorder, tv)
    tv.start()
    the_marks(tv)
    expect(phone.page.locator("#curtain")).to_be_visible()

    done: Counter[str] = Counter()
    passes: list[str] = []  # "Ada->Ben": the curtain seen as the phone changed hands
    shown = ""  # whose hand the phone shows (uncovered)
    checked: set[str] = set()  # the one-off checks done
    tv_turns = 0
    started = time.monotonic()
    while True:
        assert time.monotonic() - started < TIME_CAP, f"no end after {TIME_CAP} s: {done}"
        assert sum(done.values()) < TURN_CAP, f"no end after {TURN_CAP} turns: {done}"
        name = whose_turn(tv, ("Tia", "Ada", "Ben"))
        if not name:
            break
        if name == "Tia":
            state = tv_state(tv)
            expect(tv.page.locator("#tv-turn-title")).to_have_text(
                "Tia’s turn, played here on the TV"
            )
            if "axe-tv" not in checked:
                found = axe_violations(tv.page, axe, "TV turn", ("serious", "critical"))
                assert not found, "\n".join(found)
                checked.add("axe-tv")
            if "blind" not in checked and state["phase"] == "main" and not state["canPass"]:
                before = tv.version()
                tv_reserve_blind(tv)
                tv.wait_version(before)
                expect(tv.player(0).locator(".card-back")).to_have_count(1)
                checked.add("blind")
                done["reserve"] += 1
                tv_turns += 1
                continue
            if "blind" in checked and "look" not in checked:
                hold_to_look(tv)
                checked.add("look")
            elif "look" in checked and "tv-reload" not in checked:
                version = tv.version()
                tv.page.reload()
                tv.wait_connected()
                expect(tv.page.locator(TURN)).to_have_count(1)
                expect(tv.page.locator("#tv-turn-title")).to_contain_text("Tia’s turn")
                assert tv.version() == version, "the reloaded TV shows another change"
                the_marks(tv)  # mid-game, as after a reload
                state = tv_state(tv)
                checked.add("tv-reload")
            done[tv_plays(tv, state)] += 1
            tv_turns += 1
            continue

        # Ada's or Ben's turn, on the shared phone.
        if name != shown:
            # Another of the phone's players: the curtain first, whatever the last hand.
            expect(phone.page.locator("#curtain-title")).to_have_text(f"Pass the phone to {name}")
            asked = behind_the_curtain(phone)
            assert asked == name, f"the curtain asks for {asked} on {name}’s turn"
            if "axe-curtain" not in checked:
                found = axe_violations(phone.page, axe, "curtain", ("serious", "critical"))
                assert not found, "\n".join(found)
                checked.add("axe-curtain")
            elif "curtain-reload" not in checked:
                reload_to_the_curtain(phone, name)
                checked.add("curtain-reload")
            if shown:
                passes.append(f"{shown}->{name}")
            uncover(phone, name)
            shown = name
            if "curtain-reload" in checked and "hand-reload" not in checked:
                # A reload with the hand showing comes back to the curtain, not the hand.
                reload_to_the_curtain(phone, name)
                uncover(phone, name)
                checked.add("hand-reload")
        expect(phone.page.locator("#whose-hand .whose")).to_have_text(f"{name}’s hand")
        expect(phone.page.locator("#hand.my-turn")).to_have_count(1)
        before = phone.version()
        done[phone_plays(phone)] += 1
        phone.page.wait_for_function(PHONE_WAITS, arg=before)
        tv.reach(before + 1)

    elapsed = time.monotonic() - started
    print(f"Game over after {elapsed:.1f} s: {dict(done)}; Tia: {tv_turns}; {Counter(passes)}")
    assert checked == {
        "axe-tv",
        "blind",
        "look",
        "tv-reload",
        "axe-curtain",
        "curtain-reload",
        "hand-reload",
    }, f"a check never came up in this game: {checked}"
    assert "Ada->Ben" in passes and "Ben->Ada" in passes, passes
    assert done["buy"] > 0, done

    # The end: the TV's ranking and the phone name all four; the marks are still there.
    family = {"Tia", "Ada", "Ben", bot}
    end_screen = tv.page.locator(".end-screen")
    expect(end_screen).to_be_visible()
    expect(end_screen.locator(".ranking tbody tr")).to_have_count(4)
    ranked = end_screen.locator(".ranking tbody tr td:nth-child(2)").all_inner_texts()
    assert set(ranked) == family, ranked
    # Put the results aside to look at the final table: the seats keep their marks.
    tv_click(tv, "#end-close")
    expect(end_screen).to_be_hidden()
    the_marks(tv)
    for seat, name in enumerate(("Tia", "Ada", "Ben", bot)):
        expect(tv.player(seat).locator("header .name")).to_have_text(name)
    tv_click(tv, "#show-results")
    expect(end_screen).to_be_visible()
    phone.settle()
    expect(phone.page.locator(".status .turn-line")).to_have_text("Game over")
    expect(phone.page.locator(".status .opponent .who")).to_have_count(4)
    named = phone.page.locator(".status .opponent .who").all_inner_texts()
    assert set(named) == family, named
    # The phone shows the result of the hand it was showing (its player's place).
    expect(phone.page.locator("#hand .result h1")).to_have_text(
        re.compile(r"^(You win!|You share the victory!|You finished #[2-4])$")
    )
    expect(phone.page.locator("#turn-cue.show")).to_have_count(0)  # a turn's cue faded
    tv.shot("everyone-plays-end")
    phone.shot("everyone-plays-phone-end", full_page=True)


# ---------------------------------------------------------------- a server restart


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory, browser: Browser) -> Iterator[LiveServer]:
    """A server of this module's own, which its test kills and starts again, on the
    compressed clock (as test_faults')."""
    yield from serve(tmp_path_factory, "everyone-plays", COMPRESSED)


@pytest.fixture
def own_rec(
    request: pytest.FixtureRequest, browser: Browser, own_server: LiveServer
) -> Iterator[Recorder]:
    rec = Recorder(browser=browser, server=own_server.server, test_name=request.node.name)
    yield from recording(request, rec)


def moves(server: LiveServer, code: str) -> list[tuple[int, int, str]]:
    """The game's moves as the database keeps them: (index, seat, notation)."""
    with sqlite3.connect(f"file:{server.db}?mode=ro", uri=True, timeout=30) as db:
        rows = db.execute(
            "SELECT m.[index], m.seat, m.notation FROM game_move m"
            " JOIN game_game g ON g.id = m.game_id WHERE g.code = ? ORDER BY m.[index]",
            [code],
        ).fetchall()
    return [(int(i), int(s), str(n)) for i, s, n in rows]


def sockets_opened(screen: Table | Phone) -> int:
    return int(screen.page.evaluate("window.__ws.opened"))


def reconnected(screen: Table | Phone, opened: int, version: int = -1) -> None:
    """Wait until the page opened a socket after its `opened` ones, is connected, shows
    `version` (or later) and has every update the server had for it."""
    screen.page.wait_for_function(
        "([opened, holder, v]) => window.__ws.opened > opened && window.splendorLive"
        " && window.splendorLive.state() === 'open'"
        " && (v < 0 || Number(document.querySelector(holder)?.dataset.version) >= v)",
        arg=[opened, screen.version_holder, version],
    )
    screen.settle()


@pytest.mark.xdist_group("everyone-plays-restart")
def test_a_restart_during_the_tv_turn_with_the_phone_behind_its_curtain(
    own_rec: Recorder, own_server: LiveServer
) -> None:
    tv = own_rec.table()
    url = tv.new_game(own_rec.server)
    tv.page.locator("#tv-player-name").fill("Tia")
    with tv.page.expect_navigation():
        tv.page.locator("#add-tv-player").click()
    tv.wait_connected()
    phone = own_rec.phone("Ada+Ben")
    phone.join(url, "Ada")
    add_second_player(phone, "Ben")
    expect(tv.page.locator(".lobby-seat")).to_have_count(3)
    assert tv.lobby_names() == ["Tia", "Ada", "Ben"]
    tv.start()
    code = tv.code

    # Play until Tia has moved once and it is her turn again, the phone behind its curtain.
    shown, tia_moved = "", False
    while True:
        name = whose_turn(tv, ("Tia", "Ada", "Ben"))
        assert name, "the game ended before the restart"
        if name == "Tia":
            if tia_moved:
                break
            before = tv.version()
            tv_take(tv, tv_state(tv)["takes"])
            tv.wait_version(before)
            tia_moved = True
            continue
        phone.page.wait_for_function(CURTAIN_OR_TURN)
        if name != shown:
            assert behind_the_curtain(phone) == name
            uncover(phone, name)
            shown = name
        before = phone.version()
        phone_plays(phone)
        phone.page.wait_for_function(PHONE_WAITS, arg=before)
        tv.reach(before + 1)
    expect(tv.page.locator(TURN)).to_have_count(1)
    if phone.page.locator("#curtain").count() == 0:
        # Ben's hand is still up on Tia's turn: he passes the phone on to Ada.
        tap(phone, '#whose-hand [data-cover="1"]')
    assert behind_the_curtain(phone) == "Ada"
    phone.settle()
    tv.settle()
    version = own_server.version(code)
    played = moves(own_server, code)
    assert tv.version() == version and len(played) == version, (tv.version(), version, played)

    # The server dies and comes back on its port and file.
    phone.page.evaluate(HAND_WATCH)
    opened = sockets_opened(tv), sockets_opened(phone)
    own_server.kill()
    own_server.start()
    reconnected(tv, opened[0], version)
    reconnected(phone, opened[1])

    # Nothing lost; the phone behind its curtain, no hand drawn before the tap.
    assert own_server.version(code) == version
    assert moves(own_server, code) == played
    assert behind_the_curtain(phone) == "Ada"
    assert phone.page.evaluate("window.__handDrawn") == 0, "a hand was drawn behind the curtain"
    # The TV shows Tia's turn again, and she plays it.
    expect(tv.page.locator(TURN)).to_have_count(1)
    expect(tv.page.locator("#tv-turn-title")).to_have_text("Tia’s turn, played here on the TV")
    assert tv.version() == version
    tv_take(tv, tv_state(tv)["takes"])
    tv.wait_version(version)
    assert own_server.version(code) == version + 1
    after = moves(own_server, code)
    assert after[:-1] == played and after[-1][1] == 0, after
    # Ada's turn: the curtain asks for her; her tap shows her hand, and she plays.
    expect(phone.page.locator("#curtain-title")).to_have_text("Pass the phone to Ada")
    assert phone.page.evaluate("window.__handDrawn") == 0, "a hand was drawn before the tap"
    uncover(phone, "Ada")
    assert phone.page.evaluate("window.__handDrawn") > 0  # the watch sees a hand drawn
    phone_plays(phone)
    tv.reach(version + 2)
    assert own_server.version(code) == version + 2
