"""Faint marks at a 2's or a 3's empty corners (stop 86).  A die's count may take faint marks
that complete a face's layout with its clear ones (``pips.count_pips``, ``die_layout._laid_out_top``):
a far die's pips blur.  But a glossy die's top that the lamp lifts past its colour is mottled,
lightest toward its corners, and two faint specks at a 2's empty corners complete a 4 as well:
on fresh Baron Voodoo boards at 1.06-1.35 px a mm a blue, a purple and a red 2 were read as sure
4s and a blue 3 as a 5.  Where the clear marks alone are a 2 or a 3 on one diagonal and the
faint ones only the other diagonal's corners, the count is left unclear
(``die_layout.a_diagonal_completed``).  Measured: 4 of the fresh tuning boards' 12 wrong places
asked, 3 right ones asked (5 right places of 7,600 on all tuning frames); on the held-out fresh
boards a blue 2 once read as a 4 is read as a 2, and nothing right lost."""

from __future__ import annotations

import numpy as np
import pytest
from committed_frames import kept_reading, reading_of

from companion.games.base import Piece
from companion.vision.die_layout import a_diagonal_completed


def _at(places: list[tuple[float, float]], step: float = 10.0) -> np.ndarray:
    return np.array([(50 + step * x, 50 + step * y) for x, y in places])


def test_a_twos_corners_completed_by_faint_marks_are_no_count() -> None:
    marks = _at([(-1, -1), (1, 1), (1, -1), (-1, 1)])
    assert a_diagonal_completed(marks, np.array([True, True, False, False]))


def test_a_threes_line_completed_by_faint_corners_is_no_count() -> None:
    marks = _at([(-1, -1), (0, 0), (1, 1), (1, -1), (-1, 1)])
    assert a_diagonal_completed(marks, np.array([True, True, True, False, False]))


@pytest.mark.parametrize(("places", "clear"), [
    ([(-1, -1), (1, -1), (1, 1), (-1, 1)], [True, True, False, False]),  # one side clear: no 2
    ([(-1, -1), (1, -1), (1, 1), (-1, 1)], [True, True, True, False]),  # three clear corners
    ([(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)], [True, True, False, True, True]),  # a 4, its middle faint
    ([(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)], [True, False, False, False, True]),  # no middle clear
    ([(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)], [True, False, False, False, False, True]),
])
def test_faint_marks_that_are_no_diagonals_other_corners_still_complete(
        places: list[tuple[int, int]], clear: list[bool]) -> None:
    assert not a_diagonal_completed(_at(places), np.array(clear))


@pytest.mark.parametrize(("stem", "spot", "was"), [("baron_voodoo-t10-b9", "under0-2", Piece("blue", 2)),
                                                   ("baron_voodoo-t10-b8", "G7", Piece("blue", 3))])
def test_a_lit_dies_empty_corners_do_not_make_it_a_bigger_face(stem: str, spot: str, was: Piece) -> None:
    frame, reading = kept_reading(stem)
    assert reading.view is not None
    assert frame.view[spot] == (was,)
    assert spot in reading.doubtful, reading.view.get(spot)


def test_a_four_whose_faint_pips_are_a_side_is_still_read() -> None:
    """A purple 4 from the side, its two clear pips along one edge: faint marks complete it."""
    frame, _layout, reading = reading_of("tune", "baron_voodoo-t10-b0-side")
    assert reading.view is not None
    assert frame.view["A1"] == (Piece("purple", 4),)
    assert "A1" not in reading.doubtful and reading.view["A1"] == frame.view["A1"]
