"""A die seen from a slant: its top's marks read inside an outline that holds a side face
too (``pips._top_within_sides``), and a light die's glossy highlight that hides no pip taken
for light (``pip_reflections.reflection_off_the_pips``).  Synthetic crops at 4 px a mm, a 16 mm die."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from committed_frames import kept_reading, read_committed, read_right, reading_of

from companion.games.base import BoardView, Layout, Piece
from companion.vision.die_layout import DIE_FACES
from companion.vision.die_square import reflection_off_a_low_face
from companion.vision.pip_reflections import reflection_off_a_one
from companion.vision.pips import (
    RIM_SHARE,
    count_pips,
    lit_like_a_mark,
    outline,
    reflection_off_the_pips,
)
from companion.vision.reading import Reading

FACE_PX = 64.0  # a 16 mm die at 4 px a mm
STEP = 0.27 * FACE_PX
BLUE, YELLOW = (200, 60, 40), (40, 200, 230)  # BGR
LIGHT_INK, DARK_INK = (235, 235, 235), (25, 25, 25)


def _die(pips: int, turn: float, body: tuple[int, int, int] = BLUE, ink: tuple[int, int, int] = LIGHT_INK,
         side_marks: int = 2, faint: int | None = None, stray: tuple[float, float] | None = None,
         glare: tuple[float, float, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A die's crop and its colour mask: its top turned ``turn`` degrees, the side face nearest
    the camera below it in shade with ``side_marks`` marks of its own (foreshortened).
    ``faint``: the index of a top pip drawn in a faint grey; ``stray``: a mark at this
    offset (steps) on the top that is no pip of the layout; ``glare``: a reflection (offset
    in steps, radius px) lifting every channel."""
    size = 150
    img = np.full((size, size, 3), (150, 175, 190), np.uint8)  # the board's tan
    centre = np.array([75.0, 65.0])
    t = np.deg2rad(turn)
    rotation = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * FACE_PX / 2 @ rotation.T + centre
    a, b = corners[np.argsort(corners[:, 1])[-2:]]  # the two corners nearest the camera
    depth = 22.0
    shade = tuple(int(v * 0.6) for v in body)
    cv2.fillConvexPoly(img, np.round([a, b, b + [0, depth], a + [0, depth]]).astype(np.int32), shade)
    cv2.fillConvexPoly(img, np.round(corners).astype(np.int32), body)
    face = DIE_FACES.get(pips, ((0, 0),))  # (a 1: its middle)
    places = np.array(face, np.float64) @ rotation.T * STEP + centre
    for k, (x, y) in enumerate(places):
        colour = tuple((2 * i + 3 * j) // 5 for i, j in zip(ink, body, strict=True)) if k == faint else ink
        cv2.circle(img, (int(round(x)), int(round(y))), 5, colour, -1)
    if stray is not None:
        x, y = np.array(stray) @ rotation.T * STEP + centre
        cv2.circle(img, (int(round(x)), int(round(y))), 5, ink, -1)
    for k in range(side_marks):
        x, y = a + (b - a) * (k + 1) / (side_marks + 1) + [0, depth / 2]
        cv2.ellipse(img, (int(round(x)), int(round(y))), (5, 3), 0, 0, 360, ink, -1)
    if glare is not None:
        (gx, gy), radius = np.array(glare[:2]) @ rotation.T * STEP + centre, glare[2]
        lift = np.zeros((size, size), np.float32)
        cv2.circle(lift, (int(round(gx)), int(round(gy))), radius, 200.0, -1)
        lift = cv2.GaussianBlur(lift, (0, 0), 1.5)
        img = np.clip(img.astype(np.float32) + lift[..., None], 0, 255).astype(np.uint8)
    img = cv2.GaussianBlur(img, (0, 0), 1.0)
    seen = img.astype(np.float32)
    near = np.minimum(np.linalg.norm(seen - np.float32(body), axis=2),
                      np.linalg.norm(seen - np.float32(shade), axis=2))
    return img, (near < 45).astype(np.uint8)


def _count(img: np.ndarray, mask: np.ndarray) -> tuple[int, bool]:
    return count_pips(mask, cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), None, RIM_SHARE, None, FACE_PX)


