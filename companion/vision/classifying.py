"""Each pixel's nearest calibrated colour, or none when it is far from all of them.

A part of ``BoardReader`` (``reader.py``): the methods here use its state.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from companion.vision.light import CLIPPED
from companion.vision.reading import SQUARE3, UNKNOWN

LOWER_BOUND_MATTERS = 240  # a clipped channel flattened below this may be a lighter colour's
SHEEN_HUE = 40  # a piece this far from grey (levels between its channels) shows its hue under a sheen
SHEEN_TINT_COSINE = 0.9  # a sheened face's tint points its colour's way this well (cosine) ...
SHEEN_TINT_APART = 0.08  # ... better by this than it points any other calibrated colour's ...
SHEEN_TINT_KEPT = 0.25  # ... keeping this share of the colour's tint at least ...
SHEEN_LIGHTER = 12.0  # ... and lighter than the colour by this many levels (a lift, not a shadow)
GREY_TINT_MAX = 15.0  # a colourless piece's face, light flattened, shows less tint than this


@functools.lru_cache(maxsize=4)
def _nearest_colour_table(centroids: bytes, weights: bytes, n_pieces: int) -> np.ndarray:
    """The table for one set of calibrated colours, kept for the next reader of the same
    colours (a reader made again after a restart, a re-calibration undone, a test's fresh
    reader): building it is a third of a second, and it never changes.  Read-only.  The
    first ``n_pieces`` colours are pieces', the rest surfaces' (``_by_tint`` mends it)."""
    weight = np.frombuffer(weights, np.float32)
    levels = (np.arange(64, dtype=np.uint8) << 2) + 2
    b, g, r = np.meshgrid(levels, levels, levels, indexing="ij")
    cube = np.stack([b, g, r], -1).reshape(-1, 1, 3)
    lab = cv2.cvtColor(cube, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
    lab *= weight
    weighted = np.frombuffer(centroids, np.float32).reshape(-1, 3) * weight
    # one centroid at a time, no matrix product: BLAS would keep a 32 MB buffer for good
    d = np.stack([((lab - c) ** 2).sum(1) for c in weighted], 1)
    best = d.argmin(1)
    far = d[np.arange(len(d)), best] > 30.0 ** 2
    table = np.where(far, UNKNOWN, best).astype(np.uint8)
    lab8 = np.clip(np.frombuffer(centroids, np.float32), 0, 255).astype(np.uint8).reshape(-1, 1, 3)
    colours = cv2.cvtColor(lab8, cv2.COLOR_LAB2BGR).reshape(-1, 3).astype(np.float32)
    table = _by_tint(cube.reshape(-1, 3).astype(np.float32), table, colours, n_pieces)
    table.setflags(write=False)
    return table


def _by_tint(bgr: np.ndarray, lut: np.ndarray, colours: np.ndarray, n_pieces: int) -> np.ndarray:
    """Nearest colours (``lut``, for N x 3 BGR) mended by their tint: the colour less its
    grey.  A lamp's reflection on glossy plastic mixes the face's colour with the lamp's
    white: lighter, paler, clipped in its strongest channel, but its tint still points the
    face's way.  So a colour near no calibrated one, lighter than a coloured piece's and
    tinted its way (and no other calibrated colour's) with a share of its tint left, is
    that piece's face; with too little tint left (a reflection's white core, a white pip)
    it is none.  And a colour nearest a colourless piece (white, grey, black) with a clear
    tint is no such piece (a pale yellow chip under a sheen is not white): the tinted
    piece's when it keeps that much of its tint, else unknown."""
    tints = colours - colours.mean(1, keepdims=True)
    sizes = np.linalg.norm(tints, axis=1)
    tinted = [i for i in range(n_pieces) if float(np.ptp(colours[i])) >= SHEEN_HUE]
    colourless = [i for i in range(n_pieces) if float(np.ptp(colours[i])) < SHEEN_HUE]
    if not tinted:
        return lut
    level = bgr.mean(1)
    tint = bgr - level[:, None]
    size = np.linalg.norm(tint, axis=1)
    cosine = (tint @ (tints / np.maximum(sizes, 1e-6)[:, None]).T) / np.maximum(size, 1e-6)[:, None]
    cosine[:, sizes < SHEEN_HUE / 2] = 0.0  # a colourless colour has no way to point
    best = cosine.argmax(1)
    runner_up = np.sort(cosine, axis=1)[:, -2]
    out = lut.copy()
    open_ = lut == UNKNOWN
    if colourless:
        tinted_grey = np.isin(lut, colourless) & (size >= GREY_TINT_MAX)
        out[tinted_grey] = UNKNOWN
        open_ |= tinted_grey
    for i in tinted:
        near = (best == i) & (cosine[:, i] >= SHEEN_TINT_COSINE) \
            & (runner_up <= cosine[:, i] - SHEEN_TINT_APART)
        out[open_ & near & (size >= SHEEN_TINT_KEPT * float(sizes[i]))
            & (level >= float(colours[i].mean()) + SHEEN_LIGHTER)] = i
    return out


