"""The camera loop: source -> reader -> stabiliser -> table, on its own thread.

Only boards the stabiliser commits reach the table, where the game must
explain them before anything is recorded.  A lost camera, hidden markers, a
hand over the board, a frame too dark or blurred, or a place it cannot see
clearly become standing notices on the dashboard, naming the place in the
game's words ("Can't see Tiki 8 clearly: glare?"), never a guess.
"""

from __future__ import annotations

import threading
import time

import cv2
import numpy as np

from companion.games.base import Prompt
from companion.table import Table
from companion.vision.annotate import annotate
from companion.vision.reader import BoardReader
from companion.vision.reading import BESIDE, Reading
from companion.vision.sources import FrameSource
from companion.vision.stabiliser import Stabiliser

# While a hand or arm is over the board the loop reads one frame in this many + 1, as a busy
# Raspberry Pi does: a board read round a moving arm is never committed, and reading it costs
# as much as a whole board (every arm frame differs).  The frames between are taken (the
# table's clock counts them) and stand as the last one read, as long as a cheap look at the
# board's margin still finds the arm across it (``BoardReader.arm_across_margin``): the frame
# the arm has left is read at once.  Counted in frames, never in seconds.
ARM_FRAMES_SKIPPED = 2
# What the tablet calls a hand that has lain still over the board (``Stabiliser.hand_resting``):
# a hand left there, or a reflection or shadow the reader takes for one
STILL_OVER = "something has lain still over it for a while (a resting hand? a reflection?)"
CLEAR_IT = "Lift it, or move the lamp or what casts it"


class VisionLoop:
    def __init__(self, table: Table, source: FrameSource, reader: BoardReader,
                 fps: float = 10.0, frames_needed: int = 2) -> None:
        self.table = table
        self.source = source
        self.reader = reader
        self.stabiliser = Stabiliser(frames_needed)
        self.pace(fps)
        self.frames = 0
        self.reads = 0  # frames the reader read (not those standing as the last one read)
        self.full_reads = 0  # of them, those not found still (a reading of their own)
        self.frames_standing = 0  # frames that stood as the last reading, a hand over the board
        self._skipped = 0  # frames in a row let stand as the last reading, a hand over the board
        self.seconds_reading = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._latest: tuple[np.ndarray, Reading] | None = None
        self._latest_lock = threading.Lock()

    def pace(self, fps: float) -> None:
        """Read at most ``fps`` frames a second from the next frame on (0: as fast as it can)."""
        self.period = 1.0 / fps if fps > 0 else 0.0

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
        self.table.frame_taken()  # the pace a double press is judged by, a lost frame too
        started = time.perf_counter()
        last = self._latest
        skip = frame is not None and last is not None and last[1].hand \
            and self._skipped < ARM_FRAMES_SKIPPED and self.reader.arm_across_margin(frame)
        if skip:
            assert last is not None
            reading = last[1]  # a hand over the board: this frame stands as the last one read
            self._skipped += 1
            self.frames_standing += 1
        elif frame is not None and not frame.flags.writeable and last is not None and last[0] is frame:
            reading = last[1]  # the very frame read last time, frozen: nothing in it can differ
            self._skipped = 0
        else:
            reading = self.reader.read(frame)
            self.reads += 1
            self.full_reads += last is None or reading is not last[1]
            self._skipped = 0
        self.seconds_reading += time.perf_counter() - started
        self.frames += 1
        if frame is None:
            self.table.notice("camera", Prompt("The camera gives no picture: check its cable.",
                                               "warning"))
            return
        if not skip:  # the annotated picture draws a reading on the frame it was read from
            with self._latest_lock:
                self._latest = (frame, reading)
        self.table.notice("camera", None)
        board = self.stabiliser.feed(reading)
        self.table.notice("vision", self.prompt(reading))
        if board is not None:
            self.table.board_seen(board)
        else:  # a place it cannot read, frame after frame, is asked about by the table
            # (under a hand too, once it has lain still too long to be a reach: a hand left
            # resting, or a reflection taken for one, would otherwise hold the game for ever)
            doubted = reading.view is not None and (not reading.hand or self.stabiliser.hand_resting)
            self.table.board_doubted(reading.view if doubted else None, reading.doubtful if doubted else {})

    def prompt(self, reading: Reading) -> Prompt | None:
        """What the dashboard should say about this frame, in the game's words."""
        resting = reading.hand and self.stabiliser.hand_resting
        if reading.view is None:
            if resting:
                return Prompt(f"Can't see the board: {STILL_OVER}. {CLEAR_IT}.", "warning")
            if reading.hand:
                return Prompt("Hand over the board: waiting.", "info")
            return Prompt(f"Camera: {reading.problem}.", "info")
        if not reading.doubtful:
            return Prompt("Hand over the board: waiting.", "info") if reading.hand else None
        with self.table._lock:
            tracked = self.table.game.board_view(self.table.state)
        # name first a place that is itself hidden (not one doubted for its neighbour's sake),
        # then the place that matters: where the tracked board has pieces
        spot, why = min(reading.doubtful.items(),
                        key=lambda kv: (kv[1].startswith(BESIDE), kv[0] not in tracked, kv[0]))
        more = len(reading.doubtful) - 1
        also = f" (and {more} more place{'s' if more > 1 else ''})" if more else ""
        if resting:  # no reach, lying still: the table asks what those places show
            return Prompt(f"Can't see {self.reader.spot_label(spot)}{also}: {STILL_OVER}. {CLEAR_IT}; "
                          "or say what the table shows there.", "warning")
        if reading.hand:  # the board round an arm is read, the places under it named
            return Prompt(f"Hand over the board: can't see {self.reader.spot_label(spot)}{also}; waiting.",
                          "info")
        return Prompt(f"Can't see {self.reader.spot_label(spot)} clearly: {why}{also}", "info")

    def annotated_jpeg(self) -> bytes | None:
        """The latest frame with what was read drawn on it, mismatches with the tracked
        board in red; None before the first frame."""
        with self._latest_lock:
            latest = self._latest
        if latest is None:
            return None
        frame, reading = latest
        with self.table._lock:
            tracked = self.table.game.board_view(self.table.state)
        image = annotate(frame, self.reader, reading, tracked)
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
        return data.tobytes() if ok else None

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
