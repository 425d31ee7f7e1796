"""Baron Voodoo: the dice-grid capture game, tracked from the top faces the camera sees.

The tracker is assembled here from its parts, split by concern the same way in every
game: the rules (:mod:`.rules`, with the Deity powers in :mod:`.powers` and the scoring
groups in :mod:`.groups`), the grid the camera sees (:mod:`.board`) and the game's
words (:mod:`.words`).
"""

from companion.games.baron_voodoo.board import BaronVoodooBoard
from companion.games.baron_voodoo.rules import BaronVoodooRules
from companion.games.baron_voodoo.words import BaronVoodooWords


class BaronVoodoo(BaronVoodooWords, BaronVoodooBoard, BaronVoodooRules):
    """Baron Voodoo's referee: validates captures and powers seen on the grid, keeps the
    Offering supply, VP, Protection and the Baron Samedi token, and scores the end."""


GAME_CLASS = BaronVoodoo

__all__ = ["GAME_CLASS", "BaronVoodoo"]
