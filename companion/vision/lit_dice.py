"""A glossy die's top that the lamp lifts past its colour, taken for the die.

Under a lamp a red die's top reads pink, a purple one's lilac, a blue one's pale blue: its
colour mixed with the lamp's white, which the nearest-colour table takes for no colour, for
the print or for white.  Such a top is the die's where what is round it vouches for it:

- a patch of no tinted colour wholly inside a ring mostly of one die's colour
  (``_lit_die_tops``: its rim kept the colour);
- pixels of no colour within half a die of one die's colour and of no other's, broad as a
  sheen is (``_sheen_lit_dice``: a sheen over most of the top, its rim broken), and on a
  piece's crop the same lit patch on past that reach (``_lit_on_from``: a top lit all over,
  its colour kept along one edge only);
- a patch of no colour at all, a die's size and shape, ringed by the print, lit one die's
  way all over (``_lit_dice_alone``: sampled at a pixel a millimetre, its rim blurred into
  the print, no pixel of its colour at all).

Each pixel is judged as a colour mixed with a lamp's white (``_lit_its_way``).  A part of
``BoardReader`` (``reader.py``), through :class:`~companion.vision.classifying.Classifying`.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.palette import SKIN_BGR
from companion.vision.pips import connected_components
from companion.vision.pose import DIE_MM
from companion.vision.reading import SCALE, SQUARE3, UNKNOWN, per_layout

TINTED = 40  # a piece this far from grey (levels between its channels) has a tint of its own
LIT_TINT_MIN = 20.0  # a die's top lit past its colour keeps this much tint (levels); a white pip less
LIT_COSINE = 0.9  # ... pointing its colour's way this near (cosine), nearer it than any other colour's way
LIT_WHITE_MIN = 180.0  # ... and lifted toward a white at least this light (a grey film is no lamp's light)
LIT_RING_SHARE = 0.6  # a patch of no colour is a lit die top only in a ring this much the die's colour
LIT_SHARE = 0.5  # ... with at least this share of it lit the die's colour's way
LIT_LARGEST = 1.2  # ... and no larger than this many die faces
SHEEN_NARROWEST_MM = 1.2  # ... a broad sheen: none of it narrower than this
LIT_REACH = 0.5  # ... and within this many dice of the die's colour
ALONE_SMALLEST = 0.5  # a die lit all over, alone on the board: a patch at least this many die faces ...
ALONE_SPAN = 1.7  # ... no longer nor wider than this many die edges (a face turned 45 degrees: 1.41)
ALONE_RING = 0.8  # ... ringed by the print's colours for this share of its outline at least
ALONE_OWNER = 0.9  # ... its lit pixels this much one die's colour's way


class LitDice:
    """Dice tops lit past their colour, taken for the dice (see the module's docstring)."""

    def _tinted_dice(self) -> list[int]:
        """The dice whose colour has a tint of its own: a lamp lifts them toward white their
        own way (a white or a grey die's lit top is only lighter)."""
        def dice() -> list[int]:
            tinted = np.ptp(self._centroid_bgr, axis=1) >= TINTED
            return [i for i in range(len(self._piece_names)) if self._is_die(i) and tinted[i]]
        return per_layout(self, "_tinted_dice_known", dice)  # (asked of every crop and board read)

    def _lit_die_tops(self, flat: np.ndarray, labels: np.ndarray, px_per_mm: float) -> np.ndarray:
        """``labels`` with a glossy die's top that the lamp lifts past its colour taken for the
        die: a patch of no tinted piece's colour (a red top lit pink reads as nothing, the
        tan print or white) wholly inside a ring mostly of one die's colour, whose pixels
        are that colour mixed with a lamp's white (its tint pointing that colour's way, nearer
        it than any other colour's, and lifted toward white, not grey).  Only those pixels
        are the die's: a white pip or a highlight's white core in the patch (no tint) stays
        as it was, and nothing is taken across two colours.  ``px_per_mm``: the picture's
        scale (the patch is at most a die's face)."""
        n_pieces = len(self._piece_names)
        colours = self._centroid_bgr
        dice = self._tinted_dice()
        if not dice:
            return labels
        # open: what is no tinted piece's colour (no colour, the print, white): a lit top
        # passes for the print or for white as often as for nothing
        lut = np.full(256, 255, np.uint8)
        lut[[i for i in range(n_pieces) if float(np.ptp(colours[i])) >= TINTED]] = 0
        unknown = cv2.LUT(labels, lut)
        count, comp, stats, _ = cv2.connectedComponentsWithStats(unknown, connectivity=4)
        x, y, w, h, area = stats.T
        height, width = labels.shape
        # a patch at most a die's face, wholly inside the picture (one at its edge is not enclosed)
        enclosed = (area <= LIT_LARGEST * (DIE_MM * px_per_mm) ** 2) & (x > 0) & (y > 0) \
            & (x + w < width) & (y + h < height)
        enclosed[0] = False
        if not enclosed.any():
            return labels
        ids = np.where(enclosed, np.arange(count), 0).astype(np.float32)
        patch = np.take(ids, comp)  # (float: no int32 dilation)
        # each patch's ring: the pixels round it (where two patches meet a ring, the later one's)
        ring = cv2.dilate(patch, SQUARE3)
        ring[unknown > 0] = 0
        at = ring > 0
        k = len(colours)
        votes = np.bincount(ring[at].astype(np.int64) * (k + 1) + np.minimum(labels[at], k),
                            minlength=count * (k + 1)).reshape(count, k + 1)
        die_votes = votes[:, dice]
        best = np.asarray(dice)[die_votes.argmax(1)]
        around = enclosed & (die_votes.max(1) >= LIT_RING_SHARE * np.maximum(votes.sum(1), 1))
        if not around.any():
            return labels
        inside = np.take(around, comp)
        ys, xs = np.nonzero(inside)
        owner = best[comp[ys, xs]]
        nearest, keep, lit, whiter = _lit_its_way(flat[ys, xs].astype(np.float32), colours, owner)
        lit &= (nearest == owner) & ((keep >= 0.9) | whiter)
        share = np.bincount(comp[ys, xs], weights=lit, minlength=count) / np.maximum(area, 1)
        lit &= share[comp[ys, xs]] >= LIT_SHARE
        if not lit.any():
            return labels
        out = labels.copy()
        out[ys[lit], xs[lit]] = owner[lit]
        return out

    def _sheen_lit_dice(self, flat: np.ndarray, labels: np.ndarray, px_per_mm: float,
                        board: bool = False, as_empty: np.ndarray | None = None) -> np.ndarray:
        """``labels`` with a glossy die's top under a broad sheen taken for the die: pixels of
        no tinted piece's colour within half a die of one die's colour (and no other's), that
        are that colour mixed with a lamp's white (as ``_lit_die_tops`` judges a pixel), in
        broad patches no larger than a die's face.  A sheen over most of a top (Baron Voodoo's
        purple and blue dice under a broad lamp: lilac and pale blue tops) leaves only the rim
        the die's colour, broken where the rim's blur mixes it with the print: no patch is
        enclosed by it (``_lit_die_tops``), and the die was read as specks of its rim and its
        lit top as something over the board.  ``board``: the whole board sampled, where only
        pixels of no colour at all are looked at (a lit top there is no print's colour, and the
        print is most of the board: judging it costs a changed board a third more), and pixels
        of a print's colour where the board is not the empty board (``as_empty``, when given)."""
        n_pieces = len(self._piece_names)
        colours = self._centroid_bgr
        tinted = np.ptp(colours, axis=1) >= TINTED
        dice = self._tinted_dice()
        if not dice:
            return labels
        lut = np.zeros(256, np.uint8)
        if board:
            lut[UNKNOWN] = 1
        else:
            lut[:] = 1
            lut[[i for i in range(n_pieces) if tinted[i]]] = 0
        open_ = cv2.LUT(labels, lut)
        if board and as_empty is not None:  # and a print's colour where the empty board is not seen
            printed = np.zeros(256, np.uint8)
            printed[n_pieces:UNKNOWN] = 1
            off = cv2.compare(cv2.LUT(labels, printed), as_empty.view(np.uint8), cv2.CMP_GT)
            open_ = cv2.bitwise_or(open_, cv2.bitwise_and(off, 1))
        if not cv2.countNonZero(open_):
            return labels
        width = max(3, int(round(SHEEN_NARROWEST_MM * px_per_mm)) | 1)
        broad = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (width,) * 2)
        if board:  # (a blurred edge's sliver of no colour is no sheen: not judged at all)
            open_ = cv2.morphologyEx(open_, cv2.MORPH_OPEN, broad)
            if not cv2.countNonZero(open_):
                return labels
        reach = max(1, int(round(LIT_REACH * DIE_MM * px_per_mm)))
        kernel = np.ones((2 * reach + 1,) * 2, np.uint8)  # (a square: a fifth of a disc's cost)
        lut[:] = 0
        lut[dice] = 1
        near = cv2.dilate(cv2.LUT(labels, lut), kernel)
        if board:  # (a piece's crop: all of it, a top lit on past its colour's reach joined after)
            open_ &= near
        elif not near.any():
            return labels
        found = cv2.findNonZero(open_)
        if found is None:
            return labels
        xs, ys = found.reshape(-1, 2).T
        pixels = flat[ys, xs].astype(np.float32)
        owner, keep, lit, whiter = _lit_its_way(pixels, colours)
        lit &= whiter & np.isin(owner, dice) & (keep < 0.9)
        if not lit.any():
            return labels
        xs, ys, owner = xs[lit], ys[lit], owner[lit]
        # its die's colour within reach, and no other die's (nothing is taken across two
        # colours: a patch between two dice is neither's); judged in a window round them
        x0, y0 = max(0, int(xs.min()) - reach), max(0, int(ys.min()) - reach)
        x1, y1 = int(xs.max()) + reach + 1, int(ys.max()) + reach + 1
        window = labels[y0:y1, x0:x1]
        wx, wy = xs - x0, ys - y0
        # (the highest and the lowest die colour within reach, each colour one up: both its own)
        lut[:] = 0
        lut[dice] = np.asarray(dice) + 1
        highest = cv2.dilate(cv2.LUT(window, lut), kernel)[wy, wx]
        lut[:] = 255
        lut[dice] = np.asarray(dice) + 1
        lowest = cv2.erode(cv2.LUT(window, lut), kernel)[wy, wx]
        ok = (highest == owner + 1) & (lowest == owner + 1)
        if not ok.any():
            return labels
        if not board:
            ok |= _lit_on_from(ok, (highest == 0) & (lowest == 255), owner, wx, wy)
        xs, ys, owner = xs[ok], ys[ok], owner[ok]
        x0, y0 = int(xs.min()) - 1, int(ys.min()) - 1  # (a pixel's margin: the opening's edge)
        wx, wy = xs - x0, ys - y0
        mask = np.zeros((int(wy.max()) + 2, int(wx.max()) + 2), np.uint8)
        ok = np.ones(len(xs), bool)
        mask[wy, wx] = 1
        # a sheen is broad; the die's colour blurred into a light print round it is a thin
        # band along its outline, which an opening as wide as a pip's core takes away
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, broad)
        _count, comp, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        small = stats[:, cv2.CC_STAT_AREA] <= LIT_LARGEST * (DIE_MM * px_per_mm) ** 2
        small[0] = False
        ok &= small[comp[wy, wx]]
        xs, ys, owner = xs[ok], ys[ok], owner[ok]
        out = labels.copy()
        out[ys, xs] = owner
        return out

    def _lit_dice_alone(self, flat: np.ndarray, labels: np.ndarray, as_empty: np.ndarray) -> np.ndarray:
        """``labels`` with a glossy die that the lamp lifts past its colour all over taken for
        the die: sampled at a pixel a millimetre, its rim a pixel or two that the blur mixes
        with the print round it, it shows no pixel of its colour at all, so neither a ring of
        it (``_lit_die_tops``) nor a speck beside it (``_sheen_lit_dice``) vouches for it, and it
        was something over the board (King of Clubs from straight above: a red 2 lit pink, its
        rim a muted brown-red).  A patch that the empty board does not explain, of no colour
        at all (no piece's, nor the print's: a white die is white), a die's size and no longer
        (``ALONE_SMALLEST``, ``LIT_LARGEST``, ``ALONE_SPAN``), ringed by the print's colours
        (``ALONE_RING``: a fingertip has its hand beside it, a piece its colour), at least
        ``LIT_SHARE`` of it one die's colour mixed with a lamp's white, as ``_lit_die_tops``
        judges a pixel (nearer that colour's way than any piece's, the print's or skin's), and
        all but a few of those pixels that one die's: they are that die."""
        n_pieces = len(self._piece_names)
        colours = self._centroid_bgr
        dice = self._tinted_dice()
        if not dice:
            return labels
        face = (DIE_MM * SCALE) ** 2
        # no colour at all (a piece's, the print's) where the empty board is not seen
        open_ = cv2.compare(labels, UNKNOWN, cv2.CMP_EQ) & (~as_empty).view(np.uint8)
        if cv2.countNonZero(open_) < ALONE_SMALLEST * face:
            return labels
        width = max(3, int(round(SHEEN_NARROWEST_MM * SCALE)) | 1)
        broad = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (width,) * 2)
        open_ = cv2.morphologyEx(open_, cv2.MORPH_OPEN, broad)
        if cv2.countNonZero(open_) < ALONE_SMALLEST * face:
            return labels
        bx, by, bw, bh = cv2.boundingRect(open_)  # (the components only where there are any,
        bx, by = max(0, bx - 2), max(0, by - 2)  # and the ring round them)
        box = (slice(by, by + bh + 4), slice(bx, bx + bw + 4))
        flat, labels_in, open_ = flat[box], labels[box], open_[box]
        _count, comp, stats, _ = connected_components(open_)
        span = ALONE_SPAN * DIE_MM * SCALE
        x, y, w, h, area = stats.T
        candidates = np.flatnonzero((area >= ALONE_SMALLEST * face) & (area <= LIT_LARGEST * face)
                                    & (w <= span) & (h <= span))
        candidates = candidates[candidates > 0]
        if not len(candidates):
            return labels
        ways = np.vstack([colours, np.asarray(SKIN_BGR, colours.dtype)])
        out = labels
        for k in candidates:
            x0, y0, x1, y1 = max(0, x[k] - 1), max(0, y[k] - 1), x[k] + w[k] + 1, y[k] + h[k] + 1
            patch = comp[y0:y1, x0:x1] == k
            ring = (cv2.dilate(patch.view(np.uint8), SQUARE3) > 0) & ~patch
            around = labels_in[y0:y1, x0:x1][ring]
            if not ring.any() or float(((around >= n_pieces) & (around != UNKNOWN)).mean()) < ALONE_RING:
                continue
            ys, xs = np.nonzero(patch)
            owner, keep, its_way, whiter = _lit_its_way(flat[y0:y1, x0:x1][ys, xs].astype(np.float32), ways)
            lit = its_way & whiter & np.isin(owner, dice) & (keep < 0.9)
            if lit.sum() < LIT_SHARE * len(ys):
                continue
            die = int(np.bincount(owner[lit]).argmax())
            if np.count_nonzero(owner[lit] == die) < ALONE_OWNER * lit.sum():
                continue
            if out is labels:
                out = labels.copy()
            # the die: its lit top, and its rim, which points its colour's way too (its blur
            # with the print keeps less of the lamp's white): the piece's whole box, for its
            # marks to be read on a crop round all of it
            mine = its_way & (owner == die)
            out[by + y0 + ys[mine], bx + x0 + xs[mine]] = die
        return out


