"""Which seats (by Seat id) have a phone connected right now, in this server process.

Kept in memory on purpose: after a restart every phone reconnects and is
counted again. With several server processes (Redis layer) each process only
knows its own sockets; the host screen then may show a seat as away too
eagerly, which is harmless.
"""

from collections import Counter, defaultdict

_connected: defaultdict[int, Counter[int]] = defaultdict(Counter)


def arrive(game_id: int, seat_id: int) -> None:
    _connected[game_id][seat_id] += 1


def leave(game_id: int, seat_id: int) -> None:
    seats = _connected[game_id]
    seats[seat_id] -= 1
    if seats[seat_id] <= 0:
        del seats[seat_id]


def connected(game_id: int) -> frozenset[int]:
    """Return the ids of the seats with at least one open socket."""
    return frozenset(_connected[game_id])


def reset() -> None:
    """Forget everything (tests)."""
    _connected.clear()
