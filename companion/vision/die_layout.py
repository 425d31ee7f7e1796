"""A die's face by the layout of its pips: the marks laid out exactly as one face lays them
out (every mark at its place, the grid points the layout leaves empty without a mark), a
top's layout found among its side faces' marks, a pip half seen where a layout has none,
and a lone mark at the middle of a die's top.

The grid search of ``pips.count_pips`` (and ``die_square.py``'s faces of 1-3), kept apart
from the counting: it sees points and a contrast map, nothing of the crop's colours.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable

import numpy as np

from companion.vision.mark_peaks import FAINT_MARK
from companion.vision.mark_shapes import _wider_than_a_mark

DIE_FACES = {  # where a die's face lays its pips out, in steps from its centre
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)),
}
# a card's printed face code (Jivecat's: a colour and up to nine marks, the project's own
# print) lays out two to six marks as a die does, seven as a six and its middle, eight round
# the middle and nine on the whole grid
CODE_FACES = {**DIE_FACES,
              7: DIE_FACES[6] + ((0, 0),),
              8: ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)),
              9: tuple((x, y) for y in (-1, 0, 1) for x in (-1, 0, 1))}
# a 2 or a 3 lies on a line, which any two marks the right distance apart fit at some turn (a
# top's middle pip and a side face's mark): only a layout of 4 or more is a face's shape
FEWEST_LAID_OUT = 4
_DIE_GRID = tuple((x, y) for y in (-1, 0, 1) for x in (-1, 0, 1))
DIE_STEP = (0.22, 0.32)  # a die's pips lie this share of its face's width apart (a step), at least, at most
CODE_STEP = (0.17, 0.26)  # a card's printed code: its marks lie 0.225 of its width apart (as blurred)
DIE_FIT = 0.3  # every mark this near its place in the layout (a share of the step), at worst
DIE_TURNS = np.deg2rad(np.arange(0.0, 180.0, 2.0))  # a face's turn, tried in 2 degree steps
_TURN_COS, _TURN_SIN = np.cos(DIE_TURNS), np.sin(DIE_TURNS)
ACROSS_THE_MIDDLE = 0.35  # marks this near a face's middle (a share of their mean distance from it): at it
NO_PIP = 0.1  # the contrast round a grid point the layout leaves empty stays under (a faint mark's 0.15)
NO_PIP_SHARE = 0.5  # ... and under this share of its faintest mark's, where its marks are faint


def _turned(places: tuple[tuple[int, int], ...]) -> list[frozenset[tuple[int, int]]]:
    """A face's grid points turned and mirrored every way the grid allows."""
    out = []
    for mirror in (False, True):
        pts = [(-x, y) if mirror else (x, y) for x, y in places]
        for _ in range(4):
            out.append(frozenset(pts))
            pts = [(-y, x) for x, y in pts]
    return out


def _missable(count: int) -> frozenset[tuple[int, int]]:
    """The grid points a face of ``count`` leaves empty where a face holding all its pips
    has one more: a pip missed there makes it that face.  A 3's marks (its middle, two
    corners) are a 3's or a 5's, so only its other corners; a 5's and a 6's are no other
    face's, so none (light at a 6's middle or a 5's side is no pip)."""
    layout = frozenset(DIE_FACES[count])
    out: set[tuple[int, int]] = set()
    for face in DIE_FACES.values():
        for turned in _turned(face):
            if layout < turned:
                out |= turned - layout
    return frozenset(out)


MISSABLE = {count: _missable(count) for count in DIE_FACES}


def completes_a_face(count: int, points: set[tuple[int, int]]) -> bool:
    """Would pips missed at these grid points (``MISSABLE[count]``'s) make a face of ``count``
    another face?  A 4 is a 2 with both other corners missed, never with one."""
    layout = frozenset(DIE_FACES[count])
    return any(layout < turned and turned - layout <= points
               for face in DIE_FACES.values() for turned in _turned(face))