def _lit_on_from(near: np.ndarray, alone: np.ndarray, owner: np.ndarray, xs: np.ndarray,
                 ys: np.ndarray) -> np.ndarray:
    """Which lit pixels (``xs``, ``ys``, each lit its ``owner``'s way) join, one the next, a
    pixel lit the same way within reach of that colour (``near``), with no die's colour within
    reach of them (``alone``)?  A die's top lit all over reaches past half a die from the
    only pixels of its colour left (a rim on one side, the rest of its rim blurred into the
    print), and was cut straight where that reach ended (King of Clubs from straight above:
    a red 2 lit pink, its far corner pip cut off): the rest of the same lit patch is its top too
    (the size of a die's face at most, judged after)."""
    grown = np.zeros(len(xs), bool)
    if not (alone & ~near).any():
        return grown
    for colour in np.unique(owner[near]):
        mine = (owner == colour) & (near | alone)
        picture = np.zeros((int(ys[mine].max()) + 1, int(xs[mine].max()) + 1), np.uint8)
        picture[ys[mine], xs[mine]] = 1
        _n, parts = cv2.connectedComponents(picture, connectivity=8)
        seeded = np.unique(parts[ys[mine & near], xs[mine & near]])
        grown[mine] |= np.isin(parts[ys[mine], xs[mine]], seeded[seeded > 0])
    return grown & alone


