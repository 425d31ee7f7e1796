"""The simulated table's camera as a frame source: it renders what the world put on the board.

The service reads it like any :class:`companion.vision.sources.FrameSource`; only the world
sets what is on the table.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from companion.games.base import BoardView
from companion.sim.camera.render import Camera

# a camera running free (the demo at speed 0, its gate released) rests this long before each
# frame: a real camera's read blocks between frames, and the synthetic one, never resting,
# took 1.4 million still frames in a Swing State demo and held the interpreter from the
# players' thread and the tablet's server (110 s a game; 70 s resting so, at most 500 frames
# a second, which still counts a player's wait of 20 s in 160 frames within a third of a second)
FREE_FRAME_REST_S = 0.002


class SyntheticSource:
    """The simulated table's camera: renders what the world put on the board."""

    def __init__(self, camera: Camera) -> None:
        self.camera = camera
        self._lock = threading.Lock()
        self._view: BoardView = {}
        self._hand_frames = 0  # frames an arm is over the board for
        self._moving = 0  # of them, the first this many it moves in (the rest it rests)
        self._sweep = 0.0

    def show(self, view: BoardView) -> None:
        with self._lock:
            self._view = dict(view)

    def hand_over(self, frames: int, resting: bool = False) -> None:
        """An arm over the board for the next ``frames`` frames, reaching about (drawn a
        step further along its sweep each frame); ``resting``, a hand left lying on the
        table once the reach it was already making is done: drawn where it stopped.  A
        resting hand drawn still is a still frame to the reader, as at a real table."""
        with self._lock:
            self._moving = min(self._hand_frames, frames) if resting else frames
            self._hand_frames = frames

    def read(self) -> np.ndarray | None:
        with self._lock:
            view = self._view
            hand = None
            if self._hand_frames > 0:
                self._hand_frames -= 1
                if self._moving > 0:
                    self._moving -= 1
                    self._sweep = (self._sweep + 0.17) % 1.0
                hand = self._sweep
        return self.camera.frame(view, hand, frozen=True)  # read-only: a frame seen before is the same object

    def close(self) -> None:
        pass


class FrameGate:
    """The camera's frames on the players' clock (the bench's lockstep camera).

    The camera loop reads through the gate; a frame is given only when the players' time has
    come for one (:meth:`advance`, counted in frames at the table's fps), and :meth:`advance`
    returns once the loop has read every frame it let through and handed what it saw to the
    table (it is back asking for the next).  So a human delay of a second is eight frames read
    and acted on, whatever the machine's load; while the players think, look at the tablet or
    the harness talks to the world's process, the camera takes no frame (at a real table that
    is a few milliseconds, not a frame).  A free-running camera instead took as many frames
    as the machine could draw in that time: 860 a player's action in Times Square, where a
    person's delays give about 30, and a game's result hung on the machine's load."""

    def __init__(self, source: Any) -> None:
        self.source = source  # read through it each time: a fault layer may wrap its read later
        self._cond = threading.Condition()
        self.granted = 0  # frames the players' time has let through
        self.taken = 0  # frames the loop has read
        self._asking = False  # the loop is back for a frame: the one before it is acted on
        self.released = False  # the players are done: the camera runs free again
        self.taken_in_step: int | None = None  # the frames taken before the camera ran free

    def read(self) -> np.ndarray | None:
        with self._cond:
            self._asking = True
            self._cond.notify_all()
            while self.taken >= self.granted and not self.released:
                self._cond.wait()
            self._asking = False
            self.taken += 1
            free = self.released
        if free:
            time.sleep(FREE_FRAME_REST_S)
        return self.source.read()

    def advance(self, frames: int, timeout: float = 300.0) -> bool:
        """Let ``frames`` more frames through and wait until the loop has read and acted on
        them all; False when the loop did not come back within ``timeout`` seconds (a hang
        guard only: no result depends on it)."""
        if frames < 0:
            raise ValueError(f"frames to advance must not be negative, got {frames}")
        with self._cond:
            self.granted += frames
            self._cond.notify_all()
            return self._cond.wait_for(
                lambda: self.released or (self.taken >= self.granted and self._asking), timeout)

    def release(self) -> None:
        """The camera runs free again (the game is over or stopped).  The frames it took
        until now are kept (``taken_in_step``): those it takes after, till the service
        stops, are as many as the machine draws in that time, not the players' delays."""
        with self._cond:
            if not self.released:
                self.taken_in_step = self.taken
            self.released = True
            self._cond.notify_all()

    def close(self) -> None:
        self.release()
        self.source.close()
