"""Times Square: the strip game of Champagne Charlie, Saucy Sue and friends (2 players)."""

from companion.games.times_square.rules import TimesSquare

GAME_CLASS = TimesSquare

__all__ = ["GAME_CLASS", "TimesSquare"]
