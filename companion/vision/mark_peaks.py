"""A piece's marks as peaks of contrast on a sharp crop of it: its outline from its colour
mask, its body's brightness, and the peaks of the marks' contrast against it.

The ground the mark counters stand on (``pips.py``, ``die_layout.py``, ``mark_shapes.py``,
``pip_reflections.py``): it sees one piece's crop, nothing of the board.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

_SQUARE3 = np.ones((3, 3), np.uint8)
SURE_MARK = 0.30  # a mark's contrast (``_peaks``) at least this: clear; 0.15 up: faint
FAINT_MARK = 0.15  # ... at least this: a faint mark, still one


def connected_components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """8-connected components with their boxes and centres, by Grana's block-based scan
    (half the time of OpenCV's default with statistics on a board's worth of pieces)."""
    return cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_BBDT)


def sized_components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``connected_components``' count, labels, areas and centres (the background's first),
    the same to the last bit, for a crop's few set pixels (its peaks, its marks' spreads):
    OpenCV's statistics cost a pass over every pixel, set or not, four times its labelling
    on a piece's crop.  Here only the set pixels are summed, each centre its whole-number
    sums over its area as OpenCV divides them (the background's: the whole crop's sums less
    the set pixels')."""
    n, labels = cv2.connectedComponentsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_BBDT)
    h, w = mask.shape
    found = cv2.findNonZero(mask)
    xs, ys = found.reshape(-1, 2).T if found is not None else (np.zeros(0, np.int32),) * 2
    at = labels[ys, xs]
    area = np.bincount(at, minlength=n)
    sums = np.stack([np.bincount(at, xs, minlength=n), np.bincount(at, ys, minlength=n)], axis=1)
    area[0] = h * w - len(xs)
    sums[0] = (h * (w * (w - 1) // 2) - int(xs.sum()), w * (h * (h - 1) // 2) - int(ys.sum()))
    with np.errstate(divide="ignore", invalid="ignore"):  # (no background: OpenCV's 0/0 too)
        return n, labels, area, sums / area[:, None]


def median_under(gray: np.ndarray, mask: np.ndarray) -> float:
    """``np.median(gray[mask > 0])`` to the last bit (the mean of the two middle levels of an
    even count), from the masked histogram: numpy sorts a die's face's pixels for it, three
    times the histogram's cost.  NaN for no pixel, as numpy's."""
    if gray.dtype != np.uint8 or mask.dtype != np.uint8 or gray.ndim != 2:
        return float(np.median(gray[mask > 0]))
    counted = np.cumsum(cv2.calcHist([gray], [0], mask, [256], [0, 256]).ravel())
    n = int(counted[-1])
    if not n:
        return float("nan")
    low, high = np.searchsorted(counted, [(n - 1) // 2 + 1, n // 2 + 1])
    return (int(low) + int(high)) / 2


def percentile_under(gray: np.ndarray, mask: np.ndarray, q: int) -> float:
    """``np.percentile(gray[mask > 0], q)`` to the last bit (its linear method: the two levels
    round ``(n - 1) q / 100`` in order, weighed as numpy weighs them), from the masked histogram:
    numpy's own costs a piece's crop ten times more.  Levels of 8 bits and a 0/1 mask only."""
    counted = np.cumsum(cv2.calcHist([gray], [0], mask, [256], [0, 256]).ravel())
    n = int(counted[-1])
    at = (n - 1) * (q / 100)
    if at >= n - 1:  # (numpy's last level; and NaN for none, as numpy's)
        return float(np.searchsorted(counted, n)) if n else float("nan")
    low = math.floor(at)
    a, b = (int(v) for v in np.searchsorted(counted, [low + 1, low + 2]))
    t = at - low
    return a + (b - a) * t if t < 0.5 else b - (b - a) * (1 - t)


SMALL_PX = 1500  # a crop this small: its median picked from its pixels, not a histogram


def _lower_median(pixels: np.ndarray) -> np.ndarray:
    """The median of some pixels (N, or N x channels) as the histograms take it: the value at
    which half of them (rounded up) are counted; 0 for none."""
    if not len(pixels):
        return np.zeros(pixels.shape[1:], np.float32)
    k = (len(pixels) + 1) // 2 - 1
    return np.partition(pixels, k, axis=0)[k].astype(np.float32)


def _median_where(gray: np.ndarray, mask: np.ndarray) -> float:
    """The median grey level under a mask, from its histogram (a sort of every pixel costs
    more than the rest of a piece's marks); on a small crop (a mark's, a spot's) from its
    pixels, which costs a tenth of the histogram there."""
    if mask.size <= SMALL_PX and gray.dtype == np.uint8:
        return float(_lower_median(gray[mask != 0]))
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
    than the rest of a piece's reflection check); on a small crop from its pixels."""
    if mask.size <= SMALL_PX and crop.dtype == np.uint8:
        return _lower_median(crop[mask != 0])
    if crop.dtype != np.uint8 or crop.ndim != 3 or crop.shape[2] != 3 or mask.dtype != np.uint8:
        return np.array([_median_where(channel, mask) for channel in cv2.split(crop)], np.float32)
    # as ``_median_where`` takes each channel's (the first level whose count reaches half), the
    # three histograms at once, each of its channel of the crop as it lies (no split), end to
    # end in one row a channel (a stack and sums down its columns cost a fifth more)
    counted = np.concatenate([cv2.calcHist([crop], [c], mask, [256], [0, 256]) for c in range(3)]
                             ).reshape(3, 256).cumsum(axis=1)
    return np.count_nonzero(counted < counted[:, -1:] / 2, axis=1).astype(np.float32)


MID_GREY = 128  # a face at most this grey bears lighter marks, as its grey alone tells


def light_marks(level: float, light_ink: bool | None = None) -> bool:
    """Are a face's marks lighter than it?  As the piece's colour says (``light_ink``: a dark
    die's are, however a lamp lifts its face), or else as the face's grey ``level`` tells."""
    return level <= MID_GREY if light_ink is None else light_ink


def _peaks(gray: np.ndarray, mask: np.ndarray, filled: np.ndarray, body_area: float,
           light_ink: bool | None = None) -> tuple:
    """The marks' contrast on a piece and its peaks within ``filled`` (its outline less its
    rim): the body's grey level, the ink's, the contrast there and everywhere (``whole``),
    the piece's half-width, the peaks' window, and the peaks (a component count with
    OpenCV's background first, their centres and contrasts).  ``light_ink``: are the marks
    lighter than the body (a dark die's: however a lamp lifts its face, its pips are lighter
    still), or darker; None: as the body's grey tells (lighter marks on a darker body)."""
    level = _median_where(gray, mask)  # a whole grey level (the histogram's)
    pip = 235.0 if light_marks(level, light_ink) else 20.0
    # ink is darker than a light body, lighter than a dark one: the other way is no mark (a
    # reflection lightens a light body).  Whole levels: OpenCV's saturating difference is the
    # difference taken where it is towards the ink and 0 elsewhere, exactly
    towards = cv2.subtract(gray, level) if pip > level else cv2.subtract(np.full_like(gray, int(level)), gray)
    # (single precision: half the blur's and the dilation's cost of double, every read the same)
    contrast = towards.astype(np.float32) / np.float32(max(abs(pip - level), 30.0))
    radius = 0.53 * np.sqrt(body_area)  # the piece's half-width, in crop pixels
    contrast = cv2.GaussianBlur(contrast, (0, 0), max(0.8, 0.07 * radius))
    whole = contrast.copy()  # for marks past what the piece's colour covers
    contrast[filled == 0] = 0
    window = max(3, int(0.3 * radius) | 1)
    peaks = (contrast >= cv2.dilate(contrast, np.ones((window, window), np.uint8))) & (contrast > 0.12)
    n, _, _, centres = sized_components(peaks.view(np.uint8))
    at = np.round(centres[1:]).astype(np.intp)  # (half to even, as ``round``)
    values = contrast[at[:, 1], at[:, 0]].astype(np.float32)
    return level, pip, contrast, whole, radius, window, n, centres, values
