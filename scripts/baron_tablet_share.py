#!/usr/bin/env python3
"""Baron Voodoo's tablet share, headless (issue 12): the simulated players' own choice of
channel for each action, without a camera (the full path is ``companion bench truth``).

Every action the players make is either pressed for on the turn button (the camera and
the mats tell the move) or declared on the tablet; this counts the declarations, by type.

Usage: scripts/baron_tablet_share.py [--players 2] [--seeds 0 1 2]
"""

from __future__ import annotations

import argparse
from collections import Counter

from companion.games.baron_voodoo import BaronVoodoo
from companion.sim.players.baron_voodoo import BaronVoodooWorld
from companion.sim.world import Declare, TurnButton


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args()
    declared: Counter[str] = Counter()
    total = 0
    for seed in args.seeds:
        world = BaronVoodooWorld(BaronVoodoo(), args.players, None, seed)
        world.start()
        for _ in range(3000):  # bounded: a game is a few hundred steps
            if world.finished() or world.state["phase"] == "over":
                break
            before = world.state
            events = world.step({})
            for event in events:
                if isinstance(event, Declare):
                    kind = event.action["type"]
                    if kind == "effect":
                        kind += f" ({before['turn']['captured'][1]})"
                    declared[kind] += 1
            total += sum(isinstance(e, (Declare, TurnButton)) for e in events)
            world.pending = None  # no tablet to show the history: every press is taken
    count = sum(declared.values())
    print(f"declared on the tablet: {count} of {total} actions ({100 * count / max(1, total):.1f} %)")
    for kind, n in declared.most_common():
        print(f"  {kind}: {n}")


if __name__ == "__main__":
    main()
