"""What a speck of the unexplained may hide, measured past its own box: the speck, and what
round it is not seen to be the board either.

A patch the empty board does not explain hides no piece if a piece of its place cannot lie
within it (``Glare.could_hide``: its depth against the place's hidden radius).  Measured in its
own box, OpenCV's distance runs on past the box's edges as if what is unseen went on there, and
a patch touches its box on every side: a speck 3 px by 4 filling its box was endless.  At
640x480 the camera blurs the print's edges over 3-4 mm and the light's fit misses the print by
a little, and specks lifted so past a dark print's edge were asked as "glare?" (Swing State at
0.54 px a mm: its track's dark strip between pale cells; Baron Voodoo's Underworld track).

So where the box's edges alone made a speck deep enough, what lies past them is looked at: the
speck is measured in a window round it, joined to what round it is not seen to be the board -
unexplained (the threads the opening took off the patches), or off the empty board at its own
pixel by more than the tolerance however it was explained (a chip over a busy print passes for
its lines within the allowance for a line drawn a pixel off, a coloured patch beside a die for
its shadow: Swing State at 0.76 px a mm, two red chips lit pale pink on a pile's printed "1 V"
showed only specks) - off the pieces read.  Along a print's blurred edge that is a strip too
thin to hide a piece.  A speck its box bounds (holes, a ragged shape) is judged as before.

Of the physically based tuning frames, 24 places asked were read right for it, none read wrong
and none read before asked.
"""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np

from companion.vision.channels import channel_max


class Surroundings(NamedTuple):
    """What the reader knows of the board round a speck, sampled top-down."""

    flat: np.ndarray  # the board as read (light and reflections taken off)
    reference: np.ndarray  # the empty board
    unexplained: np.ndarray  # what nothing explains (pieces, shade, light), before specks are opened off
    pieces: np.ndarray  # the pieces read and their rims: what is off the board there is theirs

    def unseen_round(self, speck: np.ndarray, x: int, y: int, tolerance: float,
                     pad: int) -> tuple[np.ndarray, tuple[int, int]]:
        """A speck (``speck``: its mask over its box, whose top-left corner is ``x``, ``y``) and
        what is joined to it of the board not seen to be the board: unexplained, or off
        ``reference`` at its own pixel by more than ``tolerance`` in some channel (however it
        was explained), off the pieces read; as a mask over the speck's box grown by ``pad``
        px, and that window's top-left corner (row, column), for ``Glare.could_hide``.  What
        reaches the window's edge is taken to run on past it."""
        h, w = speck.shape
        y0, x0 = max(0, y - pad), max(0, x - pad)
        y1, x1 = min(self.flat.shape[0], y + h + pad), min(self.flat.shape[1], x + w + pad)
        rows, cols = slice(y0, y1), slice(x0, x1)
        own = np.zeros((y1 - y0, x1 - x0), bool)
        own[y - y0:y - y0 + h, x - x0:x - x0 + w] = speck
        off = channel_max(cv2.absdiff(self.flat[rows, cols], self.reference[rows, cols])) > tolerance
        unseen = (off | (self.unexplained[rows, cols] > 0)) & ~self.pieces[rows, cols]
        _n, labels = cv2.connectedComponents((own | unseen).astype(np.uint8), connectivity=8)
        joined = np.zeros(int(labels.max()) + 1, bool)
        joined[labels[own]] = True
        return joined[labels], (y0, x0)
