"""The simulated table's camera as a frame source: it renders what the world put on the board.

The service reads it like any :class:`companion.vision.sources.FrameSource`; only the world
sets what is on the table.
"""

from __future__ import annotations

import threading

import numpy as np

from companion.games.base import BoardView
from companion.sim.camera.render import Camera


class SyntheticSource:
    """The simulated table's camera: renders what the world put on the board."""

    def __init__(self, camera: Camera) -> None:
        self.camera = camera
        self._lock = threading.Lock()
        self._view: BoardView = {}
        self._hand_frames = 0
        self._sweep = 0.0

    def show(self, view: BoardView) -> None:
        with self._lock:
            self._view = dict(view)

    def hand_over(self, frames: int) -> None:
        with self._lock:
            self._hand_frames = frames

    def read(self) -> np.ndarray | None:
        with self._lock:
            view = self._view
            hand = None
            if self._hand_frames > 0:
                self._hand_frames -= 1
                self._sweep = (self._sweep + 0.17) % 1.0
                hand = self._sweep
        return self.camera.frame(view, hand)

    def close(self) -> None:
        pass
