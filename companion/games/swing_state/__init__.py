"""Swing State Steal: the Incumbent against every Swing State, the companion as vote banker."""

from companion.games.swing_state.rules import SwingStateGame

GAME_CLASS = SwingStateGame

__all__ = ["GAME_CLASS", "SwingStateGame"]
