"""Where the print's edges are hidden: an arm of the print's own lightness over it.

A hand or a forearm as pale as the print it lies on passes for the empty board pixel by
pixel: the arm is seen only where it crosses darker print, and its outline there runs
along the print's own edge (Times Square's cream row over its dark one).  A piece beside it
read alone may have another under the unseen skin (a green dancer under the palest arm,
beside a black one read sure).  What the pale skin cannot do is show the print's lines:
an edge the empty board has, whose contrast (against the light there) is gone where the
arm lies, is covered.  A shadow dims an edge and its light alike, so keeps its contrast;
blur and a soft lens weaken every edge of the frame alike, so an edge is judged against
the board's other edges round the arm (their median).  The print's lines only (straight
along the board, ``LINE_PX`` or longer), in stretches (``RUN_PX``), with the frame's hue off the
empty board's round them (``HUE_APART``): a camera's blur takes the contrast of a thin line or
a small letter too, and a shade dims it, and both leave the print round it its hue.  Only edges beside an arm
already seen are taken (within a hand's half width of it: ``Arms._judge_unexplained``):
elsewhere a lost line is a reflection's or a piece's business, judged on its own.

Written here rather than with OpenCV's edge detectors: what is asked is not where edges
are but which of the empty board's known edges the frame no longer shows.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.channels import channel_max, channel_sum
from companion.vision.reading import SQUARE3

PRINT_EDGE = 24  # the empty board this much lighter and darker within a pixel: an edge of its print
HIDDEN_SHARE = 0.3  # an edge showing less than this share of the frame's usual contrast is covered
LINE_PX = 25  # an edge of the print straight along the board this long at least (px = mm): a line
RUN_PX = 15  # a covered edge this many pixels long at least: a line's stretch, not a letter or a speck
HUE_APART = 0.03  # ... where the frame's hue round it is this far off the empty board's (``_hue_apart``)


def print_step(picture: np.ndarray) -> np.ndarray:
    """Per pixel, the largest step across a pixel in any channel (float32 in, as levels):
    at least ``PRINT_EDGE`` on the empty board, an edge of its print."""
    return channel_max(cv2.dilate(picture, SQUARE3) - cv2.erode(picture, SQUARE3))


def _contrast(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per pixel, ``print_step``, and that over the level round it (a contrast a light's
    level does not change)."""
    picture = image.astype(np.float32)
    step = print_step(picture)
    level = channel_sum(cv2.blur(picture, (7, 7))) / 3  # (``mean(axis=2)``, to the bit)
    return step, step / np.maximum(level, 1.0)


def _hue_apart(seen: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """Per pixel, how far apart the two pictures' colours are in hue, whatever their light:
    the sum of the differences of each channel's share of the three (5 px averaged)."""
    a, b = (cv2.blur(x.astype(np.float32), (5, 5)) for x in (seen, empty))
    return channel_sum(np.abs(a / np.maximum(channel_sum(a), 1.0)[..., None]
                              - b / np.maximum(channel_sum(b), 1.0)[..., None]))


class PrintEdges:
    """The empty board's edges and their contrast, worked out once for a reference (an arm
    frame asks for its covered edges only within the arm's reach)."""

    def __init__(self, empty: np.ndarray) -> None:
        self.empty = empty
        step, self._contrast = _contrast(empty)
        edge = (step >= PRINT_EDGE).astype(np.uint8)
        # the print's lines and its areas' borders, straight along the board (the sampled
        # board's rows and columns), not its small lettering: a camera's blur takes a small
        # letter's contrast as no arm does
        along = cv2.morphologyEx(edge, cv2.MORPH_OPEN, np.ones((1, LINE_PX), np.uint8))
        across = cv2.morphologyEx(edge, cv2.MORPH_OPEN, np.ones((LINE_PX, 1), np.uint8))
        self._edge = (along | across) > 0

    def covered(self, seen: np.ndarray, arm: np.ndarray, zone: np.ndarray, pieces: np.ndarray) -> np.ndarray:
        """The print's edges covered within ``zone`` (the reach of an arm seen; masks of the
        board, ``seen`` the frame flattened): edges of the empty board clear of ``pieces``
        that show under ``HIDDEN_SHARE`` of the contrast the board's edges usually keep
        there, in stretches of ``RUN_PX`` or more with the frame's hue ``HUE_APART`` off the
        empty board's round them.  (Not only those touching the arm: a pale
        arm passes for the print between the print's lines, dark print too where its shaded
        side is as dark, so what lies between it and a covered line shows nothing either way.)
        The usual contrast is the median over the window's edges off the arm (``arm``): blur
        or a soft lens weakens every edge alike."""
        out = np.zeros(zone.shape, bool)
        x, y, w, h = cv2.boundingRect(zone.astype(np.uint8))
        if not w:
            return out
        box = (slice(y, y + h), slice(x, x + w))
        edge = self._edge[box]
        if not edge.any():
            return out
        _, seen_contrast = _contrast(seen[box])
        kept = np.where(edge, seen_contrast / np.maximum(self._contrast[box], 1e-3), 1.0)
        clear = edge & ~arm[box]
        usual = float(np.median(kept[clear if clear.any() else edge]))
        covered = edge & zone[box] & ~pieces[box] & (kept < HIDDEN_SHARE * usual)
        if not covered.any():
            return out
        n, labels, stats, _ = cv2.connectedComponentsWithStats(covered.astype(np.uint8), connectivity=8)
        runs = np.flatnonzero(stats[1:, cv2.CC_STAT_AREA] >= RUN_PX) + 1  # a speck of noise is no line
        if not len(runs):
            return out
        # and something of another colour than the print lies round it: a camera's blur takes
        # the contrast of a thin line or a letter too, and a shade dims it, but the print round
        # it keeps its hue; an arm that passes for the print in lightness is skin or cloth
        level = np.bincount(labels.ravel(), weights=_hue_apart(seen[box], self.empty[box]).ravel(),
                            minlength=n) / np.maximum(stats[:, cv2.CC_STAT_AREA], 1)  # (a mean)
        out[box] = np.isin(labels, runs[level[runs] >= HUE_APART])
        return out


