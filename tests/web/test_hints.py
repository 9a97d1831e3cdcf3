"""The "Suggest a move" hint: the hard bot's choice for the phone whose turn it is.

Over real websockets: the hint is legal for that seat, is sent to that phone
only, changes nothing in the database, never names another seat's blind card,
and is refused off one's turn or for a version the game has left.
"""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from game.engine import legal_actions, new_game
from game.engine.actions import parse_action
from game.engine.hints import (
    BUY_CARD,
    CHOOSE_NOBLE,
    PASS_TURN,
    RESERVE_BLIND,
    RESERVE_CARD,
    RETURN_GEMS,
    TAKE_GEMS,
    Hint,
    Reason,
    suggest,
)
from game.engine.rules import apply_action
from game.engine.state import GameState
from game.screens import hint_answers
from game.web import inbound
from tests.web.helpers import (
    Screens,
    db,
    fingerprint,
    legal,
    play_as,
    started,
    state_of,
    visible_cards,
)


@pytest.fixture(autouse=True)
def quick_hints(settings):  # type: ignore[no-untyped-def]
    settings.SPLENDOR_HINT_SECONDS = 0.05


# One Reason per sentence the phone can show (every kind and variant).
REASONS = {
    "buy wins": Reason(BUY_CARD, card=80, level=3, colour="green", points=4, wins=True),
    "buy noble visits": Reason(BUY_CARD, card=50, level=2, colour="red", noble=1, points=2),
    "buy closer, points": Reason(
        BUY_CARD, card=50, level=2, colour="red", points=2, noble=1, noble_missing=2
    ),
    "buy closer": Reason(BUY_CARD, card=1, level=1, colour="black", noble=1, noble_missing=3),
    "buy points": Reason(BUY_CARD, card=50, level=2, colour="red", points=1),
    "buy bonus": Reason(BUY_CARD, card=1, level=1, colour="black"),
    "reserve gold": Reason(RESERVE_CARD, card=50, level=2, colour="red", gold=True),
    "reserve": Reason(RESERVE_CARD, card=50, level=2, colour="red"),
    "blind gold": Reason(RESERVE_BLIND, level=3, gold=True),
    "blind": Reason(RESERVE_BLIND, level=3),
    "take for a card": Reason(TAKE_GEMS, gems=("white", "blue", "green"), next_card=1),
    "take": Reason(TAKE_GEMS, gems=("red", "red")),
    "return for a card": Reason(RETURN_GEMS, gems=("white",), next_card=1),
    "return": Reason(RETURN_GEMS, gems=("white", "blue")),
    "noble wins": Reason(CHOOSE_NOBLE, noble=1, points=3, wins=True),
    "noble": Reason(CHOOSE_NOBLE, noble=1, points=3),
    "pass": Reason(PASS_TURN),
}


@pytest.mark.parametrize("language", ["en", "de", "fi"])
def test_every_reason_is_one_whole_translated_sentence(language: str) -> None:
    with translation.override("en"):
        english = {name: hint_answers.sentence(reason) for name, reason in REASONS.items()}
    with translation.override(language):
        said = {name: hint_answers.sentence(reason) for name, reason in REASONS.items()}
    assert len(set(said.values())) == len(said), "two variants read the same"
    for name, text in said.items():
        assert "%(" not in text and text.endswith("."), (name, text)
        assert text.count(".") == 1, (name, text)  # one sentence
        if language != "en":
            assert text != english[name], f"{name} is not translated into {language}"
    colour = {"en": "green", "de": "grüne", "fi": "vihreä"}[language]
    assert colour in said["buy wins"]
    assert {"en": "level-3", "de": "3", "fi": "3"}[language] in said["buy wins"]


def test_the_example_sentence() -> None:
    with translation.override("en"):
        text = hint_answers.sentence(REASONS["buy closer, points"])
    assert text == "Buy the level-2 red card: 2 points, and one step closer to the noble."


async def _ask(phone, version: int) -> str:  # type: ignore[no-untyped-def]
    await phone.send({"hint": True, "version": str(version)})
    while True:
        message = await phone.receive(timeout=30)
        if "data-hint-action" in message or 'id="flash"' in message:
            return message


