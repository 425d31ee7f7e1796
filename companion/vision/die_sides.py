"""A die's side faces, never a piece of their own: seen from a camera's slant a die shows
its sides between its top and the camera's nadir, in its colour in shade (a red die's read
brown, a purple one's black), apart from its top or joined to it.  A patch so placed is a
side, a token read beside a die so is a side or a piece against it (doubted), and a dark
token whose die's top the lamp washed out is no token.

A part of ``BoardReader`` (``reader.py``), through :class:`~companion.vision.standing.Standing`.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.dark_sheen import DarkSheen
from companion.vision.geometry import MARGIN_MM
from companion.vision.pose import DIE_MM, MOST_STACKED
from companion.vision.reading import SCALE, SQUARE3

SIDE_HUE_SHADE = 0.9  # a token's colour this near a die's hue ...
SHADE_DARKER = 0.85  # ... and this much darker may be that die in shade
SIDE_TOP_UNSEEN = 0.5  # a die's shaded side: this share of the board where its top lies no colour,
SIDE_TO_TOP = 0.6  # ... that top this many die widths beyond it, away from the camera's nadir
SIDES_SLACK_PX = 2  # a die's sides as seen reach this far past one die's lean (its rounded foot, blur)
Box = tuple[int, int, int, int]  # rows y0..y1, columns x0..x1


class DieSides(DarkSheen):
    """A die's sides told from the pieces beside it (see the module's docstring)."""

    def _dice_feet(self, told: list) -> list[tuple[Box, Box]]:
        """Where the dice read alone and sure stand on the board (``EmptyBoard._at_a_dies_foot``):
        per box a blob that read one die sure and nothing else explains (rows y0..y1, columns
        x0..x1, sampled px), that box (the die's top) and the box swept from it towards the
        camera's nadir one die's lean (its sides show that far, and its foot lies at their
        end).  A blob that read a column, or doubted anything (a piece it read less than sure
        among them), is left out: what lies past its top may be another die of a column, leaning."""
        feet = []
        for blob in told:
            if len(blob.found) != 1 or blob.doubts \
                    or not self._is_die(self._piece_names.index(blob.found[0][1].colour)):
                continue
            for y0, y1, x0, x1 in blob.explained:
                sx = sy = 0.0
                if self.pose is not None:
                    ux, uy, _d, lean = self._one_dies_lean((x0 + x1) / 2, (y0 + y1) / 2)
                    sx, sy = -ux * lean, -uy * lean
                feet.append(((y0, y1, x0, x1), (int(y0 + min(0.0, sy)), int(np.ceil(y1 + max(0.0, sy))),
                                                int(x0 + min(0.0, sx)), int(np.ceil(x1 + max(0.0, sx))))))
        return feet

    def _one_dies_lean(self, x_px: float, y_px: float) -> tuple[float, float, float, float]:
        """Here (sampled px; a pose known): the way out from the camera's nadir (a unit vector),
        the distance from it (mm), and how far one die's sides show from its top towards the
        nadir (sampled px, ``SIDES_SLACK_PX`` included)."""
        assert self.pose is not None
        ux, uy, d = self.pose.outward(x_px / SCALE, y_px / SCALE)
        return ux, uy, d, self.pose.lean(d, DIE_MM) * SCALE + SIDES_SLACK_PX

    def _without_die_sides(self, blobs: list) -> list:
        """The colour patches of one blob less those that are a die's side face in shade (a
        red die's reads brown): a patch of another colour lying between a die's top and the
        camera's nadir, within a column's lean of it.  Side faces are never a neighbour."""
        if self.pose is None or len(blobs) < 2:
            return blobs
        nx, ny = self.pose.nadir_mm[0] * SCALE, self.pose.nadir_mm[1] * SCALE
        sides = set()
        for i, (index, (cx, cy), _stats, _purity) in enumerate(blobs):
            if not self._is_die(index):
                continue
            d = max(1e-6, float(np.hypot(cx - nx, cy - ny)))
            ux, uy = (cx - nx) / d, (cy - ny) / d
            reach = self.pose.lean(d / SCALE, MOST_STACKED * DIE_MM) * SCALE + DIE_MM * SCALE / 2
            for j, (other, (ox, oy), _s, _p) in enumerate(blobs):
                if j == i or other == index:
                    continue
                inward = -((ox - cx) * ux + (oy - cy) * uy)
                aside = abs(-(ox - cx) * uy + (oy - cy) * ux)
                if 0 < inward <= reach and aside <= 0.75 * DIE_MM * SCALE:
                    sides.add(j)
        return [b for j, b in enumerate(blobs) if j not in sides]

    def _hidden_beside(self, labels: np.ndarray, blob: np.ndarray, x: int, y: int, main: int) -> list[str]:
        """The places (in the layout's order) where a blob read as one piece of colour ``main``
        (``labels`` and ``blob``: its box at ``x, y``) holds a patch of another piece's colour
        at least half the smallest piece there: a piece partly hidden under it (a die leaning
        over its neighbour's place from a slant) or touching it, never read as nothing.  A
        patch in a die's colour in shade (a side face) is no piece."""
        found = np.unique(labels[blob])
        out: list[str] = []
        for index in found[found < len(self._piece_names)]:
            if int(index) == main or self._shade_of_a_die(int(index)):
                continue
            part = cv2.morphologyEx(((labels == index) & blob).astype(np.uint8), cv2.MORPH_OPEN, SQUARE3)
            n, _, stats, centres = cv2.connectedComponentsWithStats(part, connectivity=8)
            for k in range(1, n):
                spot = self._spot_at((centres[k][0] + x) / SCALE - MARGIN_MM,
                                     (centres[k][1] + y) / SCALE - MARGIN_MM)
                if spot is not None and spot not in out \
                        and stats[k, cv2.CC_STAT_AREA] >= 0.5 * self._min_area[spot] * SCALE * SCALE:
                    out.append(spot)
        return sorted(out, key=self._spot_ids.index)

    def _shade_of_a_die(self, index: int) -> bool:
        """Is this colour a die's in shade: its hue, darker (brown is a red or orange die's)?
        Not a white die's: in shade it is a light grey, no black piece."""
        return any(i != index and self._is_die(i) and self._in_shade(index, i)
                   for i in range(len(self._piece_names)))

    def _in_shade(self, index: int, of: int) -> bool:
        """Is colour ``index`` colour ``of`` in shade: its hue, darker?  Never a colour without
        hue's (white in shade is a light grey, no black piece)."""
        colour, lit = self._piece_bgr[index], self._piece_bgr[of]
        norm, lit_norm = float(np.linalg.norm(colour)), float(np.linalg.norm(lit))
        return float(np.ptp(lit)) >= 40 and norm < SHADE_DARKER * lit_norm \
            and float(colour @ lit) >= SIDE_HUE_SHADE * norm * lit_norm

    def _shades_apart(self, blobs: list) -> tuple[list, list[str]]:
        """The colour patches of one blob less those in another patch's colour in shade (an
        orange token's rim in a die's shadow reads brown, a score marker's colour), and the
        places those lie at: no piece of their own is read there, but a piece of that colour
        may lie against the lighter one, so the place is not vouched for either."""
        if len(blobs) < 2:
            return blobs, []
        shaded = [j for j, (index, *_rest) in enumerate(blobs)
                  if any(other != index and self._in_shade(index, other) for other, *_more in blobs)]
        spots = [self._spot_at(blobs[j][1][0] / SCALE - MARGIN_MM, blobs[j][1][1] / SCALE - MARGIN_MM)
                 for j in shaded]
        return [b for j, b in enumerate(blobs) if j not in shaded], [s for s in spots if s is not None]

    def _die_sides_apart(self, placed: list) -> dict[str, str]:
        """The places where a plain token is read with a die, on the camera's side of it,
        within a column's lean and a die's width of the line from the nadir through it: a
        die's side face in shade, cut off from its top (a purple die's reads black), or a
        piece against it; either way not read."""
        if self.pose is None:
            return {}
        nx, ny = self.pose.nadir_mm[0] - MARGIN_MM, self.pose.nadir_mm[1] - MARGIN_MM
        dice = [p for p in placed if self._is_die(self._piece_names.index(p[1].colour))]
        tokens = [p for p in placed if self.layout.marks.get(p[1].colour, (0, 0)) == (0, 0)]
        out: dict[str, str] = {}
        for die in dice:
            d = max(1e-6, float(np.hypot(die[2] - nx, die[3] - ny)))
            ux, uy = (die[2] - nx) / d, (die[3] - ny) / d
            reach = self.pose.lean(d, MOST_STACKED * DIE_MM) + DIE_MM / 2
            for token in (t for t in tokens if t[0] == die[0]):
                inward = -((token[2] - die[2]) * ux + (token[3] - die[3]) * uy)
                aside = abs(-(token[2] - die[2]) * uy + (token[3] - die[3]) * ux)
                if 0 < inward <= reach and aside <= 0.75 * DIE_MM:
                    out.setdefault(die[0], "a die's side, or a piece against it?")
        return out

    def _side_without_its_top(self, index: int, own: np.ndarray, bx: int, by: int,
                              strange: np.ndarray | None) -> bool:
        """Is a plain token of a colour that is a die's in shade (brown: a red or orange
        die's) a die's side face whose top the lamp lit past any colour: the board where that
        top would lie, beyond it away from the camera's nadir (``SIDE_TO_TOP``), mostly
        neither the empty board nor a piece (``strange``, ``SIDE_TOP_UNSEEN``)?  A red die's
        shaded side was read as a brown token so, its lit top no colour at all.  (``own``:
        the token's pixels, its box at ``bx, by``.)"""
        if self.pose is None or strange is None or not self._shade_of_a_die(index) or not own.any():
            return False
        ys, xs = np.nonzero(own)
        cx, cy = bx + float(xs.mean()), by + float(ys.mean())
        nx, ny = self.pose.nadir_mm[0] * SCALE, self.pose.nadir_mm[1] * SCALE
        d = float(np.hypot(cx - nx, cy - ny))
        if d < 1.0:
            return False  # right under the camera no side shows
        reach = SIDE_TO_TOP * DIE_MM * SCALE  # a shaded side's middle to its top's
        shift_x, shift_y = int(round((cx - nx) / d * reach)), int(round((cy - ny) / d * reach))
        h, w = strange.shape
        beyond_y, beyond_x = ys + by + shift_y, xs + bx + shift_x
        inside = (beyond_y >= 0) & (beyond_y < h) & (beyond_x >= 0) & (beyond_x < w)
        if not inside.any():
            return False
        return float(strange[beyond_y[inside], beyond_x[inside]].mean()) >= SIDE_TOP_UNSEEN
