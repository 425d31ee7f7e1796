"""Reading one of the committed physically based frames (tests/data/frames3d) as the bench
does: the game's layout for the frame's players, the reader given the lens it was rendered
through.  Shared by the reader's tests that pin a tuning frame's places.

A frame's cold reading takes a second or more, and the suite reads every frame once already
(``test_no_committed_frame_is_read_with_a_place_confidently_wrong``): that test keeps each
reading in the session's directory all workers share (``SHARED_DIR``, made by conftest), and
``reading_of`` takes it from there, or reads the frame and keeps it there itself.  The code
read with is the session's, so a reading kept is the reading any worker would make."""

from __future__ import annotations

import functools
import os
import pickle
from pathlib import Path

from companion.bench.vision3d import frame_layout
from companion.games.base import Layout
from companion.sim.camera.frames3d import Frame3D, committed
from companion.vision.reader import BoardReader
from companion.vision.reading import Reading


def read_committed(split: str, stem: str) -> tuple[Frame3D, Layout, BoardReader, Reading]:
    """The frame named ``stem`` of ``split``, its layout, the reader and what it read."""
    frame = next(f for f in committed() if f.split == split and f.path.stem == stem)
    layout, colours = frame_layout(frame.game, int(frame.truth["players"]))  # (as the bench reads it)
    reader = BoardReader(layout, colours=colours, lens=frame.lens)
    return frame, layout, reader, reader.read(frame.image())


SHARED_DIR = "COMPANION_TESTS_SHARED"  # the environment's name for the session's shared directory


def _kept_path(split: str, stem: str) -> Path | None:
    """Where the session keeps a frame's cold reading (None outside a session that shares one)."""
    shared = os.environ.get(SHARED_DIR)
    return Path(shared) / f"reading-{split}-{stem}.pickle" if shared else None


def keep_reading(split: str, stem: str, reading: Reading) -> None:
    """Keep a frame's cold reading for the session's other tests (written whole, then renamed:
    a worker reading it meanwhile finds it complete or not at all)."""
    path = _kept_path(split, stem)
    if path is None or path.exists():
        return
    part = path.with_suffix(f".{os.getpid()}.part")
    part.write_bytes(pickle.dumps(reading))
    os.replace(part, path)


@functools.cache
def reading_of(split: str, stem: str) -> tuple[Frame3D, Layout, Reading]:
    """``read_committed``'s frame, layout and reading, read once a session (a frame takes a
    second or more, and many tests pin places of the same frames: see the module).  Its reader
    is not kept: a test that looks into the reader, or patches the reader's code before it
    reads, asks ``read_committed`` for a fresh one."""
    path = _kept_path(split, stem)
    if path is not None and path.exists():
        frame = next(f for f in committed() if f.split == split and f.path.stem == stem)
        layout, _colours = frame_layout(frame.game, int(frame.truth["players"]))
        return frame, layout, pickle.loads(path.read_bytes())
    frame, layout, _reader, reading = read_committed(split, stem)
    keep_reading(split, stem, reading)
    return frame, layout, reading


def read_right(stem: str, spots: tuple[str, ...],
               read: tuple[Frame3D, Layout, BoardReader, Reading] | None = None) -> None:
    """The tuning frame ``stem`` read with ``spots`` sure and right, and nothing read wrong
    (``read``: ``read_committed``'s answer for it, when a test has it already)."""
    frame, layout, reading = (read[0], read[1], read[3]) if read is not None else reading_of("tune", stem)
    assert reading.view is not None
    doubtful = dict(reading.doubtful or {})
    for spot in spots:
        assert spot not in doubtful and reading.view.get(spot) == frame.view.get(spot), (stem, spot)
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful), stem


KEPT_DIR = Path(__file__).parent / "data" / "frames3d_kept"
"""Fresh frames kept for what they showed (``render3d --fresh`` boards, stop 84): not the
bench's set (``frames3d.plan``), only the evidence the tests that pin their places read."""


@functools.cache
def kept_reading(stem: str, split: str = "tune") -> tuple[Frame3D, Reading]:
    """A kept fresh frame (``KEPT_DIR``: a tuning frame, or a held-out one whose misread was
    mended once seen) and what the reader reads of it cold."""
    frame = next(f for f in committed(KEPT_DIR, split) if f.path.stem == stem)
    layout, colours = frame_layout(frame.game, int(frame.truth["players"]))
    return frame, BoardReader(layout, colours=colours, lens=frame.lens).read(frame.image())
