"""Commit a board only when every position is confident and it has held still.

Like picochess's move debouncer: a half-finished move (a figure lifted, an arm
reaching) must not become a move.  A board is committed after it was read the
same, with no doubtful position, in ``frames_needed`` consecutive frames; any
frame with no board (lost markers, a dark frame), with a hand or arm over it, or
with a doubtful position starts the count again.  What was doubtful is kept in ``doubt`` so
the dashboard can name the place ("Can't see Tiki 8 clearly: glare?") rather
than the companion guessing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.games.base import BoardView
from companion.vision.reading import Reading


@dataclass
class Stabiliser:
    frames_needed: int = 2
    committed: BoardView | None = None
    _candidate: BoardView | None = field(default=None, repr=False)
    _count: int = field(default=0, repr=False)
    hand_over: bool = False
    doubt: dict[str, str] = field(default_factory=dict)

    def feed(self, reading: Reading) -> BoardView | None:
        """Return a newly committed board, or None when nothing new is settled."""
        if reading.view is None:
            self.hand_over = reading.hand or reading.markers_found > 0
            self.doubt = {}
            self._candidate, self._count = None, 0
            return None
        self.hand_over = reading.hand
        self.doubt = dict(reading.doubtful)
        if self.doubt or reading.hand:  # never guess a place it cannot see: wait, and say where
            # (a board read round an arm is shown, never committed: the arm is still moving
            # pieces, and what it hides may be what changed)
            self._candidate, self._count = None, 0
            return None
        if reading.view == self._candidate:
            self._count += 1
        else:
            self._candidate, self._count = reading.view, 1
        if self._count >= self.frames_needed and self._candidate != self.committed:
            self.committed = self._candidate
            return self.committed
        return None
