"""The empty board: what the reader compares a frame with (the drawn print, or a photo of
the table's own board learnt in calibration), and the board flattened against it, whole or
only round a change.

A part of ``BoardReader`` (``reader.py``): the methods here use its state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import cv2
import numpy as np

from companion.games.base import Piece
from companion.vision.blobs import _Blob, _Kept
from companion.vision.cast_shadow import (
    blob_within,
    cast_by_no_blob,
    cast_by_nothing,
    cast_shadow,
    missed_light,
    shade_tint,
)
from companion.vision.channels import channel_all, channel_max, channel_min, channel_sum
from companion.vision.classifying import GREY_TINT_MAX
from companion.vision.die_sides import Box
from companion.vision.glare import RING_PX, Glare
from companion.vision.light import CLIPPED
from companion.vision.light_round_pieces import FOOT_SHADE_LEAST, LightRoundPieces
from companion.vision.lit_dice import TINTED
from companion.vision.pose import DIE_MM, MOST_STACKED
from companion.vision.reading import SCALE, SHADE, SHADOW_REACH_MM, SQUARE3, SQUARE5, Reading
from companion.vision.specks import Surroundings

EMPTY_TOLERANCE = 24  # how far (per channel, of 255) the board may stray from the empty board
FLAT_SHADOW_MM = 6.0  # a flat piece's shadow (a 3 mm chip's, a lamp 30 degrees up) reaches this far
PASS_PX = 10  # px round a patch that a piece it may be the rim or shade of may lie over
CLIPPED_APART = 8  # a clipped pixel flattened this far past the empty board is not it
TINTED_PRINT = 24  # print whose channels lie this far apart (of 255) has a tint a light keeps ...
TINT_KEPT = 0.5  # ... this share of it at least, lit or in shade: a grey piece over it has none
SQUARE2 = np.ones((2, 2), np.uint8)
TINT_RIM = np.ones((13, 13), np.uint8)  # a piece's colour this near (6 px) blurs the print's tint away
FIGURE_SHADOW_REACH_MM = 22  # a standing figure's (26 mm tall: as far as a die's, for its height)
SHADOW_TAIL_MM2 = 80  # a low lamp draws a figure's shadow this much further out, joined to it, at most
SHADE_EVEN = 0.1  # a shadow dims the print alike in every channel, within this
SHADE_PRINT_MIN = 40  # print darker than this in any channel: no shade judged on it
FAINT_STRAY = 1.25  # a patch off the empty board by no more than this share of its tolerance ...
FAINT_FROM_PIECES = 72.0  # ... and this far from every piece's colour (BGR levels): the print under a sheen
EVEN_LIFT = 0.3  # ... every tinted one's, where lifted alike in every channel within this share (a sheen)
PRINT_DETAIL_MM = 3.0  # the print's lines and edges: what differs from the board blurred this much
PRINT_DETAIL = 6.0  # levels: a patch over print with less detail than this tells nothing of it
FOOT_SHADE_MM = 3  # a die's shade at its foot lies this near its box (its light: ``FOOT_SHADE_LEAST``)


def _disc_as_rectangles(disc: np.ndarray) -> list[np.ndarray]:
    """A disc (each row a span centred on its middle) as the rectangles it is the union of:
    per half-width, as tall as the rows that span it or more.  A dilation by a rectangle is
    two passes of a running maximum; by the disc, a pass over all its pixels."""
    r = disc.shape[0] // 2
    tallest: dict[int, int] = {}
    for dy, row in enumerate(disc):
        w = int(np.flatnonzero(row).max()) - r
        tallest[w] = max(tallest.get(w, 0), abs(dy - r))
    return [np.ones((2 * h + 1, 2 * w + 1), np.uint8) for w, h in sorted(tallest.items())]


class _Reach(NamedTuple):
    """A shadow's reach round a piece: its radius (px), its disc, the disc's pixels from its
    centre, and the disc as rectangles (``_disc_as_rectangles``)."""

    radius: int
    disc: np.ndarray
    dy: np.ndarray
    dx: np.ndarray
    rectangles: list[np.ndarray]


def _reach(mm: float) -> _Reach:
    radius = int(round(mm * SCALE))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))
    dy, dx = (d - radius for d in np.nonzero(disc))
    return _Reach(radius, disc, dy, dx, _disc_as_rectangles(disc))


_SHADOW = _reach(SHADOW_REACH_MM)
_FIGURE_SHADOW = _reach(FIGURE_SHADOW_REACH_MM)
WHOLE_LIT_SHARE = 0.5  # blobs' rings over this share of the board: lit judged over all of it at once
_SPECKS = 128  # unexplained pixels up to this many are judged each by its disc, more by a dilation
CAST_BY_NOTHING = "a shadow with no piece read to cast it: a pale piece?"
SHADOW_OF_NOTHING_MM2 = DIE_MM * DIE_MM / 4  # so much of a place under a shadow cast by nothing read
# the furthest a shadow reaches from what casts it: the tallest column (Baron Voodoo's three
# dice) under a lamp 45 degrees up (a window's light drew one's 22 mm over the next place)
LONGEST_SHADOW_MM = MOST_STACKED * DIE_MM


class EmptyBoard(LightRoundPieces):
    """The empty board as reference, and frames flattened and matched against it."""

    def _build_reference(self, top: np.ndarray) -> None:
        """What the empty board looks like: allowed surface labels per pixel, light anchors."""
        labels = self._classify(top)
        n = len(self._piece_names)
        allowed = np.zeros(labels.shape, np.uint16)
        kernel = np.ones((5, 5), np.uint8)
        for k in range(len(self._surface_names)):
            near = cv2.dilate((labels == n + k).astype(np.uint8), kernel)
            allowed |= near.astype(np.uint16) << k
        self._allowed = allowed
        self._reference = top
        self._kept = None  # matched against the old empty board
        self.glare = Glare(top, self._outside, self._classify, self._piece_names, self._hidden_radius)
        # the colours each pixel of the empty board may show, allowing for a pixel or two of
        # misplacement and for light the flattening does not quite take out
        k3 = np.ones((5, 5), np.uint8)
        self._ref_lo = cv2.subtract(cv2.erode(top, k3), np.full(3, EMPTY_TOLERANCE, np.float64))
        self._ref_hi = cv2.add(cv2.dilate(top, k3), np.full(3, EMPTY_TOLERANCE, np.float64))
        self._ref_lit = cv2.add(cv2.dilate(top, k3), np.full(3, 13, np.float64))
        tint = cv2.erode(channel_max(top) - channel_min(top), k3)  # (the least round each pixel)
        self._least_tint = np.where(tint >= TINTED_PRINT, np.floor(TINT_KEPT * tint), 0).astype(np.uint8)
        self._white = np.full_like(top, 255)
        # light anchors: board surface pixels well inside one surface colour, sampled sparsely
        anchors: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        eroded_ok = np.zeros(labels.shape, bool)
        eroded_ok[~self._outside] = True
        for k, name in enumerate(self._surface_names):
            inner = cv2.erode((labels == n + k).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
            inner &= eroded_ok
            inner &= self._spot_free | self._spot_corners
            ys, xs = np.nonzero(inner)
            if len(xs) > 40:
                step = max(1, len(xs) // 1500)
                anchors[name] = (ys[::step].copy(), xs[::step].copy())  # not views of the whole
        self._anchors = anchors
        ys, xs = np.nonzero(self._margin_mask)
        step = max(1, len(xs) // 3000)
        self._margin_samples = (ys[::step].copy(), xs[::step].copy())

    def learn_empty(self, frame: np.ndarray) -> Reading:
        """Learn the empty board from a photo of it: a real board's print, paper and wear are
        not the drawn layout's, and hands and shadows are found against what it really shows.

        Before learning, artwork the drawn layout lacks may look like a hand inside the board;
        so the photo is judged after learning: refused (ValueError, nothing changed) when the
        board is not found, something lies across the margin (an arm), or pieces stand on it
        (the classifier still sees them: a piece learnt as board would confuse every frame).
        """
        self.read(frame)
        if self._sampler is None:
            raise ValueError("the board was not found: all its markers must be in the photo")
        small = self._sampler.sample(frame)
        if self._crosses_margin(small):
            raise ValueError("something lies across the board's margin (an arm?): "
                             "photograph the empty board with nothing over it")
        before = (self._reference.copy(), self.empty_board)
        self.use_empty(self.light.flatten(small))
        reading = self.read(frame)
        pieces = sorted(reading.view or {})
        if reading.view is None or pieces:
            self._build_reference(before[0])
            self.empty_board = before[1]
            self.light.gain = None
            why = f"pieces stand on {', '.join(pieces[:6])}" if pieces else reading.problem
            raise ValueError(f"{why}: photograph the empty board")
        return reading

    def use_empty(self, top: np.ndarray | None) -> None:
        """Use an empty board learnt before (the profile's ``empty.png``, top-down)."""
        want = (self._small_size[1], self._small_size[0], 3)
        if top is None or not isinstance(top, np.ndarray) or top.shape != want or top.dtype != np.uint8:
            got = getattr(top, "shape", None)
            raise ValueError(f"the empty board is {got}, this board map needs {want}: "
                             "run 'companion calibrate board' again with a photo of the empty board")
        self._build_reference(top)
        self.empty_board = top
        self.light.gain = None  # refit the light against the new anchors
        self._last_reading = None

    def _flatten_whole(self, small: np.ndarray, crossing: np.ndarray | None = None
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The whole board flattened, its colours, and where it matches the empty board.
        ``crossing``: where an arm crosses the margin; a lift that reaches it is the arm (the
        palest skin over a tan board is lighter by about as much in every channel, as a
        reflection is), not a reflection to take off."""
        arm_entry = None if crossing is None else self._arm_entry(crossing)
        flat = self.glare.take_off(self.light.flatten(small), small, self.light.as_seen, arm_entry)
        # what the empty board does not explain: an unknown colour, or a surface colour
        # where the empty board shows another one (a die's top under a broad sheen is the die's)
        as_empty = self._as_empty_board(flat, small)
        labels = self._classify_board(flat, small, as_empty)
        return flat, labels, self._tint_kept(flat, labels, as_empty)

    def _tint_kept(self, flat: np.ndarray, labels: np.ndarray, as_empty: np.ndarray,
                   rows: slice = slice(None), cols: slice = slice(None)) -> np.ndarray:
        """``as_empty`` less where the print's tint is lost (under ``TINT_KEPT`` of it): light
        and shade keep a tinted print's tint, a grey piece over it has none (Baron Voodoo's
        speckled grey markers, lit as pale as a tan print, were read as empty places).  Only
        a patch (a line is a coloured piece's blurred rim, which passes through grey over a
        print of the opposite hue: a blue chip's on tan), and not at a piece's colour."""
        least = self._least_tint[rows, cols]
        # (first on every other pixel, a quarter of the work: most boards have no such patch)
        half = cv2.compare(cv2.subtract(channel_max(flat[::2, ::2]), channel_min(flat[::2, ::2])),
                           least[::2, ::2], cv2.CMP_LT)
        n_pieces = len(self._piece_names)
        half = cv2.compare(half, cv2.compare(labels[::2, ::2], n_pieces, cv2.CMP_LT), cv2.CMP_GT)
        if not cv2.countNonZero(cv2.erode(half, SQUARE2)):
            return as_empty
        tint = cv2.subtract(channel_max(flat), channel_min(flat))
        lost = cv2.compare(tint, least, cv2.CMP_LT)
        pieces = cv2.compare(labels, n_pieces, cv2.CMP_LT)
        pieces = cv2.morphologyEx(pieces, cv2.MORPH_OPEN, SQUARE3)  # (in specks: no piece, nor its rim)
        cores = cv2.erode(cv2.compare(lost, pieces, cv2.CMP_GT), SQUARE5)  # (a black piece is a piece)
        if not cv2.countNonZero(cores):  # (a line's gone: the common case, a piece's rim)
            return as_empty
        untinted = cv2.dilate(cores, SQUARE5)  # (the patches opened)
        # and colour past the print's, a coloured piece's blurred wider than its colour is classed
        vivid = cv2.compare(tint, cv2.multiply(least, 4), cv2.CMP_GT)
        near_pieces = cv2.dilate(pieces | vivid, TINT_RIM)
        as_empty &= cv2.compare(untinted, near_pieces, cv2.CMP_LE) > 0
        return as_empty

    def _as_empty_board(self, flat: np.ndarray, small: np.ndarray,
                        rows: slice = slice(None), cols: slice = slice(None)) -> np.ndarray:
        """Where the flattened board (``flat``) shows the empty board.  Not where the camera
        clipped every channel and the empty board there is darker than that in any channel
        (by ``CLIPPED_APART``): a clipped pixel was at least what it shows, so it flattens to
        the least it may be, and a white piece under a lamp, clipped, flattens down to a pale
        print's colour (a white chip on a cream place was read as the empty place).  ``rows``,
        ``cols``: the board's window ``flat`` and ``small`` show (all of it by default)."""
        as_empty = cv2.inRange(flat, self._ref_lo[rows, cols], self._ref_hi[rows, cols]) > 0
        found = cv2.findNonZero(cv2.inRange(small, (CLIPPED,) * 3, (255,) * 3))
        if found is None:
            return as_empty
        xs, ys = found.reshape(-1, 2).T
        inside = ~self._outside[rows, cols][ys, xs]  # (the margin: paper clipped under a lamp, no piece)
        xs, ys = xs[inside], ys[inside]
        darker = (self._reference[rows, cols][ys, xs].astype(np.int16) + CLIPPED_APART
                  < flat[ys, xs].astype(np.int16)).any(axis=1)
        as_empty[ys[darker], xs[darker]] = False
        return as_empty

    def _print_detail(self, region: np.ndarray, x: int, y: int,
                      flat: np.ndarray) -> tuple[float, float] | None:
        """How a patch lighter than the empty board shows the print's lines and edges, where the
        empty board has them: their correlation, and the share of their contrast seen (1: the
        board itself under more light, ``PRINT_THROUGH``: a lamp close to the table lights the
        board nearest it more than the light fitted to the margin gives it; less under a sheen
        that washes the print pale; none where a sleeve, a hand or a piece hides it).  None
        over too little print to tell (``PRINT_DETAIL``)."""
        h, w = region.shape
        pad = 4
        y0, x0 = max(0, y - pad), max(0, x - pad)
        y1, x1 = min(flat.shape[0], y + h + pad), min(flat.shape[1], x + w + pad)
        within = np.zeros((y1 - y0, x1 - x0), bool)
        within[y - y0:y - y0 + h, x - x0:x - x0 + w] = region
        seen = flat[y0:y1, x0:x1].astype(np.float32).mean(axis=2)
        empty = self._reference[y0:y1, x0:x1].astype(np.float32).mean(axis=2)
        detail_seen = seen - cv2.GaussianBlur(seen, (0, 0), PRINT_DETAIL_MM * SCALE)
        detail_empty = empty - cv2.GaussianBlur(empty, (0, 0), PRINT_DETAIL_MM * SCALE)
        a, b = detail_empty[within], detail_seen[within]
        if a.size < 30 or float(a.std()) < PRINT_DETAIL:
            return None
        a, b = a - a.mean(), b - b.mean()
        corr = float((a * b).sum() / max(1e-6, np.sqrt((a * a).sum() * (b * b).sum())))
        return corr, float((a * b).sum() / max(1e-6, (a * a).sum()))

    def _faint_stray(self, flat: np.ndarray, components: np.ndarray, k: int, box: np.ndarray) -> bool:
        """Is an unexplained patch the print itself, strayed only a little past what the empty
        board explains there (its median by ``FAINT_STRAY`` of the tolerance at most in any
        channel) and far from every piece's colour (``FAINT_FROM_PIECES``; ``EVEN_LIFT``)?  A lamp's sheen
        on a dark print lifts it just past the tolerance, which hides nothing there: a piece
        shows its own colour.  Over a pale print a white or grey piece, blurred small, is as
        near the print as that: it stays in doubt."""
        x, y, w, h = (int(v) for v in box[:4])
        own = components[y:y + h, x:x + w] == k
        seen = flat[y:y + h, x:x + w][own].astype(np.float32)
        stray = np.abs(off := seen - self._reference[y:y + h, x:x + w][own].astype(np.float32))
        if float(np.median(stray, axis=0).max()) > FAINT_STRAY * EMPTY_TOLERANCE:
            return False
        # ... all of it: a part that strays further, wide enough to be a piece, is one (a red chip
        # of a colour no piece's is, joined to the print a window's light lifts round it)
        far = np.zeros(own.shape, np.uint8)
        far[own] = stray.max(axis=1) > FAINT_STRAY * EMPTY_TOLERANCE
        if self.glare.could_hide(cv2.morphologyEx(far, cv2.MORPH_OPEN, SQUARE3) > 0, (y, x)).any():
            return False
        least = float(np.median(self._least_tint[y:y + h, x:x + w][own]))
        if least > 0 and float(np.median(seen.max(axis=1) - seen.min(axis=1))) < least:
            return False  # the print's tint gone: a sheen lifts every channel alike, a grey piece has none
        colour = np.median(seen, axis=0)
        pieces = self._centroid_bgr[:len(self._piece_names)]  # (the printed surfaces follow them)
        lift = np.median(off, axis=0)
        if least > 0 and (lift > 0).all() and float(np.ptp(lift)) <= EVEN_LIFT * float(lift.mean()) \
                and float(np.linalg.norm(colour - colour.mean())) >= GREY_TINT_MAX:
            # a print lifted alike in every channel, with more tint than a colourless face shows, is
            # no colourless piece (Jivecat at 30 degrees: a grey Staff place under a silk sheen)
            pieces = pieces[np.ptp(pieces, axis=1) >= TINTED]
        return not len(pieces) or float(np.linalg.norm(pieces - colour, axis=1).min()) >= FAINT_FROM_PIECES

    def _hides_no_piece(self, flat: np.ndarray, unexplained: np.ndarray, components: np.ndarray, k: int,
                        box: np.ndarray, pieces: np.ndarray) -> bool:
        """Does patch ``k`` of what is unexplained (its ``box``: x, y, w, h) hide no piece (a speck
        hides none)?  Clear of every piece read and its rim (``pieces``), nowhere as wide as the
        smallest piece of its places (past its box's edges, with what round it is not seen to be
        the board either, ``unexplained`` or off the empty board: ``specks``), and where no
        piece's colour passes for the print."""
        x, y, w, h = (int(v) for v in box[:4])
        part = components[y:y + h, x:x + w] == k
        # (its holes filled: what lies within it and passes for the board may be a piece's own,
        # its marks: a white die's six pips on a cream print at 0.69 px a mm, the rest lit)
        whole = part.astype(np.uint8)
        contours, _ = cv2.findContours(whole, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(whole, contours, -1, 1, cv2.FILLED)
        if (pieces[y:y + h, x:x + w] & part).any() or self._a_piece_passes_for_the_board(x, y, w, h):
            return False
        if self.glare.hides_nothing(whole > 0, (y, x)):
            return True  # (bounded within its box: what lies past its edges is not asked about)
        near = Surroundings(flat, self._reference, unexplained, pieces)  # (``specks``: past its box)
        return self.glare.hides_nothing(*near.unseen_round(whole > 0, x, y, EMPTY_TOLERANCE, PASS_PX))

    def _only_light(self, flat: np.ndarray, components: np.ndarray, k: int, box: np.ndarray,
                    blobs: np.ndarray) -> bool:
        """Is patch ``k``, darker or lighter than the empty board, only light: a piece's cast
        shadow, or light the fit missed (``cast_shadow``)?"""
        if not cast_shadow(flat, self._reference, components, k, box, blobs, self._print_detail):
            return self._missed_light(flat, components, k, box, blobs) \
                or self._blurred_rim(components, k, box, flat) \
                or self._shade_at_a_foot(components, k, box, flat)
        x, y, w, h = (int(v) for v in box[:4])
        if not self._a_piece_passes_for_the_board(x, y, w, h):
            return True
        # where a piece passes for the board (a white chip on a pale print) the shadow may be that
        # piece's own: another casts it only if it reaches so far (a flat piece's shadow is as long
        # as it is thick, a die's or a figure's many times that); nor is it light the fit missed
        # there (``_missed_light`` asks the same of a piece passing for the board)
        return self._tall_piece_near(x, y, w, h) or blob_within(
            components[y:y + h, x:x + w] == k, x, y, blobs, int(round(FLAT_SHADOW_MM * SCALE)))

    def _missed_light(self, flat: np.ndarray, components: np.ndarray, k: int, box: np.ndarray,
                      blobs: np.ndarray) -> bool:
        """Is patch ``k`` the print under light the fit missed (``missed_light``), where no
        piece passes for the print (a white chip on a pale print: the print round the patch
        may be the chip, and the patch its rim)?"""
        x, y, w, h = (int(v) for v in box[:4])
        return not self._a_piece_passes_for_the_board(x, y, w, h) \
            and missed_light(flat, self._reference, components, k, box, blobs,
                             self._centroid_bgr[:len(self._piece_names)], EMPTY_TOLERANCE, self._speck_px)

    def _a_piece_passes_for_the_board(self, x: int, y: int, w: int, h: int) -> bool:
        """Could a piece lie on this box of the board (grown by ``PASS_PX``) showing the empty
        board's colours, seen only by its rim or its shade?  Some piece's colour (as calibrated)
        lies within the empty board's tolerance there, widened by as much again for the light
        on a piece (a white chip on a pale print)."""
        rows, cols = slice(max(0, y - PASS_PX), y + h + PASS_PX), slice(max(0, x - PASS_PX), x + w + PASS_PX)
        lo = cv2.subtract(self._ref_lo[rows, cols], np.full(3, EMPTY_TOLERANCE, np.float64))
        hi = cv2.add(self._ref_hi[rows, cols], np.full(3, EMPTY_TOLERANCE, np.float64))
        for colour in self._centroid_bgr[:len(self._piece_names)]:
            c = np.clip(np.round(colour), 0, 255).astype(np.uint8)
            if channel_all((lo <= c) & (c <= hi)).any():
                return True
        return False

    def _lighter_than_empty(self, flat: np.ndarray, stats: np.ndarray,
                            part: tuple[slice, slice, np.ndarray] | None = None) -> np.ndarray:
        """Where the board is lighter than the empty board (a reflection's halo), round the
        blobs this frame reads (``stats``' rows with an area left): only a piece's ring is
        looked at (``lit_around``), and a piece lies in its blob's box, so the rest is left
        clear (a pass over the whole board was a tenth of a changed board's read).  ``part``:
        the changed region read again and where it is so (``_read_part``), taken as it is
        for a ring within it."""
        h, w = flat.shape[:2]
        read = np.flatnonzero(stats[1:, cv2.CC_STAT_AREA] > 0) + 1
        x0 = np.maximum(stats[read, cv2.CC_STAT_LEFT] - RING_PX, 0)
        y0 = np.maximum(stats[read, cv2.CC_STAT_TOP] - RING_PX, 0)
        x1 = np.minimum(stats[read, cv2.CC_STAT_LEFT] + stats[read, cv2.CC_STAT_WIDTH] + RING_PX, w)
        y1 = np.minimum(stats[read, cv2.CC_STAT_TOP] + stats[read, cv2.CC_STAT_HEIGHT] + RING_PX, h)
        if int(((x1 - x0) * (y1 - y0)).sum()) >= WHOLE_LIT_SHARE * h * w:
            return cv2.inRange(flat, self._ref_lit, self._white)  # many pieces: one pass is cheaper
        lit = np.zeros((h, w), np.uint8)
        rows, cols, seen = part if part is not None else (slice(0, 0), slice(0, 0), lit)
        for window in zip(map(slice, y0.tolist(), y1.tolist()), map(slice, x0.tolist(), x1.tolist()),
                          strict=True):
            wy, wx = window
            if rows.start <= wy.start and wy.stop <= rows.stop \
                    and cols.start <= wx.start and wx.stop <= cols.stop:
                lit[window] = seen[wy.start - rows.start:wy.stop - rows.start,
                                   wx.start - cols.start:wx.stop - cols.start]
            else:
                lit[window] = cv2.inRange(flat[window], self._ref_lit[window], self._white[window])
        return lit

    def _cast_shadows(self, flat: np.ndarray, is_piece: np.ndarray, unexplained: np.ndarray,
                      tall: Callable[..., tuple[np.ndarray, int, int] | None] | None = None,
                      feet: Callable[[], Sequence[tuple[Box, Box]]] | None = None) -> np.ndarray:
        """Where the board unexplained is a piece's own shadow: the empty board there darker
        by one share of the light in every channel, within a shadow's reach of a piece (of a
        standing figure's further: a shadow grows with its piece's height; ``tall`` gives the
        standing figures' pixels round some, asked only of dimmed pixels past a die's reach).  That
        is the light, fitted there as shade, not something over the board: a hand or a sleeve
        is not the print dimmed evenly (skin and cloth have colours of their own), and reaches
        further than a piece's shadow.  ``feet`` gives, per die read, its top's box and that box
        swept over its sides (``DieSides._dice_feet``; asked only when something is unexplained
        off the pieces); at a die's foot its shade takes colours (``_at_a_dies_foot``)."""
        out = np.zeros(unexplained.shape, bool)
        # (OpenCV's search finds a board's few set pixels in half the time of numpy's flat index
        # and its division; in its order, rows then columns)
        found = cv2.findNonZero(unexplained.view(np.uint8))
        if found is None:
            return out
        xs, ys = found.reshape(-1, 2).T.astype(np.intp)
        off_pieces = ~is_piece[ys, xs]
        ys, xs = ys[off_pieces], xs[off_pieces]
        seen = flat[ys, xs].astype(np.float32)
        empty = self._reference[ys, xs].astype(np.float32)
        ratio = seen / np.maximum(empty, 1.0)
        if feet is not None and len(xs):
            rest = ~self._at_a_dies_foot(ys, xs, ratio, empty, feet)
            out[ys[~rest], xs[~rest]] = True
            ys, xs, ratio, empty = ys[rest], xs[rest], ratio[rest], empty[rest]
        within = self._near_a_piece(is_piece, ys, xs, _SHADOW)
        if tall is None and not within.any():
            return out
        share = channel_sum(ratio) / 3  # (the mean, channel by channel: ``channel_sum``)
        dimmed = (channel_min(empty) >= SHADE_PRINT_MIN) & (share >= SHADE[0]) & (share <= SHADE[1])
        far = dimmed & ~within  # (only a dimmed pixel can be shade: the figures' reach asked of those)
        found = tall(ys[far], xs[far], _FIGURE_SHADOW.radius) if tall is not None and far.any() else None
        if found is not None:  # (the figures within their reach of these pixels, and that window's corner)
            within[far] = self._near_a_piece(found[0], ys[far] - found[1], xs[far] - found[2], _FIGURE_SHADOW)
        if not within.any():
            return out
        # even in every channel, or as the frame's shadows are tinted (where one lamp's shadow
        # is lit by another of another colour; a shade of either kind is light)
        even = channel_max(ratio) - channel_min(ratio) <= SHADE_EVEN * share / SHADE[1]
        tint = shade_tint(ratio[dimmed & within], share[dimmed & within])
        tinted = ratio / tint
        even |= channel_max(tinted) - channel_min(tinted) <= SHADE_EVEN * share / SHADE[1]
        shade = dimmed & even
        out[ys[shade & within], xs[shade & within]] = True
        if (shade & ~within).any() and (shade & within).any():
            # a low lamp draws a figure's shadow out past a shadow's reach: shade joined to
            # the shade within reach of a piece is that piece's shadow too
            y0, y1 = int(ys[shade].min()), int(ys[shade].max()) + 1
            x0, x1 = int(xs[shade].min()), int(xs[shade].max()) + 1
            every = np.zeros((y1 - y0, x1 - x0), np.uint8)
            every[ys[shade] - y0, xs[shade] - x0] = 1
            n, parts = cv2.connectedComponents(every, connectivity=8)
            joined = np.zeros(n, bool)
            joined[parts[ys[shade & within] - y0, xs[shade & within] - x0]] = True
            joined[0] = False
            far = shade & ~within
            of = parts[ys[far] - y0, xs[far] - x0]
            # (only a tail: a larger shade past the reach is an arm's or a hand's, and a piece
            # in it may be read wrong for it)
            joined &= np.bincount(of, minlength=n) <= SHADOW_TAIL_MM2 * SCALE * SCALE
            far[far] = joined[of]
            out[ys[far], xs[far]] = True
        return out

    def _doubt_cast_by_nothing(self, shade: np.ndarray, components: np.ndarray, stats: np.ndarray,
                               read: list[tuple[int, tuple, _Blob]], pieces: dict[str, list[Piece]],
                               doubtful: dict[str, str]) -> None:
        """Doubt the places read empty that a piece's cast shadow (``shade``, taken as light)
        lies on, or its caster beside it, by a quarter of a die's top at least (a reflection's
        speck casts none), where the blob nearest the shadow was read this frame and told
        nothing (no piece, no doubt) or is a speck too small to read (``cast_by_nothing``), or
        where no blob lies within the longest shadow's reach of it at all (``cast_by_no_blob``).
        Baron Voodoo: a white 5 at a reflection's edge, and Swing State's white die at 0.63 px
        a mm, were read as empty places, their shadows taken off as light."""
        if not shade.any():
            return
        smallest = self._smallest_px * 0.3
        silent = {k for k, _key, blob in read if not blob.found and not blob.doubts}
        silent.update(k for k in range(1, len(stats)) if 0 < stats[k, 4] < smallest)
        orphans = cast_by_nothing(shade, components, stats, sorted(silent)) if silent else None
        # and shade no blob is near at all: cast by specks of a piece's colour alone
        unblobbed = cast_by_no_blob(shade, components, int(round(LONGEST_SHADOW_MM * SCALE)))
        if unblobbed is not None:
            orphans = unblobbed if orphans is None else orphans | unblobbed
        if orphans is None:
            return
        counts = np.bincount(self._spot_map[orphans].ravel() + 1, minlength=len(self._spot_ids) + 1)[1:]
        for i in np.flatnonzero(counts >= SHADOW_OF_NOTHING_MM2 * SCALE * SCALE):
            if self._spot_ids[int(i)] not in pieces:  # (a piece read there may cast it)
                doubtful.setdefault(self._spot_ids[int(i)], CAST_BY_NOTHING)

    @staticmethod
    def _at_a_dies_foot(ys: np.ndarray, xs: np.ndarray, ratio: np.ndarray, empty: np.ndarray,
                        feet: Callable[[], Sequence[tuple[Box, Box]]]) -> np.ndarray:
        """Which of these pixels are a die's shade at its foot: within ``FOOT_SHADE_MM`` of the
        box a die read explains swept over its sides, off every die's top, and the empty board
        there darker in every channel, by a share of the light from ``FOOT_SHADE_LEAST`` to a
        shadow's most (``SHADE``).  The light that reaches under a die's side is what the die
        and the board round it throw back, so its shade takes their colours (a red die's is a
        red-brown, a purple one's a mauve), unevenly dimmed as no shade further out is; and the
        foot of its side in shade, past what the sides' strip explained, is the die's colour
        darkened.  Nothing of a piece hides in it: a band a few millimetres wide is no piece's
        size, a piece's darkest colour (black) is darker, and the dice asked are those read
        alone and sure (``DieSides._dice_feet``, asked of ``feet`` only when a pixel is so
        dimmed: finding the dice's feet costs a changed Baron Voodoo board a twentieth).
        ``ratio``: each pixel as seen over the empty board, per channel; ``empty``: the empty
        board there."""
        dimmed = (channel_min(empty) >= SHADE_PRINT_MIN) & (channel_max(ratio) <= SHADE[1]) \
            & (channel_sum(ratio) / 3 >= FOOT_SHADE_LEAST)
        if not dimmed.any():
            return dimmed
        at = np.flatnonzero(dimmed)
        py, px = ys[at], xs[at]
        near = np.zeros(len(at), bool)
        on_a_top = np.zeros(len(at), bool)
        reach = int(round(FOOT_SHADE_MM * SCALE))
        for (t0, t1, u0, u1), (y0, y1, x0, x1) in feet():
            near |= (py >= y0 - reach) & (py < y1 + reach) & (px >= x0 - reach) & (px < x1 + reach)
            on_a_top |= (py >= t0) & (py < t1) & (px >= u0) & (px < u1)
        dimmed[at] = near & ~on_a_top  # (what lies on a die's top is no shade at its foot)
        return dimmed

    @staticmethod
    def _near_a_piece(is_piece: np.ndarray, ys: np.ndarray, xs: np.ndarray, reach: _Reach) -> np.ndarray:
        """Which of these pixels have a piece within a shadow's reach (the disc round them, as
        the board's dilation by it gives): judged round them only, as the unexplained pixels
        of a frame are mostly a few specks (the whole board's dilation was a sixth of a read)."""
        r = reach.radius
        h, w = is_piece.shape
        if not len(xs):
            return np.zeros(0, bool)
        if len(xs) <= _SPECKS:  # a few specks: each one's own disc, gathered at once
            at_y, at_x = ys[:, None] + reach.dy, xs[:, None] + reach.dx
            inside = (at_y >= 0) & (at_y < h) & (at_x >= 0) & (at_x < w)
            hit = is_piece[np.clip(at_y, 0, h - 1), np.clip(at_x, 0, w - 1)] & inside
            return hit.any(axis=1)
        # a wider patch (a shadow): the disc's dilation over the window round it
        y0, x0 = max(0, int(ys.min()) - r), max(0, int(xs.min()) - r)
        y1, x1 = min(h, int(ys.max()) + r + 1), min(w, int(xs.max()) + r + 1)
        part = is_piece[y0:y1, x0:x1].view(np.uint8)
        dilated = cv2.dilate(part, reach.rectangles[0])  # by the disc: by its rectangles, one by one
        for rectangle in reach.rectangles[1:]:
            cv2.max(dilated, cv2.dilate(part, rectangle), dst=dilated)
        return dilated[ys - y0, xs - x0] > 0

    # ------------------------------------------------------------------ light
    def _read_part(self, small: np.ndarray, region: tuple[slice, slice],
                   kept: _Kept) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The last clear board's flattened picture, colours and empty-board match, with only
        the changed region read again; None when a reflection may lie in it (read it all).
        Written over the kept board's own (this frame's board is kept in its turn), with what
        the region held put aside: a frame that shows a hand puts it back (``_undo_part``)."""
        rows, cols = region
        part = self.light.flatten_with(small[rows, cols], self.light.gain[rows, cols])
        part_empty = self._as_empty_board(part, small[rows, cols], rows, cols)
        names = self._classify_board(part, small[rows, cols], part_empty)
        part_empty = self._tint_kept(part, names, part_empty, rows, cols)
        lighter = cv2.inRange(part, self._ref_lit[rows, cols], self._white[rows, cols])
        self._lit_part = (rows, cols, lighter.copy())  # (the blobs' rings within it: ``_lighter_than_empty``)
        # none where a piece's colour is, nor in the margin (by masks: a boolean mask's write
        # costs a pass per pixel it sets)
        cv2.bitwise_and(lighter, cv2.compare(names, len(self._piece_names), cv2.CMP_GE), dst=lighter)
        cv2.bitwise_and(lighter, self._inside_255[rows, cols], dst=lighter)
        if cv2.countNonZero(cv2.morphologyEx(lighter, cv2.MORPH_OPEN, SQUARE5)) >= 24:
            return None
        self.glare.clear()
        flat, labels, as_empty = kept.flat, kept.labels, kept.as_empty
        self._part_undo = (rows, cols, flat[rows, cols].copy(), labels[rows, cols].copy(),
                           as_empty[rows, cols].copy())
        flat[rows, cols] = part
        labels[rows, cols] = names
        as_empty[rows, cols] = part_empty
        return flat, labels, as_empty

    def _undo_part(self) -> None:
        """Put back in the kept board what the changed region held before this frame."""
        if self._part_undo is not None and self._kept is not None:
            rows, cols, flat, labels, as_empty = self._part_undo
            self._kept.flat[rows, cols] = flat
            self._kept.labels[rows, cols] = labels
            self._kept.as_empty[rows, cols] = as_empty
        self._part_undo = None

