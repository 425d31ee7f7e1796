"""Swinging Jivecat Voodoo Lounge: chips on Lounge Lizards, Clique cards, Skulls and Trends.

The tracker is assembled here from its parts, split by concern the same way in every
game: the rules (:mod:`.rules`, with the spells in :mod:`.spells`), the table the
camera sees (:mod:`.board`, and the moves that explain its changes in :mod:`.explaining`)
and the game's words (:mod:`.words`).
"""

from companion.games.jivecat.board import JivecatBoard
from companion.games.jivecat.explaining import JivecatExplaining
from companion.games.jivecat.rules import JivecatRules
from companion.games.jivecat.words import JivecatWords


class JivecatGame(JivecatWords, JivecatBoard, JivecatExplaining, JivecatRules):
    """The Swinging Jivecat Voodoo Lounge tracker (2-5 players, Staff chips at 2-3)."""


GAME_CLASS = JivecatGame

__all__ = ["GAME_CLASS", "JivecatGame"]
