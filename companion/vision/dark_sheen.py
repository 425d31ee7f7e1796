"""A dark piece under its sheen: a black one a dark grey with no hue, not the print dimmed.

Black plastic is not ink.  Glossy or matte, its surface reflects a few per cent of the room's
light, so under the light that shows the print in its own colours a black token's top is a
dark grey (40-95 of 255 on the physically based frames, where the palette's black is 25),
nearer the darkest print colour than black: the token is read as print that the empty board
does not explain ("something over it?"), or as a sliver of black beside it ("pieces
touching?").  Such a patch is told from what else is dark there:

- a shadow on the print is the print dimmed evenly, keeping its hue; the patch has none;
- a grey piece in the light the print is read under is lighter (the palette's grey is 140),
  and one in a shadow lies in a shadow: the print round it is dimmed too;
- a hand, a sleeve or a phone is no piece's size and shape on one place.

So a patch of the board's colours (or none) that has no hue, is far darker than the print there
and not evenly so, shaped as one piece on one place, with the print round it as the empty board
shows it, is the board's black piece there.  Only for a game whose black pieces lie flat (a
black die's or figure's sides are judged by ``standing.py``).  Where part of a black piece is
seen black, the sheen joined to it is that piece too (:meth:`DarkSheen._sheen_joined_to_black`).

A dark piece of a hue (Jivecat's brown trend cards) is lifted the same way: its colour mixed
with the grey its gloss mirrors, which leaves its hue but less of it, and lands near the print's
own dark tan (read as print the empty board does not explain).  Such a patch is the piece where
its tint for its lightness is the colour's mixed with a grey (``mixed_with_grey``; a tan print in
a shadow has far less), no other colour's mixed so (an orange piece in shade under a sheen
passes for brown), the print there is not itself of a colour that passes for it, and the patch
touches no die (a die's side in shade is a dark red or orange beside its top).

A part of ``BoardReader`` (``reader.py``), through :class:`~companion.vision.standing.Standing`.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.channels import channel_sum
from companion.vision.geometry import MARGIN_MM
from companion.vision.mark_peaks import _median_where, median_under, percentile_under
from companion.vision.reading import SCALE, SQUARE3, one_piece_shape, per_layout

DARK_DIE_GREY = 128  # a die this dark (grey level) bears lighter marks, however a sheen lifts it
SHEEN_HUELESS = 16  # a black top under a sheen: its channels within this of each other
SHEEN_DARKER = 0.6  # ... most of it no lighter than this share of the empty print there
SHEEN_UNEVEN = 0.12  # ... nor that print dimmed evenly: its channels' shares of it differ by this much
SHEEN_LIGHTEST = 112.0  # ... and darker than this (a grey piece, 140, in the print's light is lighter)
SHEEN_UNLIKE = 0.5  # this share of a patch at least unlike the print there (the rest may lie on dark print)
SHEEN_SEEN = 0.5  # a place is looked at with this share of its smallest piece seen so (times the above)
SPOT_PAD = 14  # a piece on a place is looked for this far round it (it may overhang; its ring round it)
RING_IN = 3  # past a patch's rim (a piece's edge blurs into the print by a pixel or two) ...
RING_PX = 3  # ... a ring this wide must show the print as the empty board shows it ...
RING_CLEAR = 0.6  # ... over this share of it (a neighbouring piece counts as clear: it is no shade)
SPARSE_SHEEN = 2000  # up to this many sheen pixels are joined to a piece one by one (not over the board)
BLACK_MOST = 60  # a black piece's colour: no channel above this
DARK_MOST = 130  # a dark piece of a hue (a brown card): no channel above this
TINTED_SHEEN = 40  # a colour whose channels spread this far has a hue of its own (black has none)
SHEEN_HUE_COS = 0.95  # a dark piece of a hue under its sheen: its tint this near the colour's (cosine)
SHEEN_MIX_MOST = 0.65  # ... the sheen's grey at most this share of what is seen (the colour the rest)
SHEEN_GREY = (90.0, 240.0)  # ... and that grey within these levels (the room's light, mirrored)
PRINT_TEXTURE = 10.0  # print under a patch whose grey varies this much (std) shows whether it is dimmed ...
SHADOW_SLOPE = 0.25  # ... a shadow's grey follows it (slope: its share of it), a piece's this much less
SHEEN_NEUTRAL_PTP = 12  # a black piece's sheen: its channels this near each other (no hue) ...
SHEEN_DARK_NUM, SHEEN_DARK_DEN = 9, 20  # ... and at most 0.45 of the empty board's brightness there
SHEEN_OPEN_SHARE = 0.35  # a sheen over a black face is broader than this share of its width; a mark narrower


class DarkSheen:
    """Black pieces whose sheen lifts them off black (see the module's docstring)."""

    def _dark_in_sheen(self, flat: np.ndarray, labels: np.ndarray, as_empty: np.ndarray,
                        region: tuple[slice, slice] | None = None) -> np.ndarray:
        """``labels`` with each dark flat piece under a sheen labelled its colour (a new array
        when any is, else ``labels`` itself): a black one, and a dark one of a hue (a brown
        card).  Only in ``region`` when one is given."""
        colours = self._dark_flat_colours()
        if not colours:
            return labels
        wy, wx = (slice(0, labels.shape[0]), slice(0, labels.shape[1])) if region is None else region
        pad = RING_IN + RING_PX + 1
        window = (slice(max(0, (wy.start or 0) - pad), wy.stop + pad),
                  slice(max(0, (wx.start or 0) - pad), wx.stop + pad))
        lut = np.zeros(256, np.uint8)
        lut[len(self._piece_names):] = 1  # the board's colours, or none
        # (``a & ~b`` as ``a > b`` on 0 and 1: one pass, no copy of the window)
        open_ = np.greater(cv2.LUT(labels[window], lut), as_empty[window].view(np.uint8)).view(np.uint8)
        at = cv2.findNonZero(open_)  # (found once for every colour: a pass over the board each cost)
        if at is None:
            return labels
        xs, ys = at.reshape(-1, 2).T
        seen = flat[window][ys, xs]  # (gathered once for every colour)
        out = labels
        for index in colours:
            if out is not labels:  # what a colour before took is open no more
                still = out[window][ys, xs] >= len(self._piece_names)
                xs, ys, seen = xs[still], ys[still], seen[still]
            out = self._colour_in_sheen(flat, out, as_empty, window, (xs, ys, seen), index)
        return out

    def _dark_flat_colours(self) -> list[int]:
        """The game's piece colours dark enough for a sheen to lift them off their colour
        (``DARK_MOST``; black among them), of pieces that lie flat (a die's or a figure's
        sides are judged by ``standing.py``)."""
        return per_layout(self, "_dark_flat_known", lambda: [
            i for i, name in enumerate(self._piece_names)
            if not self._is_die(i) and not self._stands_up(name)
            and float(self._piece_bgr[i].max()) <= (BLACK_MOST if name == "black" else DARK_MOST)])

    def _may_be_in_sheen(self, seen: np.ndarray, index: int) -> np.ndarray:
        """Which pixels (``seen``, flattened) may be colour ``index``'s piece under its sheen.
        Black: no hue and dark.  A dark colour with a hue: its hue, as far from grey as the
        colour mixed with the sheen's grey leaves it (``mixed_with_grey``), as no other colour
        mixed so is."""
        if self._hued_paints()[index]:
            colour = self._piece_bgr[index].astype(np.float32)
            pixels = seen.astype(np.float32)
            # and no other colour with a hue mixed so: an orange piece in shade under a sheen
            # passes for a brown one (brown is a dark orange) as well as a brown one does
            may = mixed_with_grey(pixels, colour)
            others = self._other_hues()[index]
            left = np.flatnonzero(may)  # (the other colours asked only of the pixels left, all at once)
            if len(left) and others is not None:
                taken = mixed_with_grey(pixels[left], others, loose=True)
                may[left[taken.any(axis=1)]] = False
            return may
        # (no hue and dark: the brightest channel within the hueless spread of the darkest mean.
        # Channel by channel in whole levels: numpy's reductions over an axis of three cost more
        # than the rest, and a mean of three levels is at most 112 where their sum is at most 336)
        b, g, r = (seen[:, c].astype(np.int16) for c in range(3))
        top, low = np.maximum(np.maximum(b, g), r), np.minimum(np.minimum(b, g), r)
        return (top - low <= SHEEN_HUELESS) & (b + g + r <= 3 * SHEEN_LIGHTEST)

    def _hued_paints(self) -> list[bool]:
        """Per piece colour, has it a hue of its own (``TINTED_SHEEN``)?"""
        return per_layout(self, "_hued_paints_known",
                          lambda: [float(np.ptp(paint)) >= TINTED_SHEEN for paint in self._piece_bgr])

    def _other_hues(self) -> list[np.ndarray | None]:
        """Per piece colour, every other piece colour with a hue (``TINTED_SHEEN``), K x 3, or
        None: what ``_may_be_in_sheen`` rules out."""
        def others(index: int) -> np.ndarray | None:
            paints = [paint for other, paint in enumerate(self._piece_bgr)
                      if other != index and float(np.ptp(paint)) >= TINTED_SHEEN]
            return np.stack(paints).astype(np.float32) if paints else None
        return per_layout(self, "_other_hues_known", lambda: [others(i) for i in range(len(self._piece_bgr))])

    def _unlike_print(self, seen: np.ndarray, empty: np.ndarray, index: int) -> np.ndarray:
        """Which pixels that may be a piece under its sheen are unlike the print there
        (``empty``): not it dimmed evenly (a shadow keeps the print's hue); for black far
        darker than it; for a colour with a hue, where the print is not itself of a colour
        that passes for the piece under its sheen (a dark tan print does, for a brown card:
        the two are not told apart there)."""
        ratio = seen.astype(np.float32) / np.maximum(empty.astype(np.float32), 1.0)
        r0, r1, r2 = ratio[:, 0], ratio[:, 1], ratio[:, 2]  # (channel by channel, as ``channel_sum``)
        share = (r0 + r1 + r2) / 3
        spread = np.maximum(np.maximum(r0, r1), r2) - np.minimum(np.minimum(r0, r1), r2)
        uneven = spread >= SHEEN_UNEVEN * share
        if self._hued_paints()[index]:
            return uneven & ~self._may_be_in_sheen(empty, index)
        return uneven & (share <= SHEEN_DARKER)

    def _colour_in_sheen(self, flat: np.ndarray, labels: np.ndarray, as_empty: np.ndarray,
                         window: tuple[slice, slice], open_: tuple[np.ndarray, np.ndarray, np.ndarray],
                         index: int) -> np.ndarray:
        """``labels`` with each flat piece of colour ``index`` under a sheen labelled so: a
        patch of the board's colours (or none) that may be it (``_may_be_in_sheen``), mostly
        unlike the print there, shaped as one piece on one place, with the print round it as
        the empty board shows it.  ``open_``: the columns, rows and colours (``flat`` there) of
        the pixels of ``window`` open to it (of the board's colours, or none, and not the empty
        board)."""
        wy, wx = window
        xs, ys, seen = open_
        if not len(xs):
            return labels
        may = self._may_be_in_sheen(seen, index)
        if not may.any():
            return labels
        xs, ys = xs[may], ys[may]
        own = self._unlike_print(seen[may], self._reference[wy, wx][ys, xs], index)
        if not own.any():
            return labels
        ys, xs = ys + wy.start, xs + wx.start  # (the board's rows and columns from here on)
        grey = np.zeros(labels.shape, np.uint8)  # it may be the piece, wherever it lies over the print
        grey[ys, xs] = 1
        unlike = np.zeros(labels.shape, np.uint8)  # ... and unlike the print there
        unlike[ys[own], xs[own]] = 1
        # a piece lies on one place: looked for round each place with enough pixels unlike its
        # print (each its own small window: the whole board's components cost a millisecond)
        at_spot = self._spot_map[ys[own], xs[own]]
        counts = np.bincount(at_spot[at_spot >= 0], minlength=len(self._spot_ids))
        out = labels
        for i in np.flatnonzero(counts):
            if counts[i] < SHEEN_UNLIKE * SHEEN_SEEN * self._min_area[self._spot_ids[i]] * SCALE * SCALE:
                continue
            by0, bx0, by1, bx1 = (int(v) for v in self._spot_boxes[i])
            around = (slice(max(0, by0 - SPOT_PAD), by1 + SPOT_PAD),
                      slice(max(0, bx0 - SPOT_PAD), bx1 + SPOT_PAD))
            out = self._tokens_in(around, (flat, grey, unlike), out, labels, as_empty, index)
        return out

    def _tokens_in(self, window: tuple[slice, slice], seen: tuple[np.ndarray, np.ndarray, np.ndarray],
                   out: np.ndarray, labels: np.ndarray, as_empty: np.ndarray, black: int) -> np.ndarray:
        """``out`` with the dark pieces of colour ``black`` (black, or a dark colour of a hue)
        under a sheen found in a window of the board labelled so (copied from ``labels`` at
        the first).  ``seen``: the flattened board, and where it may be the piece and is
        unlike the print there (``_colour_in_sheen``)."""
        flat, grey, unlike = seen
        wy, wx = window
        here = labels[wy, wx]
        hued = self._hued_paints()[black]
        patch = cv2.morphologyEx(grey[wy, wx] | (here == black).view(np.uint8), cv2.MORPH_OPEN, SQUARE3)
        n, parts, stats, centres = cv2.connectedComponentsWithStats(patch, connectivity=8)
        rows, cols = patch.shape
        tokens = []
        for k in range(1, n):
            x, y, w, h, area = (int(v) for v in stats[k])
            if x == 0 or y == 0 or x + w == cols or y + h == rows:
                continue  # it may run on past the window: no piece known
            box = (slice(y, y + h), slice(x, x + w))
            new = (parts[box] == k) & (grey[wy, wx][box] > 0)
            differs = np.count_nonzero(new & (unlike[wy, wx][box] > 0))
            if not new.any() or not one_piece_shape(w, h):
                continue
            if differs < SHEEN_UNLIKE * np.count_nonzero(new) and (hued or not _hides_the_print(
                    flat[wy, wx][box], self._reference[wy, wx][box], new)):
                continue
            spot = self._spot_at((centres[k][0] + wx.start) / SCALE - MARGIN_MM,
                                 (centres[k][1] + wy.start) / SCALE - MARGIN_MM)
            if spot is not None and self._min_area[spot] <= area / (SCALE * SCALE) <= self._max_area[spot]:
                tokens.append((k, box, new))
        if not tokens:
            return out
        # round a token the print shows as the empty board, or pieces, or other such tokens;
        # round one of a hue, no piece: a die's side in shade is a dark red or orange beside
        # its top, and passes for a brown piece's sheen
        found = np.zeros(n, bool)  # (a lookup by part: ``np.isin`` sorts)
        found[[k for k, _, _ in tokens]] = True
        clear = as_empty[wy, wx] | found[parts]
        if hued:
            dice = self._dice_labels()[here]
            tokens = [t for t in tokens if not _touches(parts, t[0], dice)]
        else:
            clear |= here < len(self._piece_names)
        for k, box, new in tokens:
            if self._lit_round(parts, k, clear, stats[k]):
                if out is labels:
                    out = labels.copy()
                out[wy, wx][box][new] = black
        return out

    @staticmethod
    def _lit_round(parts: np.ndarray, k: int, clear: np.ndarray, stats: np.ndarray) -> bool:
        """Is the ring round patch ``k`` (past its rim) mostly ``clear``: the empty board,
        pieces, or another black piece's sheen; as in the print's own light, not a shade that
        reaches past the patch?"""
        x, y, w, h = (int(v) for v in stats[:4])
        reach = RING_IN + RING_PX
        y0, x0 = max(0, y - reach), max(0, x - reach)
        y1, x1 = min(parts.shape[0], y + h + reach), min(parts.shape[1], x + w + reach)
        mine = (parts[y0:y1, x0:x1] == k).astype(np.uint8)
        inner = cv2.dilate(mine, np.ones((2 * RING_IN + 1,) * 2, np.uint8))
        ring = cv2.dilate(mine, np.ones((2 * reach + 1,) * 2, np.uint8)) > inner
        return bool(ring.any()) and float(clear[y0:y1, x0:x1][ring].mean()) >= RING_CLEAR

    @staticmethod
    def _joined_dense(piece: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
        """The pixels ``ys``, ``xs`` (as a mask of ``piece``'s shape) whose 8-connected component
        of ``piece`` and them holds a piece's pixel: the components over the whole window."""
        sheen = np.zeros(piece.shape, bool)
        sheen[ys, xs] = True
        n, parts = cv2.connectedComponents((piece | sheen).astype(np.uint8), connectivity=8)
        joined = np.zeros(n, bool)
        joined[parts[piece]] = True
        joined[0] = False
        return sheen & joined[parts]

    @staticmethod
    def _joined_sparse(piece: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Of a few pixels (rows ``ys``, columns ``xs``), those joined to ``piece`` (8-connected)
        through one another: the ones whose component of ``piece`` and them holds a piece's pixel.
        A path from such a pixel reaches its first pixel of the piece through these pixels only, so
        they are found from the ones beside the piece, one neighbour at a time; no pass over the
        board (an arm over it leaves a few hundred such pixels on a board of half a million)."""
        # (beside the piece: a pixel of it among the eight round, as the piece's 3x3 dilation has;
        # one pass over the window costs less than nine gathers round a few thousand pixels)
        beside = cv2.dilate(piece.view(np.uint8), SQUARE3)[ys, xs] > 0
        if not beside.any():
            return ys[:0], xs[:0]
        at = {(int(y), int(x)): i for i, (y, x) in enumerate(zip(ys.tolist(), xs.tolist(), strict=True))}
        reached = beside.copy()
        todo = [int(i) for i in np.flatnonzero(beside)]
        while todo:
            i = todo.pop()
            y, x = int(ys[i]), int(xs[i])
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    j = at.get((y + dy, x + dx))
                    if j is not None and not reached[j]:
                        reached[j] = True
                        todo.append(j)
        return ys[reached], xs[reached]

    def _sheen_joined_to_black(self, flat: np.ndarray, labels: np.ndarray, as_empty: np.ndarray,
                               region: tuple[slice, slice] | None) -> np.ndarray:
        """A glossy black piece's sheen taken for the piece: a lamp's light over part of a
        black tile lifts it to a dark grey no colour is, still without hue (the print's
        shadow keeps the print's hue) and far darker than the empty board there.  Pixels
        that are neither a colour nor the empty board, so, and joined to a black piece, are
        that piece (not something over the board, nor a second piece touching it); its light
        marks stay marks (far lighter than that)."""
        n_pieces = len(self._piece_names)
        black = per_layout(self, "_black_known", lambda: [
            i for i in range(n_pieces) if float(self._piece_bgr[i].max()) <= BLACK_MOST])
        if len(black) != 1:
            return labels
        index = black[0]
        wy, wx = (slice(0, labels.shape[0]), slice(0, labels.shape[1])) if region is None else region
        window = labels[wy, wx]
        piece = window == index
        if not piece.any():
            return labels
        at = cv2.findNonZero(np.greater(window >= n_pieces, as_empty[wy, wx]).view(np.uint8))  # (a & ~b)
        if at is None:
            return labels
        xs, ys = at.reshape(-1, 2).T  # judged where neither a colour nor the empty board is seen
        seen = flat[wy, wx][ys, xs].astype(np.int16)
        empty = self._reference[wy, wx][ys, xs].astype(np.int16)
        # (channel by channel: numpy's reductions over an axis of three cost an arm's frame
        # some 3 ms, over the 20,000 pixels an arm leaves neither a colour nor the empty board)
        b, g, r = seen[:, 0], seen[:, 1], seen[:, 2]
        hueless = np.maximum(np.maximum(b, g), r) - np.minimum(np.minimum(b, g), r) <= SHEEN_NEUTRAL_PTP
        lit = empty[:, 0] + empty[:, 1] + empty[:, 2]
        dark = hueless & ((b + g + r) * SHEEN_DARK_DEN <= lit * SHEEN_DARK_NUM)
        if not dark.any():
            return labels
        ys, xs = ys[dark], xs[dark]
        if len(ys) > SPARSE_SHEEN:
            take = self._joined_dense(piece, ys, xs)
        else:
            take = np.zeros(window.shape, bool)
            take[self._joined_sparse(piece, ys, xs)] = True
        if not take.any():
            return labels
        out = labels.copy()
        out[wy, wx][take] = index
        return out

    def _black_sheen_on_crop(self, crop: np.ndarray, mask: np.ndarray, index: int,
                             box: tuple[int, int, int, int]) -> np.ndarray:
        """A flat black piece's colour mask on the crop its marks are read on (``crop``
        flattened, crop px), with its sheen taken for it as the board's sampling took it
        (``_dark_in_sheen``, ``_sheen_joined_to_black``): pixels with no hue and dark
        (``SHEEN_HUELESS``, ``SHEEN_LIGHTEST``) joined to the piece's box and within it (``box``:
        rows y0..y1, columns x0..x1 of the crop; the crop reaches past it onto the print, where
        dark print is no sheen of the piece's) are the piece.
        Light marks stay out (far lighter).  ``mask`` itself for any other piece."""
        if index not in self._dark_flat_colours():
            return mask
        dark = self._may_be_in_sheen(crop.reshape(-1, 3), index).reshape(mask.shape)
        joined = (dark | (mask > 0)).astype(np.uint8)
        n, parts = cv2.connectedComponents(joined, connectivity=4)
        y0, y1, x0, x1 = box
        inner = parts[y0:y1, x0:x1]
        keep = np.zeros(n, bool)
        keep[np.unique(inner[inner > 0])] = True
        within = np.zeros(mask.shape, bool)  # the piece's box: dark print past it is no sheen of its
        within[y0:y1, x0:x1] = True
        return ((keep[parts] & within) | (mask > 0)).astype(np.uint8)

    def _flat_black(self, index: int) -> bool:
        """Is this colour the game's black piece that lies flat (a token, a tile, a card)?"""
        return self._piece_names[index] == "black" and not self._is_die(index) \
            and not self._stands_up("black") and float(self._piece_bgr[index].max()) <= BLACK_MOST

    def _sheen_taken_off(self, gray: np.ndarray, mask: np.ndarray, index: int) -> np.ndarray:
        """A flat black piece's brightness (``gray``, crop px) with its sheen taken off: a
        lamp's light over a glossy black top lifts it broadly, a gradient over the whole
        face or a streak along it, while a mark is small and round.  The face's brightness
        opened by a disc, or by a line in any of four directions, as wide as a third of the
        piece (wider than any mark) is the sheen; less it, raised back to the
        face's darkest level, the marks stand alone against an even black.  A dark die lifted
        past mid-grey (``_dark_die_lit_past_grey``) likewise, its sheen the face's median round
        each pixel as wide (a pip is less than half of that; an opening wears a sheen's edge
        down into a ring of faint marks round it).  ``gray`` itself for any other piece, or
        with too little of the piece seen."""
        black = self._flat_black(index)
        if not black and not self._dark_die_lit_past_grey(gray, mask, index):
            return self._shade_taken_off(gray, mask, index)
        area = cv2.countNonZero(mask)
        if area < 16:
            return gray
        size = max(3, int(SHEEN_OPEN_SHARE * np.sqrt(area)) | 1)
        if black:
            disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
            sheen = cv2.morphologyEx(gray, cv2.MORPH_OPEN, disc)
            for line in _lines(size):  # a streak along the face's bevel is light too, however thin
                sheen = cv2.max(sheen, cv2.morphologyEx(gray, cv2.MORPH_OPEN, line))
        else:  # a die's: the face's median round each pixel, wider than a pip
            sheen = cv2.medianBlur(gray, size)
        hull = cv2.dilate(mask, SQUARE3)
        floor = percentile_under(sheen, hull, 10)  # (``np.percentile`` of those pixels, to the bit)
        lift = cv2.subtract(sheen, np.full_like(sheen, int(floor)))
        lift[hull == 0] = 0
        return cv2.subtract(gray, lift)

    def _dark_die_lit_past_grey(self, gray: np.ndarray, mask: np.ndarray, index: int) -> bool:
        """Is this a die of a dark colour (its marks lighter than it) whose face a glossy
        sheen lifts past mid-grey?  Its marks are still the lighter ones; read against the
        face's lifted level they would be taken for dark ink, and the sheen is taken off as a
        black piece's is (Baron Voodoo's purple and blue dice under a broad lamp: lilac and
        pale blue tops, only their rims their colour).  Not on the re-read with its colour's
        contrast raised (``marks_gains``): that gain is measured on faces not so lifted."""
        if index in self._marks_gains or not self._is_die(index) \
                or self._colour_grey(index) > DARK_DIE_GREY:
            return False
        return cv2.countNonZero(mask) >= 16 and _median_where(gray, mask) > DARK_DIE_GREY

    def _light_die(self, index: int) -> bool:
        """Is this a die of a light colour (a white or a yellow one), its marks darker than it?"""
        return self._is_die(index) and self._colour_grey(index) > DARK_DIE_GREY

    def _colour_grey(self, index: int) -> float:
        """A piece colour's grey level, as OpenCV takes a colour's grey."""
        b, g, r = (float(v) for v in self._piece_bgr[index])
        return 0.114 * b + 0.587 * g + 0.299 * r

    def _shade_taken_off(self, gray: np.ndarray, mask: np.ndarray, index: int) -> np.ndarray:
        """A light flat piece's brightness (a pale token or card, ``gray`` in crop px) with
        its broad shade taken off, as a black one's sheen is (``_sheen_taken_off``): the
        lamp's light falling off over the face, or a shaded band along its bevel, darkens it
        broadly or in a line, while a dark mark is small and round.  The face's brightness
        closed by a disc or a line as wide as a third of the piece is the light on it; raised
        to its lightest level, the marks stand alone.  ``gray`` itself for a die, a standing
        piece, a dark face or too little of the piece seen."""
        if self._is_die(index) or self._stands_up(self._piece_names[index]):
            return gray
        area = cv2.countNonZero(mask)
        if area < 16 or median_under(gray, mask) <= 128:
            return gray
        size = max(3, int(SHEEN_OPEN_SHARE * np.sqrt(area)) | 1)
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
        closed = cv2.morphologyEx(gray, cv2.MORPH_CLOSE, disc)
        for line in _lines(size):  # a shaded band along the bevel is light too, however thin
            closed = cv2.min(closed, cv2.morphologyEx(gray, cv2.MORPH_CLOSE, line))
        hull = cv2.dilate(mask, SQUARE3)
        ceiling = percentile_under(closed, hull, 90)
        shade = cv2.subtract(np.full_like(closed, int(ceiling)), closed)
        shade[hull == 0] = 0
        return cv2.add(gray, shade)


def _lines(size: int) -> list[np.ndarray]:
    """Lines ``size`` px long across, down and along both diagonals, as kernels."""
    across = np.ones((1, size), np.uint8)
    diagonal = np.eye(size, dtype=np.uint8)
    return [across, across.T.copy(), diagonal, np.fliplr(diagonal).copy()]


def mixed_with_grey(pixels: np.ndarray, colour: np.ndarray, loose: bool = False) -> np.ndarray:
    """Which pixels (N x 3, BGR) are ``colour`` mixed with a grey: a glossy dark piece
    mirrors the room's light over its own colour, which leaves its hue (the tint, each
    channel less the mean, points the colour's way) but less of it, ``1 - t`` for a share
    ``t`` of a grey (``SHEEN_MIX_MOST``, ``SHEEN_GREY``).  Print of the same hue is told by
    its tint for its lightness: a tan print dimmed by a shadow to a brown card's lightness
    has far less tint than the card's share of brown leaves it.  ``loose``: with a grey of any
    level and the colour's share up to a third past whole (a lamp's light, a lighter dye):
    what might be that colour at all, to rule another out."""
    one = colour.ndim == 1  # one colour; or several (K x 3), an N x K answer, a column a colour
    colours = colour[None, :] if one else colour
    paint = channel_sum(colours)[None, :] / 3
    way = colours - paint.T
    size2 = channel_sum(way * way)
    mean = (channel_sum(pixels) / 3)[:, None]
    tint = pixels - mean
    along = tint @ way.T
    keep = along / np.maximum(size2, 1e-6)  # the colour's share, 1 - t
    # (the hue and the grey asked only of the pixels whose share of the colour may pass: most
    # of a board's are far off it, and each pixel's answer is its own)
    out = (keep >= 1.0 - SHEEN_MIX_MOST) & (keep <= (1.35 if loose else 1.1))
    rows = np.flatnonzero(out.any(axis=1)) if not one else np.flatnonzero(out[:, 0])
    tint, along, keep = tint[rows], along[rows], keep[rows]
    norm = np.sqrt(channel_sum(tint * tint)[:, None] * size2[None, :])
    hue = (along >= SHEEN_HUE_COS * norm) & out[rows]
    if not loose:
        mix = np.maximum(1.0 - keep, 1e-3)
        grey = (mean[rows] - keep * paint) / mix
        hue &= (keep >= 0.9) | ((grey >= SHEEN_GREY[0]) & (grey <= SHEEN_GREY[1]))
    out[rows] = hue
    return out[:, 0] if one else out


def _touches(parts: np.ndarray, k: int, other: np.ndarray) -> bool:
    """Does component ``k`` of ``parts`` touch (8-connected) a pixel of ``other``?"""
    ys, xs = np.nonzero(parts == k)
    y0, y1 = max(0, int(ys.min()) - 1), int(ys.max()) + 2
    x0, x1 = max(0, int(xs.min()) - 1), int(xs.max()) + 2
    near = cv2.dilate((parts[y0:y1, x0:x1] == k).view(np.uint8), SQUARE3) > 0
    return bool((near & other[y0:y1, x0:x1]).any())


def _hides_the_print(seen: np.ndarray, empty: np.ndarray, patch: np.ndarray) -> bool:
    """Does a dark patch (``patch`` of the boxes ``seen`` and ``empty``) hide the print rather
    than dim it?  Where the print under it varies (a skull's strokes), a shadow follows it: its
    grey is the print's times its share of it, and varies so; a piece's top shows the same grey
    whatever lies under it.  So a patch whose grey does not follow the print's (its slope on
    it under ``SHADOW_SLOPE`` of its share) is a piece, however little of the print's hue
    sets it apart (a black token over a light tan print that its sheen tints warm).  Its rim,
    blurred into the print, is left out."""
    core = cv2.erode(patch.astype(np.uint8), SQUARE3) > 0
    if np.count_nonzero(core) < 8:
        return False
    s = seen[core].astype(np.float32).mean(axis=1)
    e = empty[core].astype(np.float32).mean(axis=1)
    if float(e.std()) < PRINT_TEXTURE:
        return False  # (an even print: dimmed or hidden look alike)
    slope = float(np.mean((s - s.mean()) * (e - e.mean()))) / float(e.var())
    return slope < SHADOW_SLOPE * float(s.mean()) / max(float(e.mean()), 1.0)