def die_face(points: np.ndarray, face_px: float, contrast: np.ndarray,
             step_share: tuple[float, float] = DIE_STEP,
             faces: dict[int, tuple[tuple[int, int], ...]] = DIE_FACES,
             no_pip: float = NO_PIP) -> tuple[float, float] | None:
    """The centre (crop px) of a die's face whose layout the marks (N x 2, crop px) are, each
    within ``DIE_FIT`` of a step of its place, the step within ``step_share`` of the face's
    width (``face_px``), and the grid points the layout leaves empty without a mark
    (``contrast``: the marks' contrast map, ``NO_PIP``); None when they are no face's (a
    side face's mark among the top's, a missed one, or under ``FEWEST_LAID_OUT`` marks: a
    line of marks is no shape to judge). (``step_share`` and ``faces``: a die's ``DIE_STEP``
    and ``DIE_FACES``, or a card's printed code's ``CODE_STEP`` and ``CODE_FACES``; ``no_pip``: as
    ``_face_fit``'s.)"""
    fit = _face_fit(points, face_px, contrast, no_pip, step_share=step_share, faces=faces)
    return None if fit is None else fit[0]


def _face_fit(points: np.ndarray, face_px: float, contrast: np.ndarray, no_pip: float = NO_PIP,
              step_share: tuple[float, float] = DIE_STEP,
              faces: dict[int, tuple[tuple[int, int], ...]] = DIE_FACES
              ) -> tuple[tuple[float, float], float, float, float] | None:
    """``die_face``'s fit: the face's centre, its step (crop px) and its turn (cosine, sine);
    ``no_pip``: the contrast the grid points the layout leaves empty stay under."""
    layout = faces.get(len(points))
    if layout is None or len(points) < FEWEST_LAID_OUT:
        return None
    pts = np.asarray(points, np.float64)
    centre = pts.mean(axis=0)  # every layout is symmetric about its face's centre
    offsets = pts - centre
    places = np.array(layout, np.float64)
    step = float(np.linalg.norm(offsets, axis=1).mean() / np.linalg.norm(places, axis=1).mean())
    if not step_share[0] * face_px <= step <= step_share[1] * face_px:
        return None
    best, worst = _best_turn(offsets, places, step)
    if worst > DIE_FIT:
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


def a_diagonal_completed(points: np.ndarray, clear: np.ndarray) -> bool:
    """Do the clear marks (``clear``, a mask over ``points``, crop px) alone lie as a 2 or a 3
    does (two corners across the face's middle, with or without the middle), the faint ones
    only at the other diagonal's corners, completing a 4 or a 5?  A glossy die's top the
    lamp lifts past its colour is mottled, brightest toward its corners: two faint specks at
    a 2's empty corners complete a 4 as well as a 4's faint pips do (Baron Voodoo from
    1.2-1.35 px a mm: a blue, a purple and a red 2 read as sure 4s, a blue 3 as a 5), so
    those marks alone are no count."""
    pts = np.asarray(points, np.float64)
    clear = np.asarray(clear, bool)
    n, n_clear = len(pts), int(clear.sum())
    if (n, n_clear) not in ((4, 2), (5, 3)):
        return False
    centre = pts.mean(axis=0)
    out = np.linalg.norm(pts - centre, axis=1)  # (each mark's distance from the middle, once)
    step = float(out.mean())
    near_middle = out < ACROSS_THE_MIDDLE * step
    corners = clear & ~near_middle
    if n == 5 and not (clear & near_middle).any():
        return False  # a 5's clear marks without its middle: no 3
    # two clear corners across the middle: their own midpoint at the face's middle
    return int(corners.sum()) == 2 and \
        float(np.linalg.norm(pts[corners].mean(axis=0) - centre)) < ACROSS_THE_MIDDLE * step


