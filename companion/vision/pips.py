"""Counting the marks on a piece (a die's pips, a token's dots) from a sharp crop of it.

Kept apart from the board reader: it sees one piece's colour mask and brightness,
nothing of the board, and calibration and tests call it on crops of their own.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import cv2
import numpy as np

_SQUARE3 = np.ones((3, 3), np.uint8)


def connected_components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """8-connected components with their boxes and centres, by Grana's block-based scan
    (half the time of OpenCV's default with statistics on a board's worth of pieces)."""
    return cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_BBDT)


def _median_where(gray: np.ndarray, mask: np.ndarray) -> float:
    """The median grey level under a mask, from its histogram (a sort of every pixel costs
    more than the rest of a piece's marks)."""
    hist = cv2.calcHist([gray], [0], mask, [256], [0, 256]).ravel()
    cumulative = np.cumsum(hist)
    return float(np.searchsorted(cumulative, cumulative[-1] / 2))


def outline(mask: np.ndarray) -> tuple[np.ndarray, float] | None:
    """A piece's convex hull (0/1) and its outline's area, from its colour mask (small gaps
    closed), computed once for the marks and the reflection checks; None for no piece."""
    if mask.size == 0 or not mask.any():
        return None
    contours, _ = cv2.findContours(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, _SQUARE3), cv2.RETR_EXTERNAL,
                                   cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    body = max(contours, key=cv2.contourArea)
    hull = np.zeros_like(mask)
    cv2.drawContours(hull, [cv2.convexHull(body)], -1, 1, -1)
    return hull, float(cv2.contourArea(body))


def channel_medians(crop: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Each channel's median under a mask, from histograms (sorting the pixels costs more
    than the rest of a piece's reflection check)."""
    return np.array([_median_where(channel, mask) for channel in cv2.split(crop)], np.float32)


RIM_SHARE = 0.07  # a piece's outline this share of its width in holds no mark
DIE_RIM_SHARE = 0.11  # a die's: its rounded edges catch the light in thin lines (bevel 0.12)


def count_pips(mask: np.ndarray, gray: np.ndarray | None = None, face: tuple[np.ndarray, float] | None = None,
               rim_share: float = RIM_SHARE, within: np.ndarray | None = None, die_px: float | None = None,
               stands: Callable[[float, float], bool] | None = None, cut: bool = False,
               outward: tuple[float, float] | None = None) -> tuple[int, bool]:
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
    level, pip, contrast, whole, radius, window, n, centres, values = _peaks(gray, mask, filled, body_area)
    strong = values >= 0.30
    faint = (values >= 0.15) & ~strong
    if faint.any() and die_px is not None and int(strong.sum() + faint.sum()) in DIE_FACES:
        # faint marks that complete a die's layout with the clear ones, where no other
        # mark is, are marks (a small die far out in the view blurs its pips): the layout
        # leaves no place for a reflection's or a side face's peak among them
        marks = strong | faint
        centre = die_face(centres[1:][marks], die_px, whole)
        if centre is not None and (stands is None or stands(*centre)):
            strong, faint = marks, np.zeros_like(faint)
    count = int(strong.sum())
    sure = not faint.any() and count <= 9
    depth = None
    seen_body = _bright_body(gray, level, pip, mask, hull) if sure else None
    if seen_body is not None and within is not None:
        seen_body = seen_body & within.astype(seen_body.dtype)
    if sure and count:  # no mark at the outline's edge: a die's side face seen beside its top
        # (the edge as its brightness shows it too: a lamp's light over a corner of a dark
        # face moves its colour off the piece's, and the colour's outline cuts the corner off)
        depth = _depth(hull, centres[1:][strong], body_area)
        edge = depth
        if seen_body is not None:
            both = hull | seen_body
            edge = _depth(both, centres[1:][strong], max(body_area, float(np.count_nonzero(both))))
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
        sure = not _marks_past_colour(whole, seen_body, filled, rim, window, centres[1:][strong])
    if sure and cut:
        sure = die_px is not None and die_face(centres[1:][strong], die_px, whole) is not None
    if sure and count == 1 and die_px is not None:
        # a die's 1 is its face's middle pip: a lone mark elsewhere is what is left of a face
        # whose other pips the lamp washed out (a 2's or a 3's corner pip), never a sure 1
        shown = hull if seen_body is None else hull | seen_body
        sure = _in_the_middle(shown, centres[1:][strong][0], die_px, outward)
    if sure and count in (2, 3) and die_px is not None:
        # and no pip half seen where the face's layout has none (a 3's middle faint leaves a 2;
        # a 4-6 is judged on its layout where its marks are in doubt: ``die_face`` in the checks
        # above; fitting every count's layout costs Baron's changed board a twentieth)
        sure = not _a_pip_half_seen(centres[1:][strong], die_px, whole)
    if not sure and die_px is not None and n > 1:
        top = _top_within_sides(gray, level, pip, mask, hull, within, centres[1:], values, contrast, whole,
                                radius, rim, window, filled, die_px, stands)
        if top is not None:
            return top, True
    return count, bool(sure)


def _a_pip_half_seen(points: np.ndarray, die_px: float, contrast: np.ndarray) -> bool:
    """Is there a faint mark (``NO_PIP`` or more of contrast, under a counted mark's) at a grid
    point the face the marks (N x 2, crop px) lay out leaves empty?  A 3 whose middle pip the
    lamp or blur left faint reads as the 2 of its corners, a 5 as a 4, a 6 as a 4: the marks
    alone are then no clear count.  The grid: a 2's or a 3's outer marks on a diagonal a
    face's step apart (``DIE_STEP``), a 3's third at their middle; a 4-6 laid out as its face
    (``_face_fit``).  Marks laid out as no face are left to the other checks (False)."""
    count = len(points)
    pts = np.asarray(points, np.float64)
    if count not in DIE_FACES:
        return False
    if count in (2, 3):
        ends = pts
        if count == 3:
            ends = next((np.delete(pts, k, axis=0) for k in range(3)
                         if np.linalg.norm(pts[k] - np.delete(pts, k, axis=0).mean(axis=0))
                         <= DIE_FIT * np.linalg.norm(pts[k] - pts[(k + 1) % 3]) / np.sqrt(2)), None)
            if ends is None:
                return False
        (x0, y0), (x1, y1) = ends
        step = float(np.hypot(x1 - x0, y1 - y0)) / (2 * np.sqrt(2))
        if not DIE_STEP[0] * die_px <= step <= DIE_STEP[1] * die_px:
            return False
        turn = np.arctan2(y1 - y0, x1 - x0) - np.pi / 4
        (fx, fy), c, s = ((x0 + x1) / 2, (y0 + y1) / 2), float(np.cos(turn)), float(np.sin(turn))
    else:
        fit = _face_fit(pts, die_px, contrast, np.inf)
        if fit is None:
            return False
        (fx, fy), step, c, s = fit
    h, w = contrast.shape
    reach = max(1, int(round(DIE_FIT * step)))
    for gx, gy in set(_DIE_GRID) - set(DIE_FACES[count]):
        x, y = int(round(fx + step * (gx * c - gy * s))), int(round(fy + step * (gx * s + gy * c)))
        near = contrast[max(0, y - reach):max(0, y + reach + 1), max(0, x - reach):max(0, x + reach + 1)]
        if near.size and float(near.max()) >= NO_PIP and not _rising_past(contrast, x, y, reach):
            return True
    return False


ONE_FROM_FAR = (0.38, 0.9)  # a 1's pip lies this far (a share of a face's width) in from the top's far edge
ONE_FROM_SIDE = 0.4  # ... and at least this far in from its sides; a 2's or a 3's corner pips lie
# within 0.33 of some edge of the top (or 0.97 or more from its far edge: the near corner)
WIDER_THAN_A_TOP = 1.7  # an outline this many faces (``die_px``) wide is no die's top and sides of
# that size (a face turned 45 degrees is 1.41 wide, 1.6 with its blur and shade seen): the die is
# drawn larger, its outline its face
ONE_OFF_MIDDLE = 0.16  # ... whose 1's pip lies this near its middle (a share of its width; corners: 0.38)


def _in_the_middle(face: np.ndarray, mark: np.ndarray, die_px: float,
                   outward: tuple[float, float] | None) -> bool:
    """Does a lone mark lie at the middle of a die's top (``face``: the die's outline, 0/1,
    crop px), as a 1's pip does?  Seen from a slant the outline holds the die's sides too,
    swept from its top towards the camera's nadir, so only the top's far edge (along
    ``outward``, the unit direction from the nadir through the die) and its two sides across
    that line are the top's own: the mark is measured from those, in faces (``die_px``).
    Where the crop cuts the outline off, an edge measured lies nearer the mark than the
    top's: the far edge then still rules out a side's or a near corner's mark.  Right under
    the camera (``outward`` None) no side shows and the near edge is the top's too.  A die
    larger than a face of ``die_px`` has no sides modelled: its outline is its face, and the
    mark lies at the outline's middle."""
    ys, xs = np.nonzero(face)
    if not len(xs):
        return False
    ux, uy = outward if outward is not None else (1.0, 0.0)
    along, across = xs * ux + ys * uy, ys * ux - xs * uy
    lo, hi = float(across.min()) - 0.5, float(across.max()) + 0.5
    if hi - lo > WIDER_THAN_A_TOP * die_px:
        off = np.hypot(mark[0] - float(xs.mean()), mark[1] - float(ys.mean()))
        return bool(off <= ONE_OFF_MIDDLE * np.sqrt(len(xs)))
    a, b = mark[0] * ux + mark[1] * uy, mark[1] * ux - mark[0] * uy
    far = (float(along.max()) + 0.5 - a) / die_px
    sides = min(b - lo, hi - b) / die_px
    near = (a - float(along.min()) + 0.5) / die_px if outward is None else ONE_FROM_FAR[0]
    return ONE_FROM_FAR[0] <= far <= ONE_FROM_FAR[1] and sides >= ONE_FROM_SIDE and near >= ONE_FROM_FAR[0]


def _top_within_sides(gray: np.ndarray, level: float, pip: float, mask: np.ndarray, hull: np.ndarray,
                      within: np.ndarray | None, centres: np.ndarray, values: np.ndarray,
                      contrast: np.ndarray, whole: np.ndarray, radius: float, rim: int, window: int,
                      filled: np.ndarray, die_px: float,
                      stands: Callable[[float, float], bool] | None) -> int | None:
    """A die's top face read inside an outline that holds its side faces too (seen from a
    slant, or far out in the view), whose marks made the count unclear: its one layout
    (``_laid_out_top``) with no mark past the piece's colour.  Its count, or None (the
    count stays unclear)."""
    top = _laid_out_top(centres, values, contrast, whole, radius, die_px, stands)
    if top is None:
        return None
    body = _bright_body(gray, level, pip, mask, hull)
    if body is not None and within is not None:
        body = body & within.astype(body.dtype)
    if _marks_past_colour(whole, body, filled, rim, window):
        return None
    return len(top[0])


def _laid_out_top(centres: np.ndarray, values: np.ndarray, contrast: np.ndarray, whole: np.ndarray,
                  radius: float, die_px: float, stands: Callable[[float, float], bool] | None = None
                  ) -> tuple[np.ndarray, tuple[tuple[float, float], float, float, float]] | None:
    """The marks of a die's top among its side faces' (``centres``, ``values``: the peaks):
    those laid out exactly as a die's face of four or more pips (``die_face``: every mark at
    its place, none where the layout has none, so a top's pip lost or a side's mark taken
    in leaves no layout), the face standing on one place (``stands``), every other peak
    beyond that face's square (a side face's, never one on the face itself), none of them
    wider than a mark.  The marks (their indices) and the face's fit, when one count fits
    so; None for none or two.  By hand: OpenCV fits no such layout."""
    marks = np.flatnonzero(values >= 0.15)
    if not FEWEST_LAID_OUT <= len(marks) <= TOP_MARKS_MOST:
        return None
    found: dict[int, tuple] = {}
    for size in range(min(6, len(marks)), FEWEST_LAID_OUT - 1, -1):
        for chosen in itertools.combinations(marks, size):
            picked = np.array(chosen)
            if (values[picked] < 0.30).all():
                continue  # a layout of faint peaks only: no mark of it is sure
            # a pip the layout misses shows as a peak (a mark left out on the face: below); round
            # the empty grid points the face's shading and its lit edges stay under a share
            # of the faintest mark of the layout
            empty = max(NO_PIP, EMPTY_SHARE * float(values[picked].min()))
            fit = _face_fit(centres[picked], die_px, whole, empty)
            if fit is None:
                continue
            (fx, fy), step, c, s = fit
            rest = np.setdiff1d(marks, picked)
            dx, dy = centres[rest, 0] - fx, centres[rest, 1] - fy
            u, v = (dx * c + dy * s) / step, (dy * c - dx * s) / step
            if (np.maximum(np.abs(u), np.abs(v)) <= BEYOND_THE_FACE).any():
                continue  # a mark left out lies on the face: not a side's
            if stands is not None and not stands(fx, fy):
                continue
            if _wider_than_a_mark(contrast, centres[picked], values[picked], radius):
                continue
            found.setdefault(size, (picked, fit))
    return found.popitem()[1] if len(found) == 1 else None


TOP_MARKS_MOST = 9  # marks enough for a top's six and a side's few; more is no die seen whole
EMPTY_SHARE = 0.45  # a top read within its sides: its empty grid points under this share of its marks
BEYOND_THE_FACE = 1.35  # steps from a face's centre (either axis) a mark is off it: pips reach 1.3,
# its rounded edge lies 1.4-1.85 out


def _peaks(gray: np.ndarray, mask: np.ndarray, filled: np.ndarray, body_area: float) -> tuple:
    """The marks' contrast on a piece and its peaks within ``filled`` (its outline less its
    rim): the body's grey level, the ink's, the contrast there and everywhere (``whole``),
    the piece's half-width, the peaks' window, and the peaks (a component count with
    OpenCV's background first, their centres and contrasts)."""
    level = _median_where(gray, mask)  # a whole grey level (the histogram's)
    pip = 20.0 if level > 128 else 235.0
    # ink is darker than a light body, lighter than a dark one: the other way is no mark (a
    # reflection lightens a light body).  Whole levels: OpenCV's saturating difference is the
    # difference taken where it is towards the ink and 0 elsewhere, exactly
    towards = cv2.subtract(gray, level) if pip > level else cv2.subtract(np.full_like(gray, int(level)), gray)
    contrast = towards / max(abs(pip - level), 30.0)  # (float64)
    radius = 0.53 * np.sqrt(body_area)  # the piece's half-width, in crop pixels
    contrast = cv2.GaussianBlur(contrast, (0, 0), max(0.8, 0.07 * radius))
    whole = contrast.copy()  # for marks past what the piece's colour covers
    contrast[filled == 0] = 0
    window = max(3, int(0.3 * radius) | 1)
    peaks = (contrast >= cv2.dilate(contrast, np.ones((window, window), np.uint8))) & (contrast > 0.12)
    n, _, _, centres = connected_components(peaks.view(np.uint8))
    at = np.round(centres[1:]).astype(np.intp)  # (half to even, as ``round``)
    values = contrast[at[:, 1], at[:, 0]].astype(np.float32)
    return level, pip, contrast, whole, radius, window, n, centres, values


def reflection_off_the_pips(crop: np.ndarray, mask: np.ndarray, face: tuple[np.ndarray, float],
                            gray: np.ndarray, rim_share: float, die_px: float) -> int | None:
    """The count of a light die's face whose lamp's reflection (``lit_like_a_mark`` found
    one) hides none of its pips, or None.  On a light face with dark ink a reflection only
    lightens: it may hide a pip, never make one.  Its top's marks (``_laid_out_top``: four
    or more laid out exactly as a die's face, any other peak beyond it; none of them faint)
    leave grid points empty, and at none of those does the lifted patch cover a quarter of
    a pip's disc.  A dark face's reflection may pass for a pip (a 4's middle lit reads 5):
    None, its doubt stands."""
    hull, body_area = face
    rim = max(1, int(round(rim_share * np.sqrt(body_area))))
    filled = cv2.erode(hull, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8), borderType=cv2.BORDER_CONSTANT,
                       borderValue=0)
    level, _pip, contrast, whole, radius, _window, _n, centres, values = _peaks(gray, mask, filled, body_area)
    if level <= 128:
        return None  # a dark face
    top = _laid_out_top(centres[1:], values, contrast, whole, radius, die_px)
    if top is None or (values[top[0]] < 0.30).any():
        return None  # no layout, or a faint mark in it: a pip half hidden
    picked, fit = top
    return None if lit_over_an_empty_place(crop, mask, hull, fit, len(picked)) else len(picked)


def lit_over_an_empty_place(crop: np.ndarray, mask: np.ndarray, hull: np.ndarray,
                            fit: tuple[tuple[float, float], float, float, float], count: int) -> bool:
    """Does a lamp's reflection on a light face (its darkest channel lifted past the body's)
    cover a quarter of a pip's disc (``HIDDEN_SHARE``) at a grid point the face of ``count``
    laid out as ``fit`` (centre, step, cosine, sine; crop px) leaves empty?  There it may hide a pip."""
    (fx, fy), step, c, s = fit
    body = channel_medians(crop, mask)
    b, g, r = cv2.split(crop)
    lifted = (cv2.min(cv2.min(b, g), r).astype(np.int16) - int(body.min()) > LIT_RAISE) & (hull > 0)
    ys, xs = np.mgrid[0:crop.shape[0], 0:crop.shape[1]]
    disc = PIP_DISC * step
    for gx, gy in set(_DIE_GRID) - set(DIE_FACES[count]):
        x, y = fx + step * (gx * c - gy * s), fy + step * (gx * s + gy * c)
        near = (xs - x) ** 2 + (ys - y) ** 2 <= disc * disc
        if np.count_nonzero(lifted & near) >= HIDDEN_SHARE * np.count_nonzero(near):
            return True
    return False


PIP_DISC = 0.3  # a pip's disc reaches this many steps from its place (blurred a little)
HIDDEN_SHARE = 0.25  # a reflection over this share of a pip's disc may hide it


DIE_FACES = {  # where a die's face lays its pips out, in steps from its centre
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)),
}
# a 2 or a 3 lies on a line, which any two marks the right distance apart fit at some turn (a
# top's middle pip and a side face's mark): only a layout of 4 or more is a face's shape
FEWEST_LAID_OUT = 4
_DIE_GRID = tuple((x, y) for y in (-1, 0, 1) for x in (-1, 0, 1))
DIE_STEP = (0.22, 0.32)  # a die's pips lie this share of its face's width apart (a step), at least, at most
DIE_FIT = 0.3  # every mark this near its place in the layout (a share of the step), at worst
DIE_TURNS = np.deg2rad(np.arange(0.0, 180.0, 2.0))  # a face's turn, tried in 2 degree steps
_TURN_COS, _TURN_SIN = np.cos(DIE_TURNS), np.sin(DIE_TURNS)
NO_PIP = 0.1  # the contrast round a grid point the layout leaves empty stays under (a faint mark's 0.15)