@pytest.mark.parametrize("pips", [4, 5, 6])
@pytest.mark.parametrize("turn", [0.0, 20.0, 40.0, 65.0])
def test_a_dies_top_is_read_beside_its_side_faces_marks(pips: int, turn: float) -> None:
    """The side face's marks lie beyond the top's square: the top's layout is read."""
    assert _count(*_die(pips, turn)) == (pips, True)


@pytest.mark.parametrize("turn", [0.0, 30.0])
def test_no_layout_no_count(turn: float) -> None:
    """Confident or silent: a top of fewer than four pips has no layout to tell its marks
    from a side's; a top pip faint (half hidden) or a stray mark on the top leaves the
    count unclear, never a smaller or larger face."""
    for pips in (2, 3):
        assert _count(*_die(pips, turn))[1] is False
    count, sure = _count(*_die(6, turn, faint=2))
    assert not sure or count == 6
    count, sure = _count(*_die(5, turn, faint=2))  # the middle pip faint: never a sure 4
    assert not sure or count == 5
    assert _count(*_die(4, turn, stray=(0.0, 1.2)))[1] is False


@pytest.mark.parametrize("turn", [0.0, 20.0, 35.0])
def test_a_sure_mark_past_the_tops_far_edge_leaves_no_layout(turn: float) -> None:
    """From a slant a die's side faces show between its top and the camera's nadir (below,
    here), never past the top's far edge: a layout with a sure mark out there is no top's
    (Baron Voodoo at 20 degrees: a yellow 3's middle and corner pips and its side's two marks
    were fitted as a 4, the 3's other corner left past it)."""
    away_from_the_nadir = (0.0, -1.0)  # (crop axes: the nadir lies below)
    img, mask = _die(4, turn, stray=(0.0, -1.6))
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    assert count_pips(mask, gray, None, RIM_SHARE, None, FACE_PX, outward=away_from_the_nadir)[1] is False
    img, mask = _die(4, turn, stray=(0.0, 1.6))  # on the nadir's side: where a side's marks lie
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    assert count_pips(mask, gray, None, RIM_SHARE, None, FACE_PX, outward=away_from_the_nadir) == (4, True)
    # and on the frame: the yellow 3 at B1, beyond B2's column of two, is not read as a 4
    read_right("baron_voodoo-t20-b1", ())


@pytest.mark.parametrize("pips", [4, 5, 6])
def test_a_dark_dies_face_lit_past_mid_grey_still_bears_light_marks(pips: int) -> None:
    """Under the lamp a red die's face reads lighter than mid-grey; its pips are lighter still.
    Told by the face's grey alone the marks were taken for dark ones (the face's shaded rim,
    no layout); told by the die's colour (``light_ink``), its light pips are counted."""
    lit_red, white = (150, 150, 235), (255, 255, 255)  # BGR
    img, mask = _die(pips, 20.0, body=lit_red, ink=white, side_marks=0)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    assert float(np.median(gray[mask > 0])) > 128
    assert count_pips(mask, gray, None, RIM_SHARE, None, FACE_PX)[1] is False
    assert count_pips(mask, gray, None, RIM_SHARE, None, FACE_PX, light_ink=True) == (pips, True)


def test_a_mark_darker_than_a_lit_dark_face_leaves_its_light_marks_unclear() -> None:
    """A lamp's hotspot washes a dark die's face out past a drilled pip's shade: a 5's middle
    pip there reads darker than the face, and its four light corners alone are no sure 4."""
    img, mask = _die(5, 20.0, body=(150, 150, 235), ink=(255, 255, 255), side_marks=0)
    cv2.circle(img, (75, 65), 5, (100, 100, 170), -1)  # the middle pip, in its drilled shade
    gray = cv2.cvtColor(cv2.GaussianBlur(img, (0, 0), 1.0), cv2.COLOR_BGR2GRAY)
    assert count_pips(mask, gray, None, RIM_SHARE, None, FACE_PX, light_ink=True)[1] is False