def may_be_faces(sets: np.ndarray, face_px: float) -> np.ndarray:
    """Of K sets of N marks (K x N x 2, crop px), those ``_face_fit`` may lay out as a face:
    their step within its bounds, and some turn putting each mark within ``DIE_FIT`` of its
    place (both a hair wider: ``_face_fit`` judges those kept, to the bit).  Every set at
    once, where a speckled lit face offers tens of thousands of sets of four to six marks,
    nearly all far off a face (Baron Voodoo t10-b1-track: 106,939 fits, 88 % turned away by
    their step alone, 17 s of the frame's 23, one at a time)."""
    sets = np.asarray(sets, np.float64)
    layout = DIE_FACES.get(sets.shape[1]) if sets.ndim == 3 and len(sets) else None
    if layout is None:
        return np.zeros(len(sets), bool)
    offsets = sets - sets.mean(axis=1, keepdims=True)
    places = np.array(layout, np.float64)
    step = np.linalg.norm(offsets, axis=2).mean(axis=1) / np.linalg.norm(places, axis=1).mean()
    kept = (step >= DIE_STEP[0] * face_px * (1 - SLACK)) & (step <= DIE_STEP[1] * face_px * (1 + SLACK))
    # a mark within DIE_FIT of its place lies as far from the centre as the place, give or take
    # DIE_FIT, whatever the turn: so do the marks' and the places' distances, each sorted
    radii = np.sort(np.linalg.norm(offsets, axis=2), axis=1) / np.maximum(step, 1e-12)[:, None]
    kept &= np.abs(radii - np.sort(np.linalg.norm(places, axis=1))).max(axis=1) <= DIE_FIT * (1 + SLACK)
    for start in range(0, len(sets), SETS_AT_ONCE):  # and whose marks some turn lays out as the face
        chunk = np.flatnonzero(kept[start:start + SETS_AT_ONCE]) + start
        if len(chunk):
            kept[chunk] = _worst_misses(offsets[chunk], places, step[chunk]) <= DIE_FIT * (1 + SLACK)
    return kept


SLACK = 1e-6  # worked out for many sets at once, summed in another order: a rounding's difference
SETS_AT_ONCE = 2048  # sets of marks turned at once (each 90 turns x 6 marks x 6 places)


def _worst_misses(offsets: np.ndarray, places: np.ndarray, step: np.ndarray) -> np.ndarray:
    """``_best_turn``'s worst miss for K sets of marks' offsets at once (K x N x 2, their steps K)."""
    cos, sin = _TURN_COS[None, :, None], _TURN_SIN[None, :, None]
    x, y = offsets[:, None, :, 0], offsets[:, None, :, 1]
    turned = np.stack([x * cos + y * sin, y * cos - x * sin], axis=3) / step[:, None, None, None]
    # K x turns x marks x places
    miss = np.linalg.norm(turned[:, :, :, None, :] - places[None, None, None], axis=4)
    nearest = miss.argmin(axis=3)
    ordered = np.sort(nearest, axis=2)
    one_each = (np.diff(ordered, axis=2) > 0).all(axis=2)
    worst = np.take_along_axis(miss, nearest[..., None], axis=3)[..., 0].max(axis=2)
    worst[~one_each] = np.inf
    return worst.min(axis=1)


def _best_turn(offsets: np.ndarray, places: np.ndarray, step: float) -> tuple[int, float]:
    """The turn (an index of ``DIE_TURNS``) that lays the marks' offsets from their centre
    (crop px) nearest a layout's places at ``step``, one mark a place, and the farthest any
    mark then lies from its place (in steps; inf when no turn puts one mark at each place)."""
    # every turn at once: each mark's offset turned back by it, in steps, against each place
    # (turns x marks x places; the miss as ``np.linalg.norm`` takes it over the two axes, each
    # offset squared, the two summed, the root: the same to the last bit without its copies)
    cos, sin = _TURN_COS[:, None], _TURN_SIN[:, None]
    across = ((offsets[:, 0] * cos + offsets[:, 1] * sin) / step)[:, :, None] - places[:, 0]
    down = ((offsets[:, 1] * cos - offsets[:, 0] * sin) / step)[:, :, None] - places[:, 1]
    miss = np.sqrt(across * across + down * down)
    nearest = miss.argmin(axis=2)
    ordered = np.sort(nearest, axis=1)
    one_each = (np.diff(ordered, axis=1) > 0).all(axis=1)  # no two marks at one place
    worst = miss.min(axis=2).max(axis=1)  # (each mark's nearest place's miss: the least)
    worst[~one_each] = np.inf
    best = int(worst.argmin())
    return best, float(worst[best])


