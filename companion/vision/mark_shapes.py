"""Whether the peaks counted on a piece are marks: none at its outline's edge (a side face's),
none wider than a mark (a reflection's broad lift), none drawn out into a line (a die's lit
rounded edge), none on the piece where its colour was not seen.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.mark_peaks import _SQUARE3, FAINT_MARK, _peaks, outline

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
    # (where both are set: OpenCV's masked copy, one pass for numpy's three)
    both = cv2.bitwise_and(near, near, mask=mask) if mask.dtype == np.uint8 else near * (mask > 0)
    joined[labels[both != 0]] = 1
    joined[0] = 0
    # (one part: it is all of ``near``, 0/1 as the lookup gives it, or none; no lookup)
    face = outline((near if joined[1] else np.zeros_like(near)) if n == 2 else joined[labels])
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


def _inside_distance(hull: np.ndarray) -> np.ndarray:
    """Each pixel's distance in from the outline of ``hull`` (0/1), the crop's edge counting as
    outside it."""
    # (OpenCV pads the crop and clamps the marks' pixels: np.pad and np.clip cost a third of it)
    padded = cv2.copyMakeBorder(hull.astype(np.uint8, copy=False), 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    return cv2.distanceTransform(padded, cv2.DIST_L2, 3)[1:-1, 1:-1]


def _depth(hull: np.ndarray, centres: np.ndarray, body_area: float,
           inside: np.ndarray | None = None) -> np.ndarray:
    """How far in from the piece's outline each mark lies, as a share of its width.  A
    top's marks stand a quarter of its width in from its edge (a printed face's, 0.27); seen
    from a camera off to one side a die shows a side face too, joined to its top in one
    outline, and that face's marks lie in the thin strip it makes at the outline's edge
    (``EDGE_SHARE``).  ``inside``: ``hull``'s ``_inside_distance``, when the caller has it."""
    inside = _inside_distance(hull) if inside is None else inside
    h, w = hull.shape
    xs = np.minimum(np.maximum(np.round(centres[:, 0]).astype(int), 0), w - 1)
    ys = np.minimum(np.maximum(np.round(centres[:, 1]).astype(int), 0), h - 1)
    return inside[ys, xs] / np.sqrt(max(body_area, 1.0))


def dark_mark_inside(gray: np.ndarray, mask: np.ndarray, filled: np.ndarray, hull: np.ndarray,
                     body_area: float) -> bool:
    """A mark darker than a face lit past mid-grey, away from its outline, where its light
    marks were counted?  A dark die's pips are lighter than its face, but under a lamp's
    hotspot the face washes out past a drilled pip's shade: a 5's middle pip there reads
    darker than the face round it, and the light marks alone leave a 4."""
    *_rest, centres, values = _peaks(gray, mask, filled, body_area, light_ink=False)
    seen = values >= FAINT_MARK
    return bool(seen.any() and (_depth(hull, centres[1:][seen], body_area) >= EDGE_SHARE).any())


RAMP_RISE = 1.15  # a peak at a flat piece's rim whose contrast rises this much on, outward, is the rim's blur


def _rim_ramps(whole: np.ndarray, hull: np.ndarray, centres: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Which peaks (``centres``, crop px; ``values``, their contrast) lie on a ramp of contrast
    that keeps rising past them out over the outline (``whole``: the contrast everywhere, the
    board round the piece included), never falling between: the piece's edge blurred into a
    lighter board round a dark piece (or a darker round a light one), which the outline's
    inset (``filled``) cuts off at its first row, where it passes for a peak.  A mark near
    the rim falls away again before the rim (its own disc), then the board may rise."""
    inside = _inside_distance(hull)
    gy, gx = np.gradient(inside)
    h, w = whole.shape
    ramps = np.zeros(len(centres), bool)
    for i, ((cx, cy), value) in enumerate(zip(centres, values, strict=True)):
        x, y = int(round(cx)), int(round(cy))
        if not (0 <= x < w and 0 <= y < h):
            continue
        ox, oy = -float(gx[y, x]), -float(gy[y, x])  # outward: down the distance to the outline
        norm = float(np.hypot(ox, oy))
        if norm < 1e-6:
            continue
        steps = np.arange(1, int(np.ceil(inside[y, x])) + 4)
        xs = np.clip(np.round(cx + steps * ox / norm).astype(int), 0, w - 1)
        ys = np.clip(np.round(cy + steps * oy / norm).astype(int), 0, h - 1)
        line = whole[ys, xs]
        ramps[i] = bool((line >= value * 0.97).all() and float(line.max()) >= RAMP_RISE * value)
    return ramps


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
    # (clamped as ``np.clip`` clamps, without its dispatch: a few marks)
    xs = np.minimum(np.maximum(np.round(centres[:, 0]).astype(int), 0), w - 1)
    ys = np.minimum(np.maximum(np.round(centres[:, 1]).astype(int), 0), h - 1)
    # the marks of a face peak alike: one pass at the faintest one's half height, each
    # spread shared by the peaks in it, holds each one's spread at its own height or wider
    # (each spread's area from its labels, background and all: the same areas as
    # ``sized_components``, without its centres, whose sums over the set pixels cost more here)
    n, labels = cv2.connectedComponentsWithAlgorithm((contrast >= float(values.min()) / 2).view(np.uint8), 8,
                                                     cv2.CV_32S, cv2.CCL_BBDT)
    area = np.bincount(labels.ravel(), minlength=n)
    at = labels[ys, xs]
    first = area[at] / np.bincount(at, minlength=n)[at]
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
