"""The camera loop: source -> reader -> stabiliser -> table, on its own thread.

Only boards the stabiliser commits reach the table, where the game must
explain them before anything is recorded.  A lost camera, hidden markers or a
hand over the board become standing notices on the dashboard.
"""

from __future__ import annotations

import threading
import time

from companion.games.base import Prompt
from companion.table import Table
from companion.vision.reader import BoardReader
from companion.vision.sources import FrameSource
from companion.vision.stabiliser import Stabiliser


class VisionLoop:
    def __init__(self, table: Table, source: FrameSource, reader: BoardReader,
                 fps: float = 10.0, frames_needed: int = 3) -> None:
        self.table = table
        self.source = source
        self.reader = reader
        self.stabiliser = Stabiliser(frames_needed)
        self.period = 1.0 / fps if fps > 0 else 0.0
        self.frames = 0
        self.seconds_reading = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> VisionLoop:
        self._thread = threading.Thread(target=self._run, name="vision", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=3)

    def step(self) -> None:
        """Read one frame and hand a newly settled board to the table."""
        frame = self.source.read()
        started = time.perf_counter()
        reading = self.reader.read(frame)
        self.seconds_reading += time.perf_counter() - started
        self.frames += 1
        if frame is None:
            self.table.notice("camera", Prompt("The camera gives no picture: check its cable.",
                                               "warning"))
            return
        self.table.notice("camera", None)
        board = self.stabiliser.feed(reading)
        if reading.view is None:
            text = "Hand over the board: waiting." if reading.hand else f"Camera: {reading.problem}."
            self.table.notice("vision", Prompt(text, "info"))
        else:
            self.table.notice("vision", None)
        if board is not None:
            self.table.board_seen(board)

    def _run(self) -> None:
        while not self._stop.is_set():
            begun = time.monotonic()
            try:
                self.step()
            except Exception as err:  # a bad frame must never stop the loop
                self.table.notice("camera", Prompt(f"Camera error: {err}", "warning"))
            rest = self.period - (time.monotonic() - begun)
            if rest > 0:
                self._stop.wait(rest)
