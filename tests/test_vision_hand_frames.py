"""A hand over the board: what is under it asked for, never guessed; a piece against another
never read as nothing (confident or silent, issue 40).

The tuning split's hand frames under its more lamps (``frames3d.MORE_HANDS``) showed two
silent misreads: the palest hand over Baron Voodoo's pale offering places passed for the
empty board between its edges, and two offerings under its fingertips were read as
nothing; and two dice against each other in one blob, too long for one piece, doubted only
the place of the blob's centre, the other die's place read empty.
"""

from __future__ import annotations

import cv2
import numpy as np
from committed_frames import kept_reading, reading_of

from companion.bench.vision3d import frame_layout
from companion.games import load_game
from companion.games.base import Piece
from companion.sim.camera.render import Camera
from companion.vision.geometry import MARGIN_MM
from companion.vision.reader import BoardReader
from companion.vision.reading import UNDER_A_HAND


def _nothing_read_wrong(frame, layout, reading) -> None:
    doubtful = dict(reading.doubtful or {})
    wrong = [s.id for s in layout.spots
             if s.id not in doubtful and reading.view.get(s.id, ()) != frame.view.get(s.id, ())]
    assert not wrong, wrong


def test_places_between_a_pale_hands_edges_are_under_it_not_read_empty() -> None:
    """baron_voodoo-t00-b0-hand-more: the palest skin over the light offering places; two of
    the offerings its fingers cover are doubted as under the hand, and no place is read wrong."""
    frame, layout, reading = reading_of("tune", "baron_voodoo-t00-b0-hand-more")
    assert reading.view is not None and reading.hand
    covered = set(frame.truth["hand"]["covered"])
    doubtful = dict(reading.doubtful or {})
    for spot in ("offer0-1", "offer0-2"):
        assert spot in covered and frame.view.get(spot)  # an offering under the hand
        assert doubtful.get(spot) == UNDER_A_HAND, (spot, reading.view.get(spot))
    _nothing_read_wrong(frame, layout, reading)


def test_two_dice_in_one_blob_doubt_both_places_in_a_hand_frame() -> None:
    """baron_voodoo-t20-b2-hand-more: three blue dice in a row of the Underworld, the last two
    one blob (the arm's shadow lies over the first two): the third's place is doubted."""
    frame, layout, reading = reading_of("tune", "baron_voodoo-t20-b2-hand-more")
    assert reading.view is not None
    assert frame.view.get("under0-2") and "under0-2" not in frame.truth["hand"]["covered"]
    assert "under0-2" in dict(reading.doubtful or {})
    _nothing_read_wrong(frame, layout, reading)


def test_a_place_a_column_blobs_box_covers_is_asked_not_read_empty() -> None:
    """Held-out Baron Voodoo t20-b57 under a hand (0.92 px a mm, stop 94): the board's light
    print lit white was one blob with the white dice in it, a column of unclear height; its
    box, explained with it, covered D7's white 6, whose clipped top was no piece's colour and
    so no part of the blob.  D7 was read empty with no doubt; every place the box covers is
    asked now, and no place is read wrong."""
    frame, reading = kept_reading("baron_voodoo-t20-b57-hand", "test")
    layout, _colours = frame_layout(frame.game, int(frame.truth["players"]))
    assert reading.view is not None and frame.view.get("D7") == (Piece("white", 6),)
    assert "D7" not in frame.truth["hand"]["covered"]
    assert "D7" in dict(reading.doubtful or {}) or reading.view.get("D7") == frame.view["D7"]
    _nothing_read_wrong(frame, layout, reading)


def test_a_blob_too_long_for_one_piece_doubts_every_place_it_lies_over() -> None:
    """Flat camera: an offering token in one of Baron Voodoo's offering places and a patch of
    its colour against it reaching 10 mm into the next place (a token half hidden under
    something): the blob is centred in the first place and too long for one token; the next
    place is doubted for the pieces touching itself, not only as the first one's neighbour
    (with a hand near, a neighbour's doubt is not passed on: the hand frame above)."""
    game = load_game("baron_voodoo")
    layout = game.layout(game.setup(game.min_players, None, 0))
    camera = Camera(layout, seed=5)
    frame = camera.frame({"offer0-1": (Piece("orange", 0),)}).copy()

    def to_frame(points: list[tuple[float, float]]) -> np.ndarray:
        pts = np.array([points], np.float32) * camera.px_per_mm
        return cv2.perspectiveTransform(pts, camera.homography)[0]

    one, two = layout.spot("offer0-1"), layout.spot("offer0-2")
    cx, cy = one.x + MARGIN_MM + one.w / 2, one.y + MARGIN_MM + one.h / 2
    x, y = to_frame([(cx, cy)])[0].astype(int)
    orange = frame[y, x].tolist()  # the token's colour as the camera draws it
    y0, y1 = cy + 3, two.y + MARGIN_MM + 10
    quad = to_frame([(cx - 5, y0), (cx + 5, y0), (cx + 5, y1), (cx - 5, y1)]).astype(np.int32)
    cv2.fillConvexPoly(frame, quad, orange)
    reading = BoardReader(layout, colours=tuple(sorted(set(layout.pieces) | set(layout.shapes)))).read(frame)
    assert reading.view is not None
    doubtful = dict(reading.doubtful or {})
    assert doubtful.get("offer0-1") == doubtful.get("offer0-2") == "pieces touching?", doubtful


def test_a_pale_hand_past_its_dark_sleeve_is_under_a_hand_where_only_bits_of_it_show() -> None:
    """Held-out jivecat-t20-b27-hand (stop 91): a pale palm past a dark sleeve, over print of
    its own lightness, showed only patches of "something over it" and "glare?"; the yellow
    chip under it at N03 was read as an empty place.  The arm's outline is closed over those
    patches within a hand's reach of it (``Arms._hand_round``), and the place is asked."""
    frame, reading = kept_reading("jivecat-t20-b27-hand", "test")
    assert reading.view is not None and reading.hand
    assert frame.view["N03"] == (Piece("yellow", 0),) and "N03" in frame.truth["hand"]["covered"]
    assert reading.doubtful.get("N03") == UNDER_A_HAND, reading.view.get("N03")
    _nothing_read_wrong(frame, frame_layout(frame.game, int(frame.truth["players"]))[0], reading)