def laid_out_as_a_face(points: np.ndarray) -> bool:
    """Do three or more marks (N x 2, crop px) lie as that many pips of a die's face do, each
    within ``DIE_FIT`` of its place at their own step?  Only the shape is asked, not the
    face's size (a flat camera's drawn die and a cube seen from a slant differ in it): a 6
    that lost a corner pip leaves five marks in two rows, no 5's shape, and a 4 that lost
    one three in an L, no 3's line.  (Asked of a count already made: three marks in a line
    are a 3's shape, though a line is no shape to find a face by: ``die_face``.)"""
    layout = DIE_FACES.get(len(points))
    if layout is None or len(points) < 3:
        return False
    pts = np.asarray(points, np.float64)
    offsets = pts - pts.mean(axis=0)
    places, reach = _face_places(len(points))
    # (each offset's norm as ``np.linalg.norm`` takes it over an axis of two)
    step = float(np.sqrt(offsets[:, 0] * offsets[:, 0] + offsets[:, 1] * offsets[:, 1]).mean() / reach)
    return step > 0 and _best_turn(offsets, places, step)[1] <= DIE_FIT


@functools.cache
def _face_places(count: int) -> tuple[np.ndarray, float]:
    """A face of ``count`` pips: its places (``DIE_FACES``) and their mean distance from its
    middle, worked out once a count (asked of every die's count of three or more)."""
    places = np.array(DIE_FACES[count], np.float64)
    places.flags.writeable = False
    return places, np.linalg.norm(places, axis=1).mean()


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


def _at_a_faces_step(points: np.ndarray, die_px: float) -> bool:
    """Do a 2's or a 3's marks (N x 2, crop px) lie as far apart as its face's outer pips do:
    the farthest two a diagonal of two steps, a step at least ``DIE_STEP``'s least share of
    a standard die's face (``die_px``)?  Two marks nearer are no 2's corners: a 5's corner and
    middle, say, with the rest of the face lost past its colour or to the lamp (a 5 read a
    sure 3 so, its marks at 0.18-0.2 of a face a step).  (No most: a game's dice may be
    larger than a standard die, King of Clubs' drawn flat a step of 0.44 of one.)"""
    pts = np.asarray(points, np.float64)
    far = max(float(np.hypot(*(a - b))) for a, b in itertools.combinations(pts, 2))
    return far / (2 * np.sqrt(2)) >= DIE_STEP[0] * die_px


def _a_pip_half_seen(points: np.ndarray, die_px: float, contrast: np.ndarray) -> bool | None:
    """Is there a faint mark (``NO_PIP`` or more of contrast, under a counted mark's) at a grid
    point the face the marks (N x 2, crop px) lay out leaves empty?  A 3 whose middle pip the
    lamp or blur left faint reads as the 2 of its corners, a 5 as a 4, a 6 as a 4: the marks
    alone are then no clear count.  The grid: a 2's or a 3's outer marks on a diagonal a
    face's step apart (``DIE_STEP``), a 3's third at their middle; a 4-6 laid out as its face
    (``_face_fit``).  Marks laid out as no face are left to the other checks (None: false,
    and told apart from a face with no such mark)."""
    count = len(points)
    pts = np.asarray(points, np.float64)
    if count not in DIE_FACES:
        return None
    if count in (2, 3):
        ends = pts
        if count == 3:
            ends = next((np.delete(pts, k, axis=0) for k in range(3)
                         if np.linalg.norm(pts[k] - np.delete(pts, k, axis=0).mean(axis=0))
                         <= DIE_FIT * np.linalg.norm(pts[k] - pts[(k + 1) % 3]) / np.sqrt(2)), None)
            if ends is None:
                return None
        (x0, y0), (x1, y1) = ends
        step = float(np.hypot(x1 - x0, y1 - y0)) / (2 * np.sqrt(2))
        if not DIE_STEP[0] * die_px <= step <= DIE_STEP[1] * die_px:
            return None
        turn = np.arctan2(y1 - y0, x1 - x0) - np.pi / 4
        (fx, fy), c, s = ((x0 + x1) / 2, (y0 + y1) / 2), float(np.cos(turn)), float(np.sin(turn))
    else:
        fit = _face_fit(pts, die_px, contrast, np.inf)
        if fit is None:
            return None
        (fx, fy), step, c, s = fit
    h, w = contrast.shape
    reach = max(1, int(round(DIE_FIT * step)))
    for gx, gy in MISSABLE[count]:  # (where a pip missed makes another face: ``_missable``)
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
LONE_FAR_PAST_NEAR = 0.31  # a lone mark this much further (faces) from the outline's far edge than its
# near edge is no 1's: the near edge lies past the top's by its sides (0.28 at most on 1,952 right 1s
# rendered, a near side in shade and a rim's highlight aside); a 2's near corner pip, far pip lost: 0.35-0.38
FACE_FAR_PAST_NEAR = 0.55  # ... and a face of four or more marks whose middle lies this much further from
# the far edge than the near is no top's (0.42 at most on 7,269 sure counts of 4-6 read right; a yellow 1's
# pip and three dark edges of its sides laid out as a 4: 0.70)


