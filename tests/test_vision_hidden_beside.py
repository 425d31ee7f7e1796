"""A piece against another is never read as nothing (confident or silent).

From a slant a die's top and sides lie over its neighbour's place, and a token there joins
its blob: read as the die alone, the token's place was read empty with no doubt (issue 40's
silent misread of an offering).  A die read where its top shows, its foot not found, leaves
the places the rest of its blob covers doubted; another piece's colour in its blob at
another place doubts that place; a patch in a neighbouring patch's colour in shade (an
orange token's rim reads brown, a score marker's colour) is no piece read on its own.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from committed_frames import reading_of

from companion.games import load_game
from companion.games.base import Piece
from companion.sim.camera.render import Camera
from companion.vision.geometry import MARGIN_MM
from companion.vision.reader import BoardReader


def test_a_token_under_a_die_leaning_over_its_place_is_doubted_not_read_as_nothing() -> None:
    """Baron Voodoo: an offering, and a die of the Caught Souls' column beside it drawn over
    its near edge (as its top and side show from a slant), the die's blob centred in its own
    place: the offering's place is doubted, never read empty."""
    game = load_game("baron_voodoo")
    layout = game.layout(game.setup(game.min_players, None, 0))
    view = {"offer0-1": (Piece("orange", 0),), "souls0-0": (Piece("red", 1),)}
    camera = Camera(layout, seed=5)
    frame = camera.frame(view).copy()

    def to_frame(points: list[tuple[float, float]]) -> np.ndarray:
        pts = np.array([points], np.float32) * camera.px_per_mm
        return cv2.perspectiveTransform(pts, camera.homography)[0]

    souls, offer = layout.spot("souls0-0"), layout.spot("offer0-1")
    x, y = to_frame([(souls.x + MARGIN_MM + 8, souls.y + MARGIN_MM + 8)])[0].astype(int)
    red = frame[y, x].tolist()  # the die's colour as the camera draws it
    # a die's square, 18 mm, its centre 4 mm inside souls0-1's edge, over the offering's rim
    cx, cy, half = 262.0 + MARGIN_MM, offer.y + MARGIN_MM + offer.h / 2, 9.0
    square = to_frame([(cx - half, cy - half), (cx + half, cy - half), (cx + half, cy + half),
                       (cx - half, cy + half)]).astype(np.int32)
    cv2.fillConvexPoly(frame, square, red)
    reading = BoardReader(layout, colours=tuple(sorted(set(layout.pieces) | set(layout.shapes)))).read(frame)
    assert reading.view is not None
    doubtful = dict(reading.doubtful or {})
    assert "offer0-1" in doubtful, (reading.view.get("offer0-1"), doubtful)


@pytest.mark.parametrize(("stem", "spot"), [
    ("baron_voodoo-t20-b2-more", "souls0-1"),  # a red die against a purple one, taken for its side
    ("baron_voodoo-t30-b1-more", "souls1-1"),  # a yellow die leaning over the place before its own
])
def test_tuning_frames_pieces_against_each_other_are_doubted_and_nothing_read_wrong(stem: str,
                                                                                 spot: str) -> None:
    """Two tuning frames each misread one place silently (read empty): that place is doubted
    now, and no place of the frame is read wrong."""
    frame, layout, reading = reading_of("tune", stem)
    assert reading.view is not None
    doubtful = dict(reading.doubtful or {})
    assert spot in doubtful
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)


def test_an_offerings_rim_in_a_dies_shadow_is_the_offering_where_no_marker_stands() -> None:
    """Baron Voodoo at 20 degrees, tuning split: an Offering token's rim in a die's shadow reads
    as an x20 marker's brown.  It once added a brown marker to the place, silently; then the
    place was doubted; no brown marker stands on an Offering place (``Spot.takes``), so the
    rim is the token's in shade, and the token is read."""
    from committed_frames import read_right

    read_right("baron_voodoo-t20-b0-more", ("offer1-0",))