def test_lit_dark_dice_are_read_and_washed_fives_left_unclear_on_the_tuning_frames() -> None:
    """Baron Voodoo from straight above: purple, blue and red dice under the lamp, their faces
    lit past mid-grey, were "marks unclear"; the red 5s whose middle pip the lamp washed out
    (t00-b0-track C3, t00-b0 D5) stay unclear, never a 4."""
    read_right("baron_voodoo-t00-b0-track", ("C2", "F4"))
    read_right("baron_voodoo-t00-b0", ("C3", "G2"))
    read_right("baron_voodoo-t00-b1", ("B1", "C1"))


def _reflection_clear(img: np.ndarray, mask: np.ndarray) -> int | None:
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    face = outline(mask)
    assert face is not None
    return reflection_off_the_pips(img, mask, face, gray, RIM_SHARE, FACE_PX)


@pytest.mark.parametrize("turn", [0.0, 35.0])
def test_a_light_dies_highlight_between_its_pips_is_light(turn: float) -> None:
    img, mask = _die(5, turn, YELLOW, DARK_INK, side_marks=0, glare=(0.5, -0.5, 4))
    assert lit_like_a_mark(img, mask, True, outline(mask))
    assert _reflection_clear(img, mask) == 5
    assert _count(img, mask) == (5, True)


@pytest.mark.parametrize("turn", [0.0, 35.0])
def test_a_highlight_over_a_pips_place_keeps_its_doubt(turn: float) -> None:
    """A 5 whose middle pip a reflection washes out shows a 4's layout: the reflection lies
    over a place the 4 leaves empty, so it may hide a pip, and the doubt stands."""
    img, mask = _die(5, turn, YELLOW, DARK_INK, side_marks=0, glare=(0.0, 0.0, 8))
    assert lit_like_a_mark(img, mask, True, outline(mask))
    assert _count(img, mask) == (4, True)  # what the marks alone show: the hazard
    assert _reflection_clear(img, mask) is None


def _sheen(img: np.ndarray, lift: float, radius: int = 14) -> np.ndarray:
    """A glossy sheen over the face's middle: every channel lifted by ``lift``, softly."""
    glow = np.zeros(img.shape[:2], np.float32)
    cv2.circle(glow, (75, 65), radius, lift, -1)
    glow = cv2.GaussianBlur(glow, (0, 0), 4.0)
    return np.clip(img.astype(np.float32) + glow[..., None], 0, 255).astype(np.uint8)


@pytest.mark.parametrize("turn", [0.0, 35.0])
def test_a_sheen_short_of_white_over_an_empty_place_hides_no_pip(turn: float) -> None:
    """A soft sheen over a yellow 4's middle lifts its darkest channel well short of white:
    a pip under it stays as much darker (a 5 under the same sheen reads 5), so it hides
    none, and the 4 is read; lifted to white it may hide one, and the doubt stands."""
    img, mask = _die(4, turn, YELLOW, DARK_INK, side_marks=0)
    soft = _sheen(img, 45.0)
    assert lit_like_a_mark(soft, mask, True, outline(mask))
    assert _reflection_clear(soft, mask) == 4
    five, five_mask = _die(5, turn, YELLOW, DARK_INK, side_marks=0)
    assert _count(_sheen(five, 45.0), five_mask) == (5, True)
    assert _reflection_clear(_sheen(img, 230.0), mask) is None


def test_yellow_dice_under_a_sheen_short_of_white_are_read_on_the_tuning_frames() -> None:
    # a yellow 5 and a yellow 4 (and a yellow 3) doubted "glare?" before
    read_right("baron_voodoo-t10-b1-more", ("C7", "G5"))
    read_right("baron_voodoo-t20-b2", ("D6",))


def test_a_light_dies_pip_the_lamp_greyed_is_read_where_the_light_hides_no_other() -> None:
    """A yellow or white 4 under a lamp, one pip greyed by the light (its contrast 0.15-0.30):
    it is a pip, found where the layout puts one, and whether the light hides another is
    asked where it would lie (``lit_over_an_empty_place``); the greyed pip alone left these
    "glare?" before.  (A 5 whose middle the light takes keeps its doubt: the test above.)"""
    read_right("baron_voodoo-t10-b1", ("E2", "E1"))
    read_right("baron_voodoo-t20-b0-more", ("B1", "C1"))
    read_right("baron_voodoo-t10-b1-falloff", ("F1",))


