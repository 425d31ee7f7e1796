"""A flat piece's top inside a lamp's pool, told by the cliff its rim makes in the lift.

Under a strong reflection a white chip on a cream print is the print with light added, as
evenly in every channel as the reflection adds it round the chip: pixel by pixel it passes for
the board lifted (``glare.Glare.washed_core``), and only a crescent of its shadow does not,
too thin to hide a piece.  What the eye goes by is its rim: a reflection's lift fades over
centimetres, a chip's ends where the chip does, so the lift falls off a cliff round much of a
circle a piece's size (not all of it: where the pool is lit as brightly as the top, none).
That cliff is looked for over one plain colour of print (a print's edge drawn a pixel off
steps too, along the print's straight lines) and clear of a clipped core (whose lift is not
seen), as thin edges (OpenCV's Canny on the lift), and each edge that runs round ``RIM_SPAN``
of a circle a piece's size marks that disc as not seen to be the board.  A top darker than
the pool round it rings a cliff too, the lift falling inwards (a yellow chip in a pendant's
pool on laminated paper: the pool clips the print's green and red, the chip's blue stays below
the print's, and half of it, over a printed number, passed for the print): that disc counts
only where its lift is below none, as no reflection takes light away.  Worked on the board
sampled at 1 px a mm.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.reading import SCALE

RIM_CLIFF = 0.04  # the lift (in the light, 0-1) falls this much a millimetre at a piece's rim, at least
RIM_PX = 12  # an edge this long, at least, may be a rim (a speck of noise is none)
RIM_RADIUS_MM = (4.0, 15.0)  # the circle it runs round is a piece's size: a chip's, a token's
RIM_RMS = 1.0  # px: an arc of it lies this close to that circle (a crooked edge is no rim)
RIM_NEAR = 1.5  # px: the rim's edges round that circle lie this close to it
RIM_SPAN = np.radians(150)  # and run round this much of it, at least (a bend of a line does not; a
# yellow chip's rim in a window's pool showed round 160 degrees, the rest lit as the pool)
CLEAR_OF_CLIPPED = np.ones((5, 5), np.uint8)  # a clipped core's rim: its lift climbs steeply to it
_SCALE_TO_U8 = 200.0  # the lift as 8-bit values for Canny: -0.25..1 to 0..250


def ringed_discs(level: np.ndarray, plain: np.ndarray, blind: np.ndarray) -> np.ndarray:
    """The discs a cliff in the lift rings round, the lift higher inside, or lower and below
    none (darker than the board with no light added).  ``level``: the lift
    in the light per pixel (``glare.lift_in_light``); ``plain``: where the empty board's print
    is one colour (no edge of it near); ``blind``: where the camera clipped every channel."""
    smooth = cv2.GaussianBlur(level.astype(np.float32), (0, 0), 1.0)
    scaled = np.clip((smooth + 0.25) * _SCALE_TO_U8, 0, 255).astype(np.uint8)
    # Canny's thresholds are on its Sobel gradient: 8 times the fall a pixel (a millimetre here)
    high = 8 * RIM_CLIFF * _SCALE_TO_U8 / SCALE
    edges = cv2.Canny(scaled, high / 2, high, L2gradient=True) > 0
    edges &= plain & ~(cv2.dilate(blind.view(np.uint8), CLEAR_OF_CLIPPED) > 0)
    out = np.zeros(level.shape, np.uint8)
    n, comp, stats, _ = cv2.connectedComponentsWithStats(edges.view(np.uint8), connectivity=8)
    if n <= 1:
        return out > 0
    ys, xs = np.nonzero(edges)
    gx = cv2.Sobel(smooth, cv2.CV_32F, 1, 0, ksize=3)[ys, xs]
    gy = cv2.Sobel(smooth, cv2.CV_32F, 0, 1, ksize=3)[ys, xs]
    labels = comp[ys, xs]
    for k in range(1, n):
        if int(stats[k, cv2.CC_STAT_AREA]) < RIM_PX:
            continue
        own = labels == k
        circle = fitted_circle(xs[own].astype(np.float64), ys[own].astype(np.float64))
        if circle is None:
            continue
        cx, cy, radius, rms = circle
        if not RIM_RADIUS_MM[0] * SCALE <= radius <= RIM_RADIUS_MM[1] * SCALE or rms > RIM_RMS:
            continue
        # the rim: every edge on that circle (a print's line or a shadow's end may break it into
        # arcs), the lift rising inwards across it, or falling, round ``RIM_SPAN`` of it at least
        dx, dy = cx - xs, cy - ys
        near = np.abs(np.hypot(dx, dy) - radius) <= RIM_NEAR
        inwards = gx * dx + gy * dy
        for on, rises in ((near & (inwards > 0), True), (near & (inwards < 0), False)):
            if int(on.sum()) < RIM_PX or angular_span(np.arctan2(-dy[on], -dx[on])) < RIM_SPAN:
                continue
            # (a pixel inside the rim: the edge lies on the cliff's middle, the top's blurred edge)
            centre, r = (int(round(cx)), int(round(cy))), int(radius - 1)
            if not rises:
                # a top darker than the pool round it is a piece's only where it is darker than
                # the board with no light added (no reflection takes light away): a darker print
                # lit less than the paper round it (Swing State's red spaces in a pendant's pool
                # on laminated paper) is lifted all the same.  (Judged in the disc's own box)
                y0, x0 = max(0, centre[1] - r - 1), max(0, centre[0] - r - 1)
                box = (slice(y0, centre[1] + r + 2), slice(x0, centre[0] + r + 2))
                disc = cv2.circle(np.zeros(smooth[box].shape, np.uint8), (centre[0] - x0, centre[1] - y0),
                                  r, 1, -1) > 0
                if not float(np.median(smooth[box][disc])) < 0:
                    continue
            cv2.circle(out, centre, r, 1, -1)
            break
    return out > 0


def fitted_circle(xs: np.ndarray, ys: np.ndarray) -> tuple[float, float, float, float] | None:
    """The circle nearest points, by least squares on its algebraic form (Kasa's fit, exact for
    points on a circle and good for an arc of one): centre, radius, and the points' rms
    distance off it (large for points on a line); None where no real circle fits."""
    a = np.column_stack([xs, ys, np.ones_like(xs)])
    solution, *_ = np.linalg.lstsq(a, xs * xs + ys * ys, rcond=None)
    cx, cy = solution[0] / 2, solution[1] / 2
    squared = solution[2] + cx * cx + cy * cy
    if not np.isfinite(squared) or squared <= 0:
        return None
    radius = float(np.sqrt(squared))
    rms = float(np.sqrt(np.mean((np.hypot(xs - cx, ys - cy) - radius) ** 2)))
    return float(cx), float(cy), radius, rms


def angular_span(angles: np.ndarray) -> float:
    """How much of a circle a set of directions covers (radians): all of it less the widest gap."""
    if not angles.size:
        return 0.0
    a = np.sort(np.mod(angles, 2 * np.pi))
    gaps = np.diff(np.concatenate([a, a[:1] + 2 * np.pi]))
    return float(2 * np.pi - gaps.max())
