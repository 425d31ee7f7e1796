"""A die's 1 whose rounded edge the lamp lights in a streak as bright as its pip
(``pips._a_streak_beside_a_one``).

A die's edges are rounded: a lamp lights the strip along one edge as a line along the top's
side, as bright as a pip or brighter, where no mark of a face lies.  Beside a lone clear pip
deep in the face's middle such a line at the outline's edge is light, not a mark, where its
mirror through the pip holds none (a 3's corner run into it would leave its other corner).
"""

from __future__ import annotations

import cv2
import numpy as np
from committed_frames import read_right
from pip_maps import blurred_peaks

from companion.vision.die_layout import NO_PIP
from companion.vision.pips import _a_streak_beside_a_one

FACE_PX = 64
SIZE = 100
LO = (SIZE - FACE_PX) // 2  # the face's outline: a square from LO to LO + FACE_PX
WINDOW = 9  # (``mark_peaks._peaks``'s window for a face this size)
RADIUS = 0.53 * FACE_PX  # (``mark_peaks._peaks``'s radius: the piece's half-width)
MIDDLE = (SIZE // 2, SIZE // 2)
EDGE_Y = LO + 6  # the streak's row: along the top edge, a tenth of the face in


def _face() -> np.ndarray:
    hull = np.zeros((SIZE, SIZE), np.uint8)
    hull[LO:LO + FACE_PX, LO:LO + FACE_PX] = 1
    return hull


def _contrast(discs: dict[tuple[int, int], float], line: float = 0.0) -> np.ndarray:
    """A blurred disc of each height at each point and, of height ``line``, a streak along the
    top edge across most of the face."""
    out = blurred_peaks(discs, SIZE)
    if line:
        streak = np.zeros_like(out)
        cv2.line(streak, (LO + 10, EDGE_Y), (LO + FACE_PX - 10, EDGE_Y), 1.0, 2)
        streak = cv2.GaussianBlur(streak, (0, 0), 1.5)
        out = np.maximum(out, streak / streak.max() * line)
    return out


def _streak(points: list[tuple[int, int]], values: list[float], contrast: np.ndarray) -> bool:
    pts = np.array(points, np.float64)
    v = np.array(values, np.float32)
    strong, faint = v >= 0.30, (v >= 0.15) & (v < 0.30)
    return _a_streak_beside_a_one(_face(), pts, strong, faint, contrast, WINDOW, float(FACE_PX * FACE_PX),
                                  v, RADIUS)


def test_a_line_at_a_ones_edge_is_the_edge_catching_the_lamp() -> None:
    assert _streak([MIDDLE, (MIDDLE[0], EDGE_Y)], [0.6, 0.66], _contrast({MIDDLE: 0.6}, line=0.66))


def test_a_disc_at_the_edge_may_be_a_pip() -> None:
    corner = (LO + 12, LO + 8)  # a round mark, as a pip is: no streak
    assert not _streak([MIDDLE, corner], [0.6, 0.6], _contrast({MIDDLE: 0.6, corner: 0.6}))


def test_a_mark_at_the_mirror_keeps_the_count_unclear() -> None:
    mirror = (MIDDLE[0], 2 * MIDDLE[1] - EDGE_Y)
    shown = _contrast({MIDDLE: 0.6, mirror: NO_PIP + 0.04}, line=0.66)
    assert not _streak([MIDDLE, (MIDDLE[0], EDGE_Y)], [0.6, 0.66], shown)


def test_a_streak_beside_a_mark_off_the_middle_is_no_one() -> None:
    corner = (MIDDLE[0] - 15, MIDDLE[1] + 15)  # a 2's corner pip: not deep in the face
    assert not _streak([corner, (MIDDLE[0], EDGE_Y)], [0.6, 0.66], _contrast({corner: 0.6}, line=0.66))


def test_a_faint_mark_besides_leaves_it_to_the_other_checks() -> None:
    faint = (MIDDLE[0] + 15, MIDDLE[1] + 15)
    shown = _contrast({MIDDLE: 0.6, faint: 0.2}, line=0.66)
    assert not _streak([MIDDLE, (MIDDLE[0], EDGE_Y), faint], [0.6, 0.66, 0.2], shown)


def test_a_red_one_whose_edge_the_lamp_lit_is_read() -> None:
    # King of Clubs at 20 degrees (a tuning frame, 1.12 px a mm): p1_d3's red 1, its near edge
    # lit in a streak (0.66) beside its pip (0.60), was asked "marks unclear"
    read_right("king_of_clubs-t20-b0", ("p1_d3",))
