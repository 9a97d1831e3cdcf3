"""HTTP pages: home, create, the lobby with its QR code, join, play; CSRF and host rights."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from django.test import Client

from game.models import Game, Seat, new_player_key
from game.writer import games, lobby, seating
from tests.web.helpers import (
    Table,
    card_ids,
    fingerprint,
    game,
    open_lobby,
    play_as,
    started,
    state_of,
    visible_cards,
)

pytestmark = pytest.mark.django_db

SVG_NS = "{http://www.w3.org/2000/svg}"
# One filled square or rectangle of the qrcode "path" SVG: M x,y H x2 V y2 H x z.
RECT = re.compile(
    r"M\s*(-?[\d.]+)[ ,](-?[\d.]+)\s*H\s*(-?[\d.]+)\s*V\s*(-?[\d.]+)\s*H\s*(-?[\d.]+)\s*[zZ]\s*"
)


def client_for(key: str) -> Client:
    """A browser whose session holds this player key."""
    client = Client()
    session = client.session
    session["player_key"] = key
    session.save()
    client.cookies["sessionid"] = str(session.session_key)
    return client


def host_client(table: Table) -> Client:
    return client_for(table.host_key)


def qr_svg_in(page: str) -> str:
    match = re.search(r'<div class="qr" id="join-qr"[^>]*>\s*(<svg.*?</svg>)', page, re.S)
    assert match, "no inline SVG QR code in the lobby"
    return match.group(1)


def rasterise(svg: str, scale: int = 6, margin: int = 4) -> tuple[bytearray, int, int]:
    """Draw the qrcode library's path SVG (axis-aligned rectangles) as a grayscale bitmap."""
    root = ET.fromstring(svg)
    view_box = [float(v) for v in (root.get("viewBox") or "").split()]
    assert len(view_box) == 4, "the QR SVG has no viewBox"
    paths = root.findall(f".//{SVG_NS}path")
    assert paths, "the QR SVG has no path"
    d = " ".join(p.get("d") or "" for p in paths).strip()
    rects = [tuple(float(v) for v in m.groups()) for m in RECT.finditer(d)]
    if RECT.sub("", d).strip():
        pytest.skip("the QR path uses drawing commands this test's rasteriser does not know")
    modules = int(view_box[2])
    size = (modules + 2 * margin) * scale
    pixels = bytearray([255]) * (size * size)
    for x, y, x2, y2, _x in rects:
        for row in range(int((y + margin) * scale), int((y2 + margin) * scale)):
            start = row * size + int((x + margin) * scale)
            end = row * size + int((x2 + margin) * scale)
            pixels[start:end] = bytes(end - start)
    return pixels, size, size


def decode_qr(svg: str) -> str:
    zxingcpp = pytest.importorskip("zxingcpp")
    pixels, width, height = rasterise(svg)
    image = memoryview(pixels).cast("B", (height, width))
    found = zxingcpp.read_barcodes(image)
    assert found, "the QR code could not be decoded"
    return str(found[0].text)


# ---------------------------------------------------------------- pages


def test_home_page() -> None:
    response = Client().get("/")
    assert response.status_code == 200
    assert b'id="new-game"' in response.content
    assert b"csrfmiddlewaretoken" in response.content


def test_the_home_page_lists_the_games_this_screen_hosts() -> None:
    client = Client()
    code = client.post("/new/")["Location"].split("/")[2]
    assert code in client.get("/").content.decode()
    assert code not in Client().get("/").content.decode()


def test_create_makes_this_browser_the_host() -> None:
    client = Client()
    response = client.post("/new/", {"no_gold_small": "on"})
    assert response.status_code == 302
    code = re.fullmatch(r"/host/([A-Z]{6})/", response["Location"])
    assert code, response["Location"]
    created = Game.objects.get(code=code.group(1))
    assert created.status == Game.Status.LOBBY
    assert created.host_key and created.host_key == client.session["player_key"]
    assert created.house_no_gold_small is True


def test_create_only_by_post() -> None:
    assert Client().get("/new/").status_code == 405
    assert Game.objects.count() == 0


def test_the_host_lobby_shows_a_qr_code_and_the_join_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPLENDOR_HOST", "tv-laptop.lan")
    table = open_lobby(("Ada",))
    response = host_client(table).get(
        f"/host/{table.code}/", HTTP_HOST="localhost:8000", SERVER_PORT="8000"
    )
    assert response.status_code == 200
    page = response.content.decode()
    url = f"http://tv-laptop.lan:8000/join/{table.code}/"
    assert f'<p class="join-url">{url}</p>' in page
    assert table.code in page
    assert "localhost" not in url
    svg = qr_svg_in(page)
    root = ET.fromstring(svg)  # well-formed XML
    assert root.tag == f"{SVG_NS}svg"
    assert root.findall(f".//{SVG_NS}path")
    assert decode_qr(svg) == url
    # Host controls, with the CSRF token the forms need.
    assert 'id="add-bot"' in page and 'id="start-game"' in page
    assert "csrfmiddlewaretoken" in page
    assert f'data-ws="/ws/game/{table.code}/table/"' in page


