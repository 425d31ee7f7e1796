"""Flat pieces side by side as one blob, parted at the neck between them.

Two flat pieces of one colour on neighbouring places (Jivecat's black Skull tokens in a row)
lie a millimetre or two apart; from a slant or at a coarse camera the shade in that gap reads
as their colour in a pixel or two, and closing the pieces' mask (``Blobs._blobs_in``) joins
them.  The blob is then twice a piece long, its centre on the gap between two places, and it
was left unread: "something over it?" at both places.  Eroding it a pixel or two parts it at
the neck; each part grown back over the blob's own pixels (to the nearest core) is one piece
where it lies.  It is kept only when every part is one piece as its place expects: on a place
of its own, as large as that place's piece, of one piece's shape (else the blob is read as
before).  Standing figures and dice are not parted: a figure's head and base, or a die's top
and its sides, meet at a neck too (``standing.py``, ``die_sides.py``).
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from companion.vision.reading import SQUARE3, one_piece_shape

NECK_ERODED_PX = 2  # a neck up to this many erosions (3x3) thick is parted: 2-4 px of the
# sampled board (1 px a mm), what a shade between two pieces a millimetre or two apart fills

Patch = tuple[int, tuple[float, float], tuple[int, int, int, int, int], float]


def parted_at_neck(blob: np.ndarray, least_px: float) -> list[np.ndarray] | None:
    """A blob's mask (uint8, 0/1) parted at its necks: two or more masks of its pixels, each
    those nearest one core of at least ``least_px`` left by eroding it up to
    ``NECK_ERODED_PX`` times; None when no erosion leaves two such cores."""
    core = blob
    for _ in range(NECK_ERODED_PX):
        core = cv2.erode(core, SQUARE3, borderType=cv2.BORDER_CONSTANT, borderValue=0)
        n, labels, stats, _centres = cv2.connectedComponentsWithStats(core, connectivity=8)
        big = [k for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= least_px]
        if len(big) >= 2:
            break
    else:
        return None
    seeds = np.isin(labels, big)
    # every pixel's nearest seed pixel's component (the seeds are the zeros it measures from)
    _distance, nearest = cv2.distanceTransformWithLabels(
        (~seeds).astype(np.uint8), cv2.DIST_L2, 5, labelType=cv2.DIST_LABEL_CCOMP)
    parts = []
    for k in big:
        ys, xs = np.nonzero(labels == k)
        parts.append((nearest == nearest[ys[0], xs[0]]) & (blob > 0))
    return parts


def neck_patches(patch: Patch, blob: np.ndarray, corner: tuple[int, int], least_px: float,
                 place_at: Callable[[float, float], str | None],
                 fits: Callable[[str, float], bool]) -> list[Patch] | None:
    """One colour's patch (index, centre, box and area, purity) of the blob whose mask
    ``blob`` has its box's ``corner`` at (x, y), as the flat pieces it joins: one patch per part
    (``parted_at_neck``), when each lies on a place of its own (``place_at``, sampled px),
    fits it (``fits``: the place and the part's area, px) and has one piece's shape; else None."""
    parts = parted_at_neck(blob, least_px)
    x, y = corner
    if parts is None:
        return None
    out: list[Patch] = []
    places: set[str] = set()
    for part in parts:
        bx, by, bw, bh = cv2.boundingRect(part.view(np.uint8))
        ys, xs = np.nonzero(part)
        area = len(xs)
        centre = (float(xs.mean()) + x, float(ys.mean()) + y)
        place = place_at(*centre)
        if place is None or place in places or not fits(place, area) \
                or not one_piece_shape(bw, bh):
            return None
        places.add(place)
        out.append((patch[0], centre, (bx + x, by + y, bw, bh, area), patch[3]))
    return out
