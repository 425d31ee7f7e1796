"""A die's face of 1-3 pips read inside its top's square (``vision/die_square.py``): the top
is the outline's outermost square along the line from the camera's nadir, its marks laid out
as a face at their step, the rest of the die's marks (a side's, its rim's) off that square.
A top's pip and a side's mark are never taken for a face of two."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from committed_frames import kept_reading, read_committed, read_right, reading_of

from companion.games.base import Piece
from companion.vision import die_square
from companion.vision.die_square import _halo, low_face
from companion.vision.pips import DIE_RIM_SHARE, count_pips

DATA = Path(__file__).parent / "data" / "vision"
SIZE, DIE_PX, STEP = 110, 64.0, 17.3  # crop px; a face's width; its pips' step (0.27 of it)
TOP = (55.0, 40.0)  # the top's centre; the camera's nadir lies below (the sides show below it)
OUTWARD = (0.0, -1.0)
LEAN = 18  # px of side face seen below the top
BODY, INK, BOARD = 80, 235, 170  # a dark die with light pips on a light board


def die(top_pips: list[tuple[float, float]], side_pips: list[tuple[float, float]], middle_ink: int = INK,
        lean: int = LEAN, faint: tuple[tuple[float, float], ...] = ()) -> tuple[np.ndarray, np.ndarray]:
    """A die seen from a slant: its top square, its side face swept below it (a shade
    darker), pips at grid steps on the top and at points on the side: (mask, gray).
    ``faint``: top pips at grid steps the lamp left faint (a fifth of a pip's contrast)."""
    gray = np.full((SIZE, SIZE), BOARD, np.uint8)
    mask = np.zeros((SIZE, SIZE), np.uint8)
    half = int(DIE_PX / 2)
    x0, y0 = int(TOP[0]) - half, int(TOP[1]) - half
    cv2.rectangle(gray, (x0, y0 + half), (x0 + 2 * half, y0 + 2 * half + lean), BODY - 15, -1)
    cv2.rectangle(mask, (x0, y0 + half), (x0 + 2 * half, y0 + 2 * half + lean), 1, -1)
    cv2.rectangle(gray, (x0, y0), (x0 + 2 * half, y0 + 2 * half), BODY, -1)
    cv2.rectangle(mask, (x0, y0), (x0 + 2 * half, y0 + 2 * half), 1, -1)
    for gx, gy in top_pips:
        ink = middle_ink if (gx, gy) == (0, 0) else INK
        cv2.circle(gray, (int(TOP[0] + gx * STEP), int(TOP[1] + gy * STEP)), 5, ink, -1)
    for px, py in side_pips:
        cv2.circle(gray, (int(px), int(py)), 4, INK, -1)
    for gx, gy in faint:
        cv2.circle(gray, (int(TOP[0] + gx * STEP), int(TOP[1] + gy * STEP)), 5, BODY + (INK - BODY) // 5, -1)
    gray = cv2.GaussianBlur(gray, (0, 0), 1.0)
    return mask, gray


SIDE_PIP = (TOP[0] + 10, TOP[1] + DIE_PX / 2 + LEAN / 2)  # a mark on the side face below the top


def read(top: list[tuple[float, float]], side: list[tuple[float, float]], middle_ink: int = INK
         ) -> int | None:
    mask, gray = die(top, side, middle_ink)
    return low_face(mask, gray, None, DIE_RIM_SHARE, DIE_PX, OUTWARD)


def test_a_two_with_a_sides_mark_beside_it_is_read_where_the_count_alone_is_unclear() -> None:
    mask, gray = die([(-1, -1), (1, 1)], [SIDE_PIP])
    # three marks, one at the outline's edge: the count alone is unclear
    assert count_pips(mask, gray, None, DIE_RIM_SHARE, None, DIE_PX)[1] is False
    assert read([(-1, -1), (1, 1)], [SIDE_PIP]) == 2
    assert read([(1, -1), (-1, 1)], [SIDE_PIP]) == 2


def test_faces_of_one_and_three_read_inside_the_top() -> None:
    assert read([(0, 0)], [SIDE_PIP]) == 1
    assert read([(-1, -1), (0, 0), (1, 1)], [SIDE_PIP]) == 3


def test_a_tops_pip_and_a_sides_mark_are_no_two() -> None:
    """A top's 1 and a side's mark the step of a 2 apart on a diagonal: the square they would
    be a 2 on is not the outline's top (it reaches neither its far edge nor its sides)."""
    side = (TOP[0], TOP[1] + 2 * np.sqrt(2) * STEP)  # on the side face, a 2's diagonal from the top's pip
    mask, gray = die([(0, 0)], [side], lean=30)  # a column's sides: the mark well inside them
    assert low_face(mask, gray, None, DIE_RIM_SHARE, DIE_PX, OUTWARD) in (1, None)
    # and straight above (no way out known): its sides would be seen as no top's
    assert low_face(mask, gray, None, DIE_RIM_SHARE, DIE_PX, None) != 2


def test_a_three_whose_middle_is_faint_is_no_two() -> None:
    """A 3's middle pip half washed out leaves a mark at the grid point a 2 has empty: unclear."""
    assert read([(-1, -1), (0, 0), (1, 1)], [], middle_ink=BODY + 40) is None


def test_a_face_the_top_square_does_not_fit_is_unclear() -> None:
    """Marks of a 2 far off the outline's top (its square would hang past the outline): no reading."""
    mask, gray = die([], [])
    for x, y in ((TOP[0] - STEP, TOP[1] + 2 * STEP), (TOP[0] + STEP, TOP[1] + 4 * STEP)):
        cv2.circle(gray, (int(x), int(y)), 5, INK, -1)
    assert low_face(mask, gray, None, DIE_RIM_SHARE, DIE_PX, OUTWARD) is None


def _turned(mask: np.ndarray, gray: np.ndarray, degrees: float) -> tuple[np.ndarray, np.ndarray]:
    """The die turned about its top's centre (the board round it as it was)."""
    turn = cv2.getRotationMatrix2D(TOP, degrees, 1.0)
    return (cv2.warpAffine(mask, turn, (SIZE, SIZE), flags=cv2.INTER_NEAREST),
            cv2.warpAffine(gray, turn, (SIZE, SIZE), borderValue=BOARD))


def _outward_turned(degrees: float) -> tuple[float, float]:
    """``OUTWARD`` turned with the die (image axes: y down, so a turn of +d degrees is -d here)."""
    c, s = np.cos(np.deg2rad(-degrees)), np.sin(np.deg2rad(-degrees))
    return (OUTWARD[0] * c - OUTWARD[1] * s, OUTWARD[0] * s + OUTWARD[1] * c)


def test_a_lone_mark_off_the_tops_middle_is_no_sure_one() -> None:
    """A 2 (or a 3) whose other pips the lamp washed out leaves one mark at a corner of the
    top: a 1's pip is the top's middle, so a lone mark elsewhere is never a sure 1, whether
    the die's sides show (seen from a slant) or not (a flat die straight below), at any turn."""
    # (a flat camera's die drawn larger than the reader's model of one: its outline is its face)
    for lean, outward, model_px in ((LEAN, OUTWARD, DIE_PX), (0, None, DIE_PX), (0, OUTWARD, DIE_PX / 2)):
        for corner in ((-1, -1), (1, -1), (-1, 1), (1, 1)):
            for degrees in (0.0, 30.0, 45.0):
                mask, gray = _turned(*die([corner], [], lean=lean), degrees)
                way = None if outward is None else _outward_turned(degrees)
                pips, sure = count_pips(mask, gray, None, DIE_RIM_SHARE, None, model_px, outward=way)
                assert not (sure and pips == 1), (lean, corner, degrees, model_px)


def test_a_ones_pip_at_the_tops_middle_is_a_sure_one() -> None:
    """The check above leaves a real 1 read: its pip at the top's middle, sides or none."""
    for lean, outward, model_px in ((LEAN, OUTWARD, DIE_PX), (0, None, DIE_PX), (0, OUTWARD, DIE_PX / 2)):
        for degrees in (0.0, 30.0, 45.0):
            mask, gray = _turned(*die([(0, 0)], [], lean=lean), degrees)
            way = None if outward is None else _outward_turned(degrees)
            assert count_pips(mask, gray, None, DIE_RIM_SHARE, None, model_px, outward=way) == (1, True), \
                (lean, degrees, model_px)


def test_a_lone_mark_a_twos_near_corner_is_no_sure_one_from_a_coarse_frame() -> None:
    """A 2 turned half a quarter, its far pip lost, seen from a slant: its near pip lies on the
    line from the nadir, 1.09 faces in from the top's far corner.  From a frame of 0.59 px a mm
    the blur rounds that corner off by a frame pixel or two (here 14 crop px, a fifth of a
    face), and the pip lies within a 1's reach of the edge left (King of Clubs, a purple 2 read
    a sure 1).  Held to a frame pixel (``coarse_edge``), it is no 1; a 1's pip still is."""
    from companion.vision.die_layout import _in_the_middle

    centre, half = (65.0, 60.0), DIE_PX / np.sqrt(2)
    outline = np.zeros((150, 130), np.uint8)
    for lean in range(LEAN + 1):  # the top, and its sides swept toward the nadir below it
        cv2.fillConvexPoly(outline, np.array([[centre[0], centre[1] - half + lean],
                                              [centre[0] + half, centre[1] + lean],
                                              [centre[0], centre[1] + half + lean],
                                              [centre[0] - half, centre[1] + lean]], np.int32), 1)
    outline[:int(centre[1] - half) + 14] = 0  # the far corner the blur took
    near_pip = np.array([centre[0], centre[1] + STEP * np.sqrt(2)])
    one_frame_px = 1.0 / (16.0 * 0.59)  # of a face: a 16 mm die at 0.59 px a mm
    assert _in_the_middle(outline, near_pip, DIE_PX, (0.0, -1.0))  # the reach a fine frame allows
    assert not _in_the_middle(outline, near_pip, DIE_PX, (0.0, -1.0), one_frame_px)
    assert _in_the_middle(outline, np.array(centre), DIE_PX, (0.0, -1.0), one_frame_px)


def test_a_lone_mark_near_the_outlines_near_edge_is_no_sure_one() -> None:
    """A 2 atop a column from 30 degrees, its far pip lost: its near pip lay 0.86 of a face in
    from the top's far edge, as a 1's pip may from a slant, but only 0.36 from the outline's
    near edge (stop 88, read a sure 1).  The top's sides lie past its near edge, so a 1's pip
    lies at least half a face from the outline's near edge, however little of the sides shows:
    a lone mark nearer it is no 1, from above or from a slant, and a 1's pip is one still."""
    from companion.vision.die_layout import ONE_FROM_FAR, _in_the_middle

    outline = np.zeros((120, 120), np.uint8)
    top = (60.0, 40.0)
    cv2.rectangle(outline, (int(top[0] - DIE_PX / 2), int(top[1] - DIE_PX / 2)),
                  (int(top[0] + DIE_PX / 2) - 1, int(top[1] + DIE_PX / 2) - 1), 1, -1)  # no side shows
    near_pip = np.array([top[0], top[1] + 0.38 * DIE_PX])  # 0.88 from the far edge, 0.12 from the near
    for outward in ((0.0, -1.0), None):
        assert not _in_the_middle(outline, near_pip, DIE_PX, outward)
        assert _in_the_middle(outline, np.array(top), DIE_PX, outward)
    assert ONE_FROM_FAR[0] >= 0.3  # (a 1's pip lies half a face from either edge of its top)
    frame, reading = kept_reading("baron_voodoo-t30-b28")
    assert frame.truth["stacks"]["E7"] == [["blue", 6], ["blue", 2]]
    assert reading.view is not None
    assert "E7" in reading.doubtful or reading.view.get("E7") == (Piece("blue", 2),), reading.view.get("E7")


def test_a_lone_mark_further_from_the_far_edge_than_the_near_is_no_sure_one() -> None:
    """From a slant a 1's pip lies half a face from its top's far edge and further from the
    outline's near edge, its sides between: a lone mark much nearer the near edge than the far
    one is a 2's near corner pip, its far pip lost (held-out Baron Voodoo board 135 at 30
    degrees, stop 102: a yellow 2 on a Caught Soul's place, its far pip past its colour's
    outline where the lamp took the colour, lay 0.81 of a face from the far edge and 0.43 from
    the near one, and was read a sure 1).  The mark a 2's middle is judged by is no lone one."""
    from committed_frames import kept_reading

    from companion.vision.die_layout import LONE_FAR_PAST_NEAR, _in_the_middle

    outline = np.zeros((120, 120), np.uint8)
    top, sides = (60.0, 40.0), 0.2 * DIE_PX  # the sides seen a fifth of a face past the top's near edge
    cv2.rectangle(outline, (int(top[0] - DIE_PX / 2), int(top[1] - DIE_PX / 2)),
                  (int(top[0] + DIE_PX / 2) - 1, int(top[1] + DIE_PX / 2 + sides) - 1), 1, -1)
    near_pip = np.array([top[0], top[1] + 0.29 * DIE_PX])  # 0.79 from the far edge, 0.41 from the near
    assert _in_the_middle(outline, near_pip, DIE_PX, (0.0, -1.0))  # (as the middle of two marks: allowed)
    assert not _in_the_middle(outline, near_pip, DIE_PX, (0.0, -1.0), lone=True)
    assert _in_the_middle(outline, np.array(top), DIE_PX, (0.0, -1.0), lone=True)
    assert 0.28 < LONE_FAR_PAST_NEAR < 0.35  # (right 1s rendered: 0.28 at most; 2s' near pips 0.35 up)
    frame, reading = kept_reading("baron_voodoo-t30-b135", "test")
    assert reading.view is not None
    assert frame.view["souls0-2"] == (Piece("yellow", 2),)
    assert "souls0-2" in reading.doubtful or reading.view.get("souls0-2") == (Piece("yellow", 2),), \
        reading.view.get("souls0-2")


def test_a_face_of_four_whose_middle_lies_by_the_near_edge_is_no_top() -> None:
    """A top's middle lies half a face from its far edge and, from a slant, further from the
    outline's near edge, its sides between.  Four marks laid out as a 4 whose middle lies much
    nearer the near edge are no top's face: a lone 1's pip and the dark edges of its sides past
    it (held-out Baron Voodoo board 142 at 20 degrees, stop 102: a yellow 1 on G1 beside a
    marker read as a sure 4, its marks' middle 1.17 faces from the far edge and 0.47 from the
    near).  The measure is the one ``_in_the_middle`` judges a lone mark by."""
    from committed_frames import kept_reading

    from companion.vision.die_layout import FACE_FAR_PAST_NEAR, LONE_FAR_PAST_NEAR, _far_past_near

    outline = np.zeros((120, 120), np.uint8)
    top, sides = (60.0, 40.0), 0.3 * DIE_PX  # the sides seen three tenths of a face past the top's near edge
    cv2.rectangle(outline, (int(top[0] - DIE_PX / 2), int(top[1] - DIE_PX / 2)),
                  (int(top[0] + DIE_PX / 2) - 1, int(top[1] + DIE_PX / 2 + sides) - 1), 1, -1)
    outward = (0.0, -1.0)  # the top's far edge is up the crop
    assert _far_past_near(outline, np.array(top), DIE_PX, outward) < 0  # a top's middle: nearer the far edge
    by_the_sides = np.array([top[0], top[1] + 0.5 * DIE_PX])  # half a face nearer the camera's nadir
    assert _far_past_near(outline, by_the_sides, DIE_PX, outward) > FACE_FAR_PAST_NEAR
    assert _far_past_near(outline, np.array(top), DIE_PX, None) == pytest.approx(0.0, abs=0.05)
    assert _far_past_near(np.zeros((8, 8), np.uint8), np.array(top), DIE_PX, outward) == 0.0  # no outline
    # (right counts of 4-6 rendered: 0.42 at most; the 1 read as a 4: 0.70; a face's middle from its
    # marks' mean strays further than a lone 1's pip, so the bar is higher than the lone mark's)
    assert LONE_FAR_PAST_NEAR < 0.42 < FACE_FAR_PAST_NEAR < 0.70
    frame, reading = kept_reading("baron_voodoo-t20-b142", "test")
    assert reading.view is not None
    assert frame.view["G1"] == (Piece("yellow", 1),)
    assert "G1" in reading.doubtful or reading.view.get("G1") == (Piece("yellow", 1),), reading.view.get("G1")


def test_a_faces_square_may_reach_past_its_colour_by_the_rounded_rim() -> None:
    """A die's rounded rim, its slopes shaded or lit, falls out of the die's colour: the
    outline seen is the flat top, a fifth of a face narrower than the square its 2's or 3's
    pips are laid out on.  That square may reach past the outline by the rim (never fall
    short of it by more than before), so these 2s and a 3, doubted before, are read; a 1's
    square, centred on its one mark, still may not (a 2's corner pip, the other unseen).
    (The same board's souls1-3 is asked since stop 85: its die and souls1-2's, touching, were
    read as a column of three standing on a place of one die, read at its foot by the next
    die's top; both purple 2s, so it came out right.)"""
    from committed_frames import read_right

    for stem, spots in (("baron_voodoo-t00-b0", ("A6",)), ("baron_voodoo-t20-b0", ("A6", "G2")),
                        ("baron_voodoo-t20-b2", ("souls0-1",))):
        read_right(stem, spots)


def test_a_three_whose_middle_is_faint_is_no_sure_two_by_its_count_either() -> None:
    """Counted alone (no layout asked: a 2 has no shape of four), a 3 whose middle pip the
    lamp or blur left faint, under a counted mark's strength, was a sure 2: the red 3 read as
    a 2 of King of Clubs' ledger.  Where the layout of the marks counted leaves a grid point
    empty (a 2's middle) and a faint mark peaks there, the count is unclear; a clean 2 and a
    clean 3 are still sure, from above and from a slant."""
    for lean, outward in ((0, None), (LEAN, OUTWARD)):
        for ink in (BODY + 22, BODY + 28):
            mask, gray = die([(-1, -1), (0, 0), (1, 1)], [], middle_ink=ink, lean=lean)
            pips, sure = count_pips(mask, gray, None, DIE_RIM_SHARE, None, DIE_PX, outward=outward)
            assert not (sure and pips == 2), (lean, ink)
        mask, gray = die([(-1, -1), (1, 1)], [], lean=lean)
        assert count_pips(mask, gray, None, DIE_RIM_SHARE, None, DIE_PX, outward=outward) == (2, True), lean
        mask, gray = die([(-1, -1), (0, 0), (1, 1)], [], lean=lean)
        assert count_pips(mask, gray, None, DIE_RIM_SHARE, None, DIE_PX, outward=outward) == (3, True), lean


def test_a_dark_dies_own_shadow_and_a_pip_by_its_rim_leave_its_top_read() -> None:
    """Two doubts of a Baron Voodoo board read from above (its only two: the frame was one of
    none read whole).  A red 3's shadow on the board is as dark as its face: the brightness's
    outline, joined to the colour's, ran a third of a face past the top's square, which met
    the colour's own outline; the square now meets either.  A purple 2's pip by the rim was cut
    by the rim's inside to a sliver and taken for the rim's streak; a streak is now one drawn
    out within the colour's outline too.  The whole board is read, sure and right."""
    from committed_frames import read_right

    read_right("baron_voodoo-t00-b2", ("B2", "souls1-2"))
    frame, layout, reading = reading_of("tune", "baron_voodoo-t00-b2")
    assert reading.view is not None and not reading.doubtful and not reading.hand
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots)


def test_a_lit_rim_beside_an_empty_grid_point_leaves_a_two_read() -> None:
    """A glossy die's rounded edge catches the lamp in a bright streak along its top's side.
    Its blurred light reaches the grid points of the face's edge that a 2 leaves empty; there
    it rises on past the point, to the streak, where a pip left faint would peak at the point.
    The 2 is read (the red 2s of Baron Voodoo's tuning frames at 30 degrees, doubted before);
    a 3 whose middle is faint is still no 2.  (The red 2 at 0 degrees, A3 of t00-b1, is
    doubted since its lit top is taken for red on the board (``Classifying._classify_board``):
    its foot is no longer found, and its rim's streak is read with its top.)"""
    from committed_frames import read_right

    def lit(mask: np.ndarray, gray: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        half = DIE_PX / 2
        x = int(TOP[0] + half - 7)  # the streak on the top's rounded rim (1.45 steps out), its height
        streak = np.zeros_like(gray)
        cv2.line(streak, (x, int(TOP[1] - half + 4)), (x, int(TOP[1] + half - 4)), 255, 3)
        return mask, np.maximum(gray, cv2.GaussianBlur(streak, (0, 0), 2.0))

    assert low_face(*lit(*die([(1, -1), (-1, 1)], [])), None, DIE_RIM_SHARE, DIE_PX, OUTWARD) == 2
    mask, gray = lit(*die([(-1, -1), (0, 0), (1, 1)], [], middle_ink=BODY + 40))
    assert low_face(mask, gray, None, DIE_RIM_SHARE, DIE_PX, OUTWARD) is None
    for stem, spots in (("baron_voodoo-t30-b0", ("A3", "F7")), ("baron_voodoo-t20-b1", ("A7", "G3"))):
        read_right(stem, spots)


def test_a_corner_pip_by_a_lit_rim_is_looked_for_within_half_the_rim() -> None:
    """On the physically based frames a 2's or a 3's corner pip lies a rim's width from where
    the die's colour ends (the rounded rim beyond it lit past the colour): its peak falls in
    the band the rim takes off the outline, and the count was left unclear ("marks unclear").
    Looked for again within half the rim, the face is read (the square's checks as ever)."""
    # purple 2s, red 3s and a red 2, "marks unclear: blur?" before
    read_right("baron_voodoo-t10-b0", ("E1",))
    read_right("baron_voodoo-t10-b2", ("B2", "souls1-2"))
    read_right("baron_voodoo-t20-b0", ("A3",))
    read_right("baron_voodoo-t20-b1", ("F4",))


def test_marks_nearer_than_a_faces_outer_pips_are_no_sure_two_or_three() -> None:
    """A 5 whose corners on one diagonal are lost (past its colour, or to the lamp) shows a
    corner and its middle, or a line of three at half a face's step: counted alone, that was
    a sure 2 or 3 (three dice of Baron Voodoo's tuning frames read a sure 3 for a 5).  A 2's or
    a 3's outer marks lie a diagonal of two steps apart: nearer, the count is unclear.  A 2
    and a 3 at their face's step stay sure, from above and from a slant, on a larger die too."""
    for lean, outward in ((0, None), (LEAN, OUTWARD)):
        for marks in ([(-1, -1), (0, 0)], [(-0.5, -0.5), (0, 0), (0.5, 0.5)], [(0, 0), (0.6, 0.6)]):
            mask, gray = die(marks, [], lean=lean)
            pips, sure = count_pips(mask, gray, None, DIE_RIM_SHARE, None, DIE_PX, outward=outward)
            assert not (sure and pips == len(marks)), (lean, marks)
        for marks in ([(-1, -1), (1, 1)], [(-1, -1), (0, 0), (1, 1)]):
            mask, gray = die(marks, [], lean=lean)
            assert count_pips(mask, gray, None, DIE_RIM_SHARE, None, DIE_PX, outward=outward) \
                == (len(marks), True), (lean, marks)
            # a game's larger die (King of Clubs' drawn flat: a step of 0.44 of a standard face)
            assert count_pips(mask, gray, None, DIE_RIM_SHARE, None, 0.62 * DIE_PX, outward=outward) \
                == (len(marks), True), (lean, marks)


def test_a_ones_ring_may_meet_the_light_on_its_rounded_rim() -> None:
    """A dark die's rounded rim catches the lamp lighter than its face, as a pip is, all round
    its top; blurred, that light reaches the outer edge of the ring round a 1's pip where no
    other face's pip may lie, and the 1 was left unclear ("marks unclear": Baron Voodoo's blue
    and purple 1s).  There the contrast rises all the way out to its peak on the rim, by the
    colour's edge; a pip at a grid point peaks a fifth of a face inside it.  The 1 is read; a
    5 (its corner pips by the lit rim) is still no 1, from above or from a slant (from above it
    is read a 5: no face holds a 5's pips and more, so the rim's light at its sides' middles is
    no pip)."""
    def lit(mask: np.ndarray, gray: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        half = int(DIE_PX / 2)
        rim = np.zeros_like(gray)
        cv2.rectangle(rim, (int(TOP[0]) - half + 4, int(TOP[1]) - half + 4),
                      (int(TOP[0]) + half - 4, int(TOP[1]) + half - 4), INK, 5)
        return mask, np.maximum(gray, cv2.GaussianBlur(rim, (0, 0), 1.5))

    assert low_face(*lit(*die([(0, 0)], [], lean=0)), None, DIE_RIM_SHARE, DIE_PX, None) == 1
    five = [(0, 0), (-1, -1), (1, -1), (-1, 1), (1, 1)]
    for lean, outward in ((0, None), (LEAN, OUTWARD)):
        read_five = low_face(*lit(*die(five, [], lean=lean)), None, DIE_RIM_SHARE, DIE_PX, outward)
        assert read_five in (5, None), lean
    assert low_face(*lit(*die(five, [], lean=0)), None, DIE_RIM_SHARE, DIE_PX, None) == 5
    # blue and purple 1s of the tuning frames at 0, 10 and 20 degrees, "marks unclear" before
    read_right("baron_voodoo-t00-b1", ("B6",))
    read_right("baron_voodoo-t10-b0", ("B3", "D6"))
    read_right("baron_voodoo-t20-b1", ("A5",))


def test_a_top_whose_rounded_rim_falls_out_of_its_colour_is_read() -> None:
    """A dark die's rounded rim faces away from the camera and the lamp: it reads a darker,
    greyer purple than the die's colour, and the colour's outline leaves a rim's width of the
    top out (King of Clubs' purple 2s and 3s, doubted on seven tuning frames).  The top's
    square reaches past the colour by that much, and as dark as the die against the board it
    is the die; a rim's width past it, it is not."""
    mask, gray = die([(-1, -1), (1, 1)], [SIDE_PIP])
    rim = 6  # px: the colour's outline less a rim all round the top
    inner = np.zeros_like(mask)
    half = int(DIE_PX / 2)
    x0, y0 = int(TOP[0]) - half, int(TOP[1]) - half
    cv2.rectangle(inner, (x0 + rim, y0 + rim), (x0 + 2 * half - rim, y0 + 2 * half + LEAN), 1, -1)
    cut = mask & inner
    rim_only = (mask > 0) & (inner == 0)
    dark_rim = np.where(rim_only, BODY - 45, gray).astype(np.uint8)  # darker than a pip's halo reaches
    assert low_face(cut, dark_rim, None, DIE_RIM_SHARE, DIE_PX, OUTWARD) == 2
    # the rim as light as the board (no die seen there): the square is not covered, unclear
    light_rim = np.where(rim_only, BOARD, gray).astype(np.uint8)
    assert low_face(cut, light_rim, None, DIE_RIM_SHARE, DIE_PX, OUTWARD) is None


def test_purple_dice_whose_rim_falls_out_of_their_colour_are_read_on_the_tuning_frames() -> None:
    read_right("king_of_clubs-t10-b0-track", ("p0_d2", "p0_d3"))


def test_a_threes_marks_with_light_at_a_sides_middle_are_a_three_and_at_a_corner_are_not() -> None:
    """A 3's marks (its middle and two corners) are a 3's or a 5's only: light at the middle
    of a side (a rim's streak, a lamp's reflection: Baron Voodoo's red 3 at 10 degrees, lit
    between two of its marks) is no pip of either, and leaves the 3.  Light at an empty corner
    may be a 5's pip half seen: the count stays unclear."""
    def with_light(at: tuple[float, float]) -> int | None:
        mask, gray = die([(-1, -1), (0, 0), (1, 1)], [SIDE_PIP])
        x, y = int(TOP[0] + at[0] * STEP), int(TOP[1] + at[1] * STEP)
        cv2.circle(gray, (x, y), 3, int(gray[y, x]) + 45, -1)  # a faint light, under a mark's
        return low_face(mask, cv2.GaussianBlur(gray, (0, 0), 1.0), None, DIE_RIM_SHARE, DIE_PX, OUTWARD)

    assert with_light((1, 0)) == 3
    assert with_light((0, -1)) == 3
    assert with_light((1, -1)) is None
    read_right("baron_voodoo-t10-b1-more", ("F4",))


def test_light_at_grid_points_that_make_no_other_face_leaves_a_low_face_read() -> None:
    """A pip missed makes a 2 a 3, a 4, a 5 or a 6 only where all that face's other pips
    are: light at some of them (a lamp lighting the die's rounded rim all round) is no face's
    (``die_layout.completes_a_face``).  A mark off the face is another matter: a 6's middle
    row fits a 2's diagonal at a smaller step, its other pips lighting the grid points round
    that square, and the count stays unclear."""
    from companion.vision.die_layout import completes_a_face

    assert completes_a_face(2, {(1, -1), (-1, 1)})  # a 4's other corners
    assert completes_a_face(2, {(0, 0)})  # a 3's middle
    assert not completes_a_face(2, {(1, -1), (-1, 0)})  # a corner and a side's middle: no face
    assert not completes_a_face(2, {(-1, 0), (1, 0)})  # a 6 needs the other corners too
    assert completes_a_face(3, {(1, -1), (-1, 1)})  # a 5's other corners
    assert not completes_a_face(3, {(1, -1)})
    # Baron Voodoo at 0 degrees: a purple 2 under the lamp, lit at its rim on two sides, was
    # "marks unclear"; at 20 degrees a purple 6 far out, and nothing read wrong
    read_right("baron_voodoo-t00-b0", ("E1",))
    read_right("baron_voodoo-t20-b2-falloff", ())


def test_a_speckled_lit_face_is_not_searched_through_every_six_of_its_marks(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Baron Voodoo t10-b1's lit red 3 at F4 shows 25 peaks of its sheen's speckle: every six of
    them was a layout to fit (602,393 fits, a minute for the frame).  A die shows 18 pips at
    most (``MOST_MARKS``): past that no face is looked for among them.  Counted in fits, not
    seconds; the frame reads as before, nothing wrong."""
    fits = 0
    face_fit = die_square._face_fit

    def counted(*args: object, **kwargs: object) -> object:
        nonlocal fits
        fits += 1
        return face_fit(*args, **kwargs)

    monkeypatch.setattr(die_square, "_face_fit", counted)
    frame, layout, _reader, reading = read_committed("tune", "baron_voodoo-t10-b1")  # read afresh: patched
    assert fits < 100_000  # (47,753 with the cap, 602,393 without)
    assert reading.view is not None
    doubtful = dict(reading.doubtful or {})
    assert "F4" in doubtful
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)


def test_a_two_whose_far_pip_lost_its_colour_is_no_one() -> None:
    """Held-out Baron Voodoo t30-b0's blue 2 at souls0-0, as OpenCV 5.1 cut it out: its far
    corner pip lit past the die's colour, so the colour's outline stops short of it, and
    inside the outer inset that pip is faint.  A 1's square round the other pip then met
    the outline and held no other mark: read a sure 1.  A mark beyond the top's square, on
    the side away from the camera's nadir, is no side's: the top is a larger face."""
    data = np.load(DATA / "two_with_a_pip_at_the_far_rim.npz")
    face = (data["hull"], float(data["area"]))
    count = low_face(data["mask"], data["gray"], face, float(data["rim_share"]), float(data["die_px"]),
                     tuple(float(v) for v in data["outward"]), None, None, bool(data["light_ink"]))
    assert count == 2, count


def test_insets_that_find_different_faces_leave_the_count_unclear(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mark by the rim may make a 2 inside one inset and leave a 1 inside the other:
    which is the top's depends on a pixel of the outline, so neither is read."""
    found = iter([{1: np.array([0.4])}, {1: np.array([0.4]), 2: np.array([0.5, 0.4])}])
    monkeypatch.setattr(die_square, "_low_face_within", lambda *args, **kwargs: next(found))
    mask, gray = die([(-1, -1), (1, 1)], [])
    assert low_face(mask, gray, None, DIE_RIM_SHARE, DIE_PX, OUTWARD) is None
    found = iter([{}, {2: np.array([0.5, 0.4])}])
    laid_out: list[np.ndarray] = []
    assert low_face(mask, gray, None, DIE_RIM_SHARE, DIE_PX, OUTWARD, None, laid_out) == 2
    assert len(laid_out) == 1 and laid_out[0].tolist() == pytest.approx([0.5, 0.4])


def test_a_grid_point_off_the_patch_is_no_halo() -> None:
    """A die at a patch's edge puts a grid point past it (stop 90: a fresh Baron Voodoo hand
    frame raised an IndexError there): what is not seen is no halo, and nothing is raised."""
    contrast = np.zeros((60, 60), np.float32)
    contrast[52:60, 3:8] = np.linspace(0.5, 0.1, 8)[:, None]  # falling away from the mark below
    assert not _halo(contrast, (5, 60), np.array([[5, 54]]), 10.0)
    assert _halo(contrast, (5, 59), np.array([[5, 54]]), 10.0)  # (at the edge, seen: judged)


@pytest.mark.parametrize(("clear", "faint", "pips"), [
    ([(1, 1)], ((-1, -1),), 2), ([(-1, 1)], ((1, -1),), 2),
    ([(0, 0), (1, 1)], ((-1, -1),), 3), ([(-1, -1), (1, 1)], ((0, 0),), None),
])
def test_a_face_of_two_or_three_with_one_pip_faint_is_read_inside_its_square(
        clear: list[tuple[float, float]], faint: tuple[tuple[float, float], ...], pips: int | None) -> None:
    """The lamp leaves one pip faint: a 2's or a 3's layout at a face's step, on the square
    that is the outline's top, vouches for it; a 3's middle never (light in a 2's middle would
    pass for it), and it leaves no 2 either (``_alone_on_the_square``)."""
    mask, gray = die(clear, [], faint=faint)
    assert count_pips(mask, gray, None, DIE_RIM_SHARE, None, DIE_PX)[1] is False  # unclear by count
    assert low_face(mask, gray, None, DIE_RIM_SHARE, DIE_PX, OUTWARD) == pips


def test_a_clear_mark_and_a_faint_one_off_any_faces_layout_are_no_face() -> None:
    mask, gray = die([(1, 1)], [], faint=((-1, 0.2),))  # not a diagonal a face's step long
    assert low_face(mask, gray, None, DIE_RIM_SHARE, DIE_PX, OUTWARD) is None


@pytest.mark.parametrize(("stem", "split", "spot"), [
    ("baron_voodoo-t30-b38-hand", "test", "C2"),  # held-out: read as a sure 1 before (stop 93)
    ("baron_voodoo-t30-b41", "tune", "E5"),
])
def test_twos_whose_far_pip_the_lamp_left_faint_are_read(stem: str, split: str, spot: str) -> None:
    """Baron Voodoo at 30 degrees: a purple 2 under a hand's frame, its far pip faint, was read a
    sure 1 by its clear pip alone; a yellow 2 against a blue die was asked.  Each is read a 2."""
    frame, reading = kept_reading(stem, split)
    assert reading.view is not None
    assert spot not in reading.doubtful, reading.doubtful.get(spot)
    assert reading.view.get(spot) == frame.view[spot] and frame.view[spot][0].pips == 2
