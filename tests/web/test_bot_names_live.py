"""Bot names reach each live screen in that screen's own language."""

from __future__ import annotations

import pytest

from game.writer import lobby
from tests.web.helpers import Screens, db, open_lobby

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_german_tv_and_a_finnish_phone_name_the_same_bot_each_in_their_language(
    screens: Screens,
) -> None:
    table = await db(open_lobby)(("Ada",))
    tv_ok, _detail, tv = await screens.try_open(
        table.code, "table", table.host_session, cookies="django_language=de", label="tv"
    )
    ada_ok, _detail, ada = await screens.try_open(
        table.code, "seat", table.player(0).session, cookies="django_language=fi", label="Ada"
    )
    assert tv_ok and ada_ok
    await db(lobby.add_bot)(table.game_id, table.host_key, "hard")
    assert "Bot 1 (schwer)" in await tv.until(lambda m: "Bot 1 (schwer)" in m)
    await ada.until(lambda m: "Botti 1 (vaikea)" in m)
    await db(lobby.start_game)(table.game_id, table.host_key, 0)
    await tv.until(lambda m: 'data-status="playing"' in m and "Bot 1 (schwer)" in m)
    await ada.until(lambda m: 'data-my-turn="1"' in m and "Botti 1 (vaikea)" in m)
