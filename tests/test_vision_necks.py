"""Flat pieces side by side, joined into one blob by the shade between them (stop 114).
Jivecat's black Skull tokens lie in a row a millimetre or two apart; at 640x480 the gap's shade
reads black and closing the pieces' mask joins two tokens into one blob, its centre on the gap:
it was left unread and both places were asked "something over it?" (14 places on the tuning
frames).  Parted at its neck, each part is one token where it lies.  A part that does not fit
its place, a blob of one piece and a piece that stands keep the reading they had."""

from __future__ import annotations

import cv2
import numpy as np
from committed_frames import read_right, reading_of

from companion.bench.vision3d import frame_layout
from companion.games.base import Piece
from companion.sim.camera.frames3d import committed
from companion.vision.arms import OVER
from companion.vision.necks import neck_patches, parted_at_neck
from companion.vision.reader import BoardReader

STEM = "jivecat-t00-b0-vga"
SKULLS = ("mat2-skull0", "mat2-skull1", "mat2-skull2")


def _two_squares(bridge_px: int) -> np.ndarray:
    """Two 12 px squares 4 px apart, joined across the gap by a bar ``bridge_px`` thick."""
    blob = np.zeros((16, 32), np.uint8)
    blob[2:14, 2:14] = 1
    blob[2:14, 18:30] = 1
    blob[8 - bridge_px // 2:8 - bridge_px // 2 + bridge_px, 14:18] = 1
    return blob


def test_a_blob_parts_at_a_thin_neck_and_each_part_keeps_its_own_pixels() -> None:
    blob = _two_squares(2)
    parts = parted_at_neck(blob, 40)
    assert parts is not None and len(parts) == 2
    left, right = sorted(parts, key=lambda p: int(np.nonzero(p)[1].mean()))
    assert (left | right).sum() == blob.sum() and not (left & right).any()  # every pixel, once
    assert left[2:14, 2:14].all() and right[2:14, 18:30].all()


def test_a_thick_neck_one_square_or_small_cores_do_not_part() -> None:
    assert parted_at_neck(_two_squares(8), 40) is None  # as thick as a piece: one blob
    one = np.zeros((16, 16), np.uint8)
    one[2:14, 2:14] = 1
    assert parted_at_neck(one, 40) is None
    assert parted_at_neck(_two_squares(2), 200) is None  # cores smaller than the least piece


def test_parts_are_kept_only_when_each_fits_a_place_of_its_own() -> None:
    blob = _two_squares(2)
    patch = (3, (16.0, 8.0), (0, 0, 32, 16, int(blob.sum())), 1.0)

    def place_at(x: float, _y: float) -> str:
        return "left" if x < 116 else "right"  # (the board's px: the blob's box starts at 100)

    parts = neck_patches(patch, blob, (100, 50), 40, place_at, lambda _s, area: 100 <= area <= 200)
    assert parts is not None and [p[0] for p in parts] == [3, 3]
    assert sorted(place_at(*p[1]) for p in parts) == ["left", "right"]
    assert all(p[2][0] >= 100 and p[2][1] >= 50 for p in parts)  # boxes in the board's pixels
    assert neck_patches(patch, blob, (100, 50), 40, lambda _x, _y: "one", lambda _s, _a: True) is None
    assert neck_patches(patch, blob, (100, 50), 40, place_at, lambda _s, area: area > 500) is None


def test_joined_skull_tokens_are_read_each_at_its_place() -> None:
    frame, _layout, _reading = reading_of("tune", STEM)
    assert all(frame.view[spot] == (Piece("black", 0),) for spot in SKULLS)
    read_right(STEM, SKULLS)


def test_joined_tokens_whose_parts_do_not_fit_their_places_stay_asked() -> None:
    """The same frame read by a reader whose places take no part of the blob (as if their
    pieces were twice the size): the blob is asked as before."""
    frame = next(f for f in committed() if f.split == "tune" and f.path.stem == STEM)
    layout, colours = frame_layout(frame.game, int(frame.truth["players"]))
    reader = BoardReader(layout, colours=colours, lens=frame.lens)
    reader._fits = lambda _spot, _area: False  # type: ignore[method-assign]
    reading = reader.read(frame.image())
    assert reading.view is not None
    assert any(reading.doubtful.get(s) == OVER for s in SKULLS[1:]), reading.doubtful


def test_the_mask_parts_the_frames_blob_where_a_closing_joined_it() -> None:
    """The joined blob as the reader's mask holds it: a 2 px bridge after closing; parted, two
    tokens' worth each."""
    blob = np.zeros((13, 33), np.uint8)
    cv2.rectangle(blob, (0, 0), (13, 12), 1, -1)
    cv2.rectangle(blob, (19, 0), (32, 12), 1, -1)
    blob[6:8, 13:20] = 1
    parts = parted_at_neck(blob, 11.5)
    assert parts is not None and sorted(int(p.sum()) for p in parts)[0] >= 14 * 13
