"""The five games' trackers, found by name so the CLI and the service load one lazily."""

from __future__ import annotations

import importlib

from companion.games.base import Game

GAMES: dict[str, str] = {
    "times_square": "companion.games.times_square",
    "jivecat": "companion.games.jivecat",
    "baron_voodoo": "companion.games.baron_voodoo",
    "king_of_clubs": "companion.games.king_of_clubs",
    "swing_state": "companion.games.swing_state",
}


def load_game(name: str) -> Game:
    """The tracker for ``name``; each game package exposes ``GAME_CLASS``."""
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; choose one of {', '.join(GAMES)}")
    module = importlib.import_module(GAMES[name])
    return module.GAME_CLASS()