def _in_the_middle(face: np.ndarray, mark: np.ndarray, die_px: float,
                   outward: tuple[float, float] | None, edge: float = 0.0, lone: bool = False) -> bool:
    """Does a lone mark lie at the middle of a die's top (``face``: the die's outline, 0/1,
    crop px), as a 1's pip does?  Seen from a slant the outline holds the die's sides too,
    swept from its top towards the camera's nadir, so only the top's far edge (along
    ``outward``, the unit direction from the nadir through the die) and its two sides across
    that line are the top's own: the mark is measured from those, in faces (``die_px``).
    Where the crop cuts the outline off, an edge measured lies nearer the mark than the
    top's: the far edge then still rules out a side's or a near corner's mark.  The near edge
    is the top's right under the camera (``outward`` None); from a slant the sides lie past
    it, so the outline reaches at least as far: a mark nearer it than a 1's pip lies to its
    top's near edge is a near corner's (a blue 2 atop a column at 30 degrees, its far pip
    lost, read as a sure 1 so: 0.36 of a face from the outline's near edge, every 1 read on
    the tuning frames 0.42 or more; its far edge, 0.86, was a 1's too).  A die
    larger than a face of ``die_px`` has no sides modelled: its outline is its face, and the
    mark lies at the outline's middle.  ``edge``: how far (in faces) the top's far edge may lie
    nearer than its outline shows, a frame pixel where the frame resolves a die coarsely (a
    King of Clubs purple 2 at 0.59 px a mm: the near corner pip of its two, the far one lost,
    lay 0.85 of a face in from an outline's far edge blurred a pixel in, and passed for a 1).
    ``lone``: the mark is all that was counted (not the middle of a 2's or a 3's): it lies no
    further from the far edge than from the near edge, past a share (``LONE_FAR_PAST_NEAR``), as
    a 1's pip does, its top's sides between it and the near edge (a yellow 2 at 30 degrees, its
    far pip past its colour's outline where the lamp took the colour, lay 0.81 of a face from
    the far edge and 0.43 from the near one)."""
    xs, ys = _row_ends(face)
    if not len(xs):
        return False
    ux, uy = outward if outward is not None else (1.0, 0.0)
    along, across = xs * ux + ys * uy, ys * ux - xs * uy
    lo, hi = float(across.min()) - 0.5, float(across.max()) + 0.5
    if hi - lo > WIDER_THAN_A_TOP * die_px:
        ys, xs = np.nonzero(face)  # (its middle: every pixel)
        off = np.hypot(mark[0] - float(xs.mean()), mark[1] - float(ys.mean()))
        return bool(off <= ONE_OFF_MIDDLE * np.sqrt(len(xs)))
    a, b = mark[0] * ux + mark[1] * uy, mark[1] * ux - mark[0] * uy
    far = (float(along.max()) + 0.5 - a) / die_px
    sides = min(b - lo, hi - b) / die_px
    near = (a - float(along.min()) + 0.5) / die_px
    return ONE_FROM_FAR[0] <= far <= ONE_FROM_FAR[1] - edge and sides >= ONE_FROM_SIDE \
        and near >= ONE_FROM_FAR[0] and not (lone and far - near > LONE_FAR_PAST_NEAR)


