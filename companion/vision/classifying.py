"""Each pixel's nearest calibrated colour, or none when it is far from all of them.

A part of ``BoardReader`` (``reader.py``): the methods here use its state.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from companion.vision.light import CLIPPED
from companion.vision.pips import channel_medians
from companion.vision.reading import SQUARE3, UNKNOWN

LOWER_BOUND_MATTERS = 240  # a clipped channel flattened below this may be a lighter colour's
TINTED = 40  # a piece this far from grey (levels between its channels) has a tint of its own
TINT_COSINE = 0.9  # a face's tint points a colour's way when this near it (cosine)
GREY_TINT_MAX = 24.0  # a colourless piece's face, light flattened, shows less tint than this (median)


@functools.lru_cache(maxsize=4)
def _nearest_colour_table(centroids: bytes, weights: bytes) -> np.ndarray:
    """The table for one set of calibrated colours, kept for the next reader of the same
    colours (a reader made again after a restart, a re-calibration undone, a test's fresh
    reader): building it is a third of a second, and it never changes.  Read-only."""
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
    table.setflags(write=False)
    return table


class Classifying:
    """A lookup table from colour to the nearest calibrated colour, and its use."""

    def _build_lut(self) -> np.ndarray:
        """Nearest calibrated colour for every BGR value at 6 bits a channel, computed once
        for these colours; UNKNOWN where no calibrated colour is near."""
        return _nearest_colour_table(np.ascontiguousarray(self._centroids, np.float32).tobytes(),
                                     np.ascontiguousarray(self._weights, np.float32).tobytes())

    def tinted_grey(self, index: int, flat: np.ndarray, own: np.ndarray) -> bool:
        """Is a piece read as a colourless one (white, grey) tinted a coloured piece's way
        over its whole face (``own``, in ``flat``)?  A pale yellow chip under a sheen passes
        for white pixel by pixel; its median keeps yellow's tint, a white face's none."""
        colours = self._centroid_bgr
        if float(np.ptp(colours[index])) >= TINTED or not own.any():
            return False
        # each channel's median from its histogram under the face (a sort of its pixels costs
        # as much as the rest of the check); the lower of the two middle levels when they differ
        seen = channel_medians(flat, own.astype(np.uint8))
        tint = seen - seen.mean()
        size = float(np.linalg.norm(tint))
        if size < GREY_TINT_MAX:
            return False
        for i in range(len(self._piece_names)):
            piece = colours[i] - colours[i].mean()
            norm = float(np.linalg.norm(piece))
            if float(np.ptp(colours[i])) >= TINTED \
                    and float(tint @ piece) >= TINT_COSINE * size * norm:
                return True
        return False

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
        # 6 bits a channel, one index into the table, built in place from each channel
        # contiguous (a fifth faster than from the interleaved channels)
        if not img.size:
            return np.zeros(img.shape[:-1], self._lut.dtype)
        blue, green, red = cv2.split(img >> 2)
        index = blue.astype(np.int32)
        index <<= 6
        index += green
        index <<= 6
        index += red
        return self._lut.take(index)