def _lit_its_way(pixels: np.ndarray, colours: np.ndarray, owner: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per pixel (N x 3, BGR), as a colour mixed with a lamp's white: the tinted colour whose
    way its tint points nearest (of ``colours``: pieces' and the print's), how much of a
    colour's tint it keeps (``owner``'s, or that nearest one's; a mix (1 - t) colour + t white
    keeps 1 - t of it), whether it may be that colour lit (its tint enough and pointing that
    colour's way, ``LIT_TINT_MIN`` and ``LIT_COSINE``, and lighter than the colour), and
    whether it is lifted toward a white at least ``LIT_WHITE_MIN`` light (a grey film is no
    lamp's light)."""
    tint = pixels - pixels.mean(1, keepdims=True)
    size = np.linalg.norm(tint, axis=1)
    ways = colours - colours.mean(1, keepdims=True)
    tinted = np.ptp(colours, axis=1) >= TINTED  # the ways a tint may point
    unit = ways / np.maximum(np.linalg.norm(ways, axis=1, keepdims=True), 1e-6)
    cosine = (tint @ unit.T) / np.maximum(size, 1e-6)[:, None]
    cosine[:, ~tinted] = -1.0
    nearest = cosine.argmax(1)
    owner = nearest if owner is None else owner
    own_cos = cosine[np.arange(len(pixels)), owner]
    keep = np.clip(size / np.maximum(np.linalg.norm(ways[owner], axis=1), 1e-6), 0.0, 1.0)
    mean_c = colours[owner].mean(1)
    white = (pixels.mean(1) - keep * mean_c) / np.maximum(1.0 - keep, 1e-3)
    lit = (size >= LIT_TINT_MIN) & (own_cos >= LIT_COSINE) & (pixels.mean(1) > mean_c)
    return nearest, keep, lit, white >= LIT_WHITE_MIN
