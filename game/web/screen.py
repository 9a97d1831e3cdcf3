"""One open screen as the server knows it: who is looking, what it was last shown, its
liveness (game.writer.liveness.Watch) and its limits (game.web.limits.Socket).

The consumer (game.web.consumers) reads the socket and the channel layer, and hands
each notice (game.writer.notices) to the screen's `Screen`, which decides what the
screen shows now and renders it: each method returns the HTML to send ("" for none).
A table screen keeps what it shows, to show it again when presence changes; a phone
keeps only its regions' hashes, as each notice brings all it needs.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field

from django.utils import translation

from game.engine.projection import GameView
from game.engine.state import OVER
from game.screens import jinja
from game.screens.join_qr import join_url
from game.screens.phone import asked_for, curtain_screen, phone_screen
from game.screens.regions import Shown
from game.screens.table import table_screen
from game.storage import presence
from game.storage.readmodel import Room
from game.web import limits
from game.writer import liveness, notices


def speaking(language: str) -> contextlib.AbstractContextManager[None]:
    """Render in the screen's language (switching only when another one is active:
    switching costs more than a region that did not change)."""
    if translation.get_language() == language:
        return contextlib.nullcontext()
    return translation.override(language)


@dataclass(eq=False)
class Screen:
    """A TV table or spectator screen (no seat), or a phone holding one seat."""

    # Who is looking.
    holder: str  # digest of the phone's player key (game.storage.readmodel.holder_of)
    is_host: bool
    language: str
    port: str  # the port the screen used, for the join link
    csrf: str  # the host's CSRF secret, for the lobby's and rematch's forms on the TV
    watch: liveness.Watch  # its game and seat, when it was heard, what version it shows
    share: limits.Socket  # what this socket shares with its phone's others
    # What it was last shown.
    shown: Shown = field(default_factory=Shown)
    room: Room | None = None  # a table screen's, with its projection and recent turns
    view: GameView | None = None
    open: GameView | None = None  # a seat the TV plays, on its turn (the host screen's)
    log: str = ""  # the recent turns (game.storage.history.encode_recent)
    gone: bool = False  # a phone was told it lost its seat
    thinking: bool = False  # a hint is being computed for this socket
    left: bool = False  # its socket closed: its group and presence are forgotten
    # A shared phone (several seats): the seat whose hand it shows (None: covered, the
    # curtain up), the seat its curtain asks for, the turn it last saw (a position),
    # and its seats' positions now (position -> seat id). The seats it lost meanwhile
    # are its watch's (game.writer.liveness.Watch.lost: their presence is not kept).
    # A new socket starts covered: the server, not the page, decides what is shown.
    uncovered: int | None = None
    asked: int | None = None
    turn: int = -1
    places: dict[int, int] = field(default_factory=dict)

    @property
    def game_id(self) -> int:
        return self.watch.game_id

    @property
    def seat_id(self) -> int | None:
        """The seat a phone holds; None for a table screen."""
        return self.watch.seat_id

    @property
    def groups(self) -> list[str]:
        """The channel layer's groups it follows: its seats', or the game's table screens'."""
        if self.seat_id is None:
            return [notices.table_group(self.game_id)]
        return [notices.seat_group(self.game_id, seat) for seat in self.watch.seats]

    @property
    def shared(self) -> bool:
        """A phone that holds several seats (its players pass it round)."""
        return bool(self.watch.also)

    @property
    def mine(self) -> tuple[int, ...]:
        """The seats (ids) a shared phone still holds."""
        return tuple(s for s in self.watch.seats if s not in self.watch.lost)

    @property
    def shown_seat(self) -> int | None:
        """The seat whose hand the phone shows and plays: its only one, or a shared
        phone's uncovered one (None while the curtain is up)."""
        return self.uncovered if self.shared else self.seat_id

    # ------------------------------------------------------------ a table screen

    def table_changed(self, notice: notices.TableChanged) -> str:
        self.room, self.view, self.log = notice.room, notice.view, notice.log
        self.open = notice.open if self.is_host else None
        return self.table_frame()

    def table_read(
        self,
        room: Room,
        view: GameView | None,
        log: str,
        here: presence.Here,
        read_at: float,
        open_view: GameView | None = None,
    ) -> str:
        """Its whole view, as read at `read_at` (after `shown.forget()`)."""
        self.room, self.view, self.log = room, view, log
        self.open = open_view if self.is_host else None
        self.watch.read_presence(here, read_at)
        return self.table_frame()

    def rereads(self, notice: notices.PresenceChanged) -> bool:
        """Whether a phone that came or went makes a table screen read presence again:
        not if a read it began after the change was sent already showed it (the clock is
        this process's: another's change is always read)."""
        if self.seat_id is not None:
            return False
        return not (notice.pid == os.getpid() and notice.at < self.watch.here_at)

    def presence(self, here: presence.Here, read_at: float) -> str:
        """Show which seats have a phone here (or reconnecting), if that changed and was
        not read before what the screen shows."""
        if self.watch.take_presence(here, read_at) and self.room is not None:
            self.watch.here = here
            return self.table_frame()
        return ""

    def table_frame(self) -> str:
        assert self.room is not None
        self.watch.version = self.room.version
        here = self.watch.here
        room = self.room.with_presence(here.connected, here.reconnecting)
        with speaking(self.language):
            url = join_url(room.code, self.port)
            screen = table_screen(
                room,
                self.view,
                log=self.log,
                is_host=self.is_host,
                url=url,
                csrf=self.csrf,
                open_view=self.open,
            )
            return self.shown.frame(screen)

    # ------------------------------------------------------------ a phone

    def seat_changed(self, notice: notices.SeatChanged) -> str | None:
        """What a change shows the phone; None when it must read the game again."""
        if self.shared:
            return self.shared_changed(notice)
        if notice.holder != self.holder:
            return self.gone_frame(notice.room.code)
        return self.phone_frame(notice.room, notice.view, notice.log, notice.position)

    def seat_read(
        self, room: Room, view: GameView | None, log: str, holder: str, position: int
    ) -> str:
        """Its whole view as read (or that it lost its seat)."""
        self.shown.forget()
        if holder != self.holder:
            return self.gone_frame(room.code)
        return self.phone_frame(room, view, log, position)

    def phone_frame(self, room: Room, view: GameView | None, log: str, position: int) -> str:
        self.watch.version = room.version
        with speaking(self.language):
            return self.shown.frame(phone_screen(room, view, position, log))

    # ------------------------------------------------------------ a shared phone

    def shared_changed(self, notice: notices.SeatChanged) -> str | None:
        """A change as a shared phone shows it; None when it must read its seats again
        (it lost one of them)."""
        if notice.seat not in self.mine:
            return ""
        if notice.holder != self.holder:
            self.watch.lost |= {notice.seat}
            return None if self.mine else self.gone_frame(notice.room.code)
        view = notice.view
        if view is None:
            return self.lobby_frame(notice.room, notice.log)
        if notice.seat == self.uncovered:
            return self.after_move(notice.room, view, notice.log)
        if self.uncovered is None:
            return self.covered(notice.room, view, notice.log)
        return ""  # the uncovered seat's own notice shows this change

    def shared_read(
        self, room: Room, views: dict[int, GameView], log: str, holders: dict[int, str]
    ) -> str:
        """Its whole view as read: the lobby, the uncovered hand, or the curtain."""
        self.shown.forget()
        self.watch.lost |= {s for s in self.watch.seats if holders.get(s) != self.holder}
        mine = self.mine
        if not mine:
            return self.gone_frame(room.code)
        if len(mine) == 1:
            self.uncovered = mine[0]
        elif self.uncovered not in mine:
            self.uncovered = None
        view = views.get(mine[0] if self.uncovered is None else self.uncovered)
        if view is None:
            return self.lobby_frame(room, log)
        if self.uncovered is not None:
            self.turn = view.current
            return self.hand_frame(room, view, log)
        return self.covered(room, view, log)

    def after_move(self, room: Room, view: GameView, log: str) -> str:
        """The uncovered seat's change: its hand, unless the turn just passed to another
        of the phone's seats (then the curtain asks for that one)."""
        self.place(room)
        passed = view.current != self.turn and view.phase != OVER
        self.turn = view.current
        upcoming = self.places.get(view.current)
        if passed and upcoming is not None and upcoming != self.uncovered:
            self.uncovered, self.asked = None, upcoming
            return self.curtain_frame(room, view, log)
        return self.hand_frame(room, view, log)

    def covered(self, room: Room, view: GameView, log: str) -> str:
        """The curtain, asking for the seat whose turn came to the phone, or as before."""
        self.place(room)
        if view.current != self.turn and view.current in self.places:
            self.asked = self.places[view.current]
        self.turn = view.current
        if self.asked not in self.places.values():
            positions = tuple(self.places)
            self.asked = self.places[asked_for(positions, view.current, len(room.seats))]
        return self.curtain_frame(room, view, log)

    def place(self, room: Room) -> None:
        mine = set(self.mine)
        self.places = {s.position: s.id for s in room.seats if s.id in mine}

    def position_of(self, seat_id: int | None) -> int:
        return next((p for p, s in self.places.items() if s == seat_id), -1)

    def others(self, position: int) -> tuple[int, ...]:
        return tuple(p for p in self.places if p != position)

    def hand_frame(self, room: Room, view: GameView, log: str) -> str:
        self.place(room)
        position = self.position_of(self.uncovered)
        self.watch.version = room.version
        with speaking(self.language):
            screen = phone_screen(room, view, position, log, self.others(position))
            return self.shown.frame(screen)

    def curtain_frame(self, room: Room, view: GameView, log: str) -> str:
        position = self.position_of(self.asked)
        self.watch.version = room.version
        with speaking(self.language):
            screen = curtain_screen(room, view, position, log, self.others(position))
            return self.shown.frame(screen)

    def lobby_frame(self, room: Room, log: str) -> str:
        self.place(room)
        first = min(self.places) if self.places else 0
        self.watch.version = room.version
        with speaking(self.language):
            return self.shown.frame(phone_screen(room, None, first, log, self.others(first)))

    def cover(self, position: int) -> bool:
        """Put the curtain up, asking for the phone's seat at `position`; False if it is
        not one of its seats."""
        seat = self.places.get(position)
        if seat is None:
            return False
        self.uncovered, self.asked = None, seat
        return True

    def uncover(self, position: int) -> bool:
        """Show the hand the curtain asked for (its player tapped); False for any other."""
        seat = self.places.get(position)
        if seat is None or seat != self.asked or self.uncovered is not None:
            return False
        self.uncovered, self.asked = seat, None
        return True

    def gone_frame(self, code: str) -> str:
        """Tell a phone, once, that it no longer holds its seat."""
        if self.gone:
            return ""
        self.gone = True
        with translation.override(self.language):
            return jinja.render("phone/gone.html", {"oob": True, "code": code})

    # ------------------------------------------------------------ any screen

    def behind(self, notice: notices.ScreenBehind) -> bool:
        """Whether the game moved on past what the screen shows."""
        return self.watch.version < notice.version
