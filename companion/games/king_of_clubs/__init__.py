"""King of Clubs: nights of secret Dancers, reveals and Moves (2 players, or 4 in teams).

The game class is assembled from three concerns, the same way in every game:
``rules`` (facts, set-up, whose turn, legal actions, apply, the end), ``board`` (the
table as spots and how a change seen on it is explained) and ``words`` (history lines,
prompts, Details and the tablet's forms).
"""

from companion.games.king_of_clubs.board import KingOfClubsBoard
from companion.games.king_of_clubs.rules import KingOfClubsRules
from companion.games.king_of_clubs.words import KingOfClubsWords


class KingOfClubs(KingOfClubsWords, KingOfClubsBoard, KingOfClubsRules):
    """King of Clubs' tracker: the rules with the table's view and the game's words."""


GAME_CLASS = KingOfClubs

__all__ = ["GAME_CLASS", "KingOfClubs"]
