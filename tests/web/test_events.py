"""Every kind of event reads as a whole sentence in English, German and Finnish.

The log and the last-turn strip say what happened from the recorded moves:
each event kind gets its own sentence (a purchase the bonuses paid for says
so), and the end of the game (a win, a shared victory, a stalemate) too.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from game.engine.projection import ColourCount, card_view, noble_view
from game.storage.history import Event, play_through
from tests.engine.builder import position

LANGUAGES = ("en", "de", "fi")
CARD = 1  # a level 1 card
NOBLE = 1

EVENTS = {
    "take3": Event("take3", gems=("white", "blue", "green")),
    "take2": Event("take2", gems=("red", "red")),
    "take_fewer": Event("take_fewer", gems=("black", "white")),
    "return": Event("return", gems=("gold",)),
    "reserve_gold": Event("reserve", card=card_view(CARD), gold=True),
    "reserve_no_gold": Event("reserve", card=card_view(CARD), gold=False),
    "blind_gold": Event("reserve", level=2, gold=True),
    "blind_no_gold": Event("reserve", level=3, gold=False),
    "buy": Event("buy", card=card_view(CARD), paid=(ColourCount("red", 2), ColourCount("gold", 1))),
    "buy_free": Event("buy", card=card_view(CARD), paid=()),
    "noble": Event("noble", noble=noble_view(NOBLE)),
    "pass": Event("pass"),
}

# The words of each sentence, in order; the pictures (gems, a card, a noble) come between.
SENTENCES: dict[str, dict[str, list[str]]] = {
    "take3": {
        "en": ["Aino took three different gems:"],
        "de": ["Aino nahm drei verschiedene Edelsteine:"],
        "fi": ["Aino otti kolme erilaista jalokiveä:"],
    },
    "take2": {
        "en": ["Aino took two gems of one colour:"],
        "de": ["Aino nahm zwei Edelsteine einer Farbe:"],
        "fi": ["Aino otti kaksi samanväristä jalokiveä:"],
    },
    "take_fewer": {
        "en": ["Aino took", "(fewer than three colours were left)"],
        "de": ["Aino nahm", "(es waren weniger als drei Farben übrig)"],
        "fi": ["Aino otti", "(jäljellä oli alle kolme väriä)"],
    },
    "return": {
        "en": ["Aino gave back"],
        "de": ["Aino gab", "zurück"],
        "fi": ["Aino palautti"],
    },
    "reserve_gold": {
        "en": ["Aino reserved", "and took a gold token"],
        "de": ["Aino reservierte", "und bekam ein Gold-Plättchen"],
        "fi": ["Aino varasi kortin", "ja sai kultamerkin"],
    },
    "reserve_no_gold": {
        "en": ["Aino reserved", "(no gold was left)"],
        "de": ["Aino reservierte", "(es war kein Gold mehr da)"],
        "fi": ["Aino varasi kortin", "(kultaa ei ollut jäljellä)"],
    },
    "blind_gold": {
        "en": ["Aino reserved a level II card from the deck and took a gold token"],
        "de": ["Aino reservierte eine Karte der Stufe II vom Stapel und bekam ein Gold-Plättchen"],
        "fi": ["Aino varasi tason II kortin pakasta ja sai kultamerkin"],
    },
    "blind_no_gold": {
        "en": ["Aino reserved a level III card from the deck (no gold was left)"],
        "de": ["Aino reservierte eine Karte der Stufe III vom Stapel (es war kein Gold mehr da)"],
        "fi": ["Aino varasi tason III kortin pakasta (kultaa ei ollut jäljellä)"],
    },
    "buy": {
        "en": ["Aino bought", "paying"],
        "de": ["Aino kaufte", "und zahlte"],
        "fi": ["Aino osti kortin", "ja maksoi"],
    },
    "buy_free": {
        "en": ["Aino bought", "for free: the bonuses paid for all of it"],
        "de": ["Aino kaufte", "kostenlos: die Boni bezahlten alles"],
        "fi": ["Aino osti kortin", "ilmaiseksi: bonukset maksoivat sen kokonaan"],
    },
    "noble": {
        "en": ["A noble", "visited Aino"],
        "de": ["Ein Adliger", "besuchte Aino"],
        "fi": ["Aatelinen", "vieraili pelaajan Aino luona"],
    },
    "pass": {
        "en": ["Aino could not act and passed"],
        "de": ["Aino konnte nichts tun und passte"],
        "fi": ["Aino ei voinut tehdä mitään ja jätti vuoronsa väliin"],
    },
}

# What must not show in a sentence: the words of the other variant.
MUST_NOT = {"buy_free": {"en": "paying", "de": "und zahlte", "fi": "ja maksoi"}}


def _text(html: str) -> str:
    """The words a reader sees, with each picture replaced by one marker."""
    html = re.sub(r'<div class="(card|noble) .*?</div>\s*</div>', " [picture] ", html, flags=re.S)
    html = re.sub(r'<span class="(gem|chip|paid) .*?</span>', " [picture] ", html, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", html)
    return re.sub(r"\s+", " ", text).strip()


def _sentence(event: Event, language: str) -> tuple[str, str]:
    with translation.override(language):
        html = render_to_string("parts/event.html", {"e": event, "name": "Aino"})
    return html, _text(html)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", list(EVENTS))
def test_each_event_reads_as_a_sentence(kind: str, language: str) -> None:
    html, text = _sentence(EVENTS[kind], language)
    words = SENTENCES[kind][language]
    pattern = r".*?".join(re.escape(w) for w in words)
    assert re.search(pattern, text), f"{kind} in {language}: {text!r} does not read {words}"
    assert "%(" not in text and "{{" not in text, text
    unwanted = MUST_NOT.get(kind, {}).get(language)
    assert not unwanted or unwanted not in text, f"{kind} in {language}: {text!r}"
    event = EVENTS[kind]
    if event.card is not None:
        assert f'data-card="{event.card.id}"' in html
    if event.noble is not None:
        assert f'data-noble="{event.noble.id}"' in html
    for colour in event.gems:
        assert f"gem-{colour}" in html
    for paid in event.paid:
        assert f"chip-{paid.colour}" in html


def _outcome(*, shared: bool = False, passes: bool = False) -> dict[str, object]:
    class Seat:
        name = "Aino"

    return {
        "rows": [{"points": 16, "seat": Seat()}],
        "winners": [Seat()],
        "shared": shared,
        "ended_by_passes": passes,
    }


END = {
    "win": (
        {},
        {
            "en": "Game over: Aino wins with 16 points.",
            "de": "Spiel vorbei: Aino gewinnt mit 16 Punkten.",
            "fi": "Peli päättyi: Aino voitti 16 pisteellä.",
        },
    ),
    "shared": (
        {"shared": True},
        {
            "en": "Game over: a shared victory.",
            "de": "Spiel vorbei: ein geteilter Sieg.",
            "fi": "Peli päättyi: jaettu voitto.",
        },
    ),
    "stalemate": (
        {"passes": True},
        {
            "en": "Nobody could act for a whole round, so the game ended there.",
            "de": "Eine ganze Runde lang konnte niemand etwas tun",
            "fi": "Kukaan ei voinut",
        },
    ),
}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("end", list(END))
def test_the_end_of_the_game_reads_as_a_sentence(end: str, language: str) -> None:
    options, expected = END[end]
    with translation.override(language):
        html = render_to_string("parts/outcome_line.html", {"outcome": _outcome(**options)})
    assert expected[language] in _text(html), _text(html)


# ---- the events come out of real moves


def test_a_purchase_paid_by_bonuses_alone_is_free() -> None:
    # Card 1 costs only black; three black bonuses pay for it all.
    cost = card_view(1).cost
    bonuses = "".join(
        {"white": "w", "blue": "u", "green": "g", "red": "r", "black": "k"}[c.colour] * c.amount
        for c in cost
    )
    state = position(
        players=2, market={1: [1, 2, 3, 4]}, decks={1: [5]}, seats=[{"bonuses": bonuses}, {}]
    )
    history = play_through(state, ["buy:1:-"])
    (turn,) = history.turns
    (event,) = turn.events
    assert event.kind == "buy" and event.paid == () and event.refill == (1, 0)
    _html, text = _sentence(event, "en")
    assert "for free" in text and "paying" not in text, text


def test_a_reserve_says_whether_gold_came_with_it() -> None:
    state = position(players=2, bank="wwwwy", market={1: [1, 2, 3, 4]}, decks={1: [5, 6], 2: [41]})
    history = play_through(state, ["reserve:1", "reserve:d2"])
    first, second = (t.events[0] for t in history.turns)
    assert first.gold and first.card is not None and first.refill == (1, 0)
    assert not second.gold and second.card is None and second.level == 2


# ---- the log a phone opens


@pytest.mark.django_db
def test_the_log_page_lists_turns_newest_first_and_the_end() -> None:
    from django.test import Client

    from game.models import Game
    from tests.web.helpers import play_as, started

    table = started(("Ada", "Bob"))
    play_as(table, "take:wug")
    play_as(table, "take:rkw")
    game = Game.objects.get(pk=table.game_id)
    html = Client().get(f"/play/{game.code}/log/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    texts = [_text(li) for li in re.findall(r"<li[^>]*>(.*?)</li>", html, flags=re.S)]
    assert texts[0].startswith("2.") and "took three different gems" in texts[0], texts
    assert texts[1].startswith("1.") and "Ada took three different gems" in texts[1], texts
    assert "Bob" in texts[0], texts


@pytest.mark.django_db
def test_a_long_game_keeps_its_turn_numbers_and_its_whole_log() -> None:
    """The replays kept for the screens keep their last six turns; the Log page
    replays the whole game."""
    from django.test import Client

    from game.models import Game
    from game.storage import history
    from tests.web.helpers import play_as, started

    table = started(("Ada", "Bob", "Cy", "Di"))
    takes = ("take:wug", "take:rkw", "take:ugr", "take:kwu", "take:grk", "take:wug") * 2
    for take in takes[:9]:
        play_as(table, take)
    game = Game.objects.get(pk=table.game_id)
    moves = list(game.moves.order_by("index").values_list("notation", flat=True))
    whole = history.replay_history(4, game.seed, moves, first_player=game.first_player)
    kept = history.recent(game.id, game.code, game.version)
    assert kept == history.encode_recent(whole)
    assert [t.number for t in history.decode_recent(kept)] == [9, 8, 7, 6, 5, 4]
    history._cache.clear()  # as after a restart: read and replayed again
    assert history.recent(game.id, game.code, game.version) == kept
    html = Client().get(f"/play/{game.code}/log/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    texts = [_text(li) for li in re.findall(r"<li[^>]*>(.*?)</li>", html, flags=re.S)]
    assert [t.split(".")[0] for t in texts] == [str(n) for n in range(9, 0, -1)], texts


@pytest.mark.django_db
def test_the_tv_marks_where_the_last_turn_happened() -> None:
    from game.models import Game
    from game.screens import first_paint
    from tests.web.helpers import play_as, started

    table = started(("Ada", "Bob"))
    state = Game.objects.get(pk=table.game_id).state
    assert state is not None
    reserved = state["market"][0][2]  # level 1, third slot
    play_as(table, f"reserve:{reserved}")
    snap = first_paint.read_game(table.game_id)
    html = first_paint.render_table(snap, is_host=False, url="http://127.0.0.1:8000/join/X/")
    # The reserved card, marked in Ada's panel; the refilled slot, marked in the market.
    panel = html[html.index('data-seat="0"') : html.index('data-seat="1"')]
    assert re.search(
        rf'data-just="reserve">\s*<div class="card[^"]*" data-card="{reserved}"', panel
    )
    refill = re.search(
        r'data-just="refill">\s*<div class="card[^"]*level-1" data-card="(\d+)"', html
    )
    assert refill, "the refilled market slot is not marked"
    assert snap.state is not None and int(refill.group(1)) == snap.state.market[0][2]
    assert "Ada reserved" in _text(html)


# ---- the log travels with the writer's event


@pytest.mark.django_db
def test_the_writer_publishes_the_new_turn_from_the_move_it_holds(
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
    django_assert_num_queries: Any,
) -> None:
    from game.models import Game
    from game.storage import history
    from game.writer import notices
    from tests.web.helpers import play_as, started

    table = started(("Ada", "Bob"))
    published: list[str] = []
    monkeypatch.setattr(notices, "publish", lambda *args: published.append(args[4]))
    with django_capture_on_commit_callbacks(execute=True):
        play_as(table, "take:wug")
    with django_capture_on_commit_callbacks(execute=True):
        play_as(table, "take:rkw")
    (turn, first) = history.decode_recent(published[-1])
    assert (turn.number, turn.seat, turn.events[0].kind) == (2, 1, "take3")
    assert (first.number, first.seat, first.events[0].gems) == (1, 0, ("white", "blue", "green"))
    # The same as replaying every recorded move from the deal.
    game = Game.objects.get(pk=table.game_id)
    moves = list(game.moves.order_by("index").values_list("notation", flat=True))
    whole = history.replay_history(2, game.seed, moves, first_player=game.first_player)
    assert published[-1] == history.encode_recent(whole)
    # The game's row keeps it: a screen that connects now reads nothing more.
    with django_assert_num_queries(0):
        assert history.log_of(game.recent, game.id, game.code, game.version) == published[-1]


@pytest.mark.django_db
def test_the_writer_tells_the_turn_from_the_row_whoever_wrote_the_moves_before(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    """With two server processes, a game's writer alternates between them. The one
    that writes now never heard of the moves the other made: it continues the turns
    the game's row keeps, and reads no move and replays nothing to tell them."""
    from game.models import Game
    from game.storage import history
    from game.writer import notices
    from tests.web.helpers import play_as, started

    table = started(("Ada", "Bob"))
    with django_capture_on_commit_callbacks(execute=True):
        play_as(table, "take:wug")
    # The next two moves are made "elsewhere": this process does not hear of them.
    with django_capture_on_commit_callbacks(execute=False):
        play_as(table, "take:rkw")
        play_as(table, "take:ugr")
    history._cache.clear()
    published: list[str] = []
    monkeypatch.setattr(notices, "publish", lambda *args: published.append(args[4]))
    with django_capture_on_commit_callbacks(execute=True):
        play_as(table, "take:kwu")
    assert not history._cache, "the writer replayed the game"
    game = Game.objects.get(pk=table.game_id)
    moves = list(game.moves.order_by("index").values_list("notation", flat=True))
    whole = history.replay_history(2, game.seed, moves, first_player=game.first_player)
    assert published == [history.encode_recent(whole)]
    assert [t.number for t in history.decode_recent(published[0])] == [4, 3, 2, 1]


