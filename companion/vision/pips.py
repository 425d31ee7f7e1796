"""Counting the marks on a piece (a die's pips, a token's dots) from a sharp crop of it.

Kept apart from the board reader: it sees one piece's colour mask and brightness,
nothing of the board, and calibration and tests call it on crops of their own.
"""

from __future__ import annotations

import cv2
import numpy as np


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


def count_pips(mask: np.ndarray, gray: np.ndarray | None = None) -> tuple[int, bool]:
    """Pips on a piece, and whether the count is clear.

    With the crop's brightness, a pip is a peak of contrast against the body's own
    brightness: a blurred pip keeps part of its contrast and its centre, even when
    blur has run it into its neighbour.  Unclear: a peak too faint to be sure of,
    either way.  Without it (die faces), marks are the holes in the colour mask.
    """
    if mask.size == 0:
        return 0, False
    closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return 0, False
    body = max(contours, key=cv2.contourArea)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, [cv2.convexHull(body)], -1, 1, -1)
    body_area = float(cv2.contourArea(body))
    hull_area = float(np.count_nonzero(filled))
    if gray is not None and np.count_nonzero(mask & filled) < 0.6 * hull_area:
        return 0, False  # the piece's own colour covers too little of it to judge its marks
    rim = max(1, int(round(0.07 * np.sqrt(body_area))))
    filled = cv2.erode(filled, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8),
                       borderType=cv2.BORDER_CONSTANT, borderValue=0)
    if gray is None or not mask.any():
        holes = cv2.morphologyEx((filled & (1 - mask)).astype(np.uint8), cv2.MORPH_OPEN,
                                 np.ones((2, 2), np.uint8))
        n, _, stats, _ = cv2.connectedComponentsWithStats(holes, connectivity=8)
        min_area = max(3.0, 0.004 * body_area)
        return int(sum(1 for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= min_area)), True
    level = _median_where(gray, mask)
    pip = 20.0 if level > 128 else 235.0
    contrast = np.abs(gray.astype(np.float32) - level) / max(abs(pip - level), 30.0)
    radius = 0.53 * np.sqrt(body_area)  # the piece's half-width, in crop pixels
    contrast = cv2.GaussianBlur(contrast, (0, 0), max(0.8, 0.07 * radius))
    contrast[filled == 0] = 0
    window = max(3, int(0.3 * radius) | 1)
    peaks = (contrast >= cv2.dilate(contrast, np.ones((window, window), np.uint8))) & (contrast > 0.12)
    n, _, _, centres = connected_components(peaks.astype(np.uint8))
    values = np.array([contrast[int(round(cy)), int(round(cx))] for cx, cy in centres[1:]], np.float32)
    strong = values >= 0.30
    faint = (values >= 0.15) & ~strong
    count = int(strong.sum())
    return count, bool(not faint.any() and count <= 9)