def test_a_dark_dies_highlight_keeps_its_doubt() -> None:
    """On a dark face a soft reflection between the marks may hide what lies under it."""
    img, mask = _die(4, 20.0, BLUE, LIGHT_INK, side_marks=0, glare=(0.5, -0.5, 4))
    assert _reflection_clear(img, mask) is None


@pytest.mark.parametrize("turn", [0.0, 35.0])
def test_a_dark_dies_light_marks_alone_are_no_reflection(turn: float) -> None:
    """A dark 2, 4 or 6 lit only at its marks (a drilled pip lifts the face near evenly, as a
    reflection does: ``lit_like_a_mark`` takes the renders' for one) and past its square at
    its rounded rim: no reflection lies where it may pass for a pip, and the count stands."""
    for pips in (4, 6):
        img, mask = _die(pips, turn, BLUE, (255, 150, 130), side_marks=0, glare=(1.75, 0.0, 3))
        assert _count(img, mask) == (pips, True)
        assert _reflection_clear(img, mask) == pips, pips
    img, mask = _die(2, turn, BLUE, (255, 150, 130), side_marks=0)
    assert _low_face_clear(img, mask, 2)


@pytest.mark.parametrize("turn", [0.0, 35.0])
def test_a_pip_sized_highlight_at_a_dark_fours_middle_keeps_its_doubt(turn: float) -> None:
    """A reflection as small as a pip at a dark 4's middle reads as a 5: a lamp's image,
    clipped to white where the corner pips' paint is not, it is no pip like them, and the 5
    is not vouched for.  A 2's middle lit so reads as a 3, likewise."""
    img, mask = _die(4, turn, BLUE, (255, 150, 130), side_marks=0, glare=(0.0, 0.0, 4))
    assert _count(img, mask) == (5, True)  # what the marks alone show: the hazard
    assert _reflection_clear(img, mask) is None
    img, mask = _die(2, turn, BLUE, (255, 150, 130), side_marks=0, glare=(0.0, 0.0, 4))
    assert not _low_face_clear(img, mask, 3)


@pytest.mark.parametrize("turn", [0.0, 35.0])
def test_a_dark_three_or_five_whose_middle_pip_is_like_its_corners_is_vouched_for(turn: float) -> None:
    """A dark 3 or 5 lit past its square at its rounded rim, its middle pip as light and as
    wide as its corner pips: the reflection lies where no pip may be, the middle is paint,
    and the count stands.  The same face with a wider light at its middle keeps its doubt."""
    img, mask = _die(5, turn, BLUE, (255, 150, 130), side_marks=0, glare=(1.75, 0.0, 3))
    assert _count(img, mask) == (5, True)
    assert _reflection_clear(img, mask) == 5
    img, mask = _die(3, turn, BLUE, (255, 150, 130), side_marks=0, glare=(1.75, 0.0, 3))
    assert _low_face_clear(img, mask, 3)
    img, mask = _die(5, turn, BLUE, (255, 150, 130), side_marks=0, glare=(0.0, 0.0, 8))
    assert _reflection_clear(img, mask) is None


def test_dark_threes_and_fives_with_a_highlight_off_their_pips_are_read_on_the_tuning_frames() -> None:
    """Dark 3s and 5s, doubted "glare?" for their highlight alone before (Baron Voodoo, a
    blue 5 and a red 5; a purple 5 under the ceiling track)."""
    read_right("baron_voodoo-t00-b0", ("C7", "B5"))
    read_right("baron_voodoo-t10-b1-track", ("F2", "F7"))


def test_dark_dice_lit_only_at_their_pips_are_read_on_the_tuning_frames() -> None:
    # King of Clubs' purple 4s and a red 2, doubted "glare?" before: their drilled pips lift
    # the face near evenly
    read_right("king_of_clubs-t10-b0-more", ("p0_d1",))
    read_right("king_of_clubs-t10-b0-track", ("p1_d1", "p0_d1"))


