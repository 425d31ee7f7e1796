"""Times Square: the strip game of Champagne Charlie, Saucy Sue and friends (2 players).

The game class is assembled from three concerns, the same way in every game:
``rules`` (facts, set-up, whose turn, legal actions, apply, the end), ``board`` (the
table as spots and how a change seen on it is explained) and ``words`` (history lines,
prompts, Details and the tablet's forms).
"""

from companion.games.times_square.board import TimesSquareBoard
from companion.games.times_square.rules import TimesSquareRules
from companion.games.times_square.words import TimesSquareWords


class TimesSquare(TimesSquareWords, TimesSquareBoard, TimesSquareRules):
    """Times Square's tracker: the rules with the table's view and the game's words."""


GAME_CLASS = TimesSquare

__all__ = ["GAME_CLASS", "TimesSquare"]
