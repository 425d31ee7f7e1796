"""A blob the reader reads a second time (``Blobs._tops_read``) stays in the board it keeps:
a later frame that changes the table elsewhere still tells what it holds (issue 40, found
by the truth bench: King of Clubs, cafe, passive, seed 14)."""

from __future__ import annotations

from companion.bench.vision3d import frame_layout
from companion.games.base import Piece
from companion.sim.camera.render import Camera
from companion.vision.reader import BoardReader


def _night() -> tuple[dict, dict]:
    """A King of Clubs night: A's purple 2 at Nightclub 2 with two Moves laid on it, and the
    same table once A has laid a Move on the Dancer beside it."""
    grey = (Piece("grey", 0),)
    table = {"p1_backup": grey, "p1_d0": (Piece("red", 2),), "p1_d1": (Piece("red", 3),),
             "p1_d2": (Piece("red", 5),), "p1_d3": (Piece("red", 4),),
             "club0": (Piece("orange", 7),), "club1": (Piece("orange", 2),),
             "club2": (Piece("orange", 2),), "club3": (Piece("orange", 4),), "p0_backup": grey,
             "p0_d0": (Piece("purple", 1),),
             "p0_d1": (Piece("purple", 2), Piece("white", 1), Piece("white", 1)),
             "p0_d2": (Piece("purple", 3),), "p0_d3": (Piece("purple", 4), Piece("white", 1)),
             "points0": (Piece("yellow", 0), Piece("yellow", 0)), "lead0": (Piece("pink", 0),)}
    return table, {**table, "p0_d2": (Piece("purple", 3), Piece("white", 1))}


def test_a_piece_read_again_is_still_told_when_the_next_frame_changes_another_place() -> None:
    """The Dancer's purple, its marks unclear, was read a second time knowing its
    neighbours and left out of the board the reader keeps; the next frame, a Move laid on
    the next Dancer, read only that change and carried the rest: the purple was gone, and
    the place read confidently as two white 1s.  It is read right or doubted, never lost."""
    layout, colours = frame_layout("king_of_clubs", 2)
    before, after = _night()
    for seed in range(3):
        camera = Camera(layout, seed=seed)
        reader = BoardReader(layout, colours=colours)
        for view in (before, after):
            reading = reader.read(camera.frame(view))
            assert reading.view is not None
            doubted = dict(reading.doubtful or {})
            assert "p0_d1" in doubted or reading.view.get("p0_d1") == view["p0_d1"], \
                (seed, reading.view.get("p0_d1"), doubted)
            assert all(reading.view.get(p, ()) == view.get(p, ()) for p in (s.id for s in layout.spots)
                       if p not in doubted), seed
