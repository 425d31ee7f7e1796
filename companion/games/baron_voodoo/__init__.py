"""Baron Voodoo: the dice-grid capture game, tracked from the top faces the camera sees."""

from companion.games.baron_voodoo.rules import BaronVoodoo

GAME_CLASS = BaronVoodoo

__all__ = ["GAME_CLASS", "BaronVoodoo"]
