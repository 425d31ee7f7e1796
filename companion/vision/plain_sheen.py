"""A plain dark piece in a lamp's sheen: its colour holds, and it has no marks to lose.  And
a glossy piece's highlight clipped white (``clipped_white``).

Where the board round a piece is lighter than the empty board (``glare.lit_around``: a
reflection's halo, or a lamp's sheen on a glossy print the light's fit missed), the piece is
doubted as "glare?": a light piece may be a reflection's white core, a die's marks may be washed
out.  A plain token of a dark colour is neither: no reflection passes for it and it has no
marks.  What the sheen may do is lift it too, and a dark colour lifted may pass for another (a
black chip lifted passes for a dark blue one).  So it is read if its core (its blurred rim is
the board's too) passes for no other piece's colour with the ring's lift taken off it once and
1.6 times over (``GLARE_ERRORS``: the sheen on it may be stronger than round it), and no channel
of it is clipped (a reflection's core on it hides what it is).  Jivecat at 640x480 (0.53-0.63 px
a mm): red and blue chips on the pale squares of a print a lamp lifts 15-45 levels past the
light's fit were asked, and the places round them; so was a black pawn on Swing State's track
seen from the side.  A chip whose own top the lamp lights lilac or pink (``_sheen_lit_chips``)
is no colour of its own as seen, and stays asked.  Of the physically based tuning frames, 8
places asked were read right for it, none read wrong.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from companion.vision.glare import GLARE_ERRORS, piece_ring
from companion.vision.light import CLIPPED
from companion.vision.palette import DARK_PIECES
from companion.vision.reading import SQUARE5

HOLDS_SHARE = 0.7  # of a piece's core, classed as no other piece's with each lift off (``colour_holds``)
CORE_LEAST = 12  # pixels of a piece's core (its rim eroded off) to judge its colour by (``colour_holds``)
CLIPPED_PX = 4  # a piece's box with this many clipped pixels (a mark's area) holds a highlight


def clipped_white(small: np.ndarray, x: int, y: int, w: int, h: int) -> bool:
    """Has the camera clipped white, in every channel, a mark's area or more of a piece's box?"""
    clipped = cv2.inRange(small[max(0, y):y + h, max(0, x):x + w], (CLIPPED,) * 3, (255,) * 3)
    return cv2.countNonZero(clipped) >= CLIPPED_PX


def plain_in_a_sheen(names: list[str], marks: tuple[int, int] | None, index: int, own: np.ndarray,
                     box: tuple[int, int, int, int], seen: tuple[np.ndarray, np.ndarray, np.ndarray],
                     near_pieces: np.ndarray, classify: Callable[[np.ndarray], np.ndarray]) -> bool:
    """Is piece ``index`` (of the pieces' colours ``names``; ``marks``: those its pieces bear;
    ``own``: its pixels over its ``box``, x, y, w, h) a plain token of a dark colour that passes
    for no other piece's with the lift of the board round it taken off, and is nowhere clipped?
    ``seen``: the board as read, the empty board and the frame, sampled top-down;
    ``near_pieces``: the pieces read (the ring looked at is clear of them); ``classify`` names
    pixels' colours (the pieces' first, as ``names``, then the board's)."""
    if marks != (0, 0) or names[index] not in DARK_PIECES:
        return False
    flat, reference, camera = seen
    bx, by, bw, bh = box
    if not own.any() or (camera[by:by + bh, bx:bx + bw][own] >= CLIPPED).any():
        return False
    y0, y1, x0, x1, ring = piece_ring(near_pieces, bx, by, bw, bh)
    if not ring.any():
        return False
    core = cv2.erode(own.astype(np.uint8), SQUARE5, borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0
    if int(np.count_nonzero(core)) < CORE_LEAST:
        return False
    lift = np.median(flat[y0:y1, x0:x1][ring].astype(np.int16) - reference[y0:y1, x0:x1][ring], axis=0)
    pixels = flat[by:by + bh, bx:bx + bw][core].astype(np.int16)  # (its blurred rim is the board's too)
    for scale in (1.0, max(GLARE_ERRORS)):
        shifted = np.clip(pixels - np.round(scale * np.maximum(lift, 0)), 0, 255).astype(np.uint8)
        labels = classify(shifted[None])[0]
        # (a dark colour with light off it may pass for the print's dark lines: no piece's)
        if float(np.mean((labels < len(names)) & (labels != index))) > 1.0 - HOLDS_SHARE:
            return False
    return True