@pytest.mark.django_db(transaction=True)
async def test_a_hint_is_legal_private_and_changes_nothing(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob"), first_player=1)
    await db(play_as)(table, "reserve:d1")  # Bob holds a blind card Ada must never learn of
    bob_blind = (await db(state_of)(table.game_id)).players[1].reserved[0]
    tv = await screens.tv(table)
    ada = await screens.phone(table, 0)
    bob = await screens.phone(table, 1)
    await ada.until(lambda html: 'id="hint-answer-1"' in html)
    await tv.barrier()
    await bob.barrier()
    before = await db(fingerprint)(table.game_id)
    allowed = await db(legal)(table.game_id)
    visible = visible_cards(await db(state_of)(table.game_id), 0)

    message = await _ask(ada, 1)

    notation = re.findall(r'data-hint-action="([^"]+)"', message)[0]
    assert notation in allowed
    assert 'id="hint-answer-1"' in message and 'hx-swap-oob="true"' in message
    sentence = re.findall(r"<p>([^<]+)</p>", message)[0]
    assert sentence.strip().endswith(".")
    # Only the sentence, the notation and the control that opens it: no other card.
    action = parse_action(notation)
    named = {int(n) for n in re.findall(r"sheet-card-(\d+)", message)}
    named |= {action.card} if action.card else set()
    assert named <= visible and bob_blind not in named
    assert await db(fingerprint)(table.game_id) == before
    # Answered to that socket only (the others may hear of Bob's phone arriving).
    others = await tv.barrier() + await bob.barrier()
    assert not any("hint-answer" in m or notation in m for m in others)


@pytest.mark.django_db(transaction=True)
async def test_asking_again_at_one_version_gives_the_same_hint_without_a_search(
    screens: Screens, monkeypatch: pytest.MonkeyPatch
) -> None:
    searches: list[int] = []

    def counted(state: GameState, position: int) -> Hint:
        searches.append(position)
        return think(state, position)

    think = hint_answers.think
    monkeypatch.setattr(hint_answers, "think", counted)
    table = await db(started)(("Ada", "Bob"))
    ada = await screens.phone(table, 0)
    await ada.until(lambda html: 'id="hint-answer-0"' in html)
    first = await _ask(ada, 0)
    again = await _ask(ada, 0)
    notation = re.findall(r'data-hint-action="([^"]+)"', first)
    assert notation and notation == re.findall(r'data-hint-action="([^"]+)"', again)
    assert searches == [0]  # one search for the two answers


@pytest.mark.django_db(transaction=True)
async def test_a_hint_off_ones_turn_or_for_an_old_version_is_refused(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob"), first_player=0)
    ada = await screens.phone(table, 0)
    bob = await screens.phone(table, 1)
    await bob.barrier()
    before = await db(fingerprint)(table.game_id)
    refused = await _ask(bob, 0)
    assert "A hint is only for your own turn." in refused
    assert "data-hint-action" not in refused
    await ada.barrier()
    await db(play_as)(table, "take:wug")
    await db(play_as)(table, "take:wug")
    await ada.until_version(2)
    stale = await _ask(ada, 1)
    assert "The game moved on" in stale and "data-hint-action" not in stale
    assert await db(fingerprint)(table.game_id) != before  # the two plays, nothing more
    assert (await db(state_of)(table.game_id)).moves == 2


@pytest.mark.django_db(transaction=True)
async def test_a_hint_in_german_and_its_control(screens: Screens) -> None:
    table = await db(started)(("Ada", "Bob"), first_player=0)
    connected, detail, ada = await screens.try_open(
        table.code, "seat", table.player(0).session, cookies="django_language=de", seat=0
    )
    assert connected, detail
    await ada.until(lambda html: 'id="hint-answer-0"' in html)
    assert "Zug vorschlagen" in ada.view
    message = await _ask(ada, 0)
    notation = re.findall(r'data-hint-action="([^"]+)"', message)[0]
    action = parse_action(notation)
    if action.kind in ("take", "return"):
        assert f'data-preselect="{notation}"' in message
    elif action.card:
        assert f'data-open="sheet-card-{action.card}"' in message
    else:
        assert f'data-open="sheet-deck-{action.level}"' in message
    assert "Nichts wird gespielt" in message
    # The answer lands in the panel the phone shows now.
    assert 'id="hint-answer-0"' in ada.view and notation in ada.view


def test_a_hint_in_the_give_back_step_preselects_the_gems() -> None:
    """Giving back tokens is part of one's turn too: the hint fills the return picker."""
    state = new_game(2, 7, 0)
    while state.phase != "return":  # take or reserve, never buy, until someone holds too many
        hoard = [a for a in legal_actions(state) if a.kind in ("take", "reserve")]
        most = max(hoard, key=lambda a: (a.kind == "take", len(a.gems)))
        apply_action(state, most, seat=state.current)
    hint = hint_answers.think(state, state.current)
    assert hint.action.kind == "return"
    assert hint.action.notation() in {a.notation() for a in legal_actions(state)}
    with translation.override("fi"):
        shown = hint_answers.shown(hint, state.moves)
    assert shown.preselect == hint.action.notation() and not shown.open
    assert shown.sentence.startswith("Palauta jalokivet")


def test_the_hint_reads_nothing_hidden_from_its_seat() -> None:
    """Shuffle the decks and swap another seat's blind card: the same hint, word for word."""
    state = new_game(2, 11, 1)
    apply_action(state, parse_action("reserve:d1"), seat=1)  # Bob's blind card
    other = state.copy()
    for deck in other.decks:
        deck.reverse()
    blind = other.players[1].reserved[0]
    other.players[1].reserved[0], other.decks[0][0] = other.decks[0][0], blind
    assert other.players[1].reserved != state.players[1].reserved
    said = []
    for seen in (state, other):
        hint = suggest(seen, 0, budget=None, playouts=40, seed=5)
        with translation.override("de"):
            said.append(hint_answers.shown(hint, seen.moves))
    assert said[0] == said[1]


def test_the_hint_message_is_read_like_any_other() -> None:
    assert inbound.read_message('{"hint": true, "version": "3"}') == inbound.Inbound(
        "hint", version=3
    )
    assert inbound.read_message('{"hint": true}').kind == "hint"
    assert inbound.read_message('{"hint": "yes", "version": 3}').kind == "bad"
