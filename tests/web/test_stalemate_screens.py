"""A game ended by the stalemate rule says so on the TV and on every phone, in each language."""

from __future__ import annotations

import pytest

from game.engine.state import STALEMATE
from tests.engine.test_stalemate import never_buy
from tests.web.helpers import HOST, open_lobby, play_as, start, state_of
from tests.web.test_translations import back_to_english  # noqa: F401 (autouse fixture)
from tests.web.test_views import client_for

pytestmark = pytest.mark.django_db

SENTENCES = {
    "en": "Nobody bought or reserved a card for 20 rounds, so the game ended there.",
    "de": "Niemand hat 20 Runden lang eine Karte gekauft oder reserviert",
    "fi": "Kukaan ei ostanut eikä varannut yhtään korttia 20 kierroksen",
}


@pytest.mark.parametrize("language", sorted(SENTENCES))
def test_a_stalemate_is_explained_on_the_tv_and_on_every_phone(language: str) -> None:
    table = start(open_lobby(("Ada", "Bob")), first_player=0)
    last_take: dict[int, tuple[int, ...]] = {}
    while not (state := state_of(table.game_id)).is_over:
        play_as(table, never_buy(state, last_take).notation())
    assert state.ended_by == STALEMATE
    pages = {
        "TV": client_for(table.host_key).get(
            f"/host/{table.code}/", HTTP_HOST=HOST, HTTP_ACCEPT_LANGUAGE=language
        )
    }
    for player in table.players:
        pages[player.name] = client_for(player.key).get(
            f"/play/{table.code}/", HTTP_HOST=HOST, HTTP_ACCEPT_LANGUAGE=language
        )
    for screen, response in pages.items():
        assert response.status_code == 200, screen
        assert SENTENCES[language] in response.content.decode(), screen