def die_face(points: np.ndarray, face_px: float, contrast: np.ndarray) -> tuple[float, float] | None:
    """The centre (crop px) of a die's face whose layout the marks (N x 2, crop px) are, each
    within ``DIE_FIT`` of a step of its place, the step within ``DIE_STEP`` of the face's
    width (``face_px``), and the grid points the layout leaves empty without a mark
    (``contrast``: the marks' contrast map, ``NO_PIP``); None when they are no face's (a
    side face's mark among the top's, a missed one, or under ``FEWEST_LAID_OUT`` marks: a
    line of marks is no shape to judge)."""
    fit = _face_fit(points, face_px, contrast)
    return None if fit is None else fit[0]


def _face_fit(points: np.ndarray, face_px: float, contrast: np.ndarray,
              no_pip: float = NO_PIP) -> tuple[tuple[float, float], float, float, float] | None:
    """``die_face``'s fit: the face's centre, its step (crop px) and its turn (cosine, sine);
    ``no_pip``: the contrast the grid points the layout leaves empty stay under."""
    layout = DIE_FACES.get(len(points))
    if layout is None or len(points) < FEWEST_LAID_OUT:
        return None
    pts = np.asarray(points, np.float64)
    centre = pts.mean(axis=0)  # every layout is symmetric about its face's centre
    offsets = pts - centre
    places = np.array(layout, np.float64)
    step = float(np.linalg.norm(offsets, axis=1).mean() / np.linalg.norm(places, axis=1).mean())
    if not DIE_STEP[0] * face_px <= step <= DIE_STEP[1] * face_px:
        return None
    # every turn at once: each mark's offset turned back by it, in steps, against each place
    cos, sin = _TURN_COS[:, None], _TURN_SIN[:, None]
    turned = np.stack([offsets[:, 0] * cos + offsets[:, 1] * sin, offsets[:, 1] * cos - offsets[:, 0] * sin],
                      axis=2) / step  # turns x marks x 2
    miss = np.linalg.norm(turned[:, :, None, :] - places[None, None], axis=3)  # turns x marks x places
    nearest = miss.argmin(axis=2)
    ordered = np.sort(nearest, axis=1)
    one_each = (np.diff(ordered, axis=1) > 0).all(axis=1)  # no two marks at one place
    worst = np.take_along_axis(miss, nearest[:, :, None], axis=2)[:, :, 0].max(axis=1)
    worst[~one_each] = np.inf
    best = int(worst.argmin())
    if worst[best] > DIE_FIT:
        return None
    c, s = _TURN_COS[best], _TURN_SIN[best]
    h, w = contrast.shape
    reach = max(1, int(round(DIE_FIT * step)))  # as near as a mark of the layout may lie
    for gx, gy in set(_DIE_GRID) - set(layout):
        x = int(centre[0] + step * (gx * c - gy * s))
        y = int(centre[1] + step * (gx * s + gy * c))
        near = contrast[max(0, y - reach):max(0, y + reach + 1), max(0, x - reach):max(0, x + reach + 1)]
        if near.size and float(near.max()) >= no_pip and not _rising_past(contrast, x, y, reach):
            # a mark, however faint, where the layout has none: a pip missed (a 3's middle
            # unseen leaves a 2, a 5's a 4), or no face
            return None
    return (float(centre[0]), float(centre[1])), step, float(c), float(s)


