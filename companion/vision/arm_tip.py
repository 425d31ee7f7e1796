"""Where an arm seen over the board ends, and what of its hand may lie unseen past that end.

A hand paler or darker than the print is not seen where it lies over print of its own
lightness: the arm is seen short of its fingertips.  Pure geometry on a sampled-board mask
(px): the arm as seen, and the middle of where it crosses the margin.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TIP_REACH_MM = 45  # a fingertip paler or darker than the print may reach this far past the arm seen


@dataclass(frozen=True)
class ArmEnd:
    """The arm's pixels (``xs``, ``ys``), how far its farthest one lies from where it crosses
    the margin (``length``, px) and the unit direction towards it (``ux``, ``uy``)."""

    cx: float
    cy: float
    xs: np.ndarray
    ys: np.ndarray
    length: float
    ux: float
    uy: float

    @classmethod
    def of(cls, arm: np.ndarray, crossing: tuple[float, float]) -> ArmEnd | None:
        """None when no solid part of the arm was seen (its patches all too thin)."""
        ys, xs = np.nonzero(arm)
        if not len(xs):
            return None
        cx, cy = crossing
        reach = (xs - cx) ** 2 + (ys - cy) ** 2
        far = int(reach.argmax())
        length = float(np.sqrt(reach[far]))
        unit = max(length, 1.0)
        return cls(cx, cy, xs, ys, length, (xs[far] - cx) / unit, (ys[far] - cy) / unit)

    def along(self, x: np.ndarray | float, y: np.ndarray | float) -> np.ndarray | float:
        """How far out along the arm's line (px from where it crosses the margin)."""
        return (x - self.cx) * self.ux + (y - self.cy) * self.uy

    def across(self, x: np.ndarray | float, y: np.ndarray | float) -> np.ndarray | float:
        """How far off the arm's line (px, either side)."""
        return np.abs((y - self.cy) * self.ux - (x - self.cx) * self.uy)

    def past_its_end(self, x: float, y: float, scale: float) -> bool:
        """Past the arm as seen (its end less a third of ``TIP_REACH_MM``) and within
        ``TIP_REACH_MM`` of it: where its unseen fingertip may lie."""
        if self.along(x, y) < self.length - TIP_REACH_MM * scale / 3:
            return False  # beside the arm as seen: not where its unseen tip lies
        near = float(np.min((self.xs - x) ** 2 + (self.ys - y) ** 2))
        return near <= (TIP_REACH_MM * scale) ** 2