def _low_face_clear(img: np.ndarray, mask: np.ndarray, count: int) -> bool:
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    face = outline(mask)
    assert face is not None
    return reflection_off_a_low_face(img, mask, face, gray, RIM_SHARE, FACE_PX, count)


@pytest.mark.parametrize("turn", [0.0, 35.0])
def test_a_light_twos_or_threes_highlight_off_its_grid_is_light(turn: float) -> None:
    """A 2 or a 3 has no layout of four to vouch for it, but its outer marks fix its face's
    grid: a reflection clear of every grid point the face leaves empty hides no pip."""
    for pips in (2, 3):
        img, mask = _die(pips, turn, YELLOW, DARK_INK, side_marks=0, glare=(0.5, -0.5, 4))
        assert lit_like_a_mark(img, mask, True, outline(mask))
        assert _low_face_clear(img, mask, pips), pips


@pytest.mark.parametrize("turn", [0.0, 35.0])
def test_a_highlight_that_may_hide_a_pip_of_a_low_face_keeps_its_doubt(turn: float) -> None:
    """A 3 whose middle pip the lamp washes out shows a 2: the reflection lies over the grid
    point the 2 leaves empty.  A dark face's reflection may pass for a pip: never cleared."""
    img, mask = _die(3, turn, YELLOW, DARK_INK, side_marks=0, glare=(0.0, 0.0, 8))
    assert not _low_face_clear(img, mask, 2)
    img, mask = _die(2, turn, BLUE, LIGHT_INK, side_marks=0, glare=(0.5, -0.5, 4))
    assert not _low_face_clear(img, mask, 2)


def test_a_low_face_read_by_its_rim_is_judged_for_its_highlight_as_read() -> None:
    """A dark 2 whose second pip lies by the rim (read inside its outline less half the rim,
    ``low_face``) is judged for its highlight on the same layout: it was "glare?", no layout
    found inside the outline less its whole rim (King of Clubs, a purple 2 under a sheen at 30°)."""
    read_right("king_of_clubs-t30-b2", ("p0_d3",))


def test_a_light_low_faces_highlight_clear_of_its_grid_is_read_on_the_tuning_frames() -> None:
    """Yellow 2s and 3s with a glossy highlight clear of their faces' empty grid points,
    doubted as "glare?" before, are read (and nothing is read wrong)."""
    for stem, spots in (("baron_voodoo-t00-b1", ("E7",)), ("baron_voodoo-t10-b1", ("souls0-2",)),
                        ("baron_voodoo-t10-b2", ("D6",)), ("baron_voodoo-t30-b0", ("F6",))):
        read_right(stem, spots)


def _read_tuning_frame(name: str) -> tuple[Reading, BoardView, Layout]:
    frame, layout, reading = reading_of("tune", name)
    return reading, frame.view, layout


def test_a_far_dies_height_ruled_out_where_the_board_shows() -> None:
    """From 30 degrees a die far out in the view whose sides show no colour of their own
    (lit, or in a shade no die's) could be a column of one, two or three: its top over one
    place, its feet over others.  Where the empty board is seen where a taller column's
    sides would stand, that height is ruled out, and the die is read where it stands."""
    reading, truth, layout = _read_tuning_frame("baron_voodoo-t30-b0")
    assert reading.view is not None
    doubtful = dict(reading.doubtful or {})
    for spot in ("B5", "C3", "D3", "souls0-1"):  # red 5, red 5, yellow 6, red 5: doubted before
        assert spot not in doubtful and reading.view.get(spot) == truth.get(spot)
    assert all(reading.view.get(s.id, ()) == truth.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)


def test_no_taller_column_stands_where_another_dies_top_was_read() -> None:
    """From 30 degrees a die's top could be a column of two or three standing on the place
    nearer the camera's nadir, its marks' layout left unclear for it.  Where another die's
    top was read sure on that place, no column stands there (a lower die's top is never
    seen: the die on it hides it), and the die is read where it stands."""
    # purple 4, purple 6, purple 5, yellow 4, blue 2: "marks unclear" before
    read_right("baron_voodoo-t30-b1-more", ("A6", "B3", "D6", "G5", "souls0-1"))
    reader = read_committed("tune", "baron_voodoo-t30-b0")[2]
    assert reader._topped == frozenset()  # known only while one blob is read again