def _rising_past(contrast: np.ndarray, x: int, y: int, reach: int) -> bool:
    """Is the contrast round a grid point (within ``reach`` of it) the halo of something
    beyond (a neighbouring pip blurred, the rim's shade), not a mark there: highest at the
    window's edge, and higher still a pixel past it?  A mark at the grid point peaks within
    reach of it."""
    h, w = contrast.shape
    y0, y1, x0, x1 = max(0, y - reach), min(h, y + reach + 1), max(0, x - reach), min(w, x + reach + 1)
    near = contrast[y0:y1, x0:x1]
    iy, ix = np.unravel_index(int(np.argmax(near)), near.shape)
    if 0 < iy < near.shape[0] - 1 and 0 < ix < near.shape[1] - 1:
        return False  # highest inside the window: a peak there
    wider = contrast[max(0, y0 - 1):min(h, y1 + 1), max(0, x0 - 1):min(w, x1 + 1)]
    return float(wider.max()) > float(near.max())


PAST_COLOUR_WIDEST = 1.6  # a body of the piece's brightness this many times its colour's hull: the board's


def _bright_body(gray: np.ndarray, level: float, pip: float, mask: np.ndarray,
                 hull: np.ndarray) -> np.ndarray | None:
    """The piece's outline (0/1, filled) as its brightness shows it: the pixels near its
    body's grey level joined to its colour (``mask``); None where that runs into the board
    (more than ``PAST_COLOUR_WIDEST`` times the colour's outline, ``hull``)."""
    near = np.abs(gray.astype(np.float32) - level) <= max(25.0, 0.25 * abs(pip - level))
    near = cv2.morphologyEx(near.astype(np.uint8), cv2.MORPH_CLOSE, _SQUARE3)
    n, labels = cv2.connectedComponents(near, connectivity=8)
    if n <= 1:
        return None
    joined = np.zeros(n, np.uint8)  # the parts of the body the colour touches (a lookup: cheaper than isin)
    joined[labels[(mask > 0) & (near > 0)]] = 1
    joined[0] = 0
    face = outline(joined[labels])
    if face is None or np.count_nonzero(face[0]) > PAST_COLOUR_WIDEST * max(1, np.count_nonzero(hull)):
        return None
    return face[0]


