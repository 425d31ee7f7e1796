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
hand over the board: its shadow may ring a place.

A rim may be brighter than the board and yet show the piece's own colour: an Offering lit
peach from the top keeps its orange at its edge, where the lamp's white does not wash it.
Where most rays cross something more tinted than the empty board there (a channel's spread,
``RIM_TINT`` over the print's), beyond what a lamp's cast tints the board just outside the
place, the place is asked too.  On the tuning frames' 10,923 empty token places (Baron
Voodoo's and Jivecat's) at most 29 % of the rays crossed such a tint; three peach Offerings
read empty 79-100 % (stop 87).  A part of ``BoardReader`` (``reader.py``): the methods
here use its state.
"""

from __future__ import annotations

import numpy as np

from companion.games.base import Piece
from companion.vision.channels import channel_max, channel_min
from companion.vision.geometry import MARGIN_MM
from companion.vision.reading import SCALE, per_layout

RIM_DIP_NUM, RIM_DIP_DEN = 3, 4  # a ray's point under 3/4 of the empty board's light crosses a rim
RIM_RAYS = 0.45  # this share of a place's rays crossing one: a ring round its middle
RAYS = 24  # rays from a place's middle, evenly turned
STEPS = 6  # points along each, from RAY_FROM of the way to its edge on
RAY_FROM = 0.3
RIM_TINT = 25  # a point whose channels spread this much more than the print's there is tinted
RIM_TINT_RAYS = 0.5  # this share of a place's rays crossing a tinted point: a coloured rim
OUTSIDE = 1.35  # the board just outside a place, as a share of its half size: a lamp's cast
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
        ids, ys, xs, middles, _outside = self._rim_rays()
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
        at, dip, tint, around, cast = self._rim_points(h, w)
        # (as flat indices: a third of indexing by rows and columns)
        seen = flat.reshape(-1, 3).take(at[keep].ravel(), axis=0)
        dips = seen.sum(axis=-1, dtype=np.int32) * RIM_DIP_DEN < dip[keep].ravel()
        dark = dips.reshape(len(keep), RAYS, STEPS).any(axis=-1).mean(axis=-1) >= RIM_RAYS
        coloured = self._tinted_rims(seen, tint[keep], ys[keep], xs[keep], around[keep], cast[keep])
        return [ids[k] for k, ringed in zip(keep, dark | coloured, strict=True) if ringed]

    def _tinted_rims(self, seen: np.ndarray, tint: np.ndarray, ys: np.ndarray, xs: np.ndarray,
                     around: np.ndarray, cast: np.ndarray) -> np.ndarray:
        """Per place (rows of ``ys``), do most of its rays cross a point more tinted than the
        print there (``RIM_TINT`` over the lamp's cast just outside it), the point and the
        3 x 3 round it alike?  ``seen``: the rays' points, as rows of BGR; ``tint``: the empty
        board's spread there; ``around``, ``cast``: each ray's point just outside its place (flat
        index) and the empty board's spread there (``_rim_points``).  The round is judged only
        where the points pass: most boards' empty places are passed on a gather of points, as
        the dark rims are."""
        flat, reference = self._flat, self._reference
        assert flat is not None and reference is not None
        places = len(ys)
        cast = _spread(flat.reshape(-1, 3).take(around.ravel(), axis=0)) - cast.ravel()
        # (the median of the rays' points: the upper of the middle two, as a partition finds it)
        middle = np.partition(cast.reshape(places, RAYS), RAYS // 2, axis=-1)[:, RAYS // 2]
        bar = middle[:, None, None] + RIM_TINT
        over = (_spread(seen) - tint.ravel()).reshape(places, RAYS, STEPS) > bar
        coloured = over.any(axis=-1).mean(axis=-1) >= RIM_TINT_RAYS
        for k in np.flatnonzero(coloured):
            round_over = _tint_over_print(flat, reference, ys[k], xs[k]) > bar[k]
            coloured[k] = (over[k] & round_over).any(axis=-1).mean() >= RIM_TINT_RAYS
        return coloured

    def _rim_points(self, h: int, w: int) -> tuple[np.ndarray, ...]:
        """The rays' points of ``_rim_rays`` as flat indices of a board h x w (place, ray,
        step), and what the empty board shows there: each one's channels summed, times
        ``RIM_DIP_NUM`` (``int32``), and spread (``_spread``); each ray's point just outside its
        place (place, ray) and the empty board's spread there.  Worked out once for the
        layout, the board's size and the empty board (a gather of the empty board's points and
        its sums was a third of a changed board's look at its rims)."""
        reference = self._reference
        assert reference is not None
        known = self.__dict__.get("_rim_points_known")
        if known is None or known[0] is not reference or known[1] != (h, w) or known[2] is not self.layout:
            _ids, ys, xs, _middles, (oys, oxs) = self._rim_rays()
            at = np.clip(ys, 0, h - 1) * w + np.clip(xs, 0, w - 1)
            empty = reference.reshape(-1, 3).take(at.ravel(), axis=0)
            dip = (empty.sum(axis=-1, dtype=np.int32) * RIM_DIP_NUM).reshape(at.shape)
            around = np.clip(oys, 0, h - 1) * w + np.clip(oxs, 0, w - 1)
            cast = _spread(reference.reshape(-1, 3).take(around.ravel(), axis=0)).reshape(around.shape)
            known = self.__dict__["_rim_points_known"] = (
                reference, (h, w), self.layout, (at, dip, _spread(empty).reshape(at.shape), around, cast))
        return known[3]

    def _rim_rays(self) -> tuple[list[str], np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray],
                                 tuple[np.ndarray, np.ndarray]]:
        """Per one-token place (``Spot.holds`` 1, taking no die), its rays' points (sampled px),
        as rows: (place, ray, step); its middle's rows and columns; and the rows and columns
        of a point per ray just outside it (``OUTSIDE``).  Worked out once for the layout."""
        def build() -> tuple[list[str], np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray],
                             tuple[np.ndarray, np.ndarray]]:
            dice = self._dice_colours()
            places = [s for s in self.layout.spots if s.holds == 1 and s.takes and not s.takes & dice]
            if not places:
                none, nowhere = np.zeros((0, RAYS, STEPS), np.intp), np.zeros((0, RAYS), np.intp)
                return [], none, none, (np.zeros(0), np.zeros(0)), (nowhere, nowhere)
            mx = np.array([(s.x + s.w / 2 + MARGIN_MM) * SCALE for s in places])
            my = np.array([(s.y + s.h / 2 + MARGIN_MM) * SCALE for s in places])
            half = np.array([min(s.w, s.h) * SCALE / 2 for s in places])
            turns = np.linspace(0.0, 2 * np.pi, RAYS, endpoint=False)
            # (place, ray, step)
            reach = half[:, None, None] * np.linspace(RAY_FROM, 1.0, STEPS)[None, None, :]
            xs = np.round(mx[:, None, None] + reach * np.cos(turns)[None, :, None]).astype(np.intp)
            ys = np.round(my[:, None, None] + reach * np.sin(turns)[None, :, None]).astype(np.intp)
            oxs = np.round(mx[:, None] + OUTSIDE * half[:, None] * np.cos(turns)[None, :]).astype(np.intp)
            oys = np.round(my[:, None] + OUTSIDE * half[:, None] * np.sin(turns)[None, :]).astype(np.intp)
            return [s.id for s in places], ys, xs, (my, mx), (oys, oxs)
        return per_layout(self, "_rim_rays_known", build)


def _tint_over_print(flat: np.ndarray, reference: np.ndarray, rows: np.ndarray,
                     cols: np.ndarray) -> np.ndarray:
    """Per point (sampled px), how much more its channels spread than the empty board's there:
    a piece's own colour where the print is paler.  Each point is the mean of the 3 x 3 round
    it: a noisy camera's speckle is no tint (one pixel's spread under heavy noise passed 25
    on flat frames' empty places)."""
    h, w = flat.shape[:2]
    seen = np.zeros((*rows.shape, 3), np.int32)
    empty = np.zeros((*rows.shape, 3), np.int32)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            at = (np.clip(rows + dy, 0, h - 1) * w + np.clip(cols + dx, 0, w - 1)).ravel()
            seen += flat.reshape(-1, 3).take(at, axis=0).reshape(seen.shape)
            empty += reference.reshape(-1, 3).take(at, axis=0).reshape(empty.shape)
    return (_spread(seen) - _spread(empty)) / 9.0


def _spread(bgr: np.ndarray) -> np.ndarray:
    """Per row of BGR, its channels' spread (as ``int32``): a tint's strength."""
    return channel_max(bgr).astype(np.int32) - channel_min(bgr)
