"""A lamp's reflections on the board: measured, taken off, and what may be trusted under them.

A reflection adds the same light to every channel, so where the board is lighter
than the empty board by about as much in each channel, that much is glare.  It is
measured on the board round the pieces, spread smoothly under them and subtracted
(``Glare.take_off``).  What it washed out to white no camera sees: a piece there
is doubted, and a patch still lighter than the empty board is taken for board only
if it is the board lifted evenly and smoothly (``Glare.board_under``).  A piece's
colour and marks under a reflection count only if they hold with the reflection
measured round it halved or 1.6 times as strong (``GLARE_ERRORS``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import cv2
import numpy as np

GLARE_MIN = 20  # lighter than the empty board by this in every channel: a reflection
GLARE_FAINT = 8  # a reflection this faint on a piece with marks may still make a mark
GLARE_DOUBT = 50  # more reflection than this on a piece: its colour read only if it holds below
# how far the reflection measured round a piece may be off under it: a reading under glare is
# confident only if it is the same with the estimate scaled by each of these
GLARE_ERRORS = (0.5, 1.6)
LIGHT_PIECES = {"white", "yellow", "grey", "pink", "cyan"}  # what a reflection can look like
_SQUARE3 = np.ones((3, 3), np.uint8)
_SQUARE5 = np.ones((5, 5), np.uint8)


class Glare:
    """The reflections on the frame read last, judged against one empty board."""

    def __init__(self, reference: np.ndarray, outside: np.ndarray,
                 classify: Callable[[np.ndarray], np.ndarray], piece_names: list[str],
                 hidden_radius: float) -> None:
        """``reference``: the empty board sampled top-down; ``outside``: where the board is
        not (its margin); ``classify``: the reader's colour per pixel (piece colours first,
        then surfaces); ``hidden_radius``: the widest a washed-out patch may be and still
        show part of any piece lying in it."""
        self._reference = reference
        self._outside = outside
        self._classify = classify
        self._piece_names = piece_names
        self._hidden_radius = hidden_radius
        # glare is judged against the lightest the empty board shows nearby (a line drawn a
        # pixel off is no reflection), inside the board (the margin is the light model's)
        self._reference_half = cv2.pyrDown(cv2.dilate(reference, np.ones((5, 5), np.uint8))).astype(np.int16)
        inside = cv2.pyrDown((~outside).astype(np.uint8) * 255) > 254
        self._inside_half = cv2.erode(inside.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        self._inside_u8 = self._inside_half.astype(np.uint8) * 255
        self._inside_count = int(self._inside_half.sum())
        self._glare_floor = np.clip(self._reference_half + 13, 0, 255).astype(np.uint8)
        self._white_half = np.full(self._glare_floor.shape, 255, np.uint8)
        self.cells: np.ndarray | None = None  # the reflections taken off the last frame (2 mm cells)
        self.washed_out: np.ndarray | None = None  # where they clipped the picture
        self.faint: np.ndarray | None = None  # all of the reflection measured, faint rims too
        self.pre: np.ndarray | None = None  # this frame's board before reflections were taken off

    def clear(self) -> None:
        """No reflection measured on this frame (it was not looked for)."""
        self.cells = self.faint = self.pre = self.washed_out = None

    def take_off(self, flat: np.ndarray) -> np.ndarray:
        """Take a lamp's reflections off: glare adds the same light to every channel, so
        where the board is lighter than the empty board by about as much in each channel, that
        much is glare.  It is measured on the board around the pieces (2 mm cells), spread
        smoothly under them, and subtracted.  What stays lighter (a clipped core) is still
        judged as glare by what follows.  Only the part of the board that is lighter at all
        is worked on, so a frame without glare costs two cheap passes."""
        self.cells = self.faint = None
        self.washed_out = None
        self.pre = flat
        half8 = cv2.pyrDown(flat)
        if half8.shape != self._reference_half.shape:
            return flat
        lighter = cv2.bitwise_and(cv2.inRange(half8, self._glare_floor, self._white_half), self._inside_u8)
        if cv2.countNonZero(lighter) >= 6:
            # a light piece (a white die) is lighter and no reflection, nor are the specks of
            # pieces' rims: a reflection is a patch of board at least 6 mm across
            lighter[self._classify(half8) < len(self._piece_names)] = 0
            lighter = cv2.morphologyEx(lighter, cv2.MORPH_OPEN, _SQUARE3)
        n_lighter = cv2.countNonZero(lighter)
        if n_lighter < 6 or n_lighter > 0.25 * self._inside_count:
            return flat  # none, or lighter all over: the light's level, not a reflection
        bx, by, bw, bh = cv2.boundingRect(lighter)
        pad = 16  # the wide spread below reaches this far
        y0, y1 = max(0, by - pad), min(half8.shape[0], by + bh + pad)
        x0, x1 = max(0, bx - pad), min(half8.shape[1], bx + bw + pad)
        half = half8[y0:y1, x0:x1].astype(np.int16)
        ref = self._reference_half[y0:y1, x0:x1]
        inside = self._inside_half[y0:y1, x0:x1]
        d = half - ref
        clipped = half >= 250
        # the channels a reflection clipped say only "at least": judge by the others, and
        # ask of the clipped ones that the reflection would have clipped them
        low = np.where(clipped, 255, d).min(axis=2)
        high = np.where(clipped, -255, d).max(axis=2)
        reaches = (~clipped | (ref + low[..., None] >= 240)).all(axis=2)
        pure = (low > 12) & (high - low <= 6 + 0.15 * high) & (clipped.sum(axis=2) <= 1) & reaches & inside
        if pure.any():  # a light piece (a white die under a cool lamp) is no reflection
            pure &= self._classify(half8[y0:y1, x0:x1]) >= len(self._piece_names)
        if int(np.count_nonzero(pure)) < 6:
            return flat
        plain = (np.abs(low) <= 12) & (np.abs(high) <= 20) & inside
        lift = np.where(pure, low, 0).astype(np.float32)
        # the board's other pixels count as "no glare here", pieces and clipped cores as unknown
        weight = (pure | plain).astype(np.float32)
        est = np.zeros_like(lift)
        for sigma in (6.0, 2.0):  # wide first (under a piece), then as close as the board allows
            num = cv2.GaussianBlur(lift * weight, (0, 0), sigma)
            den = cv2.GaussianBlur(weight, (0, 0), sigma)
            est = np.where(den > 0.2, num / np.maximum(den, 1e-3), est)
        faint = np.zeros(half8.shape[:2], np.float32)
        faint[y0:y1, x0:x1] = est
        self.faint = faint  # all of it, for the marks: a faint reflection still makes one
        # a reflection is one where it is strong somewhere; its faint rim is taken off with it
        strong = cv2.dilate((est >= GLARE_MIN).astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
        est = np.where(strong & (est >= 4), est, 0)
        if not est.any():
            return flat
        glare = np.zeros(half8.shape[:2], np.uint8)
        glare[y0:y1, x0:x1] = np.clip(est, 0, 255).astype(np.uint8)
        self.cells = glare
        full = cv2.resize(glare, (flat.shape[1], flat.shape[0]), interpolation=cv2.INTER_LINEAR)
        # where the reflection clipped a channel, the colour under it is lost
        rows, cols = slice(2 * y0, 2 * y1), slice(2 * x0, 2 * x1)
        self.washed_out = np.zeros(flat.shape[:2], bool)
        self.washed_out[rows, cols] = (flat[rows, cols].max(axis=2) >= 250) & (full[rows, cols] > GLARE_MIN)
        return cv2.subtract(flat, cv2.merge([full, full, full]))

    def board_under(self, region: np.ndarray, x: int, y: int, w: int, h: int) -> bool:
        """Is a patch lighter than the empty board the empty board itself under a reflection?
        A reflection adds the same light to every channel: each pixel must be the empty board
        lifted by one amount in all the channels it did not clip (and enough to clip the
        others), and that lift must run on smoothly into the board around the patch, as a
        reflection does and a piece's edge does not.  Where every channel clipped nothing is
        seen, so no such part may be wide enough to hide a piece."""
        if self.pre is None or self.faint is None:
            return False
        pad = 5
        y0, x0 = max(0, y - pad), max(0, x - pad)
        y1, x1 = min(self._outside.shape[0], y + h + pad), min(self._outside.shape[1], x + w + pad)
        cells = self.faint[y0 // 2:(y1 + 1) // 2 + 1, x0 // 2:(x1 + 1) // 2 + 1]
        if not cells.size or float(cells.max()) < GLARE_MIN:
            return False  # no reflection measured here: something else is lighter
        patch = np.zeros((y1 - y0, x1 - x0), bool)
        patch[y - y0:y - y0 + h, x - x0:x - x0 + w] = region
        pre = self.pre[y0:y1, x0:x1]
        ref = self._reference[y0:y1, x0:x1]
        blind = (pre >= 250).all(axis=2)
        if (blind & patch).any() and cv2.distanceTransform((blind & patch).astype(np.uint8), cv2.DIST_L2,
                                                           3).max() >= self._hidden_radius:
            return False  # a piece could lie wholly in what the reflection washed out
        level, even = even_lift(pre, ref)
        seen = patch & ~blind
        n_seen = int(seen.sum())
        if not n_seen or float(level[seen].max()) < GLARE_MIN:
            return False
        if n_seen - int(even[seen].sum()) > 1 + 0.05 * n_seen:  # a pixel of sensor noise is no piece
            return False
        # the lift, here and on the board around, smoothed over what it is known on
        ring = ~patch & even & ~self._outside[y0:y1, x0:x1]
        known = (even & (patch | ring)).astype(np.float32)
        values = np.where(known > 0, level, 0).astype(np.float32)
        weight = np.maximum(cv2.GaussianBlur(known, (0, 0), 2.5), 1e-3)
        smooth = cv2.GaussianBlur(values, (0, 0), 2.5) / weight
        steady = np.abs(level - smooth) <= 8 + 0.1 * np.abs(smooth)
        judged = seen & even
        return int(ring.sum()) >= 12 and int((judged & ~steady).sum()) <= 1 + 0.05 * int(judged.sum())

    def on(self, bx: int, by: int, bw: int, bh: int, faint: bool = False) -> int:
        """The most reflection taken off a piece's box (or seen on it, with ``faint``)."""
        if self.cells is None:
            return 0
        cells = self.faint if faint else self.cells
        g = cells[by // 2:(by + bh) // 2 + 1, bx // 2:(bx + bw) // 2 + 1]
        return int(g.max()) if g.size else 0

    def too_strong_on(self, index: int, bx: int, by: int, bw: int, bh: int) -> bool:
        """Is a piece under more glare than can be taken off it, or light enough to be glare?"""
        most = self.on(bx, by, bw, bh)
        return most > GLARE_DOUBT or (self._piece_names[index] in LIGHT_PIECES and most > GLARE_MIN)

    def colour_holds(self, index: int, part: np.ndarray, bx: int, by: int, flat: np.ndarray | None) -> bool:
        """Is a piece under a reflection the same colour whether the reflection measured
        around it was half as strong, or stronger, under it?  Then the colour does not hang on
        the estimate (a reflection's core over a light board reads as a light piece only for
        one estimate).  ``flat`` is the board as read, light and reflections taken off."""
        if self.cells is None or flat is None or self.pre is None or not part.any():
            return False
        h, w = part.shape
        if self._piece_names[index] in LIGHT_PIECES:
            # a light piece and a light board under a reflection look alike: only a piece
            # whose colour is clearly no lift of the board's is one
            box = (slice(by, by + h), slice(bx, bx + w))
            _, even = even_lift(self.pre[box][part], self._reference[box][part])
            if float(np.mean(even)) > 0.1:
                return False
        g = self.cells[by // 2:(by + h) // 2 + 1, bx // 2:(bx + w) // 2 + 1]
        if not g.size:
            return False
        g = cv2.resize(g, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.int16)
        core = cv2.erode(part.astype(np.uint8), _SQUARE5, borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0
        washed = self.washed_out is not None and self.washed_out[by:by + h, bx:bx + w][core].any()
        if int(core.sum()) < 12 or washed:
            return False
        pixels = flat[by:by + h, bx:bx + w][core].astype(np.int16)
        lift = g[core][:, None]
        for scale in GLARE_ERRORS:  # the flat picture had the estimate (scale 1) taken off
            shifted = np.clip(pixels + np.round((1.0 - scale) * lift), 0, 255).astype(np.uint8)
            names = self._classify(shifted[None])[0]
            if float(np.mean(names == index)) < 0.7:
                return False
        return True


def lit_around(lit: np.ndarray, near_pieces: np.ndarray, bx: int, by: int, bw: int, bh: int) -> bool:
    """Is the board around a piece lighter than the empty board (the halo of a glare)?"""
    y0, y1 = max(0, by - 7), min(lit.shape[0], by + bh + 7)
    x0, x1 = max(0, bx - 7), min(lit.shape[1], bx + bw + 7)
    ring = near_pieces[y0:y1, x0:x1] == 0  # 3-7 px out, clear of its rim and its neighbours
    ring[max(0, by - y0 - 3):by - y0 + bh + 3, max(0, bx - x0 - 3):bx - x0 + bw + 3] = False
    count = int(ring.sum())
    return count >= 12 and int(np.count_nonzero(lit[y0:y1, x0:x1][ring])) > 0.35 * count


def even_lift(pre: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per pixel, how much lighter than the empty board it is (the mean over the channels
    not clipped) and whether that is one lift in every channel, as a reflection adds, and
    enough to clip the channels it clipped.  A pixel clipped in every channel is never even."""
    pre32, ref32 = pre.astype(np.float32), ref.astype(np.float32)
    clipped = pre >= 250
    lift = np.where(clipped, np.nan, pre32 - ref32)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-clipped pixels: NaN, handled below
        level = np.nanmean(lift, axis=-1)
        spread = np.nanmax(lift, axis=-1) - np.nanmin(lift, axis=-1)
    blind = clipped.all(axis=-1)
    level = np.where(blind, 0.0, level)
    spread = np.where(blind, np.inf, spread)
    reaches = (~clipped | (ref32 + level[..., None] >= 240)).all(axis=-1)
    even = ~blind & (spread <= 10 + 0.15 * np.abs(level)) & reaches & (level >= -6)
    return level, even