def test_a_dies_side_in_shade_cut_off_from_its_top_is_no_token() -> None:
    """A purple die's side face in shade reads black, and cut off from its top it would be a
    black token in the die's place: a token on the camera's side of a die, within a
    column's lean, is not read.  Where a token may stand it is the die's side or a piece
    against it, doubted; on a grid cell, which takes dice only (``Spot.takes``), it is the
    die's side: taken out, and the die read."""
    reading, truth, layout = _read_tuning_frame("baron_voodoo-t30-b1")
    assert reading.view is not None
    doubtful = dict(reading.doubtful or {})
    assert "F2" not in doubtful and reading.view.get("F2") == truth.get("F2")
    assert all(p.colour != "black" for p in reading.view.get("F2", ()))
    assert all(reading.view.get(s.id, ()) == truth.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)


def test_a_dies_sides_in_shade_are_the_die_not_something_over_the_board() -> None:
    """From 30 degrees the lamp leaves a die's side faces towards the camera darker than
    the board: in the strip one die's lean deep between its top and the camera's nadir
    they are the die, not a shadow or a hand over the board (each of these places was
    doubted as "something over it" before), and nothing is read wrong for it."""
    reading, truth, layout = _read_tuning_frame("baron_voodoo-t30-b0")
    assert reading.view is not None
    doubtful = dict(reading.doubtful or {})
    for spot in ("A1", "C1", "F1", "C2", "B4", "D5", "G5", "G6", "C7", "G7"):
        assert spot not in doubtful and reading.view.get(spot) == truth.get(spot), spot
    assert all(reading.view.get(s.id, ()) == truth.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)


def test_a_die_whose_top_reaches_past_its_crop_is_read_on_a_wider_one() -> None:
    """A die's top lit past its colour on the board's coarse sampling reaches past the crop
    its marks are counted on, cutting a pip off at the crop's edge: read again on a wider
    crop (these places had their marks unclear before)."""
    reading, truth, layout = _read_tuning_frame("baron_voodoo-t20-b2")
    assert reading.view is not None
    doubtful = dict(reading.doubtful or {})
    assert "F1" not in doubtful and reading.view.get("F1") == truth.get("F1")
    assert all(reading.view.get(s.id, ()) == truth.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)


def test_a_pip_by_the_rounded_rim_is_a_pip_where_the_face_is_laid_out() -> None:
    """A pip near a die's rounded rim runs into the rim's shade: drawn out like the lamp's
    streak along a rim, and peaking just past the colour's outline less its rim as a mark
    the colour left out would.  Where the marks counted are laid out exactly as a face of
    four or more (a streak at the rim fits no face's grid), the count is clear, and a peak
    within a mark's window of a counted one is that mark (these places were doubted as
    "marks unclear" before)."""
    for stem, spots in (("baron_voodoo-t20-b0", ("B1", "A2")), ("baron_voodoo-t30-b0", ("E7",)),
                        ("baron_voodoo-t30-b1", ("F1", "G4"))):
        read_right(stem, spots)


def test_five_marks_laid_out_as_no_five_are_no_sure_five() -> None:
    """A 6 whose corner pip fell past its outline (the low light from a wall beside the table
    took that corner's colour) shows five marks in two rows with no middle pip: no face of
    five.  Its count is unclear, never a 5 (the tuning split's falloff frame at 20 degrees:
    Baron Voodoo's purple 6 on F2 was read as a sure 5)."""
    frame, _layout, reading = reading_of("tune", "baron_voodoo-t20-b2-falloff")
    assert reading.view is not None and frame.view.get("F2")[0].pips == 6
    assert "F2" in (reading.doubtful or {}) or reading.view.get("F2") == frame.view.get("F2")


