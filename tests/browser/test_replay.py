"""The replay viewer on the TV: step, jump, autoplay; reached from the start page's list."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from playwright.sync_api import expect

from game.engine import GameState, apply_action, new_game
from game.engine.bot_registry import make_bot
from game.records import archive
from game.web.archive_views import turn_ends
from tests.browser.helpers import BASE_DIR, Server, Table

pytestmark = pytest.mark.browser

SEED = 424242


def bot_game() -> tuple[archive.Record, list[GameState]]:
    """A whole two-player game by greedy bots, as a record, with the state after each move."""
    state = new_game(2, SEED)
    bots = [make_bot("greedy", 1), make_bot("greedy", 2)]
    moves, states = [], [state.copy()]
    while not state.is_over:
        action = bots[state.current].choose(state, state.current)
        apply_action(state, action)
        moves.append(action.notation())
        states.append(state.copy())
    record = archive.Record(
        seed=SEED,
        seats=[archive.SeatRecord(archive.HUMAN, "Aino"), archive.SeatRecord(archive.BOT, "hard")],
        first_player=state.first_player,
        moves=moves,
        result=archive.result_of(state),
    )
    return record, states


def import_into_server(server: Server, record: archive.Record) -> str:
    """Store the record in the live server's database with import_game (which tells a
    finished game's story, cheaply here); return its room code."""
    path = server.log.parent / f"record-{record.seed}-{len(record.seats)}.txt"
    path.write_text(archive.write(record), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env["SPLENDOR_DB_PATH"] = str(server.log.parent / "db.sqlite3")
    env["SPLENDOR_ANALYSIS_PLAYOUTS"] = "2"  # the import tells the game's story, cheaply
    env["SPLENDOR_ANALYSIS_LOW_PRIORITY"] = "0"  # and at once: the tests leave no idle core
    done = subprocess.run(
        [sys.executable, str(BASE_DIR / "manage.py"), "import_game", str(path)],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    match = re.search(r"Imported game ([A-Z]+)", done.stdout)
    assert match, done.stdout + done.stderr
    return match.group(1)


def bank_shown(tv: Table) -> list[int]:
    chips = tv.chips("#replay .bank")
    return [chips[c] for c in ("white", "blue", "green", "red", "black", "gold")]


def test_replay_steps_jumps_and_plays_by_itself(tv: Table, splendor_server: Server) -> None:
    record, states = bot_game()
    code = import_into_server(splendor_server, record)
    ends = turn_ends(2, SEED, record.moves, first_player=record.first_player)
    last = len(ends) - 1
    page = tv.page
    replay = page.locator("#replay")

    # The start page lists the finished game; its Replay link opens the viewer.
    page.goto(splendor_server.url + "/")
    line = page.locator(f'.game-line[data-code="{code}"]')
    expect(line).to_contain_text("Aino")
    expect(line).to_contain_text("Bot 1 (hard)")
    line.get_by_role("link", name="Replay").click()
    page.wait_for_url(re.compile(rf"/replay/{code}/$"))
    expect(replay).to_have_attribute("data-step", "0")
    expect(page.locator("#replay-where")).to_have_text("The deal")
    assert bank_shown(tv) == states[0].bank

    # Step forward and back: each step is one whole turn, with its log.
    page.locator("#replay-next").click()
    expect(replay).to_have_attribute("data-step", "1")
    expect(page.locator("#replay-where")).to_have_text(f"Turn 1 of {last}")
    first_mover = "Aino" if record.first_player == 0 else "Bot 1 (hard)"
    # The last turn is told in sentences that start with who played it.
    told = re.compile(rf"^\s*{re.escape(first_mover)} ")
    expect(page.locator("#replay .last-turn-events .event").first).to_have_text(told)
    assert bank_shown(tv) == states[ends[1]].bank
    page.locator("#replay-back").click()
    expect(replay).to_have_attribute("data-step", "0")

    # Jump to any turn.
    page.locator("#replay-turn").fill("9")
    page.locator("#replay-go").click()
    expect(replay).to_have_attribute("data-step", "9")
    assert bank_shown(tv) == states[ends[9]].bank
    assert page.url.endswith(f"/replay/{code}/")  # htmx swapped the step in place

    # Autoplay at the fastest speed from a few turns before the end, until the end.
    page.locator("#replay-turn").fill(str(last - 3))
    page.locator("#replay-go").click()
    expect(replay).to_have_attribute("data-step", str(last - 3))
    page.locator("#replay-speed").select_option("400")
    page.evaluate(
        """() => { window.__steps = [];
        document.addEventListener("htmx:afterSwap",
          () => window.__steps.push(document.querySelector("#replay").dataset.step)); }"""
    )
    play = page.locator("#replay-play")
    play.click()
    expect(play).to_have_attribute("aria-pressed", "true")
    expect(replay).to_have_attribute("data-step", str(last), timeout=15000)
    # One turn after the other, each asked for once.
    assert page.evaluate("window.__steps") == [str(n) for n in range(last - 2, last + 1)]
    expect(play).to_have_attribute("aria-pressed", "false")  # it stops at the end
    expect(page.locator("#replay .end-screen")).to_be_visible()
    assert bank_shown(tv) == states[-1].bank

    # Pause, then step by hand: slowly, so the first step is seen before the pause.
    page.locator("#replay-first").click()
    expect(replay).to_have_attribute("data-step", "0")
    page.locator("#replay-speed").select_option("4000")
    play.click()
    expect(replay).to_have_attribute("data-step", "1", timeout=15000)
    play.click()
    expect(play).to_have_attribute("aria-pressed", "false")
    expect(play).to_have_text("Play")
    paused_at = int(replay.get_attribute("data-step") or 0)
    page.locator("#replay-next").click()  # stepping by hand still works
    page.wait_for_function(
        "n => Number(document.querySelector('#replay').dataset.step) > n", arg=paused_at
    )
    tv.shot("replay-viewer")
