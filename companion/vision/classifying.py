"""Each pixel's nearest calibrated colour, or none when it is far from all of them.

A die's top that a lamp lifts past its colour, taken for the die, is ``lit_dice.py``'s; a
chip's under a broad sheen is here.  A part of ``BoardReader`` (``reader.py``): the methods
here use its state.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.coarse_marks import RIM_PX_PER_MM
from companion.vision.geometry import MARGIN_MM
from companion.vision.light import CLIPPED
from companion.vision.lit_dice import TINTED, LitDice, _lit_its_way
from companion.vision.palette import SKIN_BGR, WHITE
from companion.vision.pips import channel_medians
from companion.vision.reading import SCALE, SQUARE3, UNKNOWN, per_layout

LOWER_BOUND_MATTERS = 240  # a clipped channel flattened below this may be a lighter colour's
TINT_COSINE = 0.9  # a face's tint points a colour's way when this near it (cosine)
GREY_TINT_MAX = 24.0  # a colourless piece's face, light flattened, shows less tint than this (median)
COARSE_TINT_MAX = 12.0  # ... and less than this other than the print's way, from a coarse frame
SURROUNDINGS_COSINE = 0.9  # a tint this near the print's own (cosine) is taken from the print
# (white chips the print warms: 0.94 or nearer on the tuning frames; red chips lit pale, 0.80-0.85)
FINE_WHITE_TINT_MAX = 20.0  # a white face from a frame fine enough for its rim shows less than this ...
LIT_PALE_LEVEL = 200.0  # ... lit this light (its median, flattened): a cast's unclipped rest is no face
CHIP_SHEEN_KEEP = 0.25  # a flat piece under a broad sheen keeps this share of its colour's tint (median)
CHIP_ASPECT = 1.5  # ... in a patch no longer than this many times its width
CHIP_RIVAL_COSINE = 0.95  # ... of a colour no other piece's (nor skin's) tint points this near (or by place)
CHIP_PIXEL_KEEP = 0.15  # ... each of its pixels keeping this share of the tint or more
RIVAL_PIXEL_KEEP = 0.22  # ... of a chip with rivals (a tan print lit is a fifth of an orange's tint, 0.17)
CHIP_PAD = 14  # a chip on a changed part of the board is looked for this far round it (px)


@functools.lru_cache(maxsize=4)
def _nearest_colour_table(centroids: bytes, weights: bytes) -> np.ndarray:
    """The table for one set of calibrated colours, kept for the next reader of the same
    colours (a reader made again after a restart, a re-calibration undone, a test's fresh
    reader): building it is a third of a second, and it never changes.  Read-only."""
    weight = np.frombuffer(weights, np.float32)
    levels = (np.arange(64, dtype=np.uint8) << 2) + 2
    b, g, r = np.meshgrid(levels, levels, levels, indexing="ij")
    cube = np.stack([b, g, r], -1).reshape(-1, 1, 3)
    lab = cv2.cvtColor(cube, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
    lab *= weight
    weighted = np.frombuffer(centroids, np.float32).reshape(-1, 3) * weight
    # one centroid at a time, no matrix product: BLAS would keep a 32 MB buffer for good
    d = np.stack([((lab - c) ** 2).sum(1) for c in weighted], 1)
    best = d.argmin(1)
    far = d[np.arange(len(d)), best] > 30.0 ** 2
    table = np.where(far, UNKNOWN, best).astype(np.uint8)
    table.setflags(write=False)
    return table


@dataclass(frozen=True)
class LitChips:
    """``Classifying._lit_chip_table``: per colour at 6 bits a channel (``_build_lut``'s
    order), one more than the chip it is lit its way (for a chip with rivals, its group's
    first piece), else 0; per way a pixel is judged by (pieces', the print's, skin's), the
    group it belongs to (-1: none); and per group, the pieces in it."""

    table: np.ndarray
    group_of: np.ndarray
    pieces: dict[int, tuple[int, ...]]
    with_rivals: np.ndarray  # per table value: a group of rivals' chip


@functools.lru_cache(maxsize=4)
def _lit_chip_table(centroids: bytes, n_pieces: int, chips: tuple[int, ...]) -> LitChips | None:
    """``Classifying._lit_chip_table`` for one set of calibrated colours (pieces' first, then
    the print's) and the chips among the pieces.  A chip whose way other pieces' (or skin's)
    all but share (``CHIP_RIVAL_COSINE``: Baron Voodoo's orange offering, its brown pieces and
    a fingertip are one pale orange lit) is one group with them, all of whose ways point at
    each other: lit so, the place it lies on tells which piece it is (``_sheen_lit_chips``).
    Read-only."""
    colours = np.frombuffer(centroids, np.float32).reshape(-1, 3)
    ways = np.vstack([colours[:n_pieces], np.asarray(SKIN_BGR, np.float32)])
    ways = ways - ways.mean(axis=1, keepdims=True)
    ways /= np.maximum(np.linalg.norm(ways, axis=1, keepdims=True), 1e-6)
    near = ways @ ways.T >= CHIP_RIVAL_COSINE
    skin = len(colours)  # (skin's index among the ways a pixel is judged by: pieces, print, skin)
    group_of = np.full(len(colours) + 1, -1, np.intp)
    pieces: dict[int, tuple[int, ...]] = {}
    for i in chips:
        members = np.flatnonzero(near[i])
        if group_of[i] >= 0 or not near[np.ix_(members, members)].all():
            continue  # (a chain of rivals, no one group: none of them told by its place)
        judged = [int(j) if j < n_pieces else skin for j in members]
        if (group_of[judged] >= 0).any():
            continue
        group_of[judged] = i
        pieces[i] = tuple(int(j) for j in members if j < n_pieces)
    if not pieces:
        return None
    levels = (np.arange(64, dtype=np.float32) * 4) + 2
    b, g, r = np.meshgrid(levels, levels, levels, indexing="ij")
    cube = np.stack([b, g, r], -1).reshape(-1, 3)
    judged = np.vstack([colours, np.asarray(SKIN_BGR, np.float32)])
    owner, keep, lit, whiter = _lit_its_way(cube, judged)
    group = group_of[owner]
    taken = lit & whiter & (group >= 0) & (keep >= CHIP_PIXEL_KEEP) & (keep < 0.9)
    for first, rivals in pieces.items():
        if len(rivals) > 1:  # lit the way of any of them: judged as each chip among them in turn
            theirs = group == first
            taken &= ~theirs
            for i in rivals:
                if i in chips:
                    _, keep, lit, whiter = _lit_its_way(cube[theirs], judged, np.full(int(theirs.sum()), i))
                    taken[theirs] |= lit & whiter & (keep >= RIVAL_PIXEL_KEEP) & (keep < 0.9)
    table = np.where(taken, group + 1, 0).astype(np.uint8)
    table.setflags(write=False)
    group_of.setflags(write=False)
    with_rivals = np.zeros(256, bool)
    with_rivals[[first + 1 for first, members in pieces.items() if len(members) > 1]] = True
    return LitChips(table, group_of, pieces, with_rivals)


def _table_index(bgr: np.ndarray) -> int:
    """A colour's place in a table at 6 bits a channel (``_nearest_colour_table``'s order)."""
    b, g, r = (int(v) >> 2 for v in np.clip(bgr, 0, 255))
    return (b << 12) | (g << 6) | r


class Classifying(LitDice):
    """A lookup table from colour to the nearest calibrated colour, and its use."""

    _arm_across = False  # an arm lies across the board's margin in the frame read (``reader.py``)

    def _build_lut(self) -> np.ndarray:
        """Nearest calibrated colour for every BGR value at 6 bits a channel, computed once
        for these colours; UNKNOWN where no calibrated colour is near."""
        return _nearest_colour_table(np.ascontiguousarray(self._centroids, np.float32).tobytes(),
                                     np.ascontiguousarray(self._weights, np.float32).tobytes())

    def tinted_grey(self, index: int, flat: np.ndarray, own: np.ndarray) -> bool:
        """Is a piece read as a colourless one (white, grey) tinted a coloured piece's way
        over its whole face (``own``, in ``flat``)?  A pale yellow chip under a sheen passes
        for white pixel by pixel; its median keeps yellow's tint, a white face's none."""
        return bool(self.tinted_toward(index, flat, own))

    def colour_under_a_sheen(self, index: int, spot: str, flat: np.ndarray | None,
                             box: tuple[int, int, int, int], own: np.ndarray) -> int | None:
        """The colour of a piece read as ``index`` at ``spot`` (its box ``x, y, w, h`` on the
        board sampled, ``flat``; its pixels ``own``): ``index`` unless a colourless one tinted a
        coloured piece's way (``tinted_grey``), then None, unclear, unless read white (a sheen
        lifts a colour toward white; a dark patch tinted is a shade, no lit piece), the place
        takes no white piece and one of the colours it is tinted toward (``Spot.takes``: a
        Baron Voodoo Protection token lit white on its own place is its cyan).  A plain white
        token tinted as far toward no colour's way is unclear too."""
        x, y, w, h = box
        # the print round it, on a frame too coarse for a piece's rim, and round a plain white
        # token however fine the frame: on fresh Jivecat boards at 1.03 px a mm two blue chips
        # lit pale were read as white, tinted 14.4 and 20.1 away from the print (the white
        # chips at 1 px a mm or more, tinted 10 or more, all pointed the print's way; a die's
        # face and a dark token keep the fine frame's bound: a die's shaded side passes for black)
        around = None
        name = self._piece_names[index]
        coarse = 0.0 < self.frame_px_per_mm < RIM_PX_PER_MM
        plain_white = name in WHITE and self.layout.marks.get(name) == (0, 0)
        if flat is not None and self._reference is not None and (coarse or plain_white):
            around = self._reference[y:y + h, x:x + w]
        tint = None if flat is None else self._tint_past_bound(index, flat[y:y + h, x:x + w], own, around)
        if tint is None:
            return index
        toward = self._colours_toward(tint)
        if not toward:
            # a plain white token tinted past its bound, yet no piece's colour's way closely: no
            # white either (a fresh Jivecat board's blue chip lit pale, 21.6 away from the print,
            # 0.82 of blue's way, was read white; the tuning frames' white faces never passed
            # their bound).  A die keeps its white: on the flat camera a lamp's highlight on
            # Swing State's white die tints it past the bound, toward no colour
            return None if plain_white else index
        place = self.layout.spot(spot)
        taken = [i for i in toward if place.may_hold(self._piece_names[i])]
        return taken[0] if len(taken) == 1 and name in WHITE and not place.may_hold(name) else None

    def tinted_toward(self, index: int, flat: np.ndarray, own: np.ndarray,
                      around: np.ndarray | None = None) -> list[int]:
        """The coloured pieces whose way a piece read as a colourless one is tinted over its
        whole face (``tinted_grey``), none when it is not (``_tint_past_bound``)."""
        tint = self._tint_past_bound(index, flat, own, around)
        return [] if tint is None else self._colours_toward(tint)

    def _tint_past_bound(self, index: int, flat: np.ndarray, own: np.ndarray,
                         around: np.ndarray | None = None) -> np.ndarray | None:
        """The tint of a piece read as a colourless one (its face's median less its mean),
        when it is past what a colourless face shows; else None.  ``around``: the empty board round
        it, from a frame too coarse for a piece's rim (or round a plain white token): a white
        piece there takes on the print's tint (a tan board's warmth) and no other, so a tint
        of ``COARSE_TINT_MAX`` or more any other way is a coloured piece washed pale (Jivecat
        at 0.55-0.63 px a mm: two blue chips under a lamp, read as white; the white chips'
        tints of up to 19 pointed the print's way).
        From a frame fine enough for a piece's rim (``RIM_PX_PER_MM``) the print no longer bleeds
        into a face's median: white faces there showed tints of 10.4 at most (540 of Baron
        Voodoo's, Jivecat's and Swing State's on the tuning frames; the flat camera's painted
        dice, warmed by its lamp, 16.3 on 30 boards), so ``FINE_WHITE_TINT_MAX`` or more is a
        coloured piece lit pale (a Jivecat yellow chip at 1.07 px a mm, 23.7; those
        lit pale were 209-248 light; fresh boards' white chips warmed up to 15.9, the print's
        way).  Where a lamp of another colour clips a white face, what
        is left unclipped (its pips' rims, 80-150 light) keeps the cast's tint: 24 stands."""
        if float(self._paints()[3][index]) >= TINTED or not own.any():
            return None
        # each channel's median from its histogram under the face (a sort of its pixels costs
        # as much as the rest of the check); the lower of the two middle levels when they differ
        seen = channel_medians(flat, own.astype(np.uint8))
        tint = seen - seen.mean()
        size = float(np.linalg.norm(tint))
        least = GREY_TINT_MAX
        if self.frame_px_per_mm >= RIM_PX_PER_MM and self._piece_names[index] in WHITE \
                and float(seen.mean()) >= LIT_PALE_LEVEL:
            least = FINE_WHITE_TINT_MAX
        if around is not None and COARSE_TINT_MAX <= size < GREY_TINT_MAX:  # (its median only then)
            printed = np.median(around.reshape(-1, 3), axis=0)
            printed -= printed.mean()
            if float(tint @ printed) < SURROUNDINGS_COSINE * size * max(1e-6, float(np.linalg.norm(printed))):
                least = COARSE_TINT_MAX
        return None if size < least else tint

    def _colours_toward(self, tint: np.ndarray) -> list[int]:
        """The coloured pieces whose way ``tint`` points (within ``TINT_COSINE``)."""
        colours, size = self._centroid_bgr, float(np.linalg.norm(tint))
        toward = []
        for i in range(len(self._piece_names)):
            piece = colours[i] - colours[i].mean()
            norm = float(np.linalg.norm(piece))
            if float(np.ptp(colours[i])) >= TINTED \
                    and float(tint @ piece) >= TINT_COSINE * size * norm:
                toward.append(i)
        return toward

    def _split_by_colour(self, labels: np.ndarray, blob: np.ndarray, x: int, y: int,
                         votes: np.ndarray) -> list:
        """A blob of two or more colours, as one piece per colour patch: only the blob's own
        pixels (its box may hold other pieces, as an arm's sleeve of a piece's colour does).
        Its three most voted colours (``votes``, per colour), and any die's colour past them:
        a blob of four colours once lost its least, a die (Baron Voodoo, a yellow die's sheen
        taken for it joined it to its shadow, read brown, and to the dice beside it; the die
        went and the shadow was read as a token).  A fourth colour that is no die's is an
        orange token's rim in shade, or a die's side: taken apart, it doubts places for nothing."""
        out = []
        for rank, index in enumerate(np.argsort(votes)[::-1]):  # (the most voted first)
            if votes[index] == 0:
                break
            if rank >= 3 and not self._is_die(int(index)):
                continue
            part = cv2.morphologyEx(((labels == index) & blob).astype(np.uint8), cv2.MORPH_OPEN,
                                    np.ones((3, 3), np.uint8))
            n, _, stats, centres = cv2.connectedComponentsWithStats(part, connectivity=8)
            for k in range(1, n):
                if stats[k, cv2.CC_STAT_AREA] >= self._smallest_px * 0.3:
                    bx, by, bw, bh, area = stats[k]
                    out.append((int(index), (centres[k][0] + x, centres[k][1] + y),
                                (bx + x, by + y, bw, bh, area), 1.0))
        # a patch inside a larger one of its colour is that piece's middle, ringed by its own
        # marks (a Jivecat card's code of 8 parted its black middle from its rim: read as a token)
        return [p for p in out if not any(q[0] == p[0] and q[2][4] > p[2][4] and _box_within(p[2], q[2])
                                          for q in out)]

    def _paints(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The piece colours (BGR), each one's channels summed, which have no hue (their
        channels within 40 of each other), and every calibrated colour's spread over its
        channels (``np.ptp``): asked of every piece read, kept per layout."""
        return per_layout(self, "_paints_known", lambda: (
            self._piece_bgr, self._piece_bgr.sum(axis=1), np.ptp(self._piece_bgr, axis=1) < 40,
            np.ptp(self._centroid_bgr, axis=1)))

    def _classify_seen(self, flat: np.ndarray, seen: np.ndarray,
                       px_per_mm: float | None = None) -> np.ndarray:
        """Labels of a flattened picture (``_classify_clipped``); on a piece's own crop
        (``px_per_mm``, its scale), a die's top lit past its colour taken for the die
        (``_lit_die_tops``, ``_sheen_lit_dice``).  The board takes only a broad sheen of no
        colour at all for a die (``EmptyBoard._flatten_whole``): a lit patch inside a die's
        rim, made whole there, let its sides pass for a column's lower die (two frames of the
        tuning split read a die under it)."""
        labels = self._classify_clipped(flat, seen)
        if px_per_mm is None:
            return labels
        return self._sheen_lit_dice(flat, self._lit_die_tops(flat, labels, px_per_mm), px_per_mm)

    def _classify_board(self, flat: np.ndarray, seen: np.ndarray,
                        as_empty: np.ndarray | None = None) -> np.ndarray:
        """Labels of the board sampled (``_classify_seen``), a die's top under a broad sheen of
        no colour at all taken for the die (``_sheen_lit_dice``): read as specks of its rim,
        with something over the board beside them, before.  ``as_empty``: where the board
        shows the empty board; a print's colour seen elsewhere is judged too (a yellow die's
        top lit toward white passes for a pale print's fill)."""
        labels = self._classify_seen(flat, seen)
        labels = self._sheen_lit_dice(flat, labels, SCALE, board=True, as_empty=as_empty)
        return labels if as_empty is None else self._lit_dice_alone(flat, labels, as_empty)

    def _sheen_lit_chips(self, flat: np.ndarray, labels: np.ndarray, as_empty: np.ndarray,
                         region: tuple[slice, slice] | None = None) -> np.ndarray:
        """``labels`` with a glossy flat piece (a chip, a token) under a broad sheen taken for
        it: a patch of no tinted piece's colour (no colour, white, the print) that the empty
        board does not explain, shaped as one piece on one place and ringed by the empty board
        or pieces, whose median is a chip's colour mixed with a lamp's white
        (``_lit_chip_table``) keeping at least ``CHIP_SHEEN_KEEP`` of its tint.
        Jivecat's chips under a broad lamp show lilac, pink and pale tops, their colour only
        in a rim that the blur mixes with the print: they were read as something over the
        board, or as a white chip of a doubtful tint.  A white face, its light flattened,
        keeps a tenth of a colour's tint at most (``GREY_TINT_MAX``); a sheen-lit chip a third
        to a half.  A chip with rivals (``_lit_chip_table``) is the one of them its place may
        hold, when it may hold only one, ringed by no piece of theirs (a fingertip's hand lit
        their way shows their colours), and only while no arm crosses the board's margin: a
        hand over a column of such places, split by the print's lines, is a row of patches of
        its skin, each ringed by the print.  Only in ``region`` when one is given."""
        chips = self._lit_chip_table()
        if chips is None:
            return labels
        table = chips.table
        n_pieces = len(self._piece_names)
        wy, wx = (slice(0, labels.shape[0]), slice(0, labels.shape[1])) if region is None else region
        wy = slice(max(0, (wy.start or 0) - CHIP_PAD), wy.stop + CHIP_PAD)
        wx = slice(max(0, (wx.start or 0) - CHIP_PAD), wx.stop + CHIP_PAD)
        lut = per_layout(self, "_untinted_lut", lambda: self._untinted_lut(n_pieces))
        # (most boards show no chip's colour lit anywhere, and are asked no more: judged on
        # every other pixel of every other row, a quarter of the cost, a chip a quarter its size)
        # (``a & ~b`` as ``a > b`` on 0 and 1: one pass, no copy)
        untinted = cv2.LUT(np.ascontiguousarray(labels[wy, wx][::2, ::2]), lut)
        empty = as_empty[wy, wx][::2, ::2].view(np.uint8)
        found = cv2.findNonZero(np.greater(untinted, empty).view(np.uint8))
        if found is None:
            return labels
        xs, ys = found.reshape(-1, 2).T
        b, g, r = (flat[wy, wx][::2, ::2][ys, xs] >> 2).astype(np.intp).T
        lit = table[(b << 12) | (g << 6) | r] > 0
        if chips.with_rivals.any():
            # lit the way of a colour with rivals beside a piece is a piece's rim blurred into
            # the print (an orange chip's, a yellow die's lit the way of orange): only a patch
            # clear of pieces is looked at for a chip with rivals
            pieces = cv2.LUT(np.ascontiguousarray(labels[wy, wx][::2, ::2]), self._pieces_lut())
            rims = cv2.dilate(pieces, SQUARE3)
            lit &= ~((rims[ys, xs] > 0) & chips.with_rivals[table[(b << 12) | (g << 6) | r]])
        smallest = min(self._min_area.values()) * SCALE * SCALE  # (px: no piece is smaller)
        if np.count_nonzero(lit) < smallest / 4:
            return labels
        # the patches, looked for round what is lit so: all the pixels of no tinted piece's
        # colour, a chip's rim and its pale core alike (a core's white highlight, a rim's blur
        # into the print), judged whole
        y0, x0 = (wy.start or 0) + 2 * int(ys[lit].min()), (wx.start or 0) + 2 * int(xs[lit].min())
        y1, x1 = (wy.start or 0) + 2 * int(ys[lit].max()) + 2, (wx.start or 0) + 2 * int(xs[lit].max()) + 2
        wy = slice(max(wy.start or 0, y0 - CHIP_PAD), min(wy.stop, y1 + CHIP_PAD))
        wx = slice(max(wx.start or 0, x0 - CHIP_PAD), min(wx.stop, x1 + CHIP_PAD))
        open_ = np.greater(cv2.LUT(labels[wy, wx], lut), as_empty[wy, wx].view(np.uint8)).view(np.uint8)
        open_ = cv2.morphologyEx(open_, cv2.MORPH_OPEN, SQUARE3)
        n, parts, stats, centres = cv2.connectedComponentsWithStats(open_, connectivity=8)
        rows, cols = open_.shape
        # round a chip the board shows as the empty board, or pieces: a hand's fingertip, a
        # pale patch of the same mixed colours, has the rest of the hand beside it
        clear = as_empty[wy, wx] | (labels[wy, wx] < n_pieces)
        with_skin = np.vstack([self._centroid_bgr, np.asarray(SKIN_BGR, self._centroid_bgr.dtype)])
        out = labels
        x, y, w, h, area = stats[1:].T
        # (it may run on past the window, or is no one piece's shape or size, and is passed by)
        whole = (x > 0) & (y > 0) & (x + w < cols) & (y + h < rows) \
            & (np.maximum(w, h) <= CHIP_ASPECT * np.minimum(w, h)) \
            & (area >= smallest)
        for k in np.flatnonzero(whole) + 1:
            x, y, w, h, area = (int(v) for v in stats[k])
            spot = self._spot_at((centres[k][0] + (wx.start or 0)) / SCALE - MARGIN_MM,
                                 (centres[k][1] + (wy.start or 0)) / SCALE - MARGIN_MM)
            if spot is None or not self._min_area[spot] <= area / (SCALE * SCALE) <= self._max_area[spot]:
                continue
            own = parts[y:y + h, x:x + w] == k
            median = channel_medians(flat[wy, wx][y:y + h, x:x + w], own.view(np.uint8))
            owner, keep, lit, whiter = _lit_its_way(median[None].astype(np.float32), with_skin)
            group = int(chips.group_of[owner[0]])
            if group < 0:
                continue
            piece, ring_clear = group, clear
            if len(chips.pieces[group]) > 1:  # a chip with rivals: the one its place may hold
                if self._arm_across:
                    continue  # (a hand's parts between the print's lines pass for one, its skin a rival)
                rivals = chips.pieces[group]
                held = [i for i in rivals if self._may_hold(spot, self._piece_names[i])]
                if len(held) != 1:
                    continue
                piece = held[0]
                _, keep, lit, whiter = _lit_its_way(median[None].astype(np.float32), with_skin,
                                                    np.array(held))
                ring_clear = clear & ~np.isin(labels[wy, wx], rivals)
            if lit[0] and whiter[0] and table[_table_index(median)] == group + 1 \
                    and CHIP_SHEEN_KEEP <= float(keep[0]) < 0.9 \
                    and self._lit_round(parts, k, ring_clear, stats[k]):
                if out is labels:
                    out = labels.copy()
                out[wy, wx][y:y + h, x:x + w][own] = piece
        return out

    def _lit_chip_table(self) -> LitChips | None:
        """Per colour at 6 bits a channel (``_build_lut``'s order): one more than the chip
        colour it is lit its way (``_lit_its_way``: nearer that colour's way than any other
        colour's or a hand's skin's, lifted toward a lamp's white, keeping ``CHIP_PIXEL_KEEP``
        of its tint or more), else 0; None for a game without such chips.  A chip: a disc of a
        tinted colour that does not stand; one whose way other pieces' or skin's all but share
        (``CHIP_RIVAL_COSINE``: an orange token's, a brown one's and a fingertip's are one pale
        orange) is one group with them (``LitChips``).  Built once per set of colours."""
        return per_layout(self, "_lit_chip_known", self._built_lit_chip_table)

    def _built_lit_chip_table(self) -> LitChips | None:
        colours = np.ascontiguousarray(self._centroid_bgr, np.float32)
        names = tuple(self._piece_names)
        chips = tuple(i for i, name in enumerate(names) if float(np.ptp(colours[i])) >= TINTED
                      and self.layout.shapes.get(name, "disc") == "disc" and not self._stands_up(name))
        return _lit_chip_table(colours.tobytes(), len(names), chips) if chips else None

    def _pieces_lut(self) -> np.ndarray:
        """A label table: 1 for every piece's colour."""
        def built() -> np.ndarray:
            lut = np.zeros(256, np.uint8)
            lut[:len(self._piece_names)] = 1
            return lut
        return per_layout(self, "_pieces_lut_known", built)

    def _untinted_lut(self, n_pieces: int) -> np.ndarray:
        """A label table: 1 for every label but a piece colour with a tint of its own."""
        lut = np.ones(256, np.uint8)
        lut[[i for i in range(n_pieces) if float(np.ptp(self._centroid_bgr[i])) >= TINTED]] = 0
        return lut

    def _classify_clipped(self, flat: np.ndarray, seen: np.ndarray) -> np.ndarray:
        """Labels of a flattened picture, where a channel the camera clipped (in ``seen``, the
        picture as sampled) counts as at least what it flattened to: a lamp of another colour
        clips one channel of a white face first, which flattens it below the face's own level
        (206 where it is 245), and the face then passed for a lighter print of the board
        (only a channel the light flattens below ``LOWER_BOUND_MATTERS`` is so judged).  A
        pixel beside a clipped one counts so too (sampling mixes the clipped values in: 236
        where the face's pips' rims showed 255).  A pixel so in every channel is left as it is
        (a reflection's rim: the glare check judges those)."""
        labels = self._classify(flat)
        floor = self.light.clipped_floor
        lowered = floor < LOWER_BOUND_MATTERS if floor is not None else np.zeros(3, bool)
        if not lowered.any():  # a clipped channel flattens to about white: nothing to raise
            return labels
        near = cv2.dilate(seen, SQUARE3)  # each channel's highest value round each pixel
        unclipped = cv2.inRange(near, (0, 0, 0), tuple(CLIPPED - 1 if low else 255 for low in lowered))
        if cv2.countNonZero(unclipped) == unclipped.size:
            return labels
        # only what is no piece's colour yet may be one (a lower bound lifts nothing else)
        open_ = cv2.compare(labels, len(self._piece_names), cv2.CMP_GE)
        open_ &= ~unclipped & ~cv2.inRange(near, (CLIPPED,) * 3, (255,) * 3)
        found_at = cv2.findNonZero(open_)
        if found_at is None:
            return labels
        xs, ys = found_at.reshape(-1, 2).T
        pixels = flat[ys, xs].astype(np.float32)[:, None, :]  # N x 1 x 3
        clipped = ((near[ys, xs] >= CLIPPED) & lowered)[:, None, :]
        # each colour judged with the clipped channels raised to it where it is lighter
        lifted = np.where(clipped, np.maximum(pixels, self._centroid_bgr[None]), pixels)
        k = len(self._centroid_bgr)
        lab = cv2.cvtColor(lifted.astype(np.uint8).reshape(-1, 1, 3), cv2.COLOR_BGR2LAB)
        lab = lab.reshape(-1, k, 3).astype(np.float32) * self._weights
        d = ((lab - self._centroids * self._weights) ** 2).sum(-1)
        best = d.argmin(1)
        found = np.where(d[np.arange(len(best)), best] > 30.0 ** 2, UNKNOWN, best).astype(np.uint8)
        labels[ys, xs] = found
        return labels

    def _classify(self, img: np.ndarray) -> np.ndarray:
        # 6 bits a channel, one index into the table, built in place from the interleaved
        # channels (a quarter faster than splitting them first, with the index as wide as
        # ``take`` wants it: a narrower one it casts first, a pass and a copy)
        if not img.size:
            return np.zeros(img.shape[:-1], self._lut.dtype)
        levels = img >> 2
        index = levels[..., 0].astype(np.intp)
        index <<= 6
        index += levels[..., 1]
        index <<= 6
        index += levels[..., 2]
        return self._lut.take(index)


def _box_within(inner: tuple, outer: tuple) -> bool:
    """Does box ``inner`` (x, y, w, h, ...) lie within box ``outer``?"""
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[0] + inner[2] <= outer[0] + outer[2] \
        and inner[1] + inner[3] <= outer[1] + outer[3]