def test_a_light_dies_sides_and_shadow_are_no_reflections_glow() -> None:
    """A white or yellow blob ringed by what is neither the board nor a piece may be a lamp's
    reflection, its glow round a white core; a light die seen from a slant is ringed by its
    own sides and shadow, neither the board nor its colour either, but darker than the
    empty board.  Baron Voodoo, tuning split, at 20 degrees: white and yellow dice read sure
    were doubted as "glare?" for them."""
    from companion.vision.glare import glow_around

    frame, _layout, reading = reading_of("tune", "baron_voodoo-t20-b1")
    assert reading.view is not None
    for spot in ("A1", "A2", "B7", "C7", "souls1-1"):
        assert spot not in (reading.doubtful or {}) and reading.view.get(spot) == frame.view.get(spot), spot

    empty = np.full((40, 40, 3), (120, 160, 185), np.uint8)
    near_pieces = np.zeros((40, 40), np.uint8)
    near_pieces[15:25, 15:25] = 1  # the piece's box and rim
    strange = np.ones((40, 40), bool)  # all round it neither the board nor a piece
    shade = (empty * 0.55).astype(np.uint8)  # ... in shade: its sides and its shadow
    glow = np.clip(empty.astype(np.int16) + (40, 30, 20), 0, 255).astype(np.uint8)  # ... lit
    assert not glow_around(strange, shade, empty, near_pieces, 15, 15, 10, 10)
    assert glow_around(strange, glow, empty, near_pieces, 15, 15, 10, 10)
    assert glow_around(strange, empty, empty, near_pieces, 15, 15, 10, 10)  # as light as the board
    assert not glow_around(~strange, glow, empty, near_pieces, 15, 15, 10, 10)  # the board itself


def test_a_dark_die_read_clear_in_a_glossy_prints_sheen_is_read() -> None:
    """The board round a piece lighter than the empty board is a reflection's glow, which
    makes a light piece's colour doubtful and may hide a die's marks.  A dark die's colour
    holds under it, and its marks read clear, laid out, with no light off them, are its own:
    Baron Voodoo, tuning split, under the lamps of the "more" scenes, a red 4, a blue 6 and a
    blue 2 on a glossy print were "glare?" (read right now).  A light die there keeps its doubt."""
    frame, _layout, reader, reading = read_committed("tune", "baron_voodoo-t20-b2-more")
    assert reading.view is not None
    for spot in ("C3", "under0-1", "under0-2"):
        assert spot not in (reading.doubtful or {}) and reading.view.get(spot) == frame.view.get(spot), spot
    white = reader._piece_names.index("white")
    blank = np.zeros((4, 4, 3), np.uint8)
    assert reader._dark_die_read(white, blank, blank, (0, 0, 4, 4), {}, None, ()) is None


def _lifted(img: np.ndarray, turn: float, at: tuple[float, float], radius: int) -> np.ndarray:
    """A die's crop (``_die``'s) with one more reflection, at ``at`` (steps) on its top."""
    t = np.deg2rad(turn)
    x, y = np.array(at) @ np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]]).T * STEP + [75.0, 65.0]
    lift = np.zeros(img.shape[:2], np.float32)
    cv2.circle(lift, (int(round(x)), int(round(y))), radius, 200.0, -1)
    lift = cv2.GaussianBlur(lift, (0, 0), 1.5)
    return np.clip(img.astype(np.float32) + lift[..., None], 0, 255).astype(np.uint8)


def _hides_a_corner_pair(img: np.ndarray, mask: np.ndarray) -> bool:
    face = outline(mask)
    assert face is not None
    return reflection_off_a_one(img, mask, face, cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), RIM_SHARE, FACE_PX)


@pytest.mark.parametrize("turn", [0.0, 30.0])
def test_a_ones_highlight_may_hide_no_diagonals_two_corner_pips(turn: float) -> None:
    """A 1 with a reflection on it: every other face has a diagonal's two corner pips, so
    light over one corner, or over two corners of one side, hides no face, whichever way the
    face is turned; light over two opposite corners may hide a 3's (or a 5's), and the doubt
    stands.  On a light die and on a dark one (whose rim's highlight peaks stronger than its pip)."""
    for body, ink in ((YELLOW, DARK_INK), (BLUE, (255, 150, 130))):
        img, mask = _die(1, turn, body, ink, side_marks=0, glare=(1.0, -1.0, 7))
        assert not _hides_a_corner_pair(img, mask), body
        assert not _hides_a_corner_pair(_lifted(img, turn, (-1.0, -1.0), 7), mask), body
        assert _hides_a_corner_pair(_lifted(img, turn, (-1.0, 1.0), 7), mask), body


