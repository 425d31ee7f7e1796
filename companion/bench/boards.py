"""Sample boards for the benches: the boards a real game passes through, from seeded playouts."""

from __future__ import annotations

from companion.games import load_game
from companion.games.base import BoardView
from companion.sim.headless import deliver
from companion.sim.world import BoardChange, load_world
from companion.table import Table


def sample_boards(game_name: str, players: int | None, count: int, seed: int = 0) -> list[BoardView]:
    """Boards a real game passes through, taken from the simulated table's moves."""
    game = load_game(game_name)
    n = players or game.min_players
    boards: list[BoardView] = []
    while len(boards) < count:
        world = load_world(game_name, game, n, None, seed)
        table = Table.open(game_name, None, n, None, seed, resume=False)
        refusals: list[str] = []
        for event in world.start():
            if isinstance(event, BoardChange):
                boards.append(event.view)
            deliver(table, event, refusals)
        steps = 0
        while not world.finished() and len(boards) < count and steps < 2000:
            for event in world.step(table.public()):
                if isinstance(event, BoardChange):
                    boards.append(event.view)
                deliver(table, event, refusals)
            steps += 1
        seed += 1
    return boards[:count]
