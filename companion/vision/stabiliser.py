"""Commit a board only when every position is confident and it has held still.

Like picochess's move debouncer: a half-finished move (a figure lifted, an arm
reaching) must not become a move.  A board is committed after it was read the
same, with no doubtful position, in ``frames_needed`` consecutive frames; any
frame with no board (lost markers, a dark frame), with a hand or arm over it, or
with a doubtful position starts the count again.  What was doubtful is kept in ``doubt`` so
the dashboard can name the place ("Can't see Tiki 8 clearly: glare?") rather
than the companion guessing.

A hand over the board is waited for, but not for ever: what a hand is read over in
``HAND_RESTING_FRAMES`` of the last ``HAND_WINDOW_FRAMES`` frames is no arm moving pieces but
something lying there (a hand left resting, or a lamp's reflection or a shadow the reader took
for an arm), and ``hand_resting`` says so: its places are then asked about as any doubt is.
Counted over a window, not in a row: the players' own reaches pass over the board between
(a lamp taken for a hand over three places all evening, reaches between every move, held
every move of a simulated Times Square game).
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field

from companion.games.base import BoardView
from companion.vision.reading import Reading

# A place a hand is read over in this many of the last ``HAND_WINDOW_FRAMES`` frames (8 s of the
# last 12 at the service's 8 fps) has something lying over it: a reach to move a piece passes
# over a place for a frame or a few, and the simulated players' resting hands are lifted within
# 36 frames.  Counted in frames, never the wall clock.
HAND_RESTING_FRAMES = 64
HAND_WINDOW_FRAMES = 96
WHOLE_BOARD = "\0the board"  # what a hand over most of the board hides (no board read round it)


@dataclass
class Stabiliser:
    frames_needed: int = 2
    committed: BoardView | None = None
    _candidate: BoardView | None = field(default=None, repr=False)
    _count: int = field(default=0, repr=False)
    hand_over: bool = False
    doubt: dict[str, str] = field(default_factory=dict)
    # the places a hand was read over, frame by frame, the last ``HAND_WINDOW_FRAMES``; in how
    # many of them each; and in this frame
    _hidden: deque[frozenset[str]] = field(default_factory=lambda: deque(maxlen=HAND_WINDOW_FRAMES),
                                           repr=False)
    _hidden_frames: Counter[str] = field(default_factory=Counter, repr=False)
    _hidden_now: frozenset[str] = field(default=frozenset(), repr=False)

    @property
    def hand_resting(self) -> bool:
        """Has what a hand (or what was taken for one) hides now lain under it too long to wait on?"""
        return bool(self._hidden_now) and all(self._hidden_frames[p] >= HAND_RESTING_FRAMES
                                              for p in self._hidden_now)

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
        """Count the frames each place lies under a hand: the places a reading with a hand
        doubts, or, a hand over most of the board, the whole board."""
        now = frozenset() if not reading.hand else \
            frozenset(reading.doubtful) if reading.view is not None else frozenset({WHOLE_BOARD})
        if len(self._hidden) == self._hidden.maxlen:
            self._hidden_frames.subtract(self._hidden[0])
        self._hidden.append(now)
        self._hidden_frames.update(now)
        self._hidden_now = now