def test_the_join_url_leaves_out_port_80(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPLENDOR_HOST", "192.168.1.50")
    table = open_lobby(("Ada",))
    page = host_client(table).get(f"/host/{table.code}/").content.decode()
    url = f"http://192.168.1.50/join/{table.code}/"
    assert f'<p class="join-url">{url}</p>' in page
    assert decode_qr(qr_svg_in(page)) == url


def test_the_host_tv_draws_a_readable_rejoin_qr_code_for_a_seat_away(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SPLENDOR_HOST", "192.168.1.50")
    table = started(("Ada", "Bob"))
    page = host_client(table).get(f"/host/{table.code}/").content.decode()
    seat = Seat.objects.get(game_id=table.game_id, position=1)
    found = re.search(rf'id="rejoin-qr-1-{seat.rejoin_code}"[^>]*>\s*(<svg.*?</svg>)', page, re.S)
    assert found, "no rejoin QR code for Bob, whose phone is away"
    url = f"http://192.168.1.50/join/{table.code}/?rejoin={seat.rejoin_code}"
    assert decode_qr(found.group(1)) == url


def test_a_spectator_sees_the_lobby_without_host_controls() -> None:
    table = open_lobby(("Ada",))
    page = Client().get(f"/host/{table.code}/").content.decode()
    assert "<svg" in page
    assert 'id="add-bot"' not in page and 'id="start-game"' not in page


def test_join_shows_the_form_with_the_remembered_name() -> None:
    table = open_lobby(())
    client = Client()
    client.cookies["splendor_name"] = "Ada"
    response = client.get(f"/join/{table.code.lower()}/")
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="join-form"' in page
    assert 'name="name" value="Ada"' in page


def test_join_seats_the_phone_and_remembers_the_name() -> None:
    table = open_lobby(())
    client = Client()
    response = client.post(f"/join/{table.code}/", {"name": "  Ada   Lovelace  "})
    assert response.status_code == 302
    assert response["Location"] == f"/play/{table.code}/"
    # Percent-encoded: a cookie travels as Latin-1, a name may be in any script.
    assert response.cookies["splendor_name"].value == "Ada%20Lovelace"
    seat = Seat.objects.get(game_id=table.game_id)
    assert (seat.position, seat.name) == (0, "Ada Lovelace")
    assert seat.player_key == client.session["player_key"]
    # The phone page shows this seat's hand and connects as a seat.
    page = client.get(f"/play/{table.code}/").content.decode()
    assert "You are seated, Ada Lovelace." in page
    assert f'data-ws="/ws/game/{table.code}/seat/"' in page
    # Coming back to the join link goes straight to the game.
    assert client.get(f"/join/{table.code}/")["Location"] == f"/play/{table.code}/"


def test_a_second_join_from_the_same_phone_keeps_one_seat() -> None:
    table = open_lobby(())
    client = Client()
    client.post(f"/join/{table.code}/", {"name": "Ada"})
    client.post(f"/join/{table.code}/", {"name": "Ada L"})
    assert list(Seat.objects.filter(game_id=table.game_id).values_list("name", flat=True)) == [
        "Ada L"
    ]


def test_join_without_a_name_shows_the_form_again() -> None:
    table = open_lobby(())
    response = Client().post(f"/join/{table.code}/", {"name": "   "})
    assert response.status_code == 400
    assert b'role="alert"' in response.content
    assert not Seat.objects.filter(game_id=table.game_id).exists()


def test_join_a_full_table_is_refused() -> None:
    table = open_lobby(("A", "B", "C", "D"))
    response = Client().post(f"/join/{table.code}/", {"name": "E"})
    assert response.status_code == 400
    assert Seat.objects.filter(game_id=table.game_id).count() == 4


def test_after_the_start_join_offers_the_rejoin_code() -> None:
    table = started(("Ada", "Bob"))
    client = Client()
    page = client.get(f"/join/{table.code}/").content.decode()
    assert 'id="rejoin-form"' in page and 'id="join-form"' not in page
    assert client.post(f"/join/{table.code}/", {"name": "Late"}).status_code == 400
    assert client.post(f"/join/{table.code}/", {"rejoin_code": "WRONGX"}).status_code == 400
    code = Seat.objects.get(game_id=table.game_id, position=1).rejoin_code
    response = client.post(f"/join/{table.code}/", {"rejoin_code": code.lower()})
    assert response.status_code == 302
    assert games.seat_of(game(table.game_id), client.session["player_key"]) is not None
    assert games.seat_of(game(table.game_id), table.player(1).key) is None


def test_a_rejoin_link_fills_in_the_code() -> None:
    table = started(("Ada", "Bob"))
    page = Client().get(f"/join/{table.code}/?rejoin=ABCDEF").content.decode()
    assert 'value="ABCDEF"' in page


def test_find_by_room_code() -> None:
    table = open_lobby(("Ada",))
    spaced = " ".join(table.code.lower())
    response = Client().get("/find/", {"code": spaced})
    assert response["Location"] == f"/join/{table.code}/"
    client = Client()
    response = client.get("/find/", {"code": "ZZZZZZ"}, follow=True)
    assert response.redirect_chain[-1][0] == "/"
    assert b"ZZZZZZ" in response.content


def test_the_play_page_without_a_seat_sends_the_phone_to_join() -> None:
    table = started(("Ada", "Bob"))
    response = Client().get(f"/play/{table.code}/")
    assert response.status_code == 302
    assert response["Location"] == f"/join/{table.code}/"
    assert host_client(table).get(f"/play/{table.code}/")["Location"] == f"/join/{table.code}/"


@pytest.mark.parametrize("page", ["host", "join", "play"])
def test_an_unknown_game_is_404(page: str) -> None:
    assert Client().get(f"/{page}/ZZZZZZ/").status_code == 404


# ---------------------------------------------------------------- who may do what


def test_posts_without_a_csrf_token_are_refused() -> None:
    table = open_lobby(("Ada",))
    client = Client(enforce_csrf_checks=True)
    assert client.post("/new/").status_code == 403
    assert client.post(f"/join/{table.code}/", {"name": "Eve"}).status_code == 403
    assert Game.objects.count() == 1
    assert Seat.objects.filter(game_id=table.game_id).count() == 1

    host = Client(enforce_csrf_checks=True)
    host.get("/")
    token = host.cookies["csrftoken"].value
    response = host.post("/new/", {"csrfmiddlewaretoken": token})
    assert response.status_code == 302  # with the token it works
    code = response["Location"].split("/")[2]
    hosted = Game.objects.get(code=code)
    seating.join_game(hosted.id, new_player_key(), "Ada")
    before = fingerprint(hosted.id)
    for action in ("bot", "remove", "start"):
        assert host.post(f"/host/{code}/{action}/", {"position": "0"}).status_code == 403
    assert fingerprint(hosted.id) == before
    assert host.post(f"/host/{code}/bot/", {"csrfmiddlewaretoken": token}).status_code == 302
    assert Seat.objects.filter(game_id=hosted.id).count() == 2


def test_host_actions_from_another_browser_change_nothing() -> None:
    table = open_lobby(("Ada", "Bob"))
    for client in (client_for(table.player(0).key), Client()):
        before = fingerprint(table.game_id)
        for action, data in (
            ("bot", {"kind": "greedy"}),
            ("remove", {"position": "0"}),
            ("start", {}),
            ("rematch", {}),
        ):
            response = client.post(f"/host/{table.code}/{action}/", data, follow=True)
            assert response.status_code == 200
            assert b'class="messages"' in response.content
        assert fingerprint(table.game_id) == before


def test_the_host_runs_the_lobby_from_the_tv() -> None:
    table = open_lobby(("Ada",))
    host = host_client(table)
    assert host.post(f"/host/{table.code}/bot/", {"kind": "random"}).status_code == 302
    assert host.post(f"/host/{table.code}/bot/").status_code == 302
    host.post(f"/host/{table.code}/remove/", {"position": "1"})
    host.post(f"/host/{table.code}/remove/", {"position": "not a number"})
    seated = Seat.objects.filter(game_id=table.game_id).order_by("position")
    assert list(seated.values_list("position", "role", "bot_level")) == [
        (0, "human", ""),
        (1, "bot", "medium"),
    ]
    host.post(f"/host/{table.code}/start/")
    assert game(table.game_id).status == Game.Status.PLAYING
    page = host.get(f"/host/{table.code}/").content.decode()
    assert 'data-status="playing"' in page


def test_the_host_page_follows_a_rematch() -> None:
    table = started(("Ada", "Bob"))
    over = game(table.game_id)
    fresh = lobby.create_game(table.host_key)
    Game.objects.filter(pk=over.pk).update(status=Game.Status.OVER, next_game=fresh)
    assert host_client(table).get(f"/host/{table.code}/")["Location"] == f"/host/{fresh.code}/"
    assert Client().get(f"/host/{table.code}/").status_code == 200


# ---------------------------------------------------------------- privacy on pages


def test_pages_show_no_hidden_card() -> None:
    table = started(("Ada", "Bob"))
    for notation in ("reserve:d1", "reserve:d2", "reserve:d3", "take:wug"):
        play_as(table, notation)
    state = state_of(table.game_id)
    assert state.players[0].blind == [True, True]
    pages = {
        None: host_client(table).get(f"/host/{table.code}/").content.decode(),
        -1: Client().get(f"/host/{table.code}/").content.decode(),
    }
    for player in table.players:
        pages[player.position] = client_for(player.key).get(f"/play/{table.code}/").content.decode()
    for viewer, page in pages.items():
        seat = viewer if viewer is not None and viewer >= 0 else None
        shown = card_ids(page)
        assert shown, viewer
        assert shown <= visible_cards(state, seat), (viewer, shown - visible_cards(state, seat))
    for position, holder in enumerate(state.players):
        for card_id in holder.reserved:
            assert f'data-card="{card_id}"' in pages[position]
    # No page carries a player key.
    for page in pages.values():
        for player in table.players:
            assert player.key not in page
        assert table.host_key not in page