def _marks_past_colour(contrast: np.ndarray, body: np.ndarray | None, filled: np.ndarray, rim: int,
                       window: int, counted: np.ndarray | None = None) -> bool:
    """Is there a mark's peak on the piece (``body``: its ``_bright_body``) outside what its
    colour's outline less its rim holds (``filled``)?  A lamp's light over part of a dark
    face moves that part's colour towards the board print's, so the colour's outline leaves
    out a corner of the face and the marks on it: the count is then unclear, never short.
    ``counted``: the marks counted (N x 2, crop px); a peak within a window of one is that
    mark's own (a pip by a die's rounded rim, counted at ``filled``'s edge, peaks just past it)."""
    if body is None:
        return False
    inner = cv2.erode(body, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8), borderType=cv2.BORDER_CONSTANT,
                      borderValue=0)
    beyond = (inner > 0) & (filled == 0)
    if not beyond.any():
        return False
    peaks = (contrast >= cv2.dilate(contrast, np.ones((window, window), np.uint8))) & (contrast >= 0.30)
    ys, xs = np.nonzero(peaks & beyond)
    if len(xs) and counted is not None and len(counted):
        near = ((xs[:, None] - counted[:, 0]) ** 2 + (ys[:, None] - counted[:, 1]) ** 2).min(axis=1)
        xs, ys = xs[near > window * window], ys[near > window * window]
    if not len(xs):
        return False
    # a side face's marks lie in the strip at the body's edge (``_depth``): no face's marks
    depth = _depth(body, np.stack([xs, ys], axis=1).astype(np.float64), float(np.count_nonzero(body)))
    return bool((depth >= EDGE_SHARE).any())


