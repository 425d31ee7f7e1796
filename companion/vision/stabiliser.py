"""Commit a board only when it has held still, never while a hand is over it.

Like picochess's move debouncer: a half-finished move (a figure lifted, an arm
reaching) must not become a move.  A board is committed after it was read the
same in ``frames_needed`` consecutive usable frames; any unusable frame (hand,
hidden marker) starts the count again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.games.base import BoardView
from companion.vision.reader import Reading


@dataclass
class Stabiliser:
    frames_needed: int = 3
    committed: BoardView | None = None
    _candidate: BoardView | None = field(default=None, repr=False)
    _count: int = field(default=0, repr=False)
    hand_over: bool = False

    def feed(self, reading: Reading) -> BoardView | None:
        """Return a newly committed board, or None when nothing new is settled."""
        if reading.view is None:
            self.hand_over = reading.hand or reading.markers_found > 0
            self._candidate, self._count = None, 0
            return None
        self.hand_over = False
        if reading.view == self._candidate:
            self._count += 1
        else:
            self._candidate, self._count = reading.view, 1
        if self._count >= self.frames_needed and self._candidate != self.committed:
            self.committed = self._candidate
            return self.committed
        return None