def _row_ends(face: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first and the last pixel of each row of an outline (0/1, crop px) that holds any:
    their columns and rows.  Within a row ``x * ux + y * uy`` (and ``y * ux - x * uy``) rises
    or falls with x to the last bit (a product and a sum round monotonically), so a row's ends
    hold its extremes along any direction: ``_in_the_middle``'s and ``_far_past_near``'s edges
    as every pixel gives them, without a pass over every pixel (``np.nonzero``'s cost there)."""
    seen = face != 0
    rows = np.flatnonzero(seen.any(axis=1))
    part = seen[rows]
    first = part.argmax(axis=1)
    last = face.shape[1] - 1 - part[:, ::-1].argmax(axis=1)
    return np.concatenate([first, last]), np.concatenate([rows, rows])


def _far_past_near(face: np.ndarray, mark: np.ndarray, die_px: float,
                   outward: tuple[float, float] | None) -> float:
    """How much further (in faces, ``die_px``) a point lies from a die's outline's far edge
    than from its near edge, along ``outward`` (``_in_the_middle``'s measure; (1, 0) right under
    the camera, where no side shows and the measure is only the middle's offset).  A top's middle
    lies half a face from its far edge and, from a slant, further from the near edge, its sides
    between: well above 0 is nearer the sides than any top's middle."""
    xs, ys = _row_ends(face)
    if not len(xs):
        return 0.0
    ux, uy = outward if outward is not None else (1.0, 0.0)
    along = xs * ux + ys * uy
    a = mark[0] * ux + mark[1] * uy
    # (far less near, the rims' half pixels cancelling)
    return (float(along.max()) + float(along.min()) - 2 * a) / die_px


def _laid_out_top(centres: np.ndarray, values: np.ndarray, contrast: np.ndarray, whole: np.ndarray,
                  radius: float, die_px: float, stands: Callable[[float, float], bool] | None = None,
                  outward: tuple[float, float] | None = None, least: float = 0.0
                  ) -> tuple[np.ndarray, tuple[tuple[float, float], float, float, float]] | None:
    """The marks of a die's top among its side faces' (``centres``, ``values``: the peaks):
    those laid out exactly as a die's face of four or more pips (``die_face``: every mark at
    its place, none where the layout has none, so a top's pip lost or a side's mark taken
    in leaves no layout), the face standing on one place (``stands``), every other peak
    beyond that face's square (a side face's, never one on the face itself), none of them
    wider than a mark.  The marks (their indices) and the face's fit, when one count fits
    so; None for none or two.  ``outward`` (crop axes, from the camera's nadir through the
    die): a side face shows between the top and the nadir, never past the top's far edge, so
    a sure mark out there leaves the face no top's.  ``least``: every mark of the layout at
    least this strong.  By hand: OpenCV fits no such layout."""
    marks = np.flatnonzero(values >= FAINT_MARK)
    if not FEWEST_LAID_OUT <= len(marks) <= TOP_MARKS_MOST:
        return None
    found: dict[int, tuple] = {}
    for size in range(min(6, len(marks)), FEWEST_LAID_OUT - 1, -1):
        for chosen in itertools.combinations(marks, size):
            picked = np.array(chosen)
            if (values[picked] < 0.30).all() or (values[picked] < least).any():
                continue  # a layout of faint peaks only: no mark of it is sure
            # a pip the layout misses shows as a peak (a mark left out on the face: below); round
            # the empty grid points the face's shading and its lit edges stay under a share
            # of the faintest mark of the layout
            empty = max(NO_PIP, EMPTY_SHARE * float(values[picked].min()))
            fit = _face_fit(centres[picked], die_px, whole, empty)
            if fit is None:
                continue
            (fx, fy), step, c, s = fit
            if size == 4 and _middle_marked(whole, fx, fy, step):
                continue  # a 5 whose middle pip is half seen (a lamp over it), not a 4
            if a_diagonal_completed(centres[picked], values[picked] >= 0.30):
                continue  # a 2's or a 3's clear marks, the other corners faint: no count
            rest = the_rest(marks, picked)
            dx, dy = centres[rest, 0] - fx, centres[rest, 1] - fy
            u, v = (dx * c + dy * s) / step, (dy * c - dx * s) / step
            if (np.maximum(np.abs(u), np.abs(v)) <= BEYOND_THE_FACE).any():
                continue  # a mark left out lies on the face: not a side's
            if outward is not None and (values[rest] >= 0.30).any() and (
                    (dx * outward[0] + dy * outward[1])[values[rest] >= 0.30] / step > PAST_THE_TOP).any():
                continue  # a sure mark past the top's far edge: no side face shows there
            if stands is not None and not stands(fx, fy):
                continue
            if _wider_than_a_mark(contrast, centres[picked], values[picked], radius):
                continue
            found.setdefault(size, (picked, fit))
    return found.popitem()[1] if len(found) == 1 else None


def _short_of_the_far_edge(hull: np.ndarray, fit: tuple[tuple[float, float], float, float, float],
                           die_px: float, outward: tuple[float, float]) -> bool:
    """Does a top read among its sides' marks (``fit``: ``_face_fit``'s) stop short of its
    outline's far edge (``hull``, 0/1, crop px)?  Seen from a slant a die's sides show between
    its top and the camera's nadir (``outward`` points away from it), never past the top's far
    edge, so the top's far edge is the outline's; a layout whose square stops short of it by
    more than ``EDGE_FIT`` of a face took a side's marks for the top's (Baron Voodoo at 20
    degrees, 0.88 px a mm: a yellow 1's pip and three pips of its side read as a sure 4, its
    square 0.16 of a face short; every top read right on the tuning and seen held-out frames
    reached to 0.06 of a face of it or past it, the die's rounded rim falling out of its colour)."""
    (fx, fy), _, c, s = fit
    ux, uy = outward
    (far, _, _), _ = _edges(hull, ux, uy)
    return far - (fx * ux + fy * uy + _reach(math.atan2(s, c), die_px, (ux, uy))) > EDGE_FIT * die_px


def _middle_marked(contrast: np.ndarray, fx: float, fy: float, step: float) -> bool:
    """Is there a mark, however faint, at a face's middle (``NO_PIP``)?  Away from the face's
    shaded edges nothing lightens or darkens it but a pip, or a reflection over one."""
    reach = max(1, int(round(DIE_FIT * step)))
    x, y = int(round(fx)), int(round(fy))
    near = contrast[max(0, y - reach):max(0, y + reach + 1), max(0, x - reach):max(0, x + reach + 1)]
    return bool(near.size) and float(near.max()) >= NO_PIP


EDGE_FIT = 0.12  # the top's square meets the outline's far edge and sides within this share of a face
TOP_MARKS_MOST = 9  # marks enough for a top's six and a side's few; more is no die seen whole
EMPTY_SHARE = 0.45  # a top read within its sides: its empty grid points under this share of its marks
PAST_THE_TOP = 1.0  # steps out from the nadir past a face's centre a side's mark never lies (the
# top's far edge is 1.5 steps out, a side's marks lie inward of its centre)
BEYOND_THE_FACE = 1.35  # steps from a face's centre (either axis) a mark is off it: pips reach 1.3,
# its rounded edge lies 1.4-1.85 out


def _edges(hull: np.ndarray, ux: float, uy: float) -> tuple[tuple[float, float, float], np.ndarray]:
    """An outline's far edge along the line from the nadir (``ux, uy``) and its two sides across
    it (crop px), and every pixel's place along that line."""
    ys, xs = np.nonzero(hull)
    along, across = xs * ux + ys * uy, ys * ux - xs * uy
    return (float(along.max()) + 0.5, float(across.min()) - 0.5, float(across.max()) + 0.5), along


def _reach(turn: float, die_px: float, direction: tuple[float, float]) -> float:
    """How far a die's top square turned ``turn`` reaches from its centre along a unit
    ``direction`` (crop px)."""
    c, s = math.cos(turn), math.sin(turn)
    dx, dy = direction
    return die_px / 2 * (abs(c * dx + s * dy) + abs(-s * dx + c * dy))


def the_rest(marks: np.ndarray, picked: np.ndarray) -> np.ndarray:
    """The marks (indices, each once) less those picked: ``np.setdiff1d``'s answer for marks
    sorted as ``flatnonzero`` gives them, without its sort (a tenth of its cost on a handful)."""
    return marks[(marks[:, None] != picked[None, :]).all(axis=1)]
