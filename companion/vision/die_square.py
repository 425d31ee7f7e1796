"""A die's face of one, two or three pips, read inside its top's square.

A face of four or more pips has a shape of its own (``die_layout._laid_out_top``); one of 1-3 is
a line of marks, which a top's middle pip and a side face's mark fit too.  Such a face is
read only where the die's top lies: seen from the camera, the top face of a die (a cube)
is the outermost square of its outline along the line from the camera's nadir through it
(its sides, swept between top and foot, lie nearer the nadir).  So the top's square
reaches the outline's far edge and spans its width across that line; the marks inside it
are laid out as a face of 1-3 at the face's own step, every other grid point of the face
holds no mark, and every other mark of the piece lies off the square (a side's).  Anything
else leaves the count unclear: confident or silent.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable

import cv2
import numpy as np

from companion.vision.die_layout import (
    BEYOND_THE_FACE,
    DIE_FIT,
    DIE_STEP,
    EDGE_FIT,
    MISSABLE,
    NO_PIP,
    SLACK,
    _edges,
    _face_fit,
    _reach,
    completes_a_face,
    may_be_faces,
    the_rest,
)
from companion.vision.mark_peaks import FAINT_MARK, SURE_MARK, _peaks, light_marks, outline
from companion.vision.mark_shapes import (
    LINE_EDGE_SHARE,
    _a_line,
    _bright_body,
    _depth,
    _wider_than_a_mark,
    dark_mark_inside,
)
from companion.vision.pip_reflections import lit_over_a_place

# a die shows three faces at most, eighteen pips: more marks on one is a lit face's speckle, no
# face to find among them (every six of twenty-five is 177,100 layouts to fit: Baron Voodoo
# t10-b1, a lit red 3 at F4, took a minute a frame)
MOST_MARKS = 18
SEEN_MARK = FAINT_MARK  # a peak this strong is a mark somewhere: on the top's layout or off the square
COVERED = 0.92  # the top's square, less its rounded rim, lies this much within the outline
ONE_CLEAR = (0.17, 0.38)  # a face of one: no mark between these shares of a face from its pip
RIM_IN = 0.12  # the top's rounded rim, a share of its width
HALO_REACH = 0.8  # steps from an empty grid point a mark off the face may blur its contrast over it
HALO_RISE = 0.01  # the contrast along a halo rises by no more than this a pixel (noise)


def low_face(mask: np.ndarray, gray: np.ndarray, face: tuple[np.ndarray, float] | None, rim_share: float,
             die_px: float, outward: tuple[float, float] | None,
             stands: Callable[[float, float], bool] | None = None,
             laid_out: list[np.ndarray] | None = None, light_ink: bool | None = None) -> int | None:
    """The count (1-3) of a die's top read inside its square (see the module), or None.
    ``mask``: the die's colour in the crop (cut to its top when its stand is known);
    ``die_px``: a face's width in crop px; ``outward``: the unit direction (crop axes) from
    the camera's nadir through the die, None right under the camera; ``stands``: does a top
    whose centre shows here (crop px) stand on the place it is read at?  Its marks are looked
    for inside the outline less its rim, then, if that leaves the count unclear, less half
    its rim: a corner pip lies a rim's width from where the die's colour ends when the rounded
    rim beyond it catches the light (its slopes no longer the die's colour), and its peak
    falls in the band the rim takes off (the square and its checks judge it as any other).
    Both insets are tried, and a count is read when those that find one agree: a mark by the
    rim, faint inside the first and clear inside the second, is a 2's corner pip or a side's
    mark beside a 1, and which depends on a pixel of the outline (a different OpenCV release
    read held-out Baron Voodoo t30-b0's blue 2 as a sure 1 so).  ``laid_out``: gets the
    contrasts of the marks of a face of two or three read (as ``pips.count_pips``'s does of a
    layout's)."""
    face = face or outline(mask)
    if face is None:
        return None
    rim = max(1, int(round(rim_share * np.sqrt(face[1]))))
    counts: dict[int, np.ndarray] = {}  # every count a face was found for, and its marks' contrasts
    outlined: dict = {}  # (the outline as the die's brightness shows it: the same at either inset)
    for within in _insets(rim):
        if len(counts) > 1:
            break  # (unclear already, whatever the next inset finds)
        for count, contrasts in _low_face_within(mask, gray, face, within, die_px, outward, stands,
                                                 light_ink, outlined).items():
            counts.setdefault(count, contrasts)
    if len(counts) != 1:
        return None
    count, contrasts = counts.popitem()
    if laid_out is not None and count >= 2:
        laid_out.append(contrasts)
    return count


def _insets(rim: int) -> tuple[int, ...]:
    """How far in from a die's outline its top's marks are looked for, in turn: its rim, then
    half of it (a corner pip by a rim that catches the light); once when the two are one."""
    return tuple(dict.fromkeys((rim, max(1, rim // 2))))


def _low_face_within(mask: np.ndarray, gray: np.ndarray, face: tuple[np.ndarray, float], rim: int,
                     die_px: float, outward: tuple[float, float] | None,
                     stands: Callable[[float, float], bool] | None,
                     light_ink: bool | None = None, outlined: dict | None = None) -> dict[int, np.ndarray]:
    """The counts a face of 1-3 is found for with its marks looked for ``rim`` crop px inside
    the outline (more than one: the marks fit several), each with its marks' contrasts.  A die
    left unclear is read again, its crop the same, once another die's top is read near it
    (``reader``'s rounds), and its lit and shaded reads often see the colour its plain read
    did: what was found is kept on the exact inputs, with what ``stands`` answered on the way
    (the places another die's top was read on are what it asks), and found again only where
    it now answers one of them otherwise."""
    hull, body_area = face
    key = (*(part for a in (mask, gray, hull) for part in (a.dtype.str, a.shape, a.tobytes())), body_area,
           rim, die_px, outward, stands is None, light_ink)
    kept = _FOUND.pop(key, None)
    if kept is not None and (stands is None or all(stands(*at) == standing for at, standing in kept[1])):
        _FOUND[key] = kept  # (the most recently asked last)
        return {count: contrasts.copy() for count, contrasts in kept[0].items()}
    asked: list[tuple[tuple[float, float], bool]] = []

    def asking(cx: float, cy: float) -> bool:
        assert stands is not None
        standing = stands(cx, cy)
        asked.append(((cx, cy), standing))
        return standing

    found = _found_within(mask, gray, face, rim, die_px, outward, asking if stands is not None else None,
                          light_ink, outlined)
    _FOUND[key] = ({count: contrasts.copy() for count, contrasts in found.items()}, asked)
    if len(_FOUND) > MOST_KEPT:
        del _FOUND[next(iter(_FOUND))]  # (the least recently asked)
    return found


MOST_KEPT = 512  # faces of 1-3 looked for kept (``_low_face_within``): a frame's dice's reads and more
_FOUND: dict[tuple, tuple[dict[int, np.ndarray], list[tuple[tuple[float, float], bool]]]] = {}


def _found_within(mask: np.ndarray, gray: np.ndarray, face: tuple[np.ndarray, float], rim: int,
                  die_px: float, outward: tuple[float, float] | None,
                  stands: Callable[[float, float], bool] | None,
                  light_ink: bool | None = None, outlined: dict | None = None) -> dict[int, np.ndarray]:
    """``_low_face_within`` found afresh.  ``outlined``: the die's outlines as its brightness and
    its colour show them, kept for the next inset (its body's grey level and its ink the same:
    ``_peaks`` finds them on the whole crop, whatever the inset)."""
    hull, body_area = face
    filled = cv2.erode(hull, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8), borderType=cv2.BORDER_CONSTANT,
                       borderValue=0)
    level, pip, contrast, whole, radius, _window, n, centres, values = _peaks(gray, mask, filled, body_area,
                                                                             light_ink)
    marks = np.flatnonzero(values >= SEEN_MARK)
    strong = np.flatnonzero(values >= SURE_MARK)
    if not len(strong) or n <= 1 or len(marks) > MOST_MARKS:
        return {}
    colour_hull = hull
    points = centres[1:]
    ux, uy = outward if outward is not None else (1.0, 0.0)
    shown = outlined.get((level, pip)) if outlined is not None else None
    if shown is None:
        body = _bright_body(gray, level, pip, mask, hull)  # a pip's halo bites into the colour's outline
        if body is not None:
            hull = hull | body
        # the outline as the colour and the brightness show it, and as the colour alone does: a
        # dark die's own shadow on the board is as dark as its face and joins its brightness's
        # outline, past its top and sides (the square meets either, its marks judged alike)
        # a mark's shape judged within its rim's inside and within the colour's outline: a pip by
        # the rim, cut by the first, is a sliver drawn out along it, and in the second may run into
        # the outline's blurred edge; a rim's streak is drawn out in both
        within = np.where(colour_hull > 0, whole, 0.0)
        outlines = [(edges, float(along.min()) - 0.5) for edges, along in
                    (_edges(seen, ux, uy) for seen in ((hull, colour_hull) if body is not None else (hull,)))]
        # (``_rim_past_colour`` last, found for the first square that needs it)
        shown = [hull, within, outlines, None]
        if outlined is not None:
            outlined[(level, pip)] = shown
    hull, within, outlines = shown[0], shown[1], shown[2]
    found: set[int] = set()
    contrast_of: dict[int, np.ndarray] = {}  # a face's marks' contrasts, per count found
    for count in range(1, 7):
        candidates = _candidates(values, marks, strong, count, points)
        if count >= 3 and candidates:  # only sets at a face's step can be laid out as one
            sets = points[np.array(candidates)]
            kept = may_be_faces(sets, die_px) if count >= 4 else _may_be_threes(sets, die_px)
            candidates = [c for c, keep in zip(candidates, kept, strict=True) if keep]
        for picked in candidates:
            fit = _square(points[picked], count, die_px, whole)
            if not fit:
                continue
            others = points[the_rest(marks, picked)]  # every mark but those picked
            one_clear: bool | None = None  # a 1's ring round its pip: the same at every turn tried
            for (cx, cy), turn, step in fit:
                if not any(_meets_the_outline(cx, cy, turn, die_px, (ux, uy), edges, outward is None, near,
                                              step is not None) for edges, near in outlines):
                    continue
                if not _off_the_square(others, (cx, cy), turn, step, die_px):
                    continue
                if step is None:
                    if one_clear is None:
                        one_clear = _clear_round_a_one(whole, (cx, cy), die_px, colour_hull)
                    if not one_clear:
                        continue
                elif not _grid_clear(others, (cx, cy), turn, step, count, whole):
                    continue
                if count == 1 and outward is not None and _past_the_top(others, (cx, cy), turn, die_px,
                                                                        outward):
                    continue
                if shown[3] is None:
                    shown[3] = hull | _rim_past_colour(gray, level, hull, die_px)
                if not _covered(shown[3], (cx, cy), turn, die_px):
                    continue
                if stands is not None and not stands(cx, cy):
                    continue
                # a layout's mark near the outline a streak (its rounded rim catching the lamp)?
                # (judged among every mark: a side's mark's halo is its own, not the nearest pip's)
                rimmed = np.isin(marks, picked) & (_depth(hull, points[marks], body_area) < LINE_EDGE_SHARE)
                if _wider_than_a_mark(contrast, points[picked], values[picked], radius) or (
                        rimmed.any() and all(_a_line(shown, points[marks], values[marks], radius, rimmed)
                                             for shown in (contrast, within))):
                    continue
                found.add(count)
                contrast_of[count] = values[picked]
                break
    if found and light_ink and not light_marks(level) and dark_mark_inside(gray, mask, filled, colour_hull,
                                                                          body_area):
        return {}  # light marks counted on a face lit past mid-grey, and a dark one among them
    return {count: contrast_of[count] for count in sorted(found)}


def _candidates(values: np.ndarray, marks: np.ndarray, strong: np.ndarray, count: int,
                points: np.ndarray) -> list[np.ndarray]:
    """Marks that may be a face of ``count``: strong ones for a face of 1; for a 2, one strong
    and the other strong or faint (its square's fit to the top's outline vouches for it); for a
    3, one corner at most faint, never its middle (a lamp's light in the middle of a 2 would
    pass for one); for 4-6, marks of which one at most is faint (a small die far out blurs a
    pip: its layout vouches for it).  Baron Voodoo and King of Clubs at 0-30 degrees: 2s and 3s
    with a pip the lamp left faint were asked."""
    if count == 1:
        return [np.array((one,)) for one in strong]
    if count == 2:
        return [np.array(c) for c in itertools.combinations(strong, 2)] \
            + [np.array((s, m)) for s in strong for m in marks if values[m] < SURE_MARK]
    sets = np.array(list(itertools.combinations(marks, count)), np.intp).reshape(-1, count)
    faint = values[sets] < SURE_MARK
    keep = faint.sum(axis=1) <= 1
    if count == 3:  # (and never a 3's middle: the mark of the three nearest their mean)
        at = points[sets]
        middle = np.argmin(np.hypot(*np.moveaxis(at - at.mean(axis=1, keepdims=True), 2, 0)), axis=1)
        keep &= ~faint[np.arange(len(sets)), middle]
    return list(sets[keep])


def _square(picked: np.ndarray, count: int, die_px: float, contrast: np.ndarray
            ) -> list[tuple[tuple[float, float], float, float | None]]:
    """The top squares (centre, turn in radians, the pips' step in px) whose face of
    ``count`` the marks are: a 2's or a 3's outer marks on a diagonal a face's step apart
    (``DIE_STEP``), a 3's middle one at their middle; a 4-6 laid out exactly as its face
    (``die_layout._face_fit``: none at the grid points it leaves empty); a 1's mark at the
    centre, any turn (tried in 5 degree steps), no step."""
    if count == 1:
        x, y = picked[0]
        return [((float(x), float(y)), math.radians(t), None) for t in range(0, 90, 5)]
    if count >= 4:
        fit = _face_fit(picked, die_px, contrast)
        return [] if fit is None else [(fit[0], math.atan2(fit[3], fit[2]), fit[1])]
    ends = picked if count == 2 else _ends_and_middle(picked, die_px)
    if ends is None:
        return []
    (x0, y0), (x1, y1) = ends[0], ends[1]
    step = math.hypot(x1 - x0, y1 - y0) / (2 * math.sqrt(2))
    if not DIE_STEP[0] * die_px <= step <= DIE_STEP[1] * die_px:
        return []
    turn = math.atan2(y1 - y0, x1 - x0) - math.pi / 4  # the diagonal (-1,-1) -> (1,1)
    return [(((x0 + x1) / 2, (y0 + y1) / 2), turn, step)]


def _may_be_threes(sets: np.ndarray, die_px: float) -> np.ndarray:
    """Of K sets of 3 marks (K x 3 x 2, crop px), those ``_square`` may lay out as a 3: two of
    them a step in ``DIE_STEP`` apart, the third at their middle (``_ends_and_middle``), each
    bound a hair wider (``die_layout.SLACK``: worked out for every set at once, its lengths
    may round otherwise), ``_square`` judging those kept to the bit.  Nearly every set of three
    of a die's marks is none (Baron Voodoo t00-b18: 198 of 4,826), each judged apart 0.2 ms."""
    kept = np.zeros(len(sets), bool)
    for k, (i, j) in enumerate(((1, 2), (0, 2), (0, 1))):
        ends, middle = sets[:, (i, j)], (sets[:, i] + sets[:, j]) / 2
        step = np.hypot(*(ends[:, 1] - ends[:, 0]).T) / (2 * math.sqrt(2))
        kept |= (np.hypot(*(sets[:, k] - middle).T) <= DIE_FIT * step * (1 + SLACK)) \
            & (step >= DIE_STEP[0] * die_px * (1 - SLACK)) & (step <= DIE_STEP[1] * die_px * (1 + SLACK))
    return kept


def _ends_and_middle(picked: np.ndarray, die_px: float) -> np.ndarray | None:
    """A 3's two outer marks, when its third lies at their middle (within ``DIE_FIT`` of a step)."""
    for k in range(3):
        ends = np.delete(picked, k, axis=0)
        middle = ends.mean(axis=0)
        step = float(np.linalg.norm(ends[1] - ends[0])) / (2 * math.sqrt(2))
        if float(np.linalg.norm(picked[k] - middle)) <= DIE_FIT * step:
            return ends
    return None


def _meets_the_outline(cx: float, cy: float, turn: float, die_px: float, outward: tuple[float, float],
                       edges: tuple[float, float, float], straight_down: bool, near: float,
                       laid_out: bool = False) -> bool:
    """Is the square the outline's top: its far edge along the line from the nadir at the
    outline's far edge, its two sides across that line at the outline's (right under the
    camera, its near edge at the outline's near edge too: no sides are seen)?  ``laid_out``:
    the square is placed by its marks' layout (a face of 2-6: centred at their middle), and
    may reach past the outline by the die's rounded rim, whose slopes may fall out of its
    colour (never the other way); a 1's square, centred on its one mark, may not (a 2's
    corner pip with the other unseen would fit it).  ``near``: the outline's near edge along
    that line (its pixels' least place along it, less half a pixel)."""
    ux, uy = outward
    reach_along = _reach_of(turn, die_px, (ux, uy))
    reach_across = _reach_of(turn, die_px, (-uy, ux))
    a, b = cx * ux + cy * uy, cy * ux - cx * uy
    far, lo, hi = edges
    tol = EDGE_FIT * die_px
    out = tol + (RIM_IN * die_px if laid_out else 0.0)
    if not (-tol <= a + reach_along - far <= out and -tol <= lo - (b - reach_across) <= out
            and -tol <= b + reach_across - hi <= out):
        return False
    return not straight_down or -tol <= near - (a - reach_along) <= out


# (a 1's square is tried at the same 18 turns round each of a die's marks: 58,794 squares
# met with the outline on Baron Voodoo t00-b18, two reaches each, at 2 us a reach)
_reach_of = functools.lru_cache(maxsize=1024)(_reach)


def _alone_on_the_square(points: np.ndarray, marks: np.ndarray, picked: np.ndarray,
                         centre: tuple[float, float], turn: float, step: float | None, die_px: float,
                         count: int, contrast: np.ndarray, hull: np.ndarray | None = None) -> bool:
    """Every mark but the layout's off the square, and no mark at the grid points the face
    leaves empty (a 3 with its middle unseen is no 2; a 5 is no 1).  Contrast round an empty
    grid point may be a halo: of one mark off the square, or of the light beyond the face on
    one of its sides (its rounded rim catching the lamp in a streak), falling away all the way
    from it through the point (``_halo``), where a pip left faint would rise again.  The grid
    points a rim's streak so explains lie on one side of the face, and none is then a mark's
    halo: a 4, a 5 or a 6 has pips a 2's or a 3's layout leaves empty on two sides at least."""
    rest = the_rest(marks, picked)
    if not _off_the_square(points[rest], centre, turn, step, die_px):
        return False
    if step is None:
        return _clear_round_a_one(contrast, centre, die_px, hull)
    return _grid_clear(points[rest], centre, turn, step, count, contrast)


def _off_the_square(others: np.ndarray, centre: tuple[float, float], turn: float, step: float | None,
                    die_px: float) -> bool:
    """Every mark but the layout's (``others``, crop px) past the face's grid by more than a
    mark's fit: its rounded rim catching the lamp, or a side's."""
    c, s = math.cos(turn), math.sin(turn)
    off = ONE_CLEAR[1] * die_px if step is None else (1 + DIE_FIT) * step
    dx, dy = others[:, 0] - centre[0], others[:, 1] - centre[1]
    u, v = dx * c + dy * s, dy * c - dx * s
    return not (np.maximum(np.abs(u), np.abs(v)) <= off).any()


def _clear_round_a_one(contrast: np.ndarray, centre: tuple[float, float], die_px: float,
                       hull: np.ndarray | None) -> bool:
    """A face of one: no mark in a ring round its pip holding every grid point (whatever the
    square's turn), or only the light on its rounded rim (``_rising_to_the_rim``)."""
    h, w = contrast.shape
    # (the ring's box, a pixel over: a crop's every pixel measured was 5 ms a 1 tried)
    reach = ONE_CLEAR[1] * die_px + 1
    y0, y1 = max(0, math.floor(centre[1] - reach)), min(h, math.ceil(centre[1] + reach) + 1)
    x0, x1 = max(0, math.floor(centre[0] - reach)), min(w, math.ceil(centre[0] + reach) + 1)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    r = np.hypot(xx - centre[0], yy - centre[1]) / die_px
    ring = (r >= ONE_CLEAR[0]) & (r <= ONE_CLEAR[1])
    if not ring.any():
        return False
    if float(contrast[y0:y1, x0:x1][ring].max()) < NO_PIP:
        return True
    return hull is not None and _rising_to_the_rim(contrast, centre, die_px, hull)


def _grid_clear(others: np.ndarray, centre: tuple[float, float], turn: float, step: float, count: int,
                contrast: np.ndarray) -> bool:
    """No mark at the grid points a face of ``count`` at ``step`` leaves empty but a halo (see
    ``_alone_on_the_square``); ``others``: the marks off the face (crop px)."""
    c, s = math.cos(turn), math.sin(turn)
    reach = max(1, int(round(DIE_FIT * step)))
    halos: list[tuple[int, int]] = []  # empty grid points whose contrast is an off-square mark's
    # halo: one at most (a 4's two other corners, or a 6's four other pips, lie on two sides of
    # the face: never both so)
    rimmed: list[tuple[int, int]] = []  # and those a streak beyond the face's side lights
    # (only where a pip missed makes another face, ``MISSABLE``: a 3's marks are a 3's or a
    # 5's, so light at the middle of its side, a rim's streak or a reflection, is no pip)
    for gx, gy in sorted(MISSABLE[count]):
        x = int(round(centre[0] + step * (gx * c - gy * s)))
        y = int(round(centre[1] + step * (gx * s + gy * c)))
        near = contrast[max(0, y - reach):max(0, y + reach + 1), max(0, x - reach):max(0, x + reach + 1)]
        if not near.size:
            return False
        if float(near.max()) >= NO_PIP:
            beyond = _light_beyond(contrast, (x, y), centre, c, s, step)
            if beyond is not None and _halo(contrast, (x, y), beyond, step):
                rimmed.append((gx, gy))
                continue
            halos.append((gx, gy))
            if len(halos) > 1 or not _halo(contrast, (x, y), others, step):
                return False
    # (and, with no mark anywhere off the face, light at grid points that no missed pips make
    # another face at is no face's: a lamp lighting a die's rounded rim all round lights a 2's
    # other corner and a side's middle, where a 4 would need both other corners.  A mark off
    # the face may be a pip of a larger face the square was fitted inside: a 6's middle row
    # fits a 2's diagonal at a smaller step, its other pips lighting the grid points round it)
    return not rimmed or (not halos and _one_side(rimmed)) \
        or (not len(others) and not completes_a_face(count, {*rimmed, *halos}))


def _past_the_top(others: np.ndarray, centre: tuple[float, float], turn: float, die_px: float,
                  outward: tuple[float, float]) -> bool:
    """Does a clear mark off the face lie farther out from the camera's nadir than the top's
    square reaches?  A side's marks lie nearer the nadir than the top (the sides are swept
    between top and foot), so a mark beyond the top, inside the die's outline, is the top's
    own: the square is not the top (a 2's corner pip by the far rim, its colour lost to the
    pip's light, beside a 1's square round the other).  The same rule as a laid-out face's
    (``die_layout.PAST_THE_TOP``), for a 1, which has no step to measure it in."""
    if not len(others):
        return False
    ux, uy = outward
    along = (others[:, 0] - centre[0]) * ux + (others[:, 1] - centre[1]) * uy
    return bool((along > _reach(turn, die_px, outward) - EDGE_FIT * die_px).any())


def _rising_to_the_rim(contrast: np.ndarray, centre: tuple[float, float], die_px: float,
                       hull: np.ndarray) -> bool:
    """Is all the contrast in a ring round a 1's pip (``ONE_CLEAR``) as strong as a mark's
    the inward slope of the light on the face's rounded rim (on a dark die lit lighter than
    its face, as a pip is)?  Then, on each way straight out from the pip (a degree apart), it
    rises all the way from where it first reaches ``NO_PIP`` in the ring to its peak, and that
    peak lies within the rim's width (``RIM_IN``) of where the die's colour ends (its
    ``hull``; the rim's light past the colour: at its end).  A pip at a grid point (a 6's
    side, a 3's or a 5's corner) peaks a fifth of a face or more inside the face's edge."""
    h, w = contrast.shape
    angles = np.radians(np.arange(360.0))[:, None]
    t = np.arange(ONE_CLEAR[0] * die_px, math.hypot(h, w), 1.0)
    # (no way's sample, rounded to a pixel, lies in the colour a pixel past its farthest: the ways
    # end one sample past that, every one out of it there, as it is on to the crop's corner)
    ys, xs = np.nonzero(hull)
    farthest = float(np.hypot(xs - centre[0], ys - centre[1]).max()) + 1.0 if len(xs) else 0.0
    t = t[None, :int(np.searchsorted(t, farthest, side="right")) + 1]
    fx, fy = centre[0] + t * np.cos(angles), centre[1] + t * np.sin(angles)
    xs, ys = np.round(fx).astype(int), np.round(fy).astype(int)
    seen = (xs >= 0) & (ys >= 0) & (xs < w) & (ys < h)
    xc, yc = np.clip(xs, 0, w - 1), np.clip(ys, 0, h - 1)
    within = np.logical_and.accumulate(seen & (hull[yc, xc] > 0), axis=1)
    # (interpolated: a way rounded to whole pixels zigzags across a slope)
    values = cv2.remap(contrast.astype(np.float32), fx.astype(np.float32), fy.astype(np.float32),
                       cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    marked = within & (values >= NO_PIP) & (t <= ONE_CLEAR[1] * die_px)
    ways = np.flatnonzero(marked.any(axis=1))  # (every way at once: one at a time was 4 ms a 1)
    first = np.argmax(marked[ways], axis=1)
    last = np.argmin(within[ways], axis=1)  # the first sample past the colour (0: it reaches the crop's edge)
    if (last == 0).any() or not seen[ways, last].all():
        return False
    at = np.arange(t.shape[1])[None, :]
    peak = np.argmax(np.where((at >= first[:, None]) & (at <= last[:, None]), values[ways], -np.inf), axis=1)
    falls = (np.diff(values[ways], axis=1) < -HALO_RISE) & (at[:, 1:] > first[:, None]) \
        & (at[:, 1:] <= peak[:, None])  # (between a way's first mark and its peak)
    return not ((t[0, last] - t[0, peak] > RIM_IN * die_px).any() or falls.any())


def _light_beyond(contrast: np.ndarray, at: tuple[int, int], centre: tuple[float, float], c: float, s: float,
                  step: float) -> np.ndarray | None:
    """The strongest contrast beyond the face (``BEYOND_THE_FACE`` steps from its centre on
    either axis, where no pip lies) within ``HALO_REACH`` steps of a grid point (crop px, 1 x 2),
    or None where none lies so near."""
    h, w = contrast.shape
    r = int(np.ceil(HALO_REACH * step))
    y0, y1, x0, x1 = max(0, at[1] - r), min(h, at[1] + r + 1), max(0, at[0] - r), min(w, at[0] + r + 1)
    if y1 <= y0 or x1 <= x0:
        return None
    ys, xs = np.mgrid[y0:y1, x0:x1]
    dx, dy = xs - centre[0], ys - centre[1]
    off = np.maximum(np.abs(dx * c + dy * s), np.abs(dy * c - dx * s)) / step
    where = (off > BEYOND_THE_FACE) & (np.hypot(xs - at[0], ys - at[1]) <= HALO_REACH * step)
    if not where.any():
        return None
    window = np.where(where, contrast[y0:y1, x0:x1], -1.0)
    k = int(np.argmax(window))
    return np.array([[float(xs.flat[k]), float(ys.flat[k])]])


def _one_side(points: list[tuple[int, int]]) -> bool:
    """Do grid points (in steps from a face's centre) all lie on one side of the face?"""
    return any(len({p[axis] for p in points}) == 1 and points[0][axis] != 0 for axis in (0, 1))


def _halo(contrast: np.ndarray, at: tuple[int, int], others: np.ndarray, step: float) -> bool:
    """Is the contrast round an empty grid point the blurred rim of a mark off the face (its
    rounded edge's highlight, a side's mark) within ``HALO_REACH`` steps of it?  Then it falls
    away from that mark all along the line through the grid point and on past it; a pip at
    the grid point would rise there again."""
    h, w = contrast.shape
    if not (0 <= at[0] < w and 0 <= at[1] < h):
        return False  # a grid point off the patch: what lies there is not seen, so no halo is
    for ox, oy in others:
        dx, dy = at[0] - ox, at[1] - oy
        d = math.hypot(dx, dy)
        if d < 1e-6 or d > HALO_REACH * step:
            continue
        t = np.linspace(0.0, 1.0 + DIE_FIT * step / d, max(4, int(2 * d)))
        xs = np.clip(np.round(ox + t * dx).astype(int), 0, w - 1)
        ys = np.clip(np.round(oy + t * dy).astype(int), 0, h - 1)
        line = contrast[ys, xs]
        if (np.diff(line) <= HALO_RISE).all() and float(contrast[at[1], at[0]]) < SURE_MARK:
            return True
    return False


def _rim_past_colour(gray: np.ndarray, level: float, hull: np.ndarray, die_px: float) -> np.ndarray:
    """A die's rounded rim where its colour's outline (``hull``) left it out: within a rim's
    width of that outline (``RIM_IN``), the pixels as dark as the die against the board round
    it (nearer the die's grey ``level`` than the board's), or as light for a light die on a
    darker board.  A rim's slopes face away from the camera and the lamp, so a purple die's
    read a darker, greyer purple than its colour, and its top's square reaches past the colour
    by that much; a shade on the board beyond is no farther than a rim's width taken.  Nothing
    where the die and the board are alike in brightness (``RIM_APART``)."""
    width = max(1, int(round(RIM_IN * die_px)))
    near = cv2.dilate(hull, np.ones((2 * width + 1, 2 * width + 1), np.uint8)) > 0
    round_it = cv2.dilate(near.view(np.uint8), np.ones((5, 5), np.uint8)) > 0
    board = gray[~round_it]
    if board.size < 20:
        return np.zeros_like(hull)
    apart = float(np.median(board)) - level
    if abs(apart) < RIM_APART:
        return np.zeros_like(hull)
    middle = level + apart / 2
    like = (gray <= middle) if apart > 0 else (gray >= middle)
    return (near & like & (hull == 0)).astype(hull.dtype)


RIM_APART = 40  # a die's grey and the board's this far apart at least to tell its rim by brightness


def _covered(hull: np.ndarray, centre: tuple[float, float], turn: float, die_px: float) -> bool:
    """Does the square, less its rounded rim, lie within the outline?"""
    half = die_px / 2 * (1 - RIM_IN)
    c, s = math.cos(turn), math.sin(turn)
    corners = np.array([[centre[0] + half * (a * c - b * s), centre[1] + half * (a * s + b * c)]
                        for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))], np.float32)
    square = np.zeros(hull.shape, np.uint8)
    cv2.fillConvexPoly(square, np.round(corners).astype(np.int32), 1)
    inside = np.count_nonzero(square)
    clipped = (die_px * (1 - RIM_IN)) ** 2 - inside  # parts of it past the crop's edge
    return inside > 0 and clipped < 0.1 * inside and np.count_nonzero(square & hull) >= COVERED * inside


def reflection_off_a_low_face(crop: np.ndarray, mask: np.ndarray, face: tuple[np.ndarray, float],
                              gray: np.ndarray, rim_share: float, die_px: float, count: int,
                              light_ink: bool | None = None) -> bool:
    """Does a lamp's reflection on a die's face of 2 or 3 (its ``count``, already read clear)
    lie clear of every grid point where it may hide a pip or pass for one?  The face's grid is
    the one its marks lay out (a 2's or a 3's outer marks on a diagonal a face's step apart,
    ``_square``), every other mark off that square (a side's) and none at its empty grid
    points (``_alone_on_the_square``), one such layout only.  On a light face a reflection
    only lightens: at no empty grid point may the lifted patch cover a quarter of a pip's
    disc (a 3's middle, a 4's or a 6's other pips, hidden under it).  On a dark face it may
    pass for a pip too: at no grid point (``lit_over_a_place``).  Its marks are looked for as
    ``low_face`` looks: inside the outline less its rim, then less half of it (a corner pip by a
    rim that catches the light).  ``light_ink``: the marks lighter than the face (a dark
    die's, however lit), or darker; None: as its brightness tells.  False for anything else."""
    if count not in (2, 3):
        return False
    hull, body_area = face
    rim = max(1, int(round(rim_share * np.sqrt(body_area))))
    for within in _insets(rim):  # as ``low_face`` looks for them
        filled = cv2.erode(hull, np.ones((2 * within + 1, 2 * within + 1), np.uint8),
                           borderType=cv2.BORDER_CONSTANT, borderValue=0)
        level, _pip, _contrast, whole, _radius, _window, _n, centres, values = _peaks(gray, mask, filled,
                                                                                      body_area, light_ink)
        points = centres[1:]
        marks = np.flatnonzero(values >= SEEN_MARK)
        layouts = []
        for picked in itertools.combinations(np.flatnonzero(values >= SURE_MARK), count):
            chosen = np.array(picked)
            for (cx, cy), turn, step in _square(points[chosen], count, die_px, whole):
                assert step is not None
                if _alone_on_the_square(points, marks, chosen, (cx, cy), turn, step, die_px, count, whole):
                    layouts.append(((cx, cy), step, math.cos(turn), math.sin(turn)))
        if layouts:
            dark = light_marks(level, light_ink)
            return len(layouts) == 1 and not lit_over_a_place(crop, mask, hull, layouts[0], count, dark)
    return False
