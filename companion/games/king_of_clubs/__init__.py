"""King of Clubs (Floodgate Games): nights of secret Dancers, reveals and Moves."""

from companion.games.king_of_clubs.rules import KingOfClubs

GAME_CLASS = KingOfClubs

__all__ = ["GAME_CLASS", "KingOfClubs"]
