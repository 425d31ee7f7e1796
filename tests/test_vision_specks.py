"""A speck of the unexplained, measured for what it may hide (stop 114).  Swing State at 640x480
(0.54 px a mm): specks 3 px by 4 lifted past the track's dark strip at its pale cells' blurred
edges were asked as "glare?".  Each was measured in its own box, where OpenCV's distance runs on
past the box's edges: a speck filling its box was endless, as deep as any piece.  Measured in a
window round it, with what round it is not seen to be the board either (unexplained, or off the
empty board at its own pixel however it was explained), it hides nothing; a speck that is all
that shows of a chip over a busy print, or part of a wider patch, hides one."""

from __future__ import annotations

import cv2
import numpy as np
from committed_frames import read_right

from companion.vision.glare import Glare
from companion.vision.specks import Surroundings

STRIP = (80, 105, 125)  # Swing State's dark track (BGR)
CELL = (175, 205, 220)  # ... and its pale cells
TOLERANCE = 24.0  # ``empty_board.EMPTY_TOLERANCE``
PAD = 10  # ``empty_board.PASS_PX``
RADIUS = 4.0  # a chip's hidden radius at 0.54 px a mm (``board_map``: 4.04 px)
SPECK = (slice(28, 31), slice(36, 40))  # 3 px by 4 against the cell's edge (rows, columns)


def _board() -> tuple[np.ndarray, np.ndarray, Glare]:
    """The empty board (the strip with a pale cell from column 40), the board as read (that),
    and a reflection model whose places hide a piece ``RADIUS`` deep."""
    empty = np.zeros((60, 80, 3), np.uint8)
    empty[:] = STRIP
    empty[:, 40:] = CELL
    radius = np.full(empty.shape[:2], RADIUS, np.float32)
    glare = Glare(empty, np.zeros(empty.shape[:2], bool), lambda pixels: np.zeros(pixels.shape[:2], np.uint8),
                  [], radius)
    return empty, empty.copy(), glare


def _hides_nothing(flat: np.ndarray, empty: np.ndarray, glare: Glare, unexplained: np.ndarray | None = None,
                   pieces: np.ndarray | None = None) -> bool:
    none = np.zeros(empty.shape[:2], np.uint8)
    near = Surroundings(flat, empty, none if unexplained is None else unexplained,
                        none > 0 if pieces is None else pieces)
    speck = np.ones((3, 4), bool)
    return glare.hides_nothing(*near.unseen_round(speck, SPECK[1].start, SPECK[0].start, TOLERANCE, PAD))


def test_a_speck_at_a_blurred_edge_hides_nothing() -> None:
    empty, flat, glare = _board()
    flat[SPECK] = (120, 145, 165)  # the strip lifted by the cell's blur and the light's miss
    assert not glare.hides_nothing(np.ones((3, 4), bool), (28, 36))  # in its own box: endless
    assert _hides_nothing(flat, empty, glare)
    flat[:, 37:40] = (110, 135, 155)  # the blur all along the edge: a strip too thin for a piece
    assert _hides_nothing(flat, empty, glare)


def test_a_speck_joined_to_what_is_unexplained_round_it_hides_what_that_may() -> None:
    empty, flat, glare = _board()
    flat[SPECK] = (120, 145, 165)
    unexplained = np.zeros(empty.shape[:2], np.uint8)
    cv2.circle(unexplained, (34, 29), 6, 1, -1)  # a patch 13 px across the opening left apart
    assert not _hides_nothing(flat, empty, glare, unexplained)
    # ... but what is off the board where a piece was read is that piece's
    assert _hides_nothing(flat, empty, glare, pieces=unexplained > 0)


def test_a_piece_explained_away_but_for_a_speck_hides_one() -> None:
    """A piece over a busy print passes for it within the allowance for a line drawn a pixel
    off, one dimmed unevenly may pass for a die's shadow: off the empty board at its own pixels
    all the same, it goes with the speck."""
    empty, _flat, _glare = _board()
    empty[10:50, 20:50:3] = CELL  # a busy print (a pile's lettering): pale lines 2 px apart
    glare = Glare(empty, np.zeros(empty.shape[:2], bool), lambda pixels: np.zeros(pixels.shape[:2], np.uint8),
                  [], np.full(empty.shape[:2], RADIUS, np.float32))
    flat = empty.copy()
    flat[SPECK] = (150, 150, 230)
    assert _hides_nothing(flat, empty, glare)  # the print as it is round the speck
    cv2.circle(flat, (38, 29), 7, (120, 130, 200), -1)  # a chip lit pale, passing for the print ...
    flat[SPECK] = (150, 150, 230)  # ... but for its highlight
    assert not _hides_nothing(flat, empty, glare)


def test_swing_states_track_at_640x480_is_read_not_asked() -> None:
    read_right("swing_state-t30-b14-vga", ("r1-09", "r1-12-red", "r2-06-red", "r4-03"))