EDGE_SHARE = 0.16  # a mark this near the outline (a share of its width) is on a side face


def _depth(hull: np.ndarray, centres: np.ndarray, body_area: float) -> np.ndarray:
    """How far in from the piece's outline each mark lies, as a share of its width.  A
    top's marks stand a quarter of its width in from its edge (a printed face's, 0.27); seen
    from a camera off to one side a die shows a side face too, joined to its top in one
    outline, and that face's marks lie in the thin strip it makes at the outline's edge
    (``EDGE_SHARE``)."""
    # (OpenCV pads the crop and clamps the marks' pixels: np.pad and np.clip cost a third of it)
    padded = cv2.copyMakeBorder(hull.astype(np.uint8, copy=False), 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    inside = cv2.distanceTransform(padded, cv2.DIST_L2, 3)
    h, w = hull.shape
    xs = np.minimum(np.maximum(np.round(centres[:, 0]).astype(int), 0), w - 1)
    ys = np.minimum(np.maximum(np.round(centres[:, 1]).astype(int), 0), h - 1)
    return inside[ys + 1, xs + 1] / np.sqrt(max(body_area, 1.0))


MARK_SHARE = 0.14  # a mark's radius, as a share of its piece's half-width (0.13 printed)
WIDEST_MARK = 2.5  # a peak spread over this many marks' areas at half its height is no mark,
WIDER_THAN_ITS_MARKS = 1.8  # when it is also this much wider than the other marks of its face


def _wider_than_a_mark(contrast: np.ndarray, centres: np.ndarray, values: np.ndarray,
                       radius: float) -> bool:
    """Does a counted peak spread at half its height over several marks' areas, and much
    wider than the other marks of its face?  Ink is a small disc, blurred a little; the
    broad lift a reflection or a shadow lays over part of a face also peaks, but wide: the
    count is then unclear, never a guess."""
    widest = WIDEST_MARK * np.pi * (MARK_SHARE * radius) ** 2
    h, w = contrast.shape
    xs = np.clip(np.round(centres[:, 0]).astype(int), 0, w - 1)
    ys = np.clip(np.round(centres[:, 1]).astype(int), 0, h - 1)
    # the marks of a face peak alike: one pass at the faintest one's half height, each
    # spread shared by the peaks in it, holds each one's spread at its own height or wider
    n, labels, stats, _ = connected_components((contrast >= float(values.min()) / 2).astype(np.uint8))
    at = labels[ys, xs]
    first = stats[at, cv2.CC_STAT_AREA] / np.bincount(at, minlength=n)[at]
    if (first <= widest).all() and values.max() <= 1.5 * values.min():
        return False
    # else each peak's own spread: at half its height, the pixels nearer it than any other
    # peak (a lift that reaches two pips is not three marks, nor are two pips run together);
    # blur widens every mark of a face alike, a lift is wider than the marks beside it
    seeds = np.ones((h, w), np.uint8)
    seeds[ys, xs] = 0
    _, nearest = cv2.distanceTransformWithLabels(seeds, cv2.DIST_L2, 3, labelType=cv2.DIST_LABEL_PIXEL)
    own = nearest[ys, xs]
    spreads = np.array([np.count_nonzero((nearest == own[k]) & (contrast >= float(values[k]) / 2))
                        for k in range(len(values))], np.float64)
    return any(spreads[k] > widest and (len(spreads) == 1 or spreads[k] > WIDER_THAN_ITS_MARKS
                                        * float(np.median(np.delete(spreads, k))))
               for k in range(len(values)))


LINE_ASPECT = 2.2  # a peak this many times longer than wide at half its height is no mark
LINE_EDGE_SHARE = 0.22  # ... judged so within this share of the width of the outline (a rounded edge)


def _a_line(contrast: np.ndarray, centres: np.ndarray, values: np.ndarray, radius: float,
            judged: np.ndarray) -> bool:
    """Is a counted peak (of those ``judged``) a line rather than a disc at half its height
    (of its pixels within a piece's half-width of it, those nearer it than any other peak:
    two marks run together are two half discs)?  A mark is round, blurred or not; a glossy die's rounded edge
    catches the lamp in a thin streak along the face's side, which peaks like a mark."""
    ys, xs = np.nonzero(contrast >= float(values.min()) / 2)
    fx, fy = xs.astype(np.float64), ys.astype(np.float64)
    d = (fx[:, None] - centres[:, 0]) ** 2 + (fy[:, None] - centres[:, 1]) ** 2
    nearest = d.argmin(axis=1)
    keep = (contrast[ys, xs] >= values[nearest] / 2) & (d[np.arange(len(fx)), nearest] <= radius * radius)
    fx, fy, nearest = fx[keep], fy[keep], nearest[keep]
    n = len(values)
    count = np.bincount(nearest, minlength=n).astype(np.float64)
    seen = count >= 5
    if not seen.any():
        return False
    count = np.maximum(count, 1)

    def mean(weights: np.ndarray) -> np.ndarray:
        return np.bincount(nearest, weights=weights, minlength=n) / count

    mx, my = mean(fx), mean(fy)
    # the spread along each peak's longest and shortest axes (its 2x2 covariance's eigenvalues)
    sxx, syy, sxy = mean(fx * fx) - mx * mx, mean(fy * fy) - my * my, mean(fx * fy) - mx * my
    half_sum, gap = (sxx + syy) / 2, np.hypot((sxx - syy) / 2, sxy)
    longer = half_sum + gap > LINE_ASPECT * LINE_ASPECT * np.maximum(half_sum - gap, 0.25)
    return bool((seen & longer & judged).any())


INK = 20.0  # the marks' ink on a light piece, each channel (the palette's PIP_ON_LIGHT)
LIT_RAISE = 25  # a piece's darkest channel raised this much round a light spot: a reflection


def lit_like_a_mark(crop: np.ndarray, mask: np.ndarray, in_focus: bool = True,
                    face: tuple[np.ndarray, float] | None = None, gray: np.ndarray | None = None) -> bool:
    """Is a piece's face lit by a lamp's reflection, which passes for a mark or hides one?

    A reflection adds the same light to every channel and fades out slowly, so it is
    judged on the darkest channel, which it raises.  On a light face with dark ink
    nothing is lighter than the face but a reflection, and a mark it lies on turns grey.
    On a dark face with light marks, a printed mark is a sharp disc, the face its own
    colour again a mark's width beyond it (or a mix of the two, blurred); round a
    reflection's bright core the face is lifted evenly too.  A reflection's white
    core on a light piece passes for the piece itself: its "marks" are then the lit colour
    of whatever it lies on, not ink blurred into it.  ``in_focus``: the frame is sharp, so
    a light mark on a face without colour has no halo either.  Judged at the crop's own
    scale: at half of it a small reflection on a die slips through.  ``face`` (the mask's
    ``outline``) and ``gray`` (the crop in grey), when the caller has them already.
    """
    face = face or outline(mask)
    if face is None:
        return False
    hull, area = face
    radius = 0.53 * np.sqrt(max(1.0, area))
    mark = max(1.5, MARK_SHARE * radius)  # a mark's radius on these pieces
    # well inside the outline: at its rim the piece blurs into the board
    rim = int(max(2, round(mark)))
    inner = cv2.erode(hull, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8), borderType=cv2.BORDER_CONSTANT,
                      borderValue=0) > 0
    body = channel_medians(crop, mask)
    b, g, r = cv2.split(crop)
    raised = cv2.min(cv2.min(b, g), r).astype(np.int16) - int(body.min())
    if float(body.mean()) > 128:  # dark ink on a light face
        lighter = (raised > LIT_RAISE) & inner
        if not lighter.any() and float(body.min()) < 240:
            return False  # nothing lighter than the face, and the face not at white: no reflection
        gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if gray is None else gray
        # blur greys a small mark and mixes it with the board round the piece: grey ink, and
        # ink not the face darkened alike, count only in a sharp frame
        return (_lighter_patch(crop, lighter, body, mark)
                or (in_focus and (_grey_ink(gray, body, inner, mark)
                                  or _marks_not_dark_alike(crop, gray, body, inner))))
    return _spreading_core(crop, raised, body, inner, mark, in_focus)


