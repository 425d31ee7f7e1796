"""A die's 1 whose rounded rim catches the lamp beside its pip (``pips._a_glint_beside_a_one``).

Seen at 0-30 degrees a glossy die's rim lights a faint peak at its top's edge.  Beside a
lone clear pip in the face's middle that peak is no pip: a 3 showing its middle and one
corner so would show its other corner through the middle, and a 2 has no middle pip.
"""

from __future__ import annotations

import numpy as np
import pytest
from committed_frames import kept_reading
from pip_maps import blurred_peaks

from companion.vision.die_layout import NO_PIP
from companion.vision.pips import _a_glint_beside_a_one

FACE_PX = 64
SIZE = 100
LO = (SIZE - FACE_PX) // 2  # the face's outline: a square from LO to LO + FACE_PX
WINDOW = 9  # (``mark_peaks._peaks``'s window for a face this size)


def _face() -> np.ndarray:
    hull = np.zeros((SIZE, SIZE), np.uint8)
    hull[LO:LO + FACE_PX, LO:LO + FACE_PX] = 1
    return hull


def _contrast(peaks: dict[tuple[int, int], float]) -> np.ndarray:
    """A contrast map with a blurred peak of each height at each point, nothing past the
    face less its rim (as ``count_pips`` is given it)."""
    out = blurred_peaks(peaks, SIZE)
    rim = 7
    out[:LO + rim] = 0
    out[LO + FACE_PX - rim:] = 0
    out[:, :LO + rim] = 0
    out[:, LO + FACE_PX - rim:] = 0
    return out


def _glint(points: list[tuple[int, int]], values: list[float], contrast: np.ndarray) -> bool:
    pts = np.array(points, np.float64)
    v = np.array(values)
    strong, faint = v >= 0.30, (v >= 0.15) & (v < 0.30)
    return _a_glint_beside_a_one(_face(), pts, strong, faint, contrast, WINDOW, float(FACE_PX * FACE_PX))


MIDDLE = (SIZE // 2, SIZE // 2)


@pytest.mark.parametrize("glint", [(LO + FACE_PX - 5, MIDDLE[1] - 6), (MIDDLE[0] + 3, LO + 4),
                                   (LO + 5, LO + 6)])
def test_a_faint_peak_at_a_ones_rim_is_the_rim_catching_the_lamp(glint: tuple[int, int]) -> None:
    # (the glint itself lies in the rim the peaks' map leaves out: only its peak is given)
    assert _glint([glint, MIDDLE], [0.2, 0.7], _contrast({MIDDLE: 0.7}))


def test_a_threes_other_corner_through_the_middle_keeps_the_count_unclear() -> None:
    corner = (LO + FACE_PX - 12, LO + 12)  # a 3's corner pip, faint, at its rim's inside
    other = (2 * MIDDLE[0] - corner[0], 2 * MIDDLE[1] - corner[1])
    near_edge = (LO + FACE_PX - 7, LO + 7)  # and one nearer the edge than a mark lies
    for faint in (corner, near_edge):
        mirror = (2 * MIDDLE[0] - faint[0], 2 * MIDDLE[1] - faint[1])
        shown = _contrast({MIDDLE: 0.7, mirror: NO_PIP + 0.04})
        assert not _glint([faint, MIDDLE], [0.2, 0.7], shown)
    assert other != corner


def test_a_faint_peak_in_from_the_rim_may_be_a_pip() -> None:
    inside = (MIDDLE[0] + 17, MIDDLE[1] - 17)  # a 3's corner, well in from the edge
    assert not _glint([inside, MIDDLE], [0.2, 0.7], _contrast({MIDDLE: 0.7}))


def test_a_clear_mark_off_the_middle_is_no_one() -> None:
    corner = (MIDDLE[0] - 15, MIDDLE[1] + 15)  # a 2's corner pip, its other faint at the rim
    rim = (LO + FACE_PX - 5, LO + 5)
    assert not _glint([rim, corner], [0.2, 0.7], _contrast({corner: 0.7}))


def test_two_faint_peaks_are_not_a_glint() -> None:
    a, b = (LO + FACE_PX - 5, MIDDLE[1]), (LO + 5, MIDDLE[1] + 3)
    assert not _glint([a, b, MIDDLE], [0.2, 0.2, 0.7], _contrast({MIDDLE: 0.7}))


def test_ones_whose_rims_lit_beside_their_pips_are_read() -> None:
    # Baron Voodoo at 20 degrees (a kept tuning frame): A7's red 1 and B3's purple 1, each with
    # a faint peak at its rim (0.22, 0.17) beside a clear pip in its face's middle, were asked
    frame, reading = kept_reading("baron_voodoo-t20-b37")
    assert reading.view is not None
    for spot in ("A7", "B3"):
        assert spot not in reading.doubtful, (spot, reading.doubtful.get(spot))
        assert reading.view.get(spot) == frame.view[spot]
    assert all(reading.view.get(s, ()) == frame.view.get(s, ()) for s in set(reading.view) | set(frame.view)
               if s not in reading.doubtful)
