"""Light round a piece read: what the board shows beside a piece is no other thing.

A piece read on its place explains its own box and a pixel of rim (``Blobs``); past that, the
board round it may still differ from the empty board, and ``Arms`` takes what is unexplained
for "something over it?" unless it is only light (``EmptyBoard._only_light``).  Round a piece
read, three kinds of light are told here: the shadow a tall piece (a die, a standing figure)
casts over a shadow's reach (``_tall_piece_near``, for ``cast_shadow``'s test), the piece's
own rim blurred past its blob, lit or in its shade (``_blurred_rim``), and the deep shade at a
tall piece's foot, where little of the room's light reaches (``_shade_at_a_foot``).  Each is
asked of a patch only after the plain tests failed, so a piece's absence costs nothing.
"""

from __future__ import annotations

import numpy as np

from companion.vision.cast_shadow import blurred_rim
from companion.vision.reading import SHADE, SHADOW_REACH_MM

FOOT_SHADE_LEAST = 0.25  # the shade at a piece's foot leaves the board this share of its light at
# least (black pieces: 0.12-0.2 of it) ...
FOOT_SHADE_ALIKE = 0.12  # ... its channels dimmed alike within this (a warm lamp: ``SHADE_TINT_MOST``)
RIM_REACH_MM = 3.0  # a piece's blurred rim lies this near a place it was read on (its blur: a px or two)


class LightRoundPieces:
    """The light round the pieces read this frame (a mixin of the reader: it asks the places,
    the pieces read so far and the glare's judgement of what a patch may hide)."""

    def _tall_piece_near(self, x: int, y: int, w: int, h: int, reach_mm: float = SHADOW_REACH_MM) -> bool:
        """Was a die or a standing figure read on a place within a shadow's reach
        (``SHADOW_REACH_MM``, or ``reach_mm``) of this box of the board (x, y, w, h)?"""
        dice = self._dice_colours()
        near = self._colours_read_near(x, y, w, h, reach_mm)
        return any(colour in dice or self._stands_up(colour) for colour in near)

    def _blurred_rim(self, components: np.ndarray, k: int, box: np.ndarray, flat: np.ndarray) -> bool:
        """Is patch ``k`` against a piece read this frame (within ``RIM_REACH_MM`` of its place)
        and that piece's blurred rim (``blurred_rim``), no piece's colour but the board's and
        that one's in it?"""
        x, y, w, h = (int(v) for v in box[:4])
        own = components[y:y + h, x:x + w] == k
        read = sorted(self._colours_read_near(x, y, w, h, RIM_REACH_MM))
        names = list(self._piece_names)
        return bool(read) and blurred_rim(
            flat, self._reference, own, x, y, self._centroid_bgr[[names.index(c) for c in read]])

    def _shade_at_a_foot(self, components: np.ndarray, k: int, box: np.ndarray, flat: np.ndarray) -> bool:
        """Is patch ``k`` the shade at a standing figure's or a die's foot: too small to hide any
        piece (``Glare.hides_nothing``), against a tall piece read (within ``RIM_REACH_MM``),
        and the board there dimmed alike in every channel (within ``FOOT_SHADE_ALIKE``) to
        between ``FOOT_SHADE_LEAST`` and a shadow's most (``SHADE``)?  Where a tall piece meets
        the board little of the room's light reaches: its shade is deeper than a cast shadow's
        (``SHADOW_DIMMED``), down to a third of the light (a Times Square dancer's at 640x480)."""
        x, y, w, h = (int(v) for v in box[:4])
        own = components[y:y + h, x:x + w] == k
        if not self.glare.hides_nothing(own, (y, x)) or not self._tall_piece_near(x, y, w, h, RIM_REACH_MM):
            return False
        seen = flat[y:y + h, x:x + w][own].astype(np.float32)
        empty = self._reference[y:y + h, x:x + w][own].astype(np.float32)
        ratio = np.median(seen, axis=0) / np.maximum(np.median(empty, axis=0), 1.0)
        return FOOT_SHADE_LEAST <= float(ratio.min()) and float(ratio.max()) <= SHADE[1] \
            and float(np.ptp(ratio)) <= FOOT_SHADE_ALIKE
