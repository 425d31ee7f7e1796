"""Swinging Jivecat Voodoo Lounge: chips on Lounge Lizards, Clique cards, Skulls and Trends."""

from companion.games.jivecat.rules import JivecatGame

GAME_CLASS = JivecatGame

__all__ = ["GAME_CLASS", "JivecatGame"]
