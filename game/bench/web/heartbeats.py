"""The heartbeats scenario: the server's CPU per ping, with screens connected and no
game acting."""

from __future__ import annotations

import time
from dataclasses import dataclass

from game.bench.client import clock
from game.bench.web.config import WAIT
from game.bench.web.players import Player, run_all
from game.bench.web.target import Target


@dataclass
class Heartbeats:
    """One server's pings with every screen beating, beside the same screens silent."""

    pings: int
    screens: int
    elapsed: float  # seconds of the beating window
    spent: float  # the server's CPU seconds in it
    idle_share: float  # the server's CPU as a share of one core, every screen silent

    @property
    def per_ping(self) -> float:
        """What the beating window cost beyond the silent one, over the pings sent."""
        return (self.spent - self.idle_share * self.elapsed) / max(1, self.pings)


def heartbeat_costs(
    targets: dict[str, Target], players: dict[str, list[Player]], games: int, seconds: float
) -> dict[str, Heartbeats]:
    """The server's CPU per heartbeat, with the paced games' screens connected and no
    game acting: a window (`seconds` / 2) with every screen silent, then one (of
    `seconds`, at least a presence interval at the default) with every screen sending
    the page's heartbeat, both servers at once."""
    idle = {name: (t.cpu(), clock()) for name, t in targets.items()}
    time.sleep(seconds / 2)
    idle_share = {
        name: (t.cpu() - idle[name][0]) / (clock() - idle[name][1]) for name, t in targets.items()
    }
    before = {name: (t.cpu(), clock()) for name, t in targets.items()}
    until = clock() + seconds
    beating = [(p, targets[name].ping_every) for name in targets for p in players[name][:games]]
    for player, _every in beating:
        player.pings = 0
    run_all(
        [player for player, _every in beating],
        [(until, None, 0.0, every, False) for _player, every in beating],
        seconds + WAIT + 60,
    )
    costs = {}
    for name, target in targets.items():
        elapsed = clock() - before[name][1]
        costs[name] = Heartbeats(
            pings=sum(p.pings for p in players[name][:games]),
            screens=sum(len(p.screens) for p in players[name][:games]),
            elapsed=elapsed,
            spent=target.cpu() - before[name][0],
            idle_share=idle_share[name],
        )
    return costs