def _evenly(pixels: np.ndarray, body: np.ndarray) -> np.ndarray:
    """Of some pixels (N x 3): lighter than the face by one amount in every channel they did
    not clip, and by enough to clip the others, as a reflection adds light (JPEG's smeared
    colour and a blurred mark's mix are not)."""
    pixels = pixels.astype(np.float32)
    clipped = pixels >= 250
    lift = pixels - body
    low = np.where(clipped, np.inf, lift).min(axis=1)
    high = np.where(clipped, -np.inf, lift).max(axis=1)
    seen = np.isfinite(low)
    low = np.where(seen, low, 0)
    reaches = (~clipped | (body + low[:, None] >= 235)).all(axis=1)
    return seen & (high - low <= 12 + 0.15 * np.abs(low)) & reaches


def _lighter_patch(crop: np.ndarray, lighter: np.ndarray, body: np.ndarray, mark: float) -> bool:
    """A patch of a light face lifted evenly above the face, a mark wide or more."""
    lighter = lighter.copy()
    if int(lighter.sum()) < np.pi * mark * mark:
        return False
    lighter[lighter] = _evenly(crop[lighter], body)
    patch = cv2.morphologyEx(lighter.astype(np.uint8), cv2.MORPH_OPEN, _SQUARE3)
    n, _, stats, _ = cv2.connectedComponentsWithStats(patch, connectivity=8)
    return n > 1 and int(stats[1:, cv2.CC_STAT_AREA].max()) >= np.pi * mark * mark


