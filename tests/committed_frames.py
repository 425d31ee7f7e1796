"""Reading one of the committed physically based frames (tests/data/frames3d) as the bench
does: the game's layout for the frame's players, the reader given the lens it was rendered
through.  Shared by the reader's tests that pin a tuning frame's places."""

from __future__ import annotations

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
