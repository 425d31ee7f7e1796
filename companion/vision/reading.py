"""What a frame's reading says, and the words and scales every part of the reader shares.

``Reading`` is a frame's verdict: a board with the places it is unsure of, or why there is
none.  The reader is split by concern (``reader.py`` drives a frame through the others:
``locating.py`` finds the board, ``arms.py`` tells what the empty board and the pieces do
not explain, ``blobs.py`` reads the pieces); what they share is here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import cv2
import numpy as np

from companion.games.base import BoardView, Piece

UNKNOWN = 255  # the label of a pixel near no calibrated colour
PIECE_ASPECT = 1.5  # one piece's box is no longer than this many times its width (``one_piece_shape``)
SCALE = 1.0  # px per mm of the board sampled for colours
SQUARE3 = np.ones((3, 3), np.uint8)
SQUARE5 = np.ones((5, 5), np.uint8)
# a frame whose 4 mm cells all match the last one read within this is read the same
STILL_TOLERANCE = 16
BESIDE_MM = 4  # places this close (beyond their rims) to a hidden one are doubtful too
BESIDE = "next to"  # how a place doubted for its neighbour's sake says so
UNDER_A_HAND = "under a hand or arm"
SHADOW_REACH_MM = 12  # a piece's own shadow lies this near it (a lamp a metre up, a 16 mm die)
SHADE = (0.3, 0.93)  # the share of the light a shadow leaves the board (of any print, in any channel)
SHADE_HUE_COS = 0.9  # a colour in shade keeps its hue: its tint (less its grey) points its way this near
# a die's pips counted, not asked for, from this many frame px a mm up: in the physically based
# frames (stop 74) Swing State's white die was read in every frame seen at 0.84 px a mm or
# more but one (a reflection on it), and in 1 of the 16 at 0.75 or less (tuning and
# held-out); King of Clubs' dice 85-94 % from 0.9 up.  Below it the reader means to doubt
# them (the tablet asks), not misread them, and ``companion doctor`` tells the owner.  Below
# it a frame pixel is a tenth of a die's face, and a read that leans on where the top's edges
# lie is held to that (``coarse_marks.CoarseMarks``), and a face of 1-3 is not read in its
# top's square (``_read_pips``)
MARKS_PX_PER_MM = 0.85
# and under this no count of marks is taken at all (``CoarseMarks._count_too_fine``): on the
# 105 VGA tuning frames (75 of them rendered fresh in stop 83), the counts read under it were
# wrong 7 times in 94 (a die or a code of one mark or more)
COUNT_PX_PER_MM = 0.6
HIDING = {"glare?", "something over it (a hand, a shadow)?", "partly hidden?", "pieces touching?"}


@dataclass
class Reading:
    """One frame's verdict: a board (with the positions it is unsure of), or why there is none.

    ``view`` holds every position read confidently; ``doubtful`` names the spots
    that could not be read, with the likely reason ("glare?").  ``confidence``
    gives each spot read (pieces or empty) a value in [0, 1].
    """

    view: BoardView | None
    hand: bool = False  # a hand or arm is over the board (the places under it are doubtful)
    markers_found: int = 0
    problem: str = ""
    doubtful: dict[str, str] = field(default_factory=dict)
    confidence: dict[str, float] = field(default_factory=dict)
    pieces_at: list[tuple[str, Piece, float, float, float]] = field(default_factory=list)

    @property
    def usable(self) -> bool:
        """A whole board, every position confident, no hand over it."""
        return self.view is not None and not self.doubtful and not self.hand


def one_piece_shape(w: float, h: float) -> bool:
    """Has a blob's box the shape of one piece's: every piece is a disc or a square, about
    as wide as it is long, turned any way.  Two pieces of a pile side by side, joined by a
    bridge of a pixel or two, are twice as long as wide."""
    return max(h, w) <= PIECE_ASPECT * min(h, w)


def clear_outside(mask: np.ndarray, inside: tuple[slice, slice]) -> None:
    """Clear a mask of the board outside a rectangle (the same as indexing it with the
    rectangle's complement, in four slices rather than a pass over every pixel)."""
    rows, cols = inside
    mask[:rows.start] = False
    mask[rows.stop:] = False
    mask[:, :cols.start] = False
    mask[:, cols.stop:] = False


def filled_hull(mask: np.ndarray) -> np.ndarray:
    """A mask's convex hull, filled (an arm and hand are one convex shape, though a palm of the
    board's colour leaves only its darker rim unexplained; a die in clipped white shows only the
    dark outline of its sides)."""
    filled = np.zeros(mask.shape, np.uint8)
    points = cv2.findNonZero(mask.astype(np.uint8))
    if points is not None:
        cv2.fillConvexPoly(filled, cv2.convexHull(points), 1)
    return filled > 0


def alike(before: np.ndarray, now: np.ndarray, most: float, mean: float) -> bool:
    """Are two patches the same but for sensor noise (no pixel off by more than ``most``,
    ``mean`` on average)?  A blur, a moved piece or a finger is far more."""
    return bool(cv2.norm(before, now, cv2.NORM_INF) <= most
                and cv2.norm(before, now, cv2.NORM_L1) <= mean * before.size)


T = TypeVar("T")


def per_layout(reader: object, key: str, compute: Callable[[], T]) -> T:
    """What ``compute`` answers of a reader's layout and colours, worked out once a layout:
    facts about each colour (which are dice's, which a die's in shade, which stand) asked
    many times a frame.  Kept in the reader's ``__dict__`` under ``key`` with the layout it holds for."""
    known = reader.__dict__.get(key)
    layout = reader.layout  # type: ignore[attr-defined]
    if known is None or known[0] is not layout:
        known = reader.__dict__[key] = (layout, compute())
    return known[1]