@pytest.mark.django_db
def test_a_row_that_keeps_no_turns_is_told_from_the_moves(
    django_capture_on_commit_callbacks: Any, django_assert_num_queries: Any
) -> None:
    """A game whose row keeps no recent turns (saved before the row kept them, or
    imported) is replayed once from its moves, and its writer goes on from there."""
    from game.models import Game
    from game.storage import history
    from tests.web.helpers import play_as, started

    table = started(("Ada", "Bob"))
    for take in ("take:wug", "take:rkw", "take:ugr"):
        play_as(table, take)
    Game.objects.filter(pk=table.game_id).update(recent="")
    history._cache.clear()
    game = Game.objects.get(pk=table.game_id)

    def whole() -> str:
        moves = list(game.moves.order_by("index").values_list("notation", flat=True))
        return history.encode_recent(
            history.replay_history(2, game.seed, moves, first_player=game.first_player)
        )

    expected = whole()
    with django_assert_num_queries(3):  # the game, its number of seats, its moves
        assert history.log_of(game.recent, game.id, game.code, game.version) == expected
    play_as(table, "take:kwu")
    game.refresh_from_db()
    told = history.decode_told(game.recent)
    assert (told.moves, told.finished) == (4, 4)
    assert history.log_of(game.recent, game.id, game.code, 4) == whole()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("kind", "players", "told"),
    [("easy", 4, {"return", "noble", "buy", "reserve"}), ("medium", 3, {"buy", "reserve"})],
)
def test_the_row_tells_every_move_of_a_whole_game_as_a_replay_does(
    kind: str, players: int, told: set[str]
) -> None:
    """Returns, noble choices and visits, turns of several moves, the end: after every
    move the turns the row keeps are those a replay of all the moves tells."""
    from game.engine import apply_action, parse_action
    from game.engine.bot_registry import make_bot
    from game.models import Game
    from game.storage import history
    from game.writer import games, moves
    from tests.web.helpers import started

    names = ("Ada", "Bob", "Cy", "Di")[:players]
    table = started(names)
    game = Game.objects.get(pk=table.game_id)
    state = games.load_state(game)
    assert state is not None
    replay = history._Replay(games.replay_game(game), keep=history.RECENT)
    bots = [make_bot(kind, seed=7 + seat) for seat in range(players)]
    kinds: set[str] = set()
    for _move in range(1000):
        if state.is_over:
            break
        seat = state.current
        text = bots[seat].choose(state, seat).notation()
        apply_action(state, parse_action(text), seat=seat)
        moves.play(table.game_id, table.player(seat).key, text, state.moves - 1)
        replayed = replay.play([text])
        kept = history.decode_told(Game.objects.get(pk=table.game_id).recent)
        assert (kept.moves, kept.finished) == (replay.moves, replay.finished)
        assert (kept.turns, kept.pending) == (replayed.turns, replayed.pending)
        kinds.update(e.kind for t in kept.turns for e in t.events)
    assert state.is_over
    assert told <= kinds, kinds
