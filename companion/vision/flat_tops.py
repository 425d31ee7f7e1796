"""A light flat piece's top told from a lamp's reflection on the board.

A white chip over a darker print is an even lift in every channel, as a reflection adds (white
is the print lifted), so ``glare.Glare.take_off`` would take it off as glare and read its place
empty.  What tells it apart is its edge and its evenness: a chip ends where it ends, a
reflection fades out over millimetres and peaks in its middle.  Worked on the board's 2 mm cells.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.reading import SQUARE3, SQUARE5

# a chip's top: a patch a chip's top across (2 mm cells), lifted this much, whose ring two cells
# out is lifted at most this share of it (a lamp's reflection fades over several millimetres)
PIECE_TOP_CELLS = (40, 160)
PIECE_TOP_LIFT = 45
PIECE_TOP_EDGE = 0.35
PIECE_TOP_ROUND = 1.3  # its box no longer than this to its width (a printed bar lit sharply is longer)
PIECE_TOP_FILL = 0.55  # and filled this much (a disc fills 0.79 of its box)
# a chip in a dimmer part of the lamp's light is lifted less: from this lift, where the print under
# it and round it is one plain colour (the empty board's channels step at most ``PLAIN_PRINT``
# across its edge); a light square of the print lit more than the tan round it lifts as evenly and
# ends as sharply, but its edge is the print's own (Jivecat's cream squares, lifted 28-34)
PIECE_TOP_PLAIN_LIFT = 25
PLAIN_PRINT = 12
# ... and lit evenly, as a flat top is: its cells' 90th percentile lift at most this times their
# median (a lamp's soft reflection, cut at that lift, peaks in its middle, 1.5 times; a glossy
# die's lit top carries its highlight, 1.4-1.6; chips' tops 1.04-1.14 on the tuning frames)
PIECE_TOP_EVEN = 1.2


def flat_tops(candidates: np.ndarray, low: np.ndarray, lift: np.ndarray,
              print_cells: np.ndarray) -> np.ndarray:
    """The cells of ``candidates`` (the board's cells, not a piece's colour) that are a light flat
    piece's top: lifted strongly with a sharp edge (``sharp_edged_tops``), or less over one plain
    colour of print, lit evenly.  ``low``: each cell's least lift over its channels; ``lift``: per
    channel; ``print_cells``: the empty board's cells."""
    return sharp_edged_tops((low >= PIECE_TOP_LIFT) & candidates, low, lift) \
        | sharp_edged_tops((low >= PIECE_TOP_PLAIN_LIFT) & candidates, low, lift, print_cells)


def sharp_edged_tops(lighter: np.ndarray, low: np.ndarray, lift: np.ndarray,
                      print_under: np.ndarray | None = None) -> np.ndarray:
    """The parts of the board lifted (``lighter``) that are a light flat piece's top, not a
    reflection: a round patch a chip's size (``PIECE_TOP_CELLS``) whose ring is hardly lifted at
    all (``PIECE_TOP_EDGE``).  ``low``: each cell's least lift over its channels; ``lift``: per
    channel.  ``print_under``: the empty board's cells, when ``lighter`` holds the less lifted
    patches too: then only a patch over one plain colour of print (``PLAIN_PRINT``), lit evenly
    (``PIECE_TOP_EVEN``), is a top.  Left on the board, such a patch is no empty board: its
    place is asked, not read empty under a reflection taken off."""
    n, comp, stats, _ = cv2.connectedComponentsWithStats(lighter.view(np.uint8), connectivity=8)
    tops = np.zeros_like(lighter)
    for k in range(1, n):
        x, y, w, h, cells = (int(v) for v in stats[k])
        if not PIECE_TOP_CELLS[0] <= cells <= PIECE_TOP_CELLS[1] or max(w, h) > PIECE_TOP_ROUND * min(w, h) \
                or cells < PIECE_TOP_FILL * w * h:
            continue  # no chip's size, or not round: a chip's top is a disc on the board seen top-down
        ys, xs = slice(max(0, y - 3), y + h + 3), slice(max(0, x - 3), x + w + 3)
        own = comp[ys, xs] == k
        inner = float(np.median(low[ys, xs][own]))
        own8 = own.view(np.uint8)
        ring = (cv2.dilate(own8, SQUARE5) > 0) & ~(cv2.dilate(own8, SQUARE3) > 0)
        if not ring.any() or float(np.median(lift[ys, xs][ring].mean(axis=-1))) > PIECE_TOP_EDGE * inner:
            continue  # its edge fades out as a reflection's does
        if print_under is None or _plain_and_even(print_under[ys, xs], low[ys, xs], own, ring, inner):
            tops[ys, xs] |= own
    return tops


def _plain_and_even(print_cells: np.ndarray, low: np.ndarray, own: np.ndarray, ring: np.ndarray,
                    inner: float) -> bool:
    """Is the empty board one colour under a patch and round it (no channel's median steps by
    more than ``PLAIN_PRINT`` across its edge: a light square of the print ends where the patch
    does), and the patch lit evenly (``PIECE_TOP_EVEN``: its median lift ``inner``)?"""
    step = np.abs(np.median(print_cells[own], axis=0) - np.median(print_cells[ring], axis=0))
    return bool(step.max() <= PLAIN_PRINT) and float(np.percentile(low[own], 90)) <= PIECE_TOP_EVEN * inner