def test_ones_under_a_highlight_off_their_corners_are_read_on_the_tuning_frames() -> None:
    """Baron Voodoo's glossy yellow and blue 1s, doubted "glare?" for their highlight alone
    before (and the places beside them, which their doubt reached)."""
    read_right("baron_voodoo-t00-b0", ("E5", "G5"))
    read_right("baron_voodoo-t10-b1-more", ("B6", "A6", "G7"))


def test_a_dark_layouts_faint_mark_with_a_highlight_off_its_places_is_read() -> None:
    """A dark die's 4 whose layout vouches for a faint pip (its corner by the rim, lit less),
    under a highlight that lies off every grid point: read (King of Clubs, a purple 4, doubted
    "glare?" before).  A light die's faint mark stays a pip half hidden (a reflection only
    lightens its dark ink)."""
    read_right("king_of_clubs-t00-b1-side", ("p0_d1",))


def test_a_twos_marks_round_no_tops_middle_are_no_sure_two() -> None:
    """A 2's or a 3's middle is its top's middle, where a 1's pip lies (``_in_the_middle``):
    a top's middle pip and a side face's mark beside it lie a diagonal apart too.  Held-out
    Baron Voodoo board 35 at 10 degrees, 1.01 px a mm (stop 91): a blue 1 at D2 and its side's
    pip were read a sure 2."""
    frame, reading = kept_reading("baron_voodoo-t10-b35", "test")
    assert reading.view is not None
    assert frame.view["D2"] == (Piece("blue", 1),)
    assert "D2" in reading.doubtful or reading.view.get("D2") == (Piece("blue", 1),), reading.view.get("D2")


@pytest.mark.parametrize("turn", [0.0, 20.0, 40.0, 65.0])
def test_a_layout_short_of_the_outlines_far_edge_is_no_top(turn: float) -> None:
    """From a slant the top's far edge is its outline's far edge (the sides show only towards
    the camera's nadir, below here): four marks laid out as a 4 whose square stops a third
    of a face short of the die's far edge are a side's marks with the top's, not the top
    (``die_layout._short_of_the_far_edge``)."""
    away_from_the_nadir = (0.0, -1.0)
    img, mask = _die(4, turn)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    assert count_pips(mask, gray, None, RIM_SHARE, None, FACE_PX, outward=away_from_the_nadir) == (4, True)
    # the top's colour swept on a third of a face away from the nadir, past the 4's square
    t = np.deg2rad(turn)
    rotation = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    square = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * FACE_PX / 2
    corners = square @ rotation.T + [75.0, 65.0]  # (as ``_die`` lays its top)
    swept = np.concatenate([corners, corners - [0.0, 0.3 * FACE_PX]])
    hull = cv2.convexHull(np.round(swept).astype(np.int32))
    top, own = np.zeros_like(mask), np.zeros_like(mask)
    cv2.fillConvexPoly(top, hull, 1)
    cv2.fillConvexPoly(own, np.round(corners).astype(np.int32), 1)
    beyond = (top == 1) & (own == 0) & (mask == 0)  # (the top's own pips stay as they are)
    img[beyond] = BLUE
    mask = mask | beyond.astype(mask.dtype)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    assert count_pips(mask, gray, None, RIM_SHARE, None, FACE_PX, outward=away_from_the_nadir)[1] is False


def test_a_ones_pip_and_its_sides_three_are_no_four() -> None:
    """Held-out Baron Voodoo t20-b49 under a hand (0.88 px a mm, stop 93): a yellow 1 at E2,
    its pip and three pips of the side below it laid out as a 4 whose square stopped short of
    the die's far edge, read a sure 4.  It is read as the 1 it is."""
    frame, reading = kept_reading("baron_voodoo-t20-b49-hand", "test")
    assert reading.view is not None
    assert "E2" not in reading.doubtful
    assert reading.view.get("E2") == frame.view["E2"] == (Piece("yellow", 1),)
