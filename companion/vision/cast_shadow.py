"""A piece's cast shadow on the board: light, not a thing.

A lamp casts a shadow off every piece; where it falls on the empty board the board shows
through it, dimmed alike in every channel, its print's lines and edges still there.  The
light fitted to the board is smooth and cannot follow a shadow's edge, so what it leaves
unexplained there is judged here (for ``arms.py``): a shadow hides nothing, a piece shows
its own colour and a hand or a sleeve hides the print.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from companion.vision.reading import SCALE

SHADOW_DIMMED = (0.45, 0.95)  # a cast shadow leaves the board this share of its light, each channel ...
SHADOW_ALIKE = 0.06  # ... the three within this of each other (a share of the light) ...
SHADOW_ODD_SHARE = 0.2  # ... and at most this share of its pixels twice as far apart ...
SHADOW_PRINT = (0.6, 0.3, 1.1)  # ... its print detail following the print's this closely, with this share
# of its contrast at least and at most (where it has detail: ``EmptyBoard._print_detail``) ...
SHADOW_REACH_MM = 16.0  # ... and a piece this near it to cast it (a die's height: a lamp 45 degrees up)


PrintDetail = Callable[[np.ndarray, int, int, np.ndarray], "tuple[float, float] | None"]


def cast_shadow(flat: np.ndarray, reference: np.ndarray, components: np.ndarray, k: int, box: np.ndarray,
                blobs: np.ndarray, print_detail: PrintDetail) -> bool:
    """Is unexplained patch ``k`` (of ``components``, its box ``box``: x, y, w, h) the empty
    board (``reference``) in a piece's shadow, as ``flat`` shows it: the print dimmed alike in
    every channel, over the patch and pixel by pixel, its detail following the print's where
    it has any, and a piece's blob (``blobs``: labels of piece colours) near enough to cast
    it?"""
    x, y, w, h = (int(v) for v in box[:4])
    own = components[y:y + h, x:x + w] == k
    seen = flat[y:y + h, x:x + w][own].astype(np.float32)
    empty = reference[y:y + h, x:x + w][own].astype(np.float32)
    ratio = np.median(seen, axis=0) / np.maximum(np.median(empty, axis=0), 1.0)
    if not SHADOW_DIMMED[0] <= float(ratio.min()) <= float(ratio.max()) <= SHADOW_DIMMED[1] \
            or float(np.ptp(ratio)) > SHADOW_ALIKE:
        return False
    # pixel by pixel too: the board dimmed, no patch of another colour within it
    pixel = seen / np.maximum(empty, 1.0)
    if float(np.mean(np.ptp(pixel, axis=1) > 2 * SHADOW_ALIKE)) > SHADOW_ODD_SHARE:
        return False
    reach = int(round(SHADOW_REACH_MM * SCALE))
    y0, x0 = max(0, y - reach), max(0, x - reach)
    near = blobs[y0:y + h + reach, x0:x + w + reach] > 0
    placed = np.zeros(near.shape, np.uint8)
    placed[y - y0:y - y0 + h, x - x0:x - x0 + w] = own
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1))
    if not (near & (cv2.dilate(placed, disc) > 0)).any():
        return False  # no piece near enough to cast it
    detail = print_detail(own, x, y, flat)
    if detail is None:
        return True  # plain print (a cell's ground): its colour dimmed is all there is to judge
    corr, contrast = detail
    return corr >= SHADOW_PRINT[0] and SHADOW_PRINT[1] <= contrast <= SHADOW_PRINT[2]
