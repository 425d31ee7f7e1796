"""Reading one of the committed physically based frames (tests/data/frames3d) as the bench
does: the game's layout for the frame's players, the reader given the lens it was rendered
through.  Shared by the reader's tests that pin a tuning frame's places."""

from __future__ import annotations

import functools

from companion.games import load_game
from companion.games.base import Layout
from companion.sim.camera.frames3d import Frame3D, committed
from companion.vision.reader import BoardReader
from companion.vision.reading import Reading


def read_committed(split: str, stem: str) -> tuple[Frame3D, Layout, BoardReader, Reading]:
    """The frame named ``stem`` of ``split``, its layout, the reader and what it read."""
    frame = next(f for f in committed() if f.split == split and f.path.stem == stem)
    game = load_game(frame.game)
    layout = game.layout(game.setup(int(frame.truth["players"]), None, 0))
    reader = BoardReader(layout, colours=tuple(sorted(set(layout.pieces) | set(layout.shapes))),
                         lens=frame.lens)
    return frame, layout, reader, reader.read(frame.image())


@functools.cache
def reading_of(split: str, stem: str) -> tuple[Frame3D, Layout, Reading]:
    """``read_committed``'s frame, layout and reading, read once a test process (a frame takes
    a second or more, and many tests pin places of the same frames).  Its reader is not kept:
    a test that looks into the reader, or patches the reader's code before it reads, asks
    ``read_committed`` for a fresh one."""
    frame, layout, _reader, reading = read_committed(split, stem)
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
