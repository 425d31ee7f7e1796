"""A die's count by its whole face (``face_template``): the face looked for at every place,
turn and step inside the die, each count scored by its weakest pip over the grid points it
leaves empty.  Read only for 5-6 (a face of fewer pips is part of a bigger one whose other
pips a lamp may wash out), or for 2-6 on a top its caller sees in its own colour, with empty
points showing the die's own face (no highlight over them), and far past every other count."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from committed_frames import read_right, reading_of

from companion.vision.face_template import FEWEST_IN_ITS_COLOUR, LAYOUTS, face_count

FACE_PX = 64.0  # a 16 mm die at 4 px a mm
SIZE = 112


def _die(pips: int, turn_deg: float, light_marks: bool = True, seed: int = 0,
         washed: tuple[tuple[int, int], ...] = ()) -> tuple[np.ndarray, np.ndarray]:
    """A die's crop (grey) and its colour's mask: a turned square face, its pips at the
    layout's places (``washed``: grid points lit by a lamp's highlight, their pip, if any,
    gone in it), sensor noise."""
    rng = np.random.default_rng(seed)
    face, pip = (90.0, 215.0) if light_marks else (215.0, 60.0)
    img = np.full((SIZE, SIZE), 160.0, np.float32)  # the board round it
    t = np.deg2rad(turn_deg)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    corners = (np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)]) * FACE_PX / 2) @ rot.T + SIZE / 2
    mask = np.zeros((SIZE, SIZE), np.uint8)
    cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), 1)
    img[mask > 0] = face
    step = 0.27 * FACE_PX
    for x, y in LAYOUTS[pips]:
        cx, cy = np.array([x, y], np.float64) @ rot.T * step + SIZE / 2
        cv2.circle(img, (int(round(cx)), int(round(cy))), 5, pip, -1)
    for x, y in washed:  # a highlight: the face round it lit past its pips
        cx, cy = np.array([x, y], np.float64) @ rot.T * step + SIZE / 2
        cv2.circle(img, (int(round(cx)), int(round(cy))), 9, 250.0, -1)
    img = cv2.GaussianBlur(img, (0, 0), 1.2) + rng.normal(0, 3.0, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8), mask


@pytest.mark.parametrize("pips", [5, 6])
@pytest.mark.parametrize("turn", [0.0, 23.0, 45.0, 71.0])
@pytest.mark.parametrize("light_marks", [True, False])
def test_a_face_of_five_or_six_is_read_turned_any_way(pips: int, turn: float, light_marks: bool) -> None:
    gray, mask = _die(pips, turn, light_marks, seed=pips + int(turn))
    read = face_count(gray, mask, FACE_PX, light_marks)
    assert read is not None and read[0] == pips
    assert np.hypot(read[1][0] - SIZE / 2, read[1][1] - SIZE / 2) <= 4.0  # the face's centre


@pytest.mark.parametrize("pips", [1, 2, 3, 4])
def test_a_face_of_one_to_four_is_never_read_whole(pips: int) -> None:
    """A 1, 2, 3 or 4 is part of a 5 or a 6 whose other pips may not show: left to the peak
    search (``pips.count_pips``, ``die_square.low_face``), which asks where the top lies."""
    gray, mask = _die(pips, 30.0, seed=pips)
    assert face_count(gray, mask, FACE_PX, True) is None


@pytest.mark.parametrize(("pips", "washed"), [(5, ((0, 0),)), (6, ((-1, 0), (1, 0))), (6, ((1, 0),))])
def test_a_face_whose_pips_a_highlight_washes_out_is_not_read_as_fewer(pips: int, washed) -> None:
    """A 5 whose middle pip a lamp's highlight washes out lays out as a 4, a 6 whose middle
    row does too: the grid point a 4 leaves empty is lit past the face, so unclear."""
    gray, mask = _die(pips, 20.0, washed=washed, seed=7)
    read = face_count(gray, mask, FACE_PX, True)
    assert read is None or read[0] == pips


@pytest.mark.parametrize("pips", [2, 3, 4])
@pytest.mark.parametrize("turn", [0.0, 17.0, 45.0, 62.0])
@pytest.mark.parametrize("light_marks", [True, False])
def test_a_face_of_two_to_four_in_its_own_colour_is_read_turned_any_way(pips: int, turn: float,
                                                                        light_marks: bool) -> None:
    gray, mask = _die(pips, turn, light_marks, seed=10 * pips + int(turn))
    read = face_count(gray, mask, FACE_PX, light_marks, FEWEST_IN_ITS_COLOUR)
    assert read is not None and read[0] == pips


def test_a_lone_pip_is_never_read_whole() -> None:
    """A lamp's highlight on a dark die is a lone light spot: a 1 is left to the peak search."""
    gray, mask = _die(1, 30.0, seed=1)
    assert face_count(gray, mask, FACE_PX, True, FEWEST_IN_ITS_COLOUR) is None


@pytest.mark.parametrize(("pips", "washed"), [(5, ((0, 0),)), (3, ((0, 0),)), (6, ((-1, 0), (1, 0))),
                                              (5, ((-1, -1),))])
def test_pips_a_highlight_washes_out_leave_no_fewer_in_its_own_colour(pips: int, washed) -> None:
    """A 5 or a 3 whose middle a highlight washes out lays out as a 4 or a 2, a 6 less its
    middle row as a 4: the grid points they leave empty are lit past the face, so unclear."""
    gray, mask = _die(pips, 35.0, washed=washed, seed=11)
    read = face_count(gray, mask, FACE_PX, True, FEWEST_IN_ITS_COLOUR)
    assert read is None or read[0] == pips


def test_dice_of_two_to_four_seen_in_their_own_colour_are_read_by_their_whole_face() -> None:
    """Baron Voodoo straight above and King of Clubs at 10 degrees, tuning split: a red 2 and
    3 and a purple 4 (their tops' medians 0.1-0.2 of the way to white), and a purple 2 whose
    marks' peaks no face lays out, were "marks unclear" (``PieceMarks._in_its_own_colour``)."""
    read_right("baron_voodoo-t00-b1", ("A3", "A7", "E3"))
    read_right("king_of_clubs-t10-b2-more", ("p0_d3",))


def test_a_blank_face_or_no_die_is_no_count() -> None:
    gray, mask = _die(4, 10.0, seed=3)
    blank = np.full_like(gray, 90)
    assert face_count(blank, mask, FACE_PX, True) is None
    assert face_count(gray, np.zeros_like(mask), FACE_PX, True) is None
    assert face_count(gray, mask, 6.0, True) is None  # too few pixels a face


def test_red_fives_lit_pink_are_never_read_as_fours() -> None:
    """Baron Voodoo, tuning split, straight above: two red 5s whose middle pips show as a lit
    pink top in grey and in colour are doubted, never read (D5's top lies 0.62 of the way from
    red to white: a 4 by its whole face there, without ``PieceMarks._in_its_own_colour``); the
    yellow 6 whose lit top passes for the print's pale fill is read (``Classifying._classify_board``)."""
    read_right("baron_voodoo-t00-b0", ("D3",))
    _frame, _layout, reading = reading_of("tune", "baron_voodoo-t00-b0")
    assert {"F4", "D5"} <= set(reading.doubtful or {})