def _grey_ink(gray: np.ndarray, body: np.ndarray, inner: np.ndarray, mark: float) -> bool:
    """A mark on a light face lifted to grey: no part of it near the ink's darkness."""
    level = float(body.mean())
    ink = (gray < level - 0.3 * (level - INK)) & inner
    n, labels, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    if n <= 1:
        return False
    darkest = np.full(n, 255.0)
    np.minimum.at(darkest, labels[ink], gray[ink].astype(np.float64))
    big = stats[:, cv2.CC_STAT_AREA] >= 0.5 * np.pi * mark * mark
    return bool((big[1:] & (darkest[1:] > INK + 0.5 * (level - INK))).any())


def _spreading_core(crop: np.ndarray, raised: np.ndarray, body: np.ndarray, inner: np.ndarray,
                    mark: float, in_focus: bool) -> bool:
    """A bright spot on a dark face with the face round it lifted evenly in every channel, a
    mark's width out, or, in a sharp frame, a bright patch wider than any mark.  A blurred
    light mark also brightens the face round it, but as a mix of the two colours, not
    evenly; on a face without colour the two look alike, so there a halo counts only in a
    sharp frame."""
    colourless = float(body.max() - body.min()) < 40
    if colourless and not in_focus:
        return False
    bright = (raised > 0.3 * (235 - float(body.min()))) & inner  # what ``count_pips`` counts as a mark
    n_bright = int(np.count_nonzero(bright))
    if not n_bright:
        return False
    if in_focus:  # a sharp mark is no wider than a mark (marks run together stay as narrow)
        if float(cv2.distanceTransform(bright.astype(np.uint8), cv2.DIST_L2, 3).max()) > 1.8 * mark:
            return True
        if np.count_nonzero((raised > LIT_RAISE) & inner) < 1.8 * n_bright:
            return False  # sharp marks and their thin rims, nothing raised round them
    # each pixel's distance from the nearest bright spot, and which spot that is
    far, nearest = cv2.distanceTransformWithLabels((~bright).astype(np.uint8), cv2.DIST_L2, 3,
                                                   labelType=cv2.DIST_LABEL_CCOMP)
    ring = (far >= 0.8 * mark) & (far <= 1.8 * mark) & inner
    if int(ring.sum()) < 6:
        return False
    lifted = raised[ring] > LIT_RAISE
    if not colourless and lifted.any():
        lifted[lifted] = _evenly(crop[ring][lifted], body)
    spots = nearest[ring]
    count = np.bincount(spots)
    share = np.bincount(spots, weights=lifted.astype(np.float64), minlength=len(count)) / np.maximum(count, 1)
    return bool(((count >= 6) & (share > 0.3)).any())


def _marks_not_dark_alike(crop: np.ndarray, gray: np.ndarray, body: np.ndarray, inner: np.ndarray) -> bool:
    """Has a light piece a dark spot that is not its colour darkened alike in every channel,
    as dark ink blurred into it is (a blue chip's lit rim round a reflection's white core)?"""
    dark = (gray < body.mean() - 0.3 * (body.mean() - INK)) & inner
    lit = body > INK + 40
    if not dark.any() or lit.sum() < 2:
        return False
    n, labels, stats, _ = cv2.connectedComponentsWithStats(dark.astype(np.uint8), connectivity=8)
    for k in range(1, n):
        if stats[k, cv2.CC_STAT_AREA] < 2:
            continue
        x, y, w, h = stats[k, :4]
        box = (slice(y, y + h), slice(x, x + w))
        spot = channel_medians(crop[box], (labels[box] == k).astype(np.uint8))
        share = (spot[lit] - INK) / (body[lit] - INK)
        if float(share.max() - share.min()) > 0.35:
            return True
    return False