class Classifying:
    """A lookup table from colour to the nearest calibrated colour, and its use."""

    def _build_lut(self) -> np.ndarray:
        """Nearest calibrated colour for every BGR value at 6 bits a channel, computed once
        for these colours; UNKNOWN where no calibrated colour is near."""
        return _nearest_colour_table(np.ascontiguousarray(self._centroids, np.float32).tobytes(),
                                     np.ascontiguousarray(self._weights, np.float32).tobytes(),
                                     len(self._piece_names))

    def _classify_seen(self, flat: np.ndarray, seen: np.ndarray) -> np.ndarray:
        """Labels of a flattened picture, where a channel the camera clipped (in ``seen``, the
        picture as sampled) counts as at least what it flattened to: a lamp of another colour
        clips one channel of a white face first, which flattens it below the face's own level
        (206 where it is 245), and the face then passed for a lighter print of the board
        (only a channel the light flattens below ``LOWER_BOUND_MATTERS`` is so judged).  A
        pixel beside a clipped one counts so too (sampling mixes the clipped values in: 236
        where the face's pips' rims showed 255).  A pixel so in every channel is left as it is
        (a reflection's rim: the glare check judges those)."""
        labels = self._classify(flat)
        floor = self.light.clipped_floor
        lowered = floor < LOWER_BOUND_MATTERS if floor is not None else np.zeros(3, bool)
        if not lowered.any():  # a clipped channel flattens to about white: nothing to raise
            return labels
        near = cv2.dilate(seen, SQUARE3)  # each channel's highest value round each pixel
        unclipped = cv2.inRange(near, (0, 0, 0), tuple(CLIPPED - 1 if low else 255 for low in lowered))
        if cv2.countNonZero(unclipped) == unclipped.size:
            return labels
        # only what is no piece's colour yet may be one (a lower bound lifts nothing else)
        open_ = cv2.compare(labels, len(self._piece_names), cv2.CMP_GE)
        open_ &= ~unclipped & ~cv2.inRange(near, (CLIPPED,) * 3, (255,) * 3)
        found_at = cv2.findNonZero(open_)
        if found_at is None:
            return labels
        xs, ys = found_at.reshape(-1, 2).T
        pixels = flat[ys, xs].astype(np.float32)[:, None, :]  # N x 1 x 3
        clipped = ((near[ys, xs] >= CLIPPED) & lowered)[:, None, :]
        # each colour judged with the clipped channels raised to it where it is lighter
        lifted = np.where(clipped, np.maximum(pixels, self._centroid_bgr[None]), pixels)
        k = len(self._centroid_bgr)
        lab = cv2.cvtColor(lifted.astype(np.uint8).reshape(-1, 1, 3), cv2.COLOR_BGR2LAB)
        lab = lab.reshape(-1, k, 3).astype(np.float32) * self._weights
        d = ((lab - self._centroids * self._weights) ** 2).sum(-1)
        best = d.argmin(1)
        found = np.where(d[np.arange(len(best)), best] > 30.0 ** 2, UNKNOWN, best).astype(np.uint8)
        labels[ys, xs] = found
        return labels

    def _classify(self, img: np.ndarray) -> np.ndarray:
        q = img >> 2  # 6 bits a channel, one index into the table (in place: half the time)
        index = q[..., 0].astype(np.int32)
        index <<= 6
        index |= q[..., 1]
        index <<= 6
        index |= q[..., 2]
        return self._lut.take(index)
