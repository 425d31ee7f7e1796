"""Commit a board only when every position is confident and it has held still.

Like picochess's move debouncer: a half-finished move (a figure lifted, an arm
reaching) must not become a move.  A board is committed after it was read the
same, with no doubtful position, in ``frames_needed`` consecutive frames; any
frame with no board (lost markers, a dark frame), with a hand or arm over it, or
with a doubtful position starts the count again.  What was doubtful is kept in ``doubt`` so
the dashboard can name the place ("Can't see Tiki 8 clearly: glare?") rather
than the companion guessing.

A hand over the board is waited for, but not for ever: a reading with a hand that stands
unchanged for ``HAND_RESTING_FRAMES`` is no arm moving pieces but something lying still over
the board (a hand left resting there, or a lamp's reflection or a shadow the reader took for
an arm), and ``hand_resting`` says so: its places are then asked about as any doubt is.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.games.base import BoardView
from companion.vision.reading import Reading

# Frames a reading with a hand over the board stands unchanged before the hand is taken to be
# resting (8 s at the service's 8 fps): a reach to move a piece changes the picture every frame
# or two, and the simulated players' resting hands are lifted within 36 frames.  Counted in
# frames, never the wall clock.
HAND_RESTING_FRAMES = 64


@dataclass
class Stabiliser:
    frames_needed: int = 2
    committed: BoardView | None = None
    _candidate: BoardView | None = field(default=None, repr=False)
    _count: int = field(default=0, repr=False)
    hand_over: bool = False
    doubt: dict[str, str] = field(default_factory=dict)
    hand_still: int = 0  # frames in a row read with a hand over the board, the reading unchanged
    _hand_seen: tuple[object, ...] | None = field(default=None, repr=False)

    @property
    def hand_resting(self) -> bool:
        """Has a hand (or what was taken for one) lain still over the board too long to wait on?"""
        return self.hand_still >= HAND_RESTING_FRAMES

    def feed(self, reading: Reading) -> BoardView | None:
        """Return a newly committed board, or None when nothing new is settled."""
        self._count_hand(reading)
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

    def _count_hand(self, reading: Reading) -> None:
        """Count the frames a reading with a hand stands as it was: the board round it and the
        places it hides, or, hiding most of the board, the reader's words for it."""
        seen = (reading.view is None, reading.problem, tuple(sorted((reading.view or {}).items())),
                tuple(sorted(reading.doubtful))) if reading.hand else None
        self.hand_still = 0 if seen is None else self.hand_still + 1 if seen == self._hand_seen else 1
        self._hand_seen = seen
