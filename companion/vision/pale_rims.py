"""A flat piece lit as pale as the print it lies on: only its rim tells it from the board.

Under a lamp a token may pass for the empty board pixel by pixel (Baron Voodoo's brown x20
markers lit a pinkish grey on the tan mat, its orange Offerings lit peach), and its rim, a
pixel or two darker round it, is too thin to stay in what is unexplained (an opening takes
it).  From the middle of a one-piece place read empty, rays out to its edge: where most of
them cross something darker than the empty board there, a ring lies round its middle, and the
place is asked.  On the tuning frames' 5,315 token places read empty that were empty, 39 % of
the rays dipped at most; two brown markers' rims 61 and 94 %, a peach Offering's 47 %.  (Most
peach Offerings' rims are fainter: 8-28 %, still read empty.  Measured with 36 rays of 12
points; read with 24 of 6, a third of the cost, the same places are asked.)  Not asked with a
hand over the board: its shadow may ring a place.  A part of ``BoardReader``
(``reader.py``): the methods here use its state.
"""

from __future__ import annotations

import numpy as np

from companion.games.base import Piece
from companion.vision.geometry import MARGIN_MM
from companion.vision.reading import SCALE, per_layout

RIM_DIP_NUM, RIM_DIP_DEN = 3, 4  # a ray's point under 3/4 of the empty board's light crosses a rim
RIM_RAYS = 0.45  # this share of a place's rays crossing one: a ring round its middle
RAYS = 24  # rays from a place's middle, evenly turned
STEPS = 6  # points along each, from RAY_FROM of the way to its edge on
RAY_FROM = 0.3
PALE_RIM = "a pale piece's rim?"


class PaleRims:
    """Rings round the middles of one-token places read empty."""

    def _pale_rims(self, pieces: dict[str, list[Piece]], doubtful: dict[str, str],
                   region: tuple[slice, slice] | None = None) -> list[str]:
        """The one-token places read empty (none read there, none doubted) round whose middle
        most rays cross something darker than the empty board (``RIM_RAYS``): a pale piece's
        rim.  Only those within ``region`` (sampled px) when one is given: the rest of the
        board is as it was read."""
        flat, reference = self._flat, self._reference
        if flat is None or reference is None:
            return []
        ids, ys, xs, middles = self._rim_rays()
        if not len(ids):
            return []
        h, w = flat.shape[:2]
        inside = np.ones(len(ids), bool)
        if region is not None:
            (ry, rx), (my, mx) = region, middles
            inside = (my >= (ry.start or 0)) & (my < (ry.stop or h))
            inside &= (mx >= (rx.start or 0)) & (mx < (rx.stop or w))
        keep = [k for k in np.flatnonzero(inside) if ids[k] not in pieces and ids[k] not in doubtful]
        if not keep:
            return []
        at = (np.clip(ys[keep], 0, h - 1) * w + np.clip(xs[keep], 0, w - 1)).ravel()
        # (as flat indices, channels summed as integers: a third of indexing by rows and columns)
        seen = flat.reshape(-1, 3).take(at, axis=0).sum(axis=-1, dtype=np.int32)
        empty = reference.reshape(-1, 3).take(at, axis=0).sum(axis=-1, dtype=np.int32)
        dips = (seen * RIM_DIP_DEN < empty * RIM_DIP_NUM).reshape(len(keep), RAYS, STEPS).any(axis=-1)
        return [ids[k] for k, ringed in zip(keep, dips.mean(axis=-1) >= RIM_RAYS, strict=True) if ringed]

    def _rim_rays(self) -> tuple[list[str], np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """Per one-token place (``Spot.holds`` 1, taking no die), its rays' points (sampled px),
        as rows: (place, ray, step); and its middle's rows and columns.  Worked out once for
        the layout."""
        def build() -> tuple[list[str], np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
            dice = self._dice_colours()
            places = [s for s in self.layout.spots if s.holds == 1 and s.takes and not s.takes & dice]
            if not places:
                none = np.zeros((0, RAYS, STEPS), np.intp)
                return [], none, none, (np.zeros(0), np.zeros(0))
            mx = np.array([(s.x + s.w / 2 + MARGIN_MM) * SCALE for s in places])
            my = np.array([(s.y + s.h / 2 + MARGIN_MM) * SCALE for s in places])
            half = np.array([min(s.w, s.h) * SCALE / 2 for s in places])
            turns = np.linspace(0.0, 2 * np.pi, RAYS, endpoint=False)
            # (place, ray, step)
            reach = half[:, None, None] * np.linspace(RAY_FROM, 1.0, STEPS)[None, None, :]
            xs = np.round(mx[:, None, None] + reach * np.cos(turns)[None, :, None]).astype(np.intp)
            ys = np.round(my[:, None, None] + reach * np.sin(turns)[None, :, None]).astype(np.intp)
            return [s.id for s in places], ys, xs, (my, mx)
        return per_layout(self, "_rim_rays_known", build)
