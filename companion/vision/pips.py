"""Counting the marks on a piece (a die's pips, a token's dots) from a sharp crop of it.

Kept apart from the board reader: it sees one piece's colour mask and brightness,
nothing of the board, and calibration and tests call it on crops of their own.  Its rooms:
the peaks of the marks' contrast (``mark_peaks.py``), the checks that a peak is a mark
(``mark_shapes.py``), a die's face by its layout (``die_layout.py``) and a lamp's
reflection on a face (``pip_reflections.py``).
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from companion.vision.die_layout import (
    CODE_FACES,
    CODE_STEP,
    DIE_FACES,
    FACE_FAR_PAST_NEAR,
    NO_PIP,
    NO_PIP_SHARE,
    _a_pip_half_seen,
    _at_a_faces_step,
    _far_past_near,
    _in_the_middle,
    _laid_out_top,
    _short_of_the_far_edge,
    a_diagonal_completed,
    die_face,
    laid_out_as_a_face,
)
from companion.vision.mark_peaks import FAINT_MARK, SURE_MARK, _peaks, light_marks, outline

# (kept importable from here, where the board reader's rooms have always found them)
from companion.vision.mark_peaks import channel_medians as channel_medians
from companion.vision.mark_peaks import connected_components as connected_components
from companion.vision.mark_shapes import (
    EDGE_SHARE,
    LINE_EDGE_SHARE,
    _a_line,
    _bright_body,
    _depth,
    _inside_distance,
    _marks_past_colour,
    _rim_ramps,
    _wider_than_a_mark,
    dark_mark_inside,
)
from companion.vision.pip_reflections import lit_like_a_mark as lit_like_a_mark
from companion.vision.pip_reflections import reflection_off_the_pips as reflection_off_the_pips
from companion.vision.pip_reflections import washes_out_a_mark as washes_out_a_mark

RIM_SHARE = 0.07  # a piece's outline this share of its width in holds no mark
DIE_RIM_SHARE = 0.11  # a die's: its rounded edges catch the light in thin lines (bevel 0.12)
ONE_DEPTH = 0.4  # a 1's pip lies this share of its face's width in from its outline, at least
TOP_FACE_SHARE = 0.8  # a standing die's top face as read is at least this share of a die's face


def count_pips(mask: np.ndarray, gray: np.ndarray | None = None, face: tuple[np.ndarray, float] | None = None,
               rim_share: float = RIM_SHARE, within: np.ndarray | None = None, die_px: float | None = None,
               stands: Callable[[float, float], bool] | None = None, cut: bool = False,
               outward: tuple[float, float] | None = None, laid_out: list[np.ndarray] | None = None,
               light_ink: bool | None = None, sure_marks: bool = False,
               coarse_edge: float = 0.0) -> tuple[int, bool]:
    """Pips on a piece, and whether the count is clear.

    With the crop's brightness, a pip is a peak of contrast against the body's own
    brightness: a blurred pip keeps part of its contrast and its centre, even when
    blur has run it into its neighbour.  Unclear: a peak too faint to be sure of,
    either way.  Without it (die faces), marks are the holes in the colour mask.
    ``face``: the mask's ``outline``, when the caller has it already; ``rim_share``: how far
    in from it marks begin (a share of the piece's width); ``within``: where the face may lie
    (a standing die's top: not its sides, whose marks are no face's).  ``die_px``: a die's
    face width in crop pixels, for a die: marks that lie exactly as a die's face lays them
    out (``die_face``) are its top's, even near the outline, when ``stands`` (given the
    face's centre, crop px) says a die's top there stands on the place it is read at.
    ``cut``: the face as seen is less than a die's whole face (its sides cut off where its
    outline was not clear), so marks may be lost with the rest: the count is clear only when
    the marks are a die's whole layout (a face cut anywhere loses a layout's row, column or
    corner, which leaves no layout of fewer pips).  With ``die_px``, faint marks that
    complete a die's layout with the clear ones count (``die_face``), never a faint one alone.
    ``outward``: the unit direction (crop axes) from the camera's nadir through a die, None
    right under it: a lone mark is a sure 1 only at its top's middle (``_in_the_middle``).
    ``laid_out``: gets the contrasts of a die's marks counted sure in a face's layout of three
    or more (what its colour's marks show in this light and blur).  ``light_ink``: the marks
    lighter than the body, or darker (``mark_peaks._peaks``); None: as the body's grey tells.
    ``sure_marks``: a die's count only of marks that stand out clearly (``SURE_MARK``), no
    faint ones completing a layout.  ``coarse_edge``: a frame pixel's share of a die's face where the
    frame resolves it coarsely, else 0: a lone mark's place on the top is judged that much
    stricter (``_in_the_middle``).
    """
    face = face or outline(mask)
    if face is None:
        return 0, False
    filled, body_area = face
    hull = filled
    hull_area = float(np.count_nonzero(filled))
    if gray is not None and np.count_nonzero(mask & filled) < 0.6 * hull_area:
        return 0, False  # the piece's own colour covers too little of it to judge its marks
    rim = max(1, int(round(rim_share * np.sqrt(body_area))))
    filled = cv2.erode(filled, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8),
                       borderType=cv2.BORDER_CONSTANT, borderValue=0)
    if gray is None or not mask.any():
        holes = cv2.morphologyEx((filled & (1 - mask)).astype(np.uint8), cv2.MORPH_OPEN,
                                 np.ones((2, 2), np.uint8))
        n, _, stats, _ = cv2.connectedComponentsWithStats(holes, connectivity=8)
        min_area = max(3.0, 0.004 * body_area)
        return int(sum(1 for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= min_area)), True
    level, pip, contrast, whole, radius, window, n, centres, values = _peaks(gray, mask, filled, body_area,
                                                                            light_ink)
    strong = values >= SURE_MARK
    faint = (values >= FAINT_MARK) & ~strong
    if faint.any() and die_px is not None and not sure_marks and int(strong.sum() + faint.sum()) in DIE_FACES:
        # faint marks that complete a die's layout with the clear ones, where no other
        # mark is, are marks (a small die far out in the view blurs its pips): the layout
        # leaves no place for a reflection's or a side face's peak among them
        marks = strong | faint
        # (where the marks are faint, a pip missed is fainter still: a white 5 at 0.96 px a mm,
        # its corners' contrast 0.15-0.25 and its middle's 0.09, was laid out as a sure 4)
        no_pip = min(NO_PIP, NO_PIP_SHARE * float(values[marks].min()))
        centre = die_face(centres[1:][marks], die_px, whole, no_pip=no_pip)
        if centre is not None and (stands is None or stands(*centre)) \
                and not a_diagonal_completed(centres[1:][marks], strong[marks]):
            strong, faint = marks, np.zeros_like(faint)
    if die_px is None and (strong | faint).any():
        # a peak at a flat piece's rim where the contrast rises on past it, over the outline,
        # is the piece's edge blurred into the board round it, cut off by the rim's inset
        # (Jivecat's black Skull tokens: the print beyond their lit edge), no mark
        ramp = _rim_ramps(whole, hull, centres[1:], values)
        strong, faint = strong & ~ramp, faint & ~ramp
    if faint.any() and die_px is None:
        # a flat piece's printed marks lie a quarter of its width in from its edge: a faint
        # peak at its very edge is the rim catching the light (or the print showing past a
        # card's bevel), where no mark is, not a mark half seen
        faint &= _depth(hull, centres[1:], body_area) >= EDGE_SHARE
    if faint.any() and die_px is None and int(strong.sum() + faint.sum()) in CODE_FACES:
        # a card's printed code lays its marks out on a die's grid (four to six as a die's
        # face does, ``CODE_FACES``): faint marks that complete that layout with the clear
        # ones, at the code's step and no mark where the layout has none, are marks (a far
        # card's print blurred at a slant)
        marks = strong | faint
        if die_face(centres[1:][marks], float(np.sqrt(hull_area)), whole, CODE_STEP, CODE_FACES) is not None:
            strong, faint = marks, np.zeros_like(faint)
    if die_px is not None and _a_glint_beside_a_one(hull, centres[1:], strong, faint, contrast, window,
                                                       body_area):
        faint = np.zeros_like(faint)
    streak = np.zeros_like(strong)  # a rounded edge's streak taken off the marks (light, not a mark)
    if die_px is not None and not faint.any() and not coarse_edge and _a_streak_beside_a_one(
            hull, centres[1:], strong, faint, contrast, window, body_area, values, radius):
        streak = strong & (_depth(hull, centres[1:], body_area) < ONE_DEPTH)
        strong = strong & ~streak
    count = int(strong.sum())
    sure = not faint.any() and count <= 9
    depth = None
    seen_body = _bright_body(gray, level, pip, mask, hull) if sure else None
    if seen_body is not None and within is not None:
        seen_body = seen_body & within.astype(seen_body.dtype)
    if sure and count:  # no mark at the outline's edge: a die's side face seen beside its top
        # (the edge as its brightness shows it too: a lamp's light over a corner of a dark
        # face moves its colour off the piece's, and the colour's outline cuts the corner off)
        inside = _inside_distance(hull)
        depth = _depth(hull, centres[1:][strong], body_area, inside)
        edge = depth
        if seen_body is not None:
            both = hull | seen_body
            both_area = float(np.count_nonzero(both))
            # (a bright body within the colour's hull leaves it as it is: its distances as found)
            edge = _depth(both, centres[1:][strong], max(body_area, both_area),
                          inside if both_area == hull_area else None)
        sure = not (edge < EDGE_SHARE).any()
        if not sure and die_px is not None:
            # a corner pip's halo bites into the colour's outline, and near it the corner pip
            # seems at the edge: marks laid out exactly as a die's face, no missing pip
            # between them, are one face's (a side face's marks, foreshortened beside the
            # top's, fit no face's layout), wherever the outline runs
            centre = die_face(centres[1:][strong], die_px, whole)
            sure = centre is not None and (stands is None or stands(*centre))
    if sure and count:  # and every mark counted no wider than a mark
        sure = not _wider_than_a_mark(contrast, centres[1:][strong], values[strong], radius)
    if sure and count and depth is not None and (depth < LINE_EDGE_SHARE).any():
        # and none near the outline a line: a die's rounded edge catching the lamp
        sure = not _a_line(contrast, centres[1:][strong], values[strong], radius, depth < LINE_EDGE_SHARE)
        if not sure and die_px is not None:
            # a pip near the rounded rim runs into the rim's shade and looks drawn out; a rim's
            # streak among a face's pips leaves no layout of four or more (it lies at the
            # face's edge, never at a pip's place with the grid points between it empty).  (Where
            # the face stands is asked no more than of a count with no mark at the rim)
            sure = die_face(centres[1:][strong], die_px, whole) is not None
    if sure:  # and no mark on the piece where its colour was not seen
        sure = not _marks_past_colour(whole, seen_body, filled, rim, window, centres[1:][strong | streak])
    if sure and cut:
        # (or the top's outline whole with the streak's strip, which its colour left out: what
        # was cut off is the edge's, where no pip lies)
        sure = die_px is not None and (die_face(centres[1:][strong], die_px, whole) is not None
                                       or bool(streak.any()) and hull_area >= TOP_FACE_SHARE * die_px ** 2)
    # a die's outline as its colour and its brightness show it: where its top's middle is judged
    shown = hull if seen_body is None or not (sure and count and die_px is not None) else hull | seen_body
    if sure and count == 1 and die_px is not None:
        # a die's 1 is its face's middle pip: a lone mark elsewhere is what is left of a face
        # whose other pips the lamp washed out (a 2's or a 3's corner pip), never a sure 1
        sure = _in_the_middle(shown, centres[1:][strong][0], die_px, outward, coarse_edge, lone=True)
    if sure and count in (2, 3) and die_px is not None:
        # and no pip half seen where the face's layout has none (a 3's middle faint leaves a 2;
        # a 4-6 is judged on its layout where its marks are in doubt: ``die_face`` in the checks
        # above; fitting every count's layout costs Baron's changed board a twentieth)
        sure = _at_a_faces_step(centres[1:][strong], die_px) \
            and not _a_pip_half_seen(centres[1:][strong], die_px, whole)
        if sure:
            # and their middle where a 1's pip lies on the top (``_in_the_middle``): a top's
            # middle pip and a side face's mark beside it lie a diagonal apart too (Baron
            # Voodoo at 10 degrees, 1.01 px a mm: a blue 1 and its side's pip read a sure 2)
            sure = _in_the_middle(shown, centres[1:][strong].mean(axis=0), die_px, outward, coarse_edge)
    if sure and count >= 3 and die_px is not None:
        # and three or more marks lie as that many pips of a face do: a 6 whose corner pip
        # fell past its outline (the lamp took that corner's colour) left five marks in two
        # rows with no middle one, no 5 (Baron Voodoo, a purple 6 under a low light from a
        # wall beside the table, read as a 5 with no doubt); a 4 that lost a corner leaves
        # three in an L, no 3's line
        sure = laid_out_as_a_face(centres[1:][strong])
        if sure and count >= 4 and outward is not None:
            # and, from a slant, their middle no nearer the outline's near edge than a top's
            # middle lies: a lone 1's pip and the dark edges of its sides, past its top, laid out
            # as a 4's square (Baron Voodoo at 20 degrees, a yellow 1 beside a marker: a sure 4,
            # its middle 1.17 faces from the far edge and 0.47 from the near one)
            middle = centres[1:][strong].mean(axis=0)
            sure = _far_past_near(shown, middle, die_px, outward) <= FACE_FAR_PAST_NEAR
        if sure and laid_out is not None:
            laid_out.append(values[strong])
    if not sure and die_px is not None and n > 1:
        top = _top_within_sides(gray, level, pip, mask, hull, within, centres[1:], values, contrast, whole,
                                radius, rim, window, filled, die_px, stands, outward,
                                SURE_MARK if sure_marks else 0.0)
        if top is not None:
            count, sure = top, True
    if sure and light_ink and not light_marks(level) and _dark_pip_missed(gray, mask, filled, hull, body_area,
                                                                          centres[1:][strong], die_px):
        sure = False  # light marks counted on a face lit past mid-grey, and a dark one among them
    return count, bool(sure)


def _a_glint_beside_a_one(hull: np.ndarray, points: np.ndarray, strong: np.ndarray, faint: np.ndarray,
                          contrast: np.ndarray, window: int, body_area: float) -> bool:
    """Is a die's one faint mark, beside its one clear mark in its face's middle, its rounded
    rim catching the lamp rather than a pip?  The glint lies at the outline's edge
    (``EDGE_SHARE``), where a face's marks never are, and the clear mark deep inside
    (``ONE_DEPTH``); a 3 that showed its middle and one corner so would show its other corner,
    through the middle from the first, and there the face less its rim (``contrast``, nothing
    past it) holds no mark at all (``NO_PIP``): a glint's mirror lies at the other rim.
    Baron Voodoo at 0-30 degrees: ones whose rim lit a faint peak beside the pip were asked."""
    if int(strong.sum()) != 1 or int(faint.sum()) != 1:
        return False
    one, glint = points[strong][0], points[faint][0]
    depth = _depth(hull, np.array([one, glint]), body_area)
    if depth[0] < ONE_DEPTH or depth[1] >= EDGE_SHARE:
        return False
    return _no_mark_at_mirror(contrast, one, glint, window)


def _no_mark_at_mirror(contrast: np.ndarray, one: np.ndarray, other: np.ndarray, window: int) -> bool:
    """Does the face hold no mark (``NO_PIP``) at ``other``'s mirror through ``one``, where a
    3's other corner would lie?  Past the crop is past the face: no mark."""
    x, y = (int(round(v)) for v in 2 * one - other)
    h, w = contrast.shape
    r = max(1, window // 2)
    if not (0 <= x < w and 0 <= y < h):
        return True
    return float(contrast[max(0, y - r):y + r + 1, max(0, x - r):x + r + 1].max()) < NO_PIP


def _a_streak_beside_a_one(hull: np.ndarray, points: np.ndarray, strong: np.ndarray, faint: np.ndarray,
                           contrast: np.ndarray, window: int, body_area: float, values: np.ndarray,
                           radius: float) -> bool:
    """Is a die's one clear mark at its outline's edge, beside one clear mark deep in its face,
    its rounded edge catching the lamp in a streak rather than a pip?  A die's edges are
    rounded: under a lamp the strip along one edge shines as a line along the face's side, as
    bright as a pip or brighter, where no mark of a face lies (its marks stand a quarter of its
    width in).  Such a peak, at the outline's edge (``LINE_EDGE_SHARE``, where ``count_pips``
    judges a rounded edge's streak) and drawn out as a line (``_a_line``: a pip is a disc,
    blurred or not), is light, not a mark, where the other lies deep inside (``ONE_DEPTH``) and
    its mirror through that one holds no mark (``NO_PIP``, as ``_a_glint_beside_a_one`` asks: a
    3's corner pip run into the streak would leave its other corner there).  What is left is
    judged as any lone mark is (at its top's middle, or no sure 1).  Asked only of a frame fine
    enough for a die's marks (``count_pips``'s ``coarse_edge`` 0): coarser, a pip blurred along
    the edge and a streak are a pixel or two alike.  King of Clubs at 20 degrees, 1.12 px a mm:
    a red 1 whose edge the lamp lit in a streak (0.66, its pip 0.60) was asked, "marks unclear"."""
    if int(strong.sum()) != 2 or faint.any():
        return False
    both = points[strong]
    depth = _depth(hull, both, body_area)
    one = int(np.argmax(depth))
    streak = 1 - one
    if depth[one] < ONE_DEPTH or depth[streak] >= LINE_EDGE_SHARE:
        return False
    if not _a_line(contrast, both, values[strong], radius, np.arange(2) == streak):
        return False
    return _no_mark_at_mirror(contrast, both[one], both[streak], window)


def _dark_pip_missed(gray: np.ndarray, mask: np.ndarray, filled: np.ndarray, hull: np.ndarray,
                     body_area: float, points: np.ndarray, die_px: float | None) -> bool:
    """A dark mark where a die's face lit past mid-grey may hide a pip its light marks
    (``points``, crop px) missed?  A lamp's hotspot washes a face out past a drilled pip's
    shade, and that pip reads darker than the face (``dark_mark_inside``); but only a dark
    mark at a grid point the light marks' layout leaves empty, where a pip would make
    another face (``die_layout._a_pip_half_seen``), can be one.  Darker than a lit face is
    its rounded edge's shade too, at the rim beside the face's pips: no pip of that face
    (King of Clubs from straight above, a red 4 lit pink, its left edge in shade).  Marks
    laid out as no face, or on a piece not a die: any dark mark in from the outline."""
    if die_px is not None and len(points):
        dark = _peaks(gray, mask, filled, body_area, light_ink=False)[2]
        missed = _a_pip_half_seen(points, die_px, dark)
        if missed is not None:
            return missed
    return dark_mark_inside(gray, mask, filled, hull, body_area)


def _top_within_sides(gray: np.ndarray, level: float, pip: float, mask: np.ndarray, hull: np.ndarray,
                      within: np.ndarray | None, centres: np.ndarray, values: np.ndarray,
                      contrast: np.ndarray, whole: np.ndarray, radius: float, rim: int, window: int,
                      filled: np.ndarray, die_px: float,
                      stands: Callable[[float, float], bool] | None,
                      outward: tuple[float, float] | None = None, least: float = 0.0) -> int | None:
    """A die's top face read inside an outline that holds its side faces too (seen from a
    slant, or far out in the view), whose marks made the count unclear: its one layout
    (``_laid_out_top``) reaching the outline's far edge (``_short_of_the_far_edge``), with no
    mark past the piece's colour.  Its count, or None (the count stays unclear)."""
    top = _laid_out_top(centres, values, contrast, whole, radius, die_px, stands, outward, least)
    if top is None or (outward is not None and _short_of_the_far_edge(hull, top[1], die_px, outward)):
        return None
    body = _bright_body(gray, level, pip, mask, hull)
    if body is not None and within is not None:
        body = body & within.astype(body.dtype)
    if _marks_past_colour(whole, body, filled, rim, window):
        return None
    return len(top[0])
