"""Swing State Steal: the Incumbent against the States (2-6 players).

The game class is assembled from three concerns, the same way in every game:
``rules`` (facts, set-up, whose turn, legal actions, apply, the end), ``board`` (the
table as spots and how a change seen on it is explained) and ``words`` (history lines,
prompts, Details and the tablet's forms); Round 4's handlers sit in ``challenge`` so that
``rules`` stays readable (the Challenge plays unlike Rounds 1-3).
"""

from companion.games.swing_state.board import SwingStateBoard
from companion.games.swing_state.challenge import SwingStateChallenge
from companion.games.swing_state.rules import SwingStateRules
from companion.games.swing_state.words import SwingStateWords


class SwingStateGame(SwingStateWords, SwingStateBoard, SwingStateChallenge, SwingStateRules):
    """Swing State Steal's tracker: the rules with the table's view and the game's words."""


GAME_CLASS = SwingStateGame

__all__ = ["GAME_CLASS", "SwingStateGame"]
