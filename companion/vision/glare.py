"""A lamp's reflections on the board: measured, taken off, and what may be trusted under them.

A reflection adds the same light to every channel, so where the board is lighter
than the empty board by about as much in each channel, that much is glare.  It is
measured on the board round the pieces, spread smoothly under them and subtracted
(``Glare.take_off``).  What it washed out to white no camera sees: a piece there
is doubted, and a patch still lighter than the empty board is taken for board only
if it is the board lifted evenly and smoothly (``Glare.board_under``).  A piece's
colour and marks under a reflection count only if they hold with the reflection
measured round it halved or 1.6 times as strong (``GLARE_ERRORS``).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

import cv2
import numpy as np

from companion.vision.flat_tops import flat_tops
from companion.vision.piece_rims import ringed_discs
from companion.vision.print_edges import PRINT_EDGE, print_step
from companion.vision.reading import SHADE, filled_hull

GLARE_MIN = 20  # lighter than the empty board by this in every channel: a reflection
SHEEN_MIN = 12  # the least lift a patch is judged lighter than the board by (``arms``): a lamp's sheen
GLARE_FAINT = 8  # a reflection this faint on a piece with marks may still make a mark
GLARE_DOUBT = 50  # more reflection than this on a piece: its colour read only if it holds below
# how far the reflection measured round a piece may be off under it: a reading under glare is
# confident only if it is the same with the estimate scaled by each of these
GLARE_ERRORS = (0.5, 1.6)
UNMEASURED_REACH = 6  # px (mm) of a piece next to an unmeasured reflection whose lift is unbounded
LIFT_TOLERANCE = 10  # a pixel under a reflection may be off the board lifted smoothly by this
LIGHT_PIECES = {"white", "yellow", "grey", "pink", "cyan"}  # what a reflection can look like
LIGHTER_ALL_OVER = 0.5  # more of the board's inside lighter than this: the light's level, no reflection
# (a reading lamp's pool on a print that shines lights a quarter and more of a narrow board)
ENCLOSING_PX = 8  # a stroke of something not the board this big may be a piece's outline ...
ENCLOSED_BLIND = 0.5  # ... when this share of the ring round what it encloses is clipped white
ENCLOSED_ROUND = 0.85  # ... or when it runs round this share of its hull's edge (a whole outline)
RING_PX = 7  # a piece's ring that ``lit_around`` looks at reaches this far out of its box
_SQUARE3 = np.ones((3, 3), np.uint8)
_SQUARE5 = np.ones((5, 5), np.uint8)


class Glare:
    """The reflections on the frame read last, judged against one empty board."""

    def __init__(self, reference: np.ndarray, outside: np.ndarray,
                 classify: Callable[[np.ndarray], np.ndarray], piece_names: list[str],
                 hidden_radius: np.ndarray) -> None:
        """``reference``: the empty board sampled top-down; ``outside``: where the board is
        not (its margin); ``classify``: the reader's colour per pixel (piece colours first,
        then surfaces); ``hidden_radius``: per pixel, the widest a washed-out patch centred
        there may be and still show part of any piece standing at the place there."""
        self._reference = reference
        self._outside = outside
        # a reader's own method is held weakly: the reader holds this model, and the cycle would
        # keep a dropped reader's 30 MB until the next full collection
        self._classify_ref: Callable[[], Callable[[np.ndarray], np.ndarray] | None] = (
            weakref.WeakMethod(classify) if hasattr(classify, "__self__") else lambda: classify)
        self._piece_names = piece_names
        self._hidden_radius = hidden_radius
        # glare is judged against the lightest the empty board shows nearby (a line drawn a
        # pixel off is no reflection), inside the board (the margin is the light model's)
        self._reference_half = cv2.pyrDown(cv2.dilate(reference, np.ones((5, 5), np.uint8))).astype(np.int16)
        inside = cv2.pyrDown((~outside).astype(np.uint8) * 255) > 254
        self._inside_half = cv2.erode(inside.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        self._inside_u8 = self._inside_half.astype(np.uint8) * 255
        self._inside_count = int(self._inside_half.sum())
        self._glare_floor = np.clip(self._reference_half + 13, 0, 255).astype(np.uint8)
        self._white_half = np.full(self._glare_floor.shape, 255, np.uint8)
        self.cells: np.ndarray | None = None  # the reflections taken off the last frame (2 mm cells)
        self.washed_out: np.ndarray | None = None  # where they clipped the picture
        self.faint: np.ndarray | None = None  # all of the reflection measured, faint rims too
        self.pre: np.ndarray | None = None  # this frame's board before reflections were taken off
        self._raw: np.ndarray | None = None  # and as the camera saw it, light not flattened
        self._as_seen: Callable[[np.ndarray, slice, slice], np.ndarray] | None = None

    def _classify(self, image: np.ndarray) -> np.ndarray:
        classify = self._classify_ref()
        if classify is None:
            raise ReferenceError("the reader this glare model belongs to is gone")
        return classify(image)

    def clear(self) -> None:
        """No reflection measured on this frame (it was not looked for)."""
        self.cells = self.faint = self.pre = self.washed_out = None

    def take_off(self, flat: np.ndarray, raw: np.ndarray | None = None,
                 as_seen: Callable[[np.ndarray, slice, slice], np.ndarray] | None = None,
                 arm_entry: np.ndarray | None = None) -> np.ndarray:
        """Take a lamp's reflections off: glare adds the same light to every channel, so
        where the board is lighter than the empty board by about as much in each channel, that
        much is glare.  It is measured on the board around the pieces (2 mm cells), spread
        smoothly under them, and subtracted.  What stays lighter (a clipped core) is still
        judged as glare by what follows.  Only the part of the board that is lighter at all
        is worked on, so a frame without glare costs two cheap passes.  ``raw`` is the board as
        the camera saw it and ``as_seen`` puts the light back on a window of the empty board:
        whether a patch is the board under a reflection is judged by them, as the camera
        saw it (the flattening bends a reflection's light and may clip what it lifted).
        ``arm_entry``: where an arm crossing the margin enters the board; a lift that reaches
        it is that arm (a reflection does not darken the margin's paper), not taken off."""
        self.cells = self.faint = None
        self.washed_out = None
        self.pre = flat
        self._raw, self._as_seen = raw, as_seen
        half8 = cv2.pyrDown(flat)
        if half8.shape != self._reference_half.shape:
            return flat
        lighter = cv2.bitwise_and(cv2.inRange(half8, self._glare_floor, self._white_half), self._inside_u8)
        if cv2.countNonZero(lighter) >= 6:
            # a light piece (a white die) is lighter and no reflection, nor are the specks of
            # pieces' rims: a reflection is a patch of board at least 6 mm across
            lighter[self._classify(half8) < len(self._piece_names)] = 0
            lighter = cv2.morphologyEx(lighter, cv2.MORPH_OPEN, _SQUARE3)
        n_lighter = cv2.countNonZero(lighter)
        if n_lighter < 6 or n_lighter > LIGHTER_ALL_OVER * self._inside_count:
            return flat  # none, or lighter all over: the light's level, not a reflection
        bx, by, bw, bh = cv2.boundingRect(lighter)
        pad = 16  # the wide spread below reaches this far
        y0, y1 = max(0, by - pad), min(half8.shape[0], by + bh + pad)
        x0, x1 = max(0, bx - pad), min(half8.shape[1], bx + bw + pad)
        half = half8[y0:y1, x0:x1].astype(np.int16)
        ref = self._reference_half[y0:y1, x0:x1]
        inside = self._inside_half[y0:y1, x0:x1]
        d = half - ref
        clipped = half >= 250
        # the channels a reflection clipped say only "at least": judge by the others, and
        # ask of the clipped ones that the reflection would have clipped them
        # (channel by channel: numpy's reductions over a last axis of three cost four times as much)
        lows, highs = np.where(clipped, 255, d), np.where(clipped, -255, d)
        low = np.minimum(np.minimum(lows[..., 0], lows[..., 1]), lows[..., 2])
        high = np.maximum(np.maximum(highs[..., 0], highs[..., 1]), highs[..., 2])
        short = clipped & (ref + low[..., None] < 240)  # a channel clipped that the lift would not clip
        reaches = ~(short[..., 0] | short[..., 1] | short[..., 2])
        each = clipped.view(np.uint8)
        n_clipped = each[..., 0] + each[..., 1] + each[..., 2]
        pure = (low > 12) & (high - low <= 6 + 0.15 * high) & (n_clipped <= 1) & reaches & inside
        if pure.any():  # a light piece (a white die under a cool lamp) is no reflection
            surface = self._classify(half8[y0:y1, x0:x1]) >= len(self._piece_names)
            pure &= surface
            # nor is a light flat piece whose colour passes for the print lifted
            pure &= ~flat_tops(surface & inside, low, d, ref)
        if arm_entry is not None and pure.any():
            pure &= ~_touching(pure, cv2.pyrDown(arm_entry.astype(np.uint8) * 255)[y0:y1, x0:x1] > 0)
        if int(np.count_nonzero(pure)) < 6:
            return flat
        plain = (np.abs(low) <= 12) & (np.abs(high) <= 20) & inside
        lift = np.where(pure, low, 0).astype(np.float32)
        # the board's other pixels count as "no glare here", pieces and clipped cores as unknown
        weight = (pure | plain).astype(np.float32)
        est = np.zeros_like(lift)
        for sigma in (6.0, 2.0):  # wide first (under a piece), then as close as the board allows
            num = cv2.GaussianBlur(lift * weight, (0, 0), sigma)
            den = cv2.GaussianBlur(weight, (0, 0), sigma)
            est = np.where(den > 0.2, num / np.maximum(den, 1e-3), est)
        faint = np.zeros(half8.shape[:2], np.float32)
        faint[y0:y1, x0:x1] = est
        self.faint = faint  # all of it, for the marks: a faint reflection still makes one
        # a reflection is one where it is strong somewhere; its faint rim is taken off with it
        strong = cv2.dilate((est >= GLARE_MIN).astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
        est = np.where(strong & (est >= 4), est, 0)
        if not est.any():
            return flat
        glare = np.zeros(half8.shape[:2], np.uint8)
        glare[y0:y1, x0:x1] = np.clip(est, 0, 255).astype(np.uint8)
        self.cells = glare
        full = cv2.resize(glare, (flat.shape[1], flat.shape[0]), interpolation=cv2.INTER_LINEAR)
        # where the reflection clipped a channel, the colour under it is lost
        rows, cols = slice(2 * y0, 2 * y1), slice(2 * x0, 2 * x1)
        self.washed_out = np.zeros(flat.shape[:2], bool)
        seen = flat[rows, cols]
        clips = (seen[..., 0] >= 250) | (seen[..., 1] >= 250) | (seen[..., 2] >= 250)
        self.washed_out[rows, cols] = clips & (full[rows, cols] > GLARE_MIN)
        return cv2.subtract(flat, cv2.merge([full, full, full]))

    def board_under(self, region: np.ndarray, x: int, y: int, w: int, h: int) -> bool:
        """Is a patch lighter than the empty board the empty board itself under a reflection?
        A reflection adds the same light to every channel: each pixel must be the empty board
        lifted by one amount in all the channels it did not clip (and enough to clip the
        others), and that lift must run on smoothly into the board around the patch, as a
        reflection does and a piece's edge does not.  Where every channel clipped nothing is
        seen: what is washed out or else not the board may nowhere be wide enough to hold a
        piece of the place there."""
        found = self.washed_core(region, x, y, w, h)
        return found is not None and self.hides_nothing(*found)

    def hides_nothing(self, unseen: np.ndarray, corner: tuple[int, int]) -> bool:
        """Is what a reflection's patch does not show as the board (``washed_core``) nowhere
        wide enough to hide a piece of the place there?"""
        return not self.could_hide(unseen, corner).any()

    def could_hide(self, unseen: np.ndarray, corner: tuple[int, int]) -> np.ndarray:
        """Where in what a reflection's patch does not show as the board (``washed_core``) a
        piece of the place there could be centred, wholly within it or showing only what is
        not the board either."""
        if not unseen.any():
            return np.zeros(unseen.shape, bool)
        y0, x0 = corner
        depth = cv2.distanceTransform(unseen.astype(np.uint8), cv2.DIST_L2, 3)
        return depth >= self._hidden_radius[y0:y0 + unseen.shape[0], x0:x0 + unseen.shape[1]]

    def washed_core(self, region: np.ndarray, x: int, y: int, w: int, h: int,
                    pieces: np.ndarray | None = None, read: np.ndarray | None = None
                    ) -> tuple[np.ndarray, tuple[int, int]] | None:
        """A patch lighter than the empty board that is the empty board under a reflection
        wherever it is seen (``board_under``'s test, less the depth of what is not): what of
        it is not seen as the board (washed out, a speck of something else, or a flat piece's top
        its rim rings, ``piece_rims``), as a mask
        over the patch's box grown by a few pixels, and that box's top-left corner; None when
        the patch is not the board under a reflection.  A lamp's hotspot on a print that
        shines washes its core out: what lies in the core is hidden, the rest is the board.
        ``pieces``: where the pieces read lie, and their rims (sampled board): what is not the
        board there is theirs (a token the sheen lifts past black), judged as they are; ``read``:
        of those, where pieces were read (a blob too big for a piece may hide one: what of it is
        not the board is in what is not seen: a lamp's pool on a card's white, too big for a
        piece, hid a purple die whose top it washed out, King of Clubs at 0.58 px a mm)."""
        if self.pre is None or self.faint is None:
            return None
        pad = 5
        y0, x0 = max(0, y - pad), max(0, x - pad)
        y1, x1 = min(self._outside.shape[0], y + h + pad), min(self._outside.shape[1], x + w + pad)
        cells = self.faint[y0 // 2:(y1 + 1) // 2 + 1, x0 // 2:(x1 + 1) // 2 + 1]
        # (a lamp's hotspot lifts the paper's print a little, dark cells as much as light ones:
        # a sheen fainter than a reflection, judged the same way)
        if not cells.size or float(cells.max()) < SHEEN_MIN:
            return None  # no reflection measured here: something else is lighter
        patch = np.zeros((y1 - y0, x1 - x0), bool)
        patch[y - y0:y - y0 + h, x - x0:x - x0 + w] = region
        ref = self._reference[y0:y1, x0:x1]
        if self._raw is not None and self._as_seen is not None and self._raw.shape == self.pre.shape:
            pre = self._raw[y0:y1, x0:x1]  # as the camera saw it: its light, its clipping
            ref = self._as_seen(ref, slice(y0, y1), slice(x0, x1))
        else:
            pre = self.pre[y0:y1, x0:x1]
        blind = (pre >= 250).all(axis=2)
        seen = patch & ~blind
        n_seen = int(seen.sum())
        if not n_seen:
            return None
        # a reflection on a print that shines adds light; a camera's values are its light bent
        # by a tone curve (a webcam's sRGB), so the lift in its values is the same in every
        # channel only where the print's light is alike: the lift is asked for in the light (a
        # lamp's sheen washing a print's dark lines out as it lifts its paper), and in the
        # values as the camera gives them, and the one that shows more of the patch as the board stands
        step = print_step(ref.astype(np.float32))  # (the print's edges: by both lifts and the rims)
        best: tuple[np.ndarray, np.ndarray] | None = None
        for in_light in (False, True):
            if best is not None and not best[0].any():
                break  # (the values show all of it as the board: the light can show no more)
            found = self._board_lifted(pre, ref, patch, seen, step, y0, y1, x0, x1, in_light)
            if found is not None and (best is None or int(found[0].sum()) < int(best[0].sum())):
                best = found
        if best is None:
            return None
        odd, ring = best
        hiding = None if read is None else odd & ~read[y0:y1, x0:x1]
        if pieces is not None:
            odd &= ~pieces[y0:y1, x0:x1]
        if hiding is None:
            hiding = odd
        # what is not seen to be the board: washed out, or something else.  A piece could lie
        # there if a piece of its place fits in it (a piece partly in a washed-out core
        # shows the rest of itself, which is no board), and a flat top its rim rings (``_ringed``)
        if int(ring.sum()) < 12 or int(odd.sum()) > 1 + 0.05 * n_seen:  # a pixel of noise is no piece
            return None
        unread = patch if read is None else ~read[y0:y1, x0:x1]
        ringed = _ringed(pre, ref, blind, step) & unread
        unseen = ((blind | hiding | _enclosed(hiding, blind)) & patch) | ringed
        return unseen, (y0, x0)

    def _board_lifted(self, pre: np.ndarray, ref: np.ndarray, patch: np.ndarray, seen: np.ndarray,
                      step: np.ndarray, y0: int, y1: int, x0: int, x1: int, in_light: bool
                      ) -> tuple[np.ndarray, np.ndarray] | None:
        """What of a patch is not the empty board lifted smoothly (``washed_core``), lifted in
        the light (``in_light``) or in the camera's values, and the board round it that is
        lifted evenly; None where it is lifted too little to be a reflection."""
        clipped = pre >= 250
        level, even = (lift_in_light if in_light else even_lift)(pre, ref)
        if float((values_lift(ref, level) if in_light else level)[seen].max()) < SHEEN_MIN:
            return None
        # the lift, here and on the board around, fitted smoothly over the plain board (at the
        # print's edges a pixel of misplacement is a step of its own)
        ref32 = ref.astype(np.float32)
        plain = step <= PRINT_EDGE
        ring = ~patch & even & ~self._outside[y0:y1, x0:x1]
        smooth = smooth_fit(level, even & plain & (patch | ring), 2.5)
        # each pixel seen must be the empty board (up to a pixel off) lifted by that much in the
        # channels the camera did not clip, and by enough to clip the others
        pre32, clipped_at = pre.astype(np.float32), np.minimum(pre.astype(np.float32), 255) - 15
        padded = cv2.copyMakeBorder(ref32, 1, 1, 1, 1, cv2.BORDER_REPLICATE)
        board = np.zeros(patch.shape, bool)
        rows, cols = patch.shape
        for dy in (0, -1, 1):
            for dx in (0, -1, 1):
                under = padded[1 + dy:1 + dy + rows, 1 + dx:1 + dx + cols]
                lifted = lifted_in_light(under, smooth) if in_light else under + smooth[..., None]
                near = np.abs(pre32 - lifted) <= LIFT_TOLERANCE + 0.1 * np.abs(lifted - under)
                board |= np.where(clipped, lifted >= clipped_at, near).all(axis=2)
        return seen & ~board, ring

    def on(self, bx: int, by: int, bw: int, bh: int, faint: bool = False) -> int:
        """The most reflection taken off a piece's box (or seen on it, with ``faint``)."""
        if self.cells is None:
            return 0
        cells = self.faint if faint else self.cells
        g = cells[by // 2:(by + bh) // 2 + 1, bx // 2:(bx + bw) // 2 + 1]
        return int(g.max()) if g.size else 0

    def too_strong_on(self, index: int, bx: int, by: int, bw: int, bh: int) -> bool:
        """Is a piece under more glare than can be taken off it, or light enough to be glare?"""
        most = self.on(bx, by, bw, bh)
        return most > GLARE_DOUBT or (self._piece_names[index] in LIGHT_PIECES and most > GLARE_MIN)

    def colour_holds(self, index: int, part: np.ndarray, bx: int, by: int, flat: np.ndarray | None) -> bool:
        """Is a piece under a reflection the same colour whether the reflection measured
        around it was half as strong, or stronger, under it?  Then the colour does not hang on
        the estimate (a reflection's core over a light board reads as a light piece only for
        one estimate).  ``flat`` is the board as read, light and reflections taken off."""
        if self.cells is None or flat is None or self.pre is None or not part.any():
            return False
        h, w = part.shape
        if self._piece_names[index] in LIGHT_PIECES:
            # a light piece and a light board under a reflection look alike: only a piece
            # whose colour is clearly no lift of the board's is one
            box = (slice(by, by + h), slice(bx, bx + w))
            _, even = even_lift(self.pre[box][part], self._reference[box][part])
            if float(np.mean(even)) > 0.1:
                return False
        g = self.cells[by // 2:(by + h) // 2 + 1, bx // 2:(bx + w) // 2 + 1]
        if not g.size:
            return False
        g = cv2.resize(g, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.int16)
        core = cv2.erode(part.astype(np.uint8), _SQUARE5, borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0
        washed = self.washed_out is not None and self.washed_out[by:by + h, bx:bx + w][core].any()
        if int(core.sum()) < 12 or washed:
            return False
        pixels = flat[by:by + h, bx:bx + w][core].astype(np.int16)
        lift = g[core][:, None]
        # a channel the reflection clipped says only "at least": the colour under it lies
        # anywhere from what is left once the lift is taken off up to full
        clipped = self.pre[by:by + h, bx:bx + w][core] >= 250
        tries = []
        for scale in GLARE_ERRORS:  # the flat picture had the estimate (scale 1) taken off
            shifted = pixels + np.round((1.0 - scale) * lift)
            tries += [shifted, np.where(clipped, 255, shifted)]
        reach = self._unmeasured_reach(part, bx, by)[core]
        if reach.any():
            # next to board the reflection washed out past measuring, the lift measured round
            # it is only its least, and the most is what the piece's own darkest channel leaves
            own = self.pre[by:by + h, bx:bx + w][core].astype(np.int16)
            most = np.where(clipped, 255, own).min(axis=1)[:, None]
            darkest = own - most
            for extreme in (np.where(clipped, 255 - most, darkest), np.where(clipped, 255, darkest)):
                tries.append(np.where(reach[:, None], extreme, pixels))
        for shifted in tries:
            names = self._classify(np.clip(shifted, 0, 255).astype(np.uint8)[None])[0]
            if float(np.mean(names == index)) < 0.7:
                return False
        return True

    def one_piece_lifted(self, labels: np.ndarray, blob: np.ndarray, main: int, other: int,
                         box: tuple[slice, slice], measured: bool, flat: np.ndarray | None) -> bool:
        """Is one colour of a blob the other one lifted evenly (a reflection over part of one
        piece: an orange die's lit half reads yellow), rather than a second piece?  A small
        reflection may light a piece and hardly any board (``measured``: one was seen
        round it); but a grey piece is a black one lifted, so two touching pieces without
        colour are taken for one lit piece only where a reflection was seen.  ``flat``: the
        board as read (the same picture where no reflection was taken off)."""
        picture = self.pre if self.pre is not None else flat
        if picture is None:
            return False
        pre = picture[box].astype(np.float32)
        a, b = (labels == main) & blob, (labels == other) & blob
        if not a.any() or not b.any():
            return False
        first, second = np.median(pre[a], axis=0), np.median(pre[b], axis=0)
        low, high = (first, second) if second.sum() >= first.sum() else (second, first)
        if not measured and float(low.max() - low.min()) < 40:
            return False
        seen = high < 250
        lift = high - low
        if not seen.any():
            return bool((low + GLARE_MIN >= 240).all())
        level = float(lift[seen].mean())
        even = float(lift[seen].max() - lift[seen].min()) <= 12 + 0.15 * level
        return level > 12 and even and bool((low[~seen] + level >= 240).all())

    def _unmeasured_reach(self, part: np.ndarray, bx: int, by: int) -> np.ndarray:
        """The pixels of a piece's box within a few millimetres of board a reflection washed
        out so far (two channels or more clipped) that its lift there was not measured:
        one channel clipped still leaves it measured by the others (``take_off``)."""
        h, w = part.shape
        out = np.zeros((h, w), bool)
        if self.pre is None:
            return out
        pad = UNMEASURED_REACH
        y0, x0 = max(0, by - pad), max(0, bx - pad)
        y1, x1 = min(self.pre.shape[0], by + h + pad), min(self.pre.shape[1], bx + w + pad)
        own = np.zeros((y1 - y0, x1 - x0), bool)
        own[by - y0:by - y0 + h, bx - x0:bx - x0 + w] = part
        own = cv2.dilate(own.astype(np.uint8), _SQUARE3) > 0
        unmeasured = ((self.pre[y0:y1, x0:x1] >= 250).sum(axis=2) >= 2) & ~own & ~self._outside[y0:y1, x0:x1]
        if not unmeasured.any():
            return out
        near = cv2.distanceTransform((~unmeasured).astype(np.uint8), cv2.DIST_L2, 3) <= pad
        return near[by - y0:by - y0 + h, bx - x0:bx - x0 + w]


def _enclosed(strokes: np.ndarray, blind: np.ndarray) -> np.ndarray:
    """What each stroke of something not the board inside a clipped core encloses (its convex
    hull, filled, where the ring round that hull is mostly ``blind``): a die's glossy top in a
    lamp's clipped pool passes for the board lifted, and only its sides' dark outline shows,
    round what is the die.  Outside a clipped core what a stroke encloses is seen as it is,
    unless the stroke is a whole outline (``_closed_round``)."""
    n, comp, stats, _ = cv2.connectedComponentsWithStats(strokes.view(np.uint8), connectivity=8)
    out = np.zeros(strokes.shape, bool)
    for k in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[k])
        if area < ENCLOSING_PX:
            continue
        box = (slice(max(0, y - 3), y + h + 3), slice(max(0, x - 3), x + w + 3))  # (room for its ring)
        stroke = comp[box] == k
        hull = filled_hull(stroke)
        ring = (cv2.dilate(hull.view(np.uint8), _SQUARE5) > 0) & ~hull
        if (ring.any() and float(blind[box][ring].mean()) >= ENCLOSED_BLIND) or _closed_round(stroke, hull):
            out[box] |= hull
    return out


def _closed_round(stroke: np.ndarray, hull: np.ndarray) -> bool:
    """Does a stroke run round (almost) all of its hull's edge: a piece's whole outline, its
    top passing for the board lifted inside it (a red die's top in a lamp's pool lit as pale as
    the print), where a print's edge drawn a pixel off is an L or a bar, round at most part of it?"""
    edge = hull & ~(cv2.erode(hull.view(np.uint8), _SQUARE3) > 0)
    near = cv2.dilate(stroke.view(np.uint8), _SQUARE3) > 0
    n_edge = int(np.count_nonzero(edge))
    return n_edge > 0 and int(np.count_nonzero(edge & near)) >= ENCLOSED_ROUND * n_edge


def _ringed(pre: np.ndarray, ref: np.ndarray, blind: np.ndarray, step: np.ndarray) -> np.ndarray:
    """Flat pieces' tops that pass for the board lifted but are ringed by a cliff in the lift
    (``piece_rims``): not seen to be the board.  Such a top may be a blob of a piece's colour
    read as no piece, so not of the patch: ``washed_core`` counts it wherever no piece was read.
    ``step``: the empty board's ``print_step``."""
    level, _ = lift_in_light(pre, ref)
    # (the print's faint edges, two tans drawn a pixel off, step in the lift as well)
    printed = cv2.dilate((step > PRINT_EDGE).view(np.uint8), _SQUARE3) > 0
    return ringed_discs(level, ~printed, blind)


def _touching(mask: np.ndarray, zone: np.ndarray) -> np.ndarray:
    """The 8-connected parts of a mask that reach into a zone."""
    n, labels = cv2.connectedComponents(mask.astype(np.uint8), connectivity=8)
    reached = np.unique(labels[zone & mask])
    return np.isin(labels, reached[reached > 0])


def lit_around(lit: np.ndarray, near_pieces: np.ndarray, bx: int, by: int, bw: int, bh: int) -> bool:
    """Is the board around a piece lighter than the empty board (the halo of a glare)?"""
    y0, y1, x0, x1, ring = piece_ring(near_pieces, bx, by, bw, bh)
    count = int(np.count_nonzero(ring))  # (a count, not a sum: a fifth of the cost)
    return count >= 12 and int(np.count_nonzero(np.logical_and(lit[y0:y1, x0:x1], ring))) > 0.35 * count


def glow_around(strange: np.ndarray, flat: np.ndarray, empty: np.ndarray, near_pieces: np.ndarray,
                bx: int, by: int, bw: int, bh: int) -> bool:
    """Is the board around a light piece mostly neither the empty board nor a piece
    (``strange``), and not in shade: a lamp's glow round a reflection's white core, which
    passes for a white or a yellow piece?  A light die's own sides and shadow are neither
    the board nor its colour too, but darker than the empty board (``SHADE``'s most of its
    light): a white die seen from a slant was doubted for them, its count read sure."""
    y0, y1, x0, x1, ring = piece_ring(near_pieces, bx, by, bw, bh)
    count = int(ring.sum())
    ring &= strange[y0:y1, x0:x1]
    if count < 12 or int(np.count_nonzero(ring)) <= 0.35 * count:
        return False  # (most pieces: little of their ring is strange at all)
    seen = flat[y0:y1, x0:x1][ring].astype(np.float32).sum(axis=1)
    board = empty[y0:y1, x0:x1][ring].astype(np.float32).sum(axis=1)
    return int(np.count_nonzero(seen > SHADE[1] * board)) > 0.35 * count


def piece_ring(near_pieces: np.ndarray, bx: int, by: int, bw: int,
          bh: int) -> tuple[int, int, int, int, np.ndarray]:
    """A piece's ring, 3-7 px out of its box, clear of its rim and its neighbours: its window
    (rows y0..y1, columns x0..x1) and the ring's pixels in it."""
    y0, y1 = max(0, by - RING_PX), min(near_pieces.shape[0], by + bh + RING_PX)
    x0, x1 = max(0, bx - RING_PX), min(near_pieces.shape[1], bx + bw + RING_PX)
    ring = near_pieces[y0:y1, x0:x1] == 0
    ring[max(0, by - y0 - 3):by - y0 + bh + 3, max(0, bx - x0 - 3):bx - x0 + bw + 3] = False
    return y0, y1, x0, x1, ring


def smooth_fit(values: np.ndarray, known: np.ndarray, sigma: float) -> np.ndarray:
    """``values`` fitted by a plane round every pixel (Gaussian weights, ``known`` pixels only).

    A plane, not a weighted mean: next to a reflection's clipped core only its lower side
    is known, and a mean there falls short of the rising lift; a plane follows the slope,
    while a piece's edge (a step) still stands out of it."""
    k = known.astype(np.float64)
    h, w = values.shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    v = np.where(known, values, 0).astype(np.float64)

    def g(a: np.ndarray) -> np.ndarray:
        return cv2.GaussianBlur(a, (0, 0), sigma, borderType=cv2.BORDER_CONSTANT)

    s0 = g(k)
    mean = g(k * v) / np.maximum(s0, 1e-6)
    # moments about each pixel: the plane's value there is its intercept
    sx, sy = g(k * xs) - xs * s0, g(k * ys) - ys * s0
    sxx = g(k * xs * xs) - 2 * xs * g(k * xs) + xs * xs * s0
    syy = g(k * ys * ys) - 2 * ys * g(k * ys) + ys * ys * s0
    sxy = g(k * xs * ys) - xs * g(k * ys) - ys * g(k * xs) + xs * ys * s0
    sv = g(k * v)
    sxv, syv = g(k * xs * v) - xs * sv, g(k * ys * v) - ys * sv
    m = np.stack([np.stack([s0, sx, sy], -1), np.stack([sx, sxx, sxy], -1), np.stack([sy, sxy, syy], -1)], -2)
    rhs = np.stack([sv, sxv, syv], -1)[..., None]
    det = np.linalg.det(m)
    fine = np.abs(det) > 1e-3 * np.maximum(s0, 1e-6) ** 3 * sigma ** 4
    plane = mean.copy()
    if fine.any():
        plane[fine] = np.linalg.solve(m[fine], rhs[fine])[:, 0, 0]
    return plane.astype(np.float32)


def to_light(values: np.ndarray) -> np.ndarray:
    """A camera's values (sRGB, 0-255) as the light they stand for (0-1)."""
    v = np.clip(values.astype(np.float32) / 255.0, 0, 1)
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def to_values(light: np.ndarray) -> np.ndarray:
    """Light (0-1) as a camera's sRGB values (0-255, not clipped above)."""
    v = np.maximum(light, 0)
    return 255.0 * np.where(v <= 0.0031308, 12.92 * v, 1.055 * np.power(np.maximum(v, 1e-8), 1 / 2.4) - 0.055)


def lifted_in_light(ref: np.ndarray, lift: np.ndarray) -> np.ndarray:
    """The camera's values of ``ref`` with ``lift`` of light (per pixel) added to every channel."""
    return to_values(to_light(ref) + lift[..., None])


def values_lift(ref: np.ndarray, lift: np.ndarray) -> np.ndarray:
    """How much lighter, in the camera's values (mean over channels), a lift of light makes ``ref``."""
    return (lifted_in_light(ref, lift) - ref.astype(np.float32)).mean(axis=-1)


def lift_in_light(pre: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``even_lift`` with the lift taken in the light rather than the camera's values: per
    pixel, the light added (the mean over the channels not clipped), and whether that one
    lift gives every channel (within the tolerance ``even_lift`` allows) and clips the others."""
    pre32, ref32 = pre.astype(np.float32), ref.astype(np.float32)
    clipped = pre >= 250
    seen = (~clipped).sum(axis=-1)
    level = np.where(clipped, 0.0, to_light(pre32) - to_light(ref32)).sum(axis=-1) / np.maximum(seen, 1)
    lifted = lifted_in_light(ref32, level)
    off = np.where(clipped, 0.0, np.abs(pre32 - lifted)).max(axis=-1)
    values = (lifted - ref32).mean(axis=-1)
    reaches = (~clipped | (lifted >= np.minimum(pre32, 255) - 15)).all(axis=-1)
    even = (seen > 0) & (off <= 5 + 0.075 * np.abs(values)) & reaches & (values >= -6)
    return level.astype(np.float32), even


def even_lift(pre: np.ndarray, ref: np.ndarray,
              clipped: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per pixel, how much lighter than the empty board it is (the mean over the channels
    not clipped) and whether that is one lift in every channel, as a reflection adds, and
    enough to clip the channels it clipped.  A pixel clipped in every channel is never even.
    ``clipped``: the channels the camera clipped (by default, those at 250 or more)."""
    pre32, ref32 = pre.astype(np.float32), ref.astype(np.float32)
    if clipped is None:
        clipped = pre >= 250
    lift = pre32 - ref32
    if not clipped.any():  # (most asked: every channel seen; the same sums and spreads, a third the cost)
        l0, l1, l2 = lift[..., 0], lift[..., 1], lift[..., 2]
        level = (l0 + l1 + l2).astype(np.float64) / 3
        spread = np.maximum(np.maximum(l0, l1), l2) - np.minimum(np.minimum(l0, l1), l2)
        return level, (spread <= 10 + 0.15 * np.abs(level)) & (level >= -6)
    seen = (~clipped).sum(axis=-1)
    blind = seen == 0
    level = np.where(clipped, 0.0, lift).sum(axis=-1) / np.maximum(seen, 1)  # 0 where blind
    spread = np.where(clipped, -np.inf, lift).max(axis=-1) - np.where(clipped, np.inf, lift).min(axis=-1)
    spread = np.where(blind, np.inf, spread)
    # a clipped channel says "at least this": the lift must reach about that far
    reaches = (~clipped | (ref32 + level[..., None] >= np.minimum(pre32, 255) - 15)).all(axis=-1)
    even = ~blind & (spread <= 10 + 0.15 * np.abs(level)) & reaches & (level >= -6)
    return level, even
