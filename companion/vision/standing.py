"""Pieces that stand up: a die (or a column of dice) read at its foot, its marks on its top
face, its side faces never a piece of their own; a standing figure's head never a second
figure.  Seen from a camera's slant a piece's top shows on the board's plane further out
from the camera's nadir than its foot, by ``CameraPose.lean``; its sides fill the strip
between (``pose.py``).

A part of ``BoardReader`` (``reader.py``): the methods here use its state.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from companion.games.base import Piece
from companion.vision.die_sides import DieSides
from companion.vision.geometry import MARGIN_MM
from companion.vision.palette import shadow_colours
from companion.vision.pose import DIE_MM, MOST_STACKED, SIDES_SEEN_SHARE, Stand, die_within, stand_of
from companion.vision.reading import SCALE, SQUARE3, UNDER_A_HAND, one_piece_shape, per_layout
from companion.vision.slant import leaned_from, leaning_figure

STAND_SEEN_PX = 3.0  # a die's blob this much longer along the nadir's line than across shows sides
DIE_FACE_SHARE = 0.6  # a blob this share of a die's face or more may be a die
SIDE_HUE = 0.88  # a die's side face in shade: this near its colour's hue (cosine of the angle),
SIDE_HUE_MARGIN = 0.04  # and this much nearer it than the empty print there is
VOTE_LEAN_PX = 5.0  # dice whose side would show this many pixels or more vote on whether sides show
VOTE_DICE = 3  # ... at least this many of them
VOTE_SHARE = 0.6  # ... and this share of them must show their sides
VOTE_ENOUGH = 6  # dice enough to vote
SHADE_REACH_PX = 8  # a piece's shade is taken for it this far out from its colour ...
SHADE_HUE = 0.97  # ... when this near its hue (cosine of the angle)
SHADE_HUE_MARGIN = 0.02  # ... and this much nearer it than the print's hue (a shadow keeps the print's)
NEUTRAL_PTP = 40.0  # a colour whose channels lie within this of each other is white, grey or black
SIDES_WIDER_PX = 2.0  # a die's sides as seen are no wider than its top, but for a pixel of rim each way
SIDE_BRIGHTEST = 0.9  # a side face is in shade: no lighter than this share of its top (a pale hand is)
SIDE_HUE_GREY = 0.99  # ... a grey or white die's (a shadow on a tan print is within 0.97 of grey)
FIGURE_WORDS = ("pawn", "figure", "meeple")  # how a game names a piece that stands up
FLAT_WORDS = ("chip", "token", "marker", "card", "die", "coin", "mat")
TALLEST_FIGURE_MM = 50.0  # no standing piece is taller (a head shows at most this one's lean out)
HEAD_ASIDE_MM = 8.0  # a figure's head lies this near the line from the nadir through its foot
HEAD_OR_TWO = "a standing piece's head, or two pieces?"
HEAD_SHARE = 0.7  # a head seen apart shows at most this share of the colour its base and body show
PRINT_HUE = 0.95  # a patch whose tint lies this near the print's (cosine) has the print's hue
SHADE_BESIDE_MM = 25.0  # a standing figure's shaded foot and shadow read apart lie this near its base
COLUMN_UNCLEAR = "a column of unclear height?"


class Standing(DieSides):
    """Where a piece that stands up stands, and what of it is no piece of its own."""

    _read_so_far: dict[str, list[Piece]] = {}  # the frame's pieces read from its blobs (``reader.py``)
    _strange: np.ndarray | None = None  # neither the empty board nor a piece's colour (``reader.py``)

    def _piece_shades(self, flat: np.ndarray, labels: np.ndarray, as_empty: np.ndarray,
                      region: tuple[slice, slice] | None = None) -> np.ndarray:
        """The board's colours with a standing piece's own shade taken for the piece: pixels
        that are neither a colour nor the empty board, joined to a figure of a colour, of that
        colour's hue (nearer it than the empty print there is, by a margin: a shadow keeps the
        print's hue) and darker than it.  A figure's shaded side is then part of it, not
        something over the board.  Only in ``region`` when one is given (the rest of the board
        is as it was read before).  A black piece lifted off black by its sheen, whole or in
        part, is black first (``dark_sheen.py``)."""
        labels = self._dark_in_sheen(flat, labels, as_empty, region)
        labels = self._sheen_joined_to_black(flat, labels, as_empty, region)
        labels = self._sheen_lit_chips(flat, labels, as_empty, region)
        n_pieces = len(self._piece_names)
        standing = per_layout(self, "_hued_standing_known", lambda: [
            i for i in range(n_pieces) if self._stands_up(self._piece_names[i])
            and float(np.ptp(self._piece_bgr[i])) >= NEUTRAL_PTP])  # no hue: any shadow's
        if not standing:
            return labels  # (a die's sides in shade are its own: ``_with_sides``)
        wy, wx = (slice(0, labels.shape[0]), slice(0, labels.shape[1])) if region is None else region
        wy = slice(max(0, (wy.start or 0) - SHADE_REACH_PX), wy.stop + SHADE_REACH_PX)
        wx = slice(max(0, (wx.start or 0) - SHADE_REACH_PX), wx.stop + SHADE_REACH_PX)
        lut = np.zeros(256, np.uint8)
        lut[standing] = 1
        is_piece = cv2.LUT(labels[wy, wx], lut)
        if not cv2.countNonZero(is_piece):
            return labels
        lut[:] = 0
        lut[n_pieces:] = 1
        # a figure's colour in shade may fall nearer a colourless piece's (a blue side reads
        # black): a pixel with a hue of its own taken for one is open too (a colourless
        # piece's pixels have none: they stay its)
        colourless = np.ptp(self._piece_bgr[:n_pieces], axis=1) < NEUTRAL_PTP
        lut[:n_pieces][colourless] = 1
        # (``a & ~b`` as ``a > b`` on 0 and 1: one pass, no copy of the window)
        open_ = np.greater(cv2.LUT(labels[wy, wx], lut), as_empty[wy, wx].view(np.uint8)).view(np.uint8)
        near = cv2.dilate(is_piece, cv2.getStructuringElement(cv2.MORPH_RECT, (2 * SHADE_REACH_PX + 1,) * 2))
        at = cv2.findNonZero(open_ & near)
        if at is None:
            return labels
        xs, ys = at.reshape(-1, 2).T
        xs, ys = xs + wx.start, ys + wy.start
        pixels = flat[ys, xs].astype(np.float32)
        was = labels[ys, xs]
        hued = (was >= n_pieces) | ~colourless[np.minimum(was, n_pieces - 1)] \
            | (np.ptp(pixels, axis=1) >= NEUTRAL_PTP)
        xs, ys, pixels = xs[hued], ys[hued], pixels[hued]
        empty = self._reference[ys, xs].astype(np.float32)
        bright = np.linalg.norm(pixels, axis=1)
        seen = pixels / (bright[:, None] + 1e-3)
        empty /= np.linalg.norm(empty, axis=1)[:, None] + 1e-3
        best = np.full(len(xs), -1)
        best_dot = np.zeros(len(xs), np.float32)
        for i in standing:
            colour = self._piece_bgr[i]
            unit = colour / float(np.linalg.norm(colour))
            dot = seen @ unit
            # nearer the figure's hue than the empty print there is to it, or than the pixel is
            # to the print's (a shadow keeps the print's hue, so is neither; a pink figure's
            # shade is nearer pink than the pale print is, whose hue is itself near pink's)
            hue_over = np.minimum(empty @ unit + SIDE_HUE_MARGIN,
                                  np.einsum("ij,ij->i", seen, empty) + SHADE_HUE_MARGIN)
            fits = (dot >= np.maximum(SHADE_HUE, hue_over)) \
                & (bright <= SIDE_BRIGHTEST * float(np.linalg.norm(colour))) \
                & (dot > best_dot)
            best[fits], best_dot[fits] = i, dot[fits]
        found = best >= 0
        if not found.any():
            return labels
        xs, ys, best = xs[found], ys[found], best[found]
        # only shade joined to a figure of its colour: the figures and the shade as one mask
        union = is_piece.copy()
        union[ys - wy.start, xs - wx.start] = 1
        n, parts = cv2.connectedComponentsWithAlgorithm(union, 8, cv2.CV_32S, cv2.CCL_BBDT)
        px, py = cv2.findNonZero(is_piece).reshape(-1, 2).T
        colours = np.zeros(n, np.int64)  # per part, a bit for each colour of figure in it
        np.bitwise_or.at(colours, parts[py, px], np.left_shift(1, labels[wy, wx][py, px].astype(np.int64)))
        joined = (colours[parts[ys - wy.start, xs - wx.start]] >> best) & 1 > 0
        if not joined.any():
            return labels
        out = labels.copy()
        out[ys[joined], xs[joined]] = best[joined]
        return out

    def _foot(self, index: int, components: np.ndarray, k: int, stats: np.ndarray,
              out, sides: frozenset[int] = frozenset()) -> tuple[tuple[float, float], Stand] | bool | None:
        """Where a die's blob (component ``k``) stands (sampled px) with how it stands; None
        to read it where the board's plane shows it (no pose, no die, no side seen: the flat
        camera's dice have none); False when its place is doubted (added to ``out``).
        ``sides``: the colours of the blob's patches taken for its sides (``_without_die_sides``)."""
        if not self.dice_stand:
            return None
        bx, by, bw, bh = (int(v) for v in stats[:4])
        stand, touching, wide = self._stand(index, components, k, bx, by, bw, bh)
        if stand is None and wide is not None:
            return self._wide_column(wide, components, k, (bx, by, bw, bh), out)
        if stand is None or stand.lean < STAND_SEEN_PX:
            return None
        assert self.pose is not None
        tops = (stand.top[0] / SCALE - MARGIN_MM, stand.top[1] / SCALE - MARGIN_MM)
        feet = self.pose.feet(stand.top[0] / SCALE, stand.top[1] / SCALE, DIE_MM, MOST_STACKED)
        # (no column stands on a place where another die's top was read: ``Blobs._tops_read``,
        # nor on one whose rules stack fewer dice there: a Caught Soul's holds one)
        fitting = [feet[n - 1] for n in stand.fits if n == 1 or self._column_may_stand(n, *feet[n - 1])]
        if len(fitting) > 1:
            # a column stands within its place: a height whose foot would hang over a place's
            # edge is no height it has (one die's lean apart, at most one fits a place)
            within = [foot for foot in fitting if self._die_within_place(*foot)]
            fitting = within or fitting
        spots = {self._spot_at(fx - MARGIN_MM, fy - MARGIN_MM) for fx, fy in fitting}
        # a column's height from another die's colour taken for its lower dice's sides: its top
        # may as well be the next place's one die, and that colour its own place's die (on the
        # tuning frames, all 33 such columns were two dice; two were read as the top's column)
        another = 1 not in stand.fits and any(self._is_die(i) and i != index for i in sides)
        if (another or stand.fits) and not fitting and self._die_within_place(*feet[0]) \
                and self._column_may_stand(1, *feet[0]):
            # its lean drawn out by that colour (or by the next die of its own) is no column's
            # where no height that lean fits may stand (another die's top read on its foot's place,
            # or rules that stack fewer): its top stands where one die's would, all that is left
            # (Baron Voodoo at 20-30 degrees: a red die on a Caught Soul's place and the white die
            # on the next, its colour taken for sides; a yellow top and the next yellow die, one blob)
            fitting, another = [feet[0]], False
            spots = {self._spot_at(feet[0][0] - MARGIN_MM, feet[0][1] - MARGIN_MM)}
        if len(spots) != 1 or None in spots or another:
            # every place the column may stand on, the one its top shows over, and those its
            # blob lies over (a die there, taken for its sides, is explained with the blob)
            near = spots | {self._spot_at(*tops)} | {self._spot_at(fx - MARGIN_MM, fy - MARGIN_MM)
                                                     for fx, fy in feet}
            return self._column_asked(near, components, k, (bx, by, bw, bh), out, touching or another)
        return (fitting[0][0] * SCALE, fitting[0][1] * SCALE), stand

    def _column_asked(self, near: set[str | None], components: np.ndarray, k: int,
                      box: tuple[int, int, int, int], out, against: bool = False) -> bool:
        """Ask every place a column of unclear height may stand on or show over (``near``) and
        those its blob (component ``k``, its box ``box``) lies over: a die there, taken for its
        sides, is explained with the blob.  So is all its box holds, so the places where its box
        holds what is neither the board nor a piece's colour (``_strange``) are asked too (Baron
        Voodoo under a hand, 0.92 px a mm: the light print lit white, one blob with the white
        dice in it a fifth of the board wide, its box over a white 6 whose top the lamp clipped
        to no piece's colour; that place, explained and never asked, was read empty).  False,
        as ``_foot`` returns for a doubted place."""
        bx, by, bw, bh = box
        near = near | set(self._places_under(components[by:by + bh, bx:bx + bw] == k, bx, by))
        if self._strange is not None:
            near |= set(self._places_under(self._strange[by:by + bh, bx:bx + bw], bx, by))
        out.explained.append((max(0, by - 4), by + bh + 4, max(0, bx - 4), bx + bw + 4))
        why = COLUMN_UNCLEAR + (" (another piece against it)" if against else "")
        out.doubts += [(s, why) for s in sorted(near - {None})]
        return False

    def _wide_column(self, wide: Stand, components: np.ndarray, k: int, box: tuple[int, int, int, int],
                     out) -> bool | None:
        """A die's top whose sides, seen wider than it, lean further than one die's: a column
        whose lower die is turned across the top one (seen as wide as its diagonal), or a die
        with something of a die's hue beside it (a hand's shadow).  Which, the sides do not
        tell, nor so how tall it stands: read where its top shows (None) only when the foot of
        every height and the top lie on one place; else each of those places is asked, False
        (Baron Voodoo at 30 degrees: a yellow 2 on a purple die turned across it was read on
        the next place out, where its top showed, and its own place as empty)."""
        assert self.pose is not None
        top = (wide.top[0] / SCALE - MARGIN_MM, wide.top[1] / SCALE - MARGIN_MM)
        feet = self.pose.feet(wide.top[0] / SCALE, wide.top[1] / SCALE, DIE_MM, MOST_STACKED)
        near = {self._spot_at(*top)} | {self._spot_at(fx - MARGIN_MM, fy - MARGIN_MM) for fx, fy in feet}
        if len(near) == 1 and None not in near:
            return None
        return self._column_asked(near, components, k, box, out)

    def _column_may_stand(self, height: int, x_mm: float, y_mm: float) -> bool:
        """May a column of ``height`` dice whose foot's centre is here (canvas mm) stand on the
        place there: none where another die's top was read, and no taller one than the place's
        rules stack (``Spot.holds``: two touching dice on one-die places, the far one's top over
        the near one's side, had passed for a column on the near one's place)?  Off every place
        it may: where it stands is then unclear, and asked."""
        spot_id = self._spot_at(x_mm - MARGIN_MM, y_mm - MARGIN_MM)
        if spot_id is None:
            return True
        return spot_id not in self._topped and (self.layout.spot(spot_id).holds or height) >= height

    def _die_within_place(self, x_mm: float, y_mm: float) -> bool:
        """Does a die whose foot's centre is here (canvas mm) lie within one place, give or
        take ``FOOT_SLACK_MM`` (however it is turned: its centre within half its edge of
        the place's sides)?"""
        spot_id = self._spot_at(x_mm - MARGIN_MM, y_mm - MARGIN_MM)
        if spot_id is None:
            return False
        return die_within(self.layout.spot(spot_id), x_mm - MARGIN_MM, y_mm - MARGIN_MM)

    def _dice_stand_up(self, n: int, stats: np.ndarray, components: np.ndarray, labels: np.ndarray) -> bool:
        """Do the board's dice show their sides, as dice on a table seen from a slant do?  A
        vote of the dice far enough out from the nadir to show a side of a few pixels: a
        hand, its shadow or a sleeve beside one die may pass for its side, never for most
        dice's, and the flat camera's dice show none."""
        if self.pose is None:
            return False
        seen = shown = 0
        n_pieces = len(self._piece_names)
        for k in range(1, n):
            bx, by, bw, bh, area = (int(v) for v in stats[k])
            if area < self._smallest_px * 0.3:
                continue
            own = components[by:by + bh, bx:bx + bw] == k
            votes = np.bincount(labels[by:by + bh, bx:bx + bw][own], minlength=256)[:n_pieces]
            index = int(votes.argmax())
            # a white or grey die's side in shade is a grey, as a shadow on the pale print is:
            # its sides are not told apart from the board, so it has no vote
            if not self._is_die(index) or float(np.ptp(self._piece_bgr[index])) < NEUTRAL_PTP:
                continue
            stand, _touching, _wide = self._stand(index, components, k, bx, by, bw, bh)
            if stand is None:
                continue
            one = (stand.far - stand.across / 2) * DIE_MM / self.pose.height_mm  # one die's lean, px
            if one < VOTE_LEAN_PX:
                continue
            seen += 1
            shown += stand.lean >= SIDES_SEEN_SHARE * one - 1.0
            if seen >= VOTE_ENOUGH:
                break  # enough dice to tell: the rest cost a changed board's read more than it has
        return seen >= VOTE_DICE and shown >= VOTE_SHARE * seen

    def _stand(self, index: int, components: np.ndarray, k: int, bx: int, by: int, bw: int,
               bh: int) -> tuple[Stand | None, bool, Stand | None]:
        """How a die's blob (component ``k``) stands (``pose.stand_of``), when the camera's
        pose is known, and whether another piece's blob touches its sides (then neither
        its height nor the other's place is sure); None for any other piece (a chip's
        lean is under a millimetre).  Last, the stand of its sides when they were seen wider
        than its top yet leaning further than one die's (``_wide_column``), else None."""
        if self.pose is None or not self._is_die(index) or self._flat is None:
            return None, False, None
        own = components[by:by + bh, bx:bx + bw] == k
        body, x0, y0, touching = self._with_sides(own, bx, by, components, k)
        # its sides are no wider than its top: what is (a hand, its shadow, a sleeve in a
        # die's hue) is no side of it.  Then the blob alone, when its own colours hold its
        # sides (a blue die's side in shade reads black); else the die is read as the
        # board's plane shows it
        ys, xs = np.nonzero(own)
        wide = None
        for mask, mx, my in ((body, x0, y0), (own, bx, by)):
            stand = stand_of(self.pose, mask, mx, my, SCALE, DIE_MM, MOST_STACKED, touching)
            if stand is None or (mask is own and not stand.fits):
                return None, touching, wide  # (the blob alone without a column's lean: no sides in it)
            side = (xs + bx + 0.5 - stand.nadir_px[0]) * -stand.outward[1] \
                + (ys + by + 0.5 - stand.nadir_px[1]) * stand.outward[0]
            if stand.across <= float(side.max() - side.min()) + 1.0 + SIDES_WIDER_PX:
                return stand, touching, None
            if mask is body and stand.fits and 1 not in stand.fits:
                wide = stand
        return None, touching, wide

    def _flat_at_necks(self, index: int, centre: np.ndarray, w: int, h: int) -> bool:
        """Might a blob of one flat piece's colour (no die, no figure) be two joined at a neck:
        longer than one piece, or its centre on no place (``necks``)?"""
        return not self._is_die(index) and not self._stands_up(self._piece_names[index]) and (
            not one_piece_shape(w, h) or self._place_at(float(centre[0]), float(centre[1])) is None)

    def _is_die(self, index: int) -> bool:
        """Is this colour a die's (a square piece with one to six marks)?  (Asked of every
        piece many times a frame: answered once, for the layout it was asked of; looked up here
        first, as ``per_layout`` keeps it, a call less a time.)"""
        known = self.__dict__.get("_dice_known")
        if known is not None and known[0] is self.layout:
            return index in known[1]
        return index in per_layout(self, "_dice_known", lambda: frozenset(
            i for i, name in enumerate(self._piece_names) if self._named_die(name)))

    def _named_die(self, name: str) -> bool:
        low, high = self.layout.marks.get(name, (0, 0))
        return self.layout.shapes.get(name) == "square" and 1 <= low <= high <= 6

    def _dice_colours(self) -> frozenset[str]:
        """The colours that are dice's (``_is_die``), by name."""
        return per_layout(self, "_dice_names_known", lambda: frozenset(
            name for i, name in enumerate(self._piece_names) if self._is_die(i)))

    def _places_holding_one(self) -> frozenset[str]:
        """The places that hold one piece, or one column of dice (they take dice only): asked
        of every place read sure, every frame (``Blobs._one_held_read``)."""
        return per_layout(self, "_holding_one_known", lambda: frozenset(
            place.id for place in self.layout.spots
            if place.holds == 1 or place.takes and place.takes <= self._dice_colours()))

    def _with_sides(self, own: np.ndarray, bx: int, by: int, components: np.ndarray,
                    k: int) -> tuple[np.ndarray, int, int, bool]:
        """A die's blob with its side faces: they lie between its top and the camera's nadir,
        in a die's colour in shade (the same hue, darker), where the empty board is not seen.
        Its box, grown towards the nadir by a full column's lean."""
        assert self.pose is not None and self._flat is not None
        h, w = own.shape
        nx, ny = self.pose.nadir_mm[0] * SCALE, self.pose.nadir_mm[1] * SCALE
        cx, cy = bx + w / 2 - nx, by + h / 2 - ny
        d = max(1e-6, float(np.hypot(cx, cy)))
        reach = self.pose.lean(d / SCALE, MOST_STACKED * DIE_MM) * SCALE + 2
        gx, gy = -cx / d * reach, -cy / d * reach
        rows, cols = self._flat.shape[:2]
        x0, x1 = max(0, int(bx + min(0.0, gx))), min(cols, int(np.ceil(bx + w + max(0.0, gx))))
        y0, y1 = max(0, int(by + min(0.0, gy))), min(rows, int(np.ceil(by + h + max(0.0, gy))))
        flat = self._flat[y0:y1, x0:x1]
        seen = flat.astype(np.float32)
        seen /= np.linalg.norm(seen, axis=2, keepdims=True) + 1e-3
        empty = self._reference[y0:y1, x0:x1].astype(np.float32)
        empty /= np.linalg.norm(empty, axis=2, keepdims=True) + 1e-3
        bright = np.linalg.norm(flat.astype(np.float32), axis=2)
        body = np.zeros(flat.shape[:2], bool)
        # nearer a die's hue than the empty print there is (a shadow keeps the print's hue);
        # a grey die's shade is any grey, and a shadow on a pale print is nearly grey too.
        # Any die's: the dice under a column's top die may be of other colours
        for i in (i for i in range(len(self._piece_names)) if self._is_die(i)):
            colour = self._piece_bgr[i]
            unit = colour / float(np.linalg.norm(colour))
            hue = np.maximum(SIDE_HUE, empty @ unit + SIDE_HUE_MARGIN)
            if float(np.ptp(colour)) < 40:
                hue = np.maximum(hue, SIDE_HUE_GREY)
            body |= (seen @ unit >= hue) & (bright <= SIDE_BRIGHTEST * float(np.linalg.norm(colour)))
        body &= cv2.inRange(flat, self._ref_lo[y0:y1, x0:x1], self._ref_hi[y0:y1, x0:x1]) == 0
        body[by - y0:by - y0 + h, bx - x0:bx - x0 + w] |= own
        body = cv2.morphologyEx(body.astype(np.uint8), cv2.MORPH_CLOSE, SQUARE3) > 0  # the lit edge between
        others = components[y0:y1, x0:x1]
        others = (others > 0) & (others != k)  # other pieces' blobs: never this die's sides
        body &= ~others
        n, labels = cv2.connectedComponents(body.astype(np.uint8), connectivity=8)
        mine = np.unique(labels[by - y0:by - y0 + h, bx - x0:bx - x0 + w][own])
        body = np.isin(labels, mine[mine > 0])
        touching = bool((cv2.dilate(body.astype(np.uint8), SQUARE3) > 0)[others].any())
        return body, x0, y0, touching

    def _standing_pixels(self, labels: np.ndarray, is_piece: np.ndarray) -> np.ndarray | None:
        """The pieces' pixels of the colours that stand up (pawns, figures: their shadows reach
        further than a die's), or None when the game has no such piece."""
        lut = per_layout(self, "_standing_lut", self._standing_lut)
        if lut is None:
            return None
        return (cv2.LUT(labels, lut) > 0) & is_piece

    def _standing_round(self, labels: np.ndarray, is_piece: np.ndarray
                        ) -> Callable[[np.ndarray, np.ndarray, int], tuple[np.ndarray, int, int] | None]:
        """``_standing_pixels`` asked round some pixels (rows, columns of the board) only, as far
        as ``reach`` past them (what a disc's reach round them sees of the board): that window of
        them, and its first row and column; None as ``_standing_pixels``.  (Over the whole board
        they cost a Swing State change 0.3 ms, and the pixels asked are a shadow's few.)"""
        def round_(ys: np.ndarray, xs: np.ndarray, reach: int) -> tuple[np.ndarray, int, int] | None:
            y0, x0 = max(0, int(ys.min()) - reach), max(0, int(xs.min()) - reach)
            rows, cols = slice(y0, int(ys.max()) + reach + 1), slice(x0, int(xs.max()) + reach + 1)
            found = self._standing_pixels(labels[rows, cols], is_piece[rows, cols])
            return None if found is None else (found, y0, x0)
        return round_

    def _standing_lut(self) -> np.ndarray | None:
        """A label table: 1 for the colours that stand up, 0 else; None for a game with none."""
        standing = [i for i, name in enumerate(self._piece_names) if self._stands_up(name)]
        if not standing:
            return None
        lut = np.zeros(256, np.uint8)
        lut[standing] = 1
        return lut

    def _leaning_foot(self, index: int, own: np.ndarray, bx: int, by: int) -> tuple[float, float] | None:
        """Where a standing figure's blob, drawn out by the camera's slant, has its base
        (sampled px); None for a piece that does not stand, or a blob not shaped as one figure."""
        if self.pose is None or not self._stands_up(self._piece_names[index]):
            return None
        leaning = leaning_figure(self.pose, own, bx, by, SCALE)
        return None if leaning is None else leaning.foot

    def _places_leaning_onto(self, components: np.ndarray, k: int, stat: np.ndarray) -> np.ndarray:
        """The places (indices of the board's map) a standing figure may stand on whose head is
        the patch ``k`` of ``components`` (its stats ``x, y, w, h, area``; sampled px), off
        every place: from a slant a figure behind another shows its head past its own place,
        over the board between places (Times Square at 30 degrees: a blue dancer hidden but for
        its head behind a pink one, the head over no place, was read as no piece, the space as
        the pink dancer alone).  No place where the game has no standing figure, or where a figure
        of the patch's hue is read on one of those places (its own head, read with it)."""
        if self.pose is None or not any(self._stands_up(name) for name in self._piece_names):
            return np.zeros(0, np.intp)
        x, y, w, h = (int(v) for v in stat[:4])
        ys, xs = leaned_from(self.pose, x + w / 2, y + h / 2, SCALE)
        rows, cols = self._spot_map.shape
        inside = (ys >= 0) & (ys < rows) & (xs >= 0) & (xs < cols)
        found = self._spot_map[ys[inside], xs[inside]]
        places = np.unique(found[found >= 0])
        if not len(places):
            return places
        assert self._flat is not None
        own = components[y:y + h, x:x + w] == k
        pieces = self._centroid_bgr[:len(self._piece_names)]  # (the rest: the print's colours)
        hue = _hue_of(np.median(self._flat[y:y + h, x:x + w][own], axis=0), pieces,
                      np.median(self._reference[y:y + h, x:x + w][own], axis=0))
        if hue is None:
            return np.zeros(0, np.intp)  # the print's own hue: light or shade, no figure's head
        nearest = self._piece_names[hue]
        read = self._read_so_far
        if any(piece.colour == nearest for s in places for piece in read.get(self._spot_ids[int(s)], ())):
            return np.zeros(0, np.intp)
        return places

    def _figures_of_hues(self, blobs: list) -> bool:
        """Are a blob's colour patches all standing figures of colours with a hue of their own
        (no black, grey or white: a shadow is none of them)?"""
        return all(self._stands_up(self._piece_names[index])
                   and float(np.ptp(self._piece_bgr[index])) >= NEUTRAL_PTP for index, *_rest in blobs)

    def _part_of_a_larger(self, patch: tuple, blobs: list) -> bool:
        """Is a colour patch of a blob (index, centre, stats, purity) smaller than another of
        its colour in the blob at the same place?"""
        def place(b: tuple) -> str | None:
            return self._spot_at(b[1][0] / SCALE - MARGIN_MM, b[1][1] / SCALE - MARGIN_MM)

        return any(other is not patch and other[0] == patch[0] and int(other[2][4]) > int(patch[2][4])
                   and place(other) == place(patch) for other in blobs)

    def _stands_up(self, colour: str) -> bool:
        """Does the game name this colour's piece as one that stands (a pawn, a figure), or is
        every piece of the game a character (Times Square's dancers)?  (Asked of every piece
        of every frame: answered once a colour, for the layout it was asked of.)"""
        known: dict[str, bool] = per_layout(self, "_standing_known", dict)
        if colour not in known:
            known[colour] = self._named_standing(colour)
        return known[colour]

    def _named_standing(self, colour: str) -> bool:
        name = self.layout.pieces.get(colour, "").lower()
        if any(w in name for w in FIGURE_WORDS):
            return True
        names = [n.lower() for n in self.layout.pieces.values()]
        return bool(names) and not any(w in n for n in names for w in FLAT_WORDS)

    def _smaller_head(self, inner: tuple, outer: tuple, labels: np.ndarray) -> bool:
        """Does the outer of two pieces of one colour show less of that colour round it than
        the inner one (within a head's reach of each), as a figure's head does beside its base?"""
        return self._colour_round(outer, labels) <= HEAD_SHARE * self._colour_round(inner, labels)

    def _colour_round(self, piece: tuple, labels: np.ndarray) -> int:
        """How many pixels of a piece's colour lie within a head's reach of where it was read
        (``placed``'s place, piece, x and y mm; ``labels``: the board's colours)."""
        r = int(round(HEAD_ASIDE_MM * SCALE))
        x, y = int((piece[2] + MARGIN_MM) * SCALE), int((piece[3] + MARGIN_MM) * SCALE)
        window = labels[max(0, y - r):y + r + 1, max(0, x - r):x + r + 1]
        return int(np.count_nonzero(window == self._piece_names.index(piece[1].colour)))

    def _figure_heads(self, placed: list, labels: np.ndarray,
                      doubtful: dict[str, str] | None = None) -> dict[str, str]:
        """The places holding two pieces of one colour read one behind the other on the line
        from the camera's nadir, no further apart than the tallest figure's lean: a standing
        figure's head seen apart from its base (its neck too thin to join them), or two
        figures; either way not read.  In one place or two: from a slant a figure's head
        shows over the place beyond its own, smaller than the figure's base and body
        (``labels``: the board's colours; two figures in a row of places are alike).  And a
        figure read beyond a place under a hand (``doubtful``), within a figure's lean of it,
        showing less of its colour than the frame's figures (``HEAD_SHARE`` of their median): the
        head of a figure whose base and body the hand hides, as likely as a figure."""
        if self.pose is None:
            return {}
        nx, ny = self.pose.nadir_mm[0] - MARGIN_MM, self.pose.nadir_mm[1] - MARGIN_MM
        tall = [p for p in placed if self._stands_up(p[1].colour)]
        out: dict[str, str] = {}
        # each figure against the later ones of its own piece only, in the order read (a pair
        # of every two figures was most of a Swing State board's check)
        alike: dict[Piece, list[tuple]] = {}
        for p in tall:
            alike.setdefault(p[1], []).append(p)
        for a in tall:
            later = alike[a[1]]
            later.pop(0)  # (``a`` itself: the list holds ``a`` and the pieces read after it)
            for b in later:
                inner, outer = sorted((a, b), key=lambda p: np.hypot(p[2] - nx, p[3] - ny))
                d = max(1e-6, float(np.hypot(inner[2] - nx, inner[3] - ny)))
                ux, uy = (inner[2] - nx) / d, (inner[3] - ny) / d
                along = (outer[2] - inner[2]) * ux + (outer[3] - inner[3]) * uy
                aside = abs(-(outer[2] - inner[2]) * uy + (outer[3] - inner[3]) * ux)
                if 0 < along <= self.pose.lean(d, TALLEST_FIGURE_MM) + HEAD_ASIDE_MM / 2 \
                        and aside <= HEAD_ASIDE_MM \
                        and (a[0] == b[0] or self._smaller_head(inner, outer, labels)):
                    for spot in (a[0], b[0]):
                        out.setdefault(spot, HEAD_OR_TWO)
        hidden = [spot for spot, why in (doubtful or {}).items() if why == UNDER_A_HAND]
        if hidden:
            # (a head alone shows less of its colour than the frame's figures show theirs, mostly whole)
            shown = [self._colour_round(p, labels) for p in tall]
            whole = float(np.median(shown)) if tall else 0.0
            for head, colour in zip(tall, shown, strict=True):
                if head[0] not in out and colour <= HEAD_SHARE * whole \
                        and any(self._head_of_one_on(head, spot, nx, ny)
                                for spot in hidden if spot != head[0]):
                    out[head[0]] = HEAD_OR_TWO
        return out

    def _head_of_one_on(self, head: tuple, spot_id: str, nx: float, ny: float) -> bool:
        """Could a figure read at ``head`` (board mm) be the head of one standing on ``spot_id``:
        a foot on that place (or half ``HEAD_ASIDE_MM`` off it) nearer the nadir (``nx``, ``ny``)
        on the head's line, within the tallest figure's lean (taken at the head's distance,
        which is further out than the foot's and leans more)?"""
        assert self.pose is not None
        d = max(1e-6, float(np.hypot(head[2] - nx, head[3] - ny)))
        ux, uy = (head[2] - nx) / d, (head[3] - ny) / d
        spot = self.layout.spot(spot_id)
        margin = HEAD_ASIDE_MM / 2
        for t in np.arange(0.0, self.pose.lean(d, TALLEST_FIGURE_MM) + margin, 1.0):
            fx, fy = head[2] - t * ux, head[3] - t * uy
            if spot.x - margin <= fx <= spot.x + spot.w + margin \
                    and spot.y - margin <= fy <= spot.y + spot.h + margin:
                return True
        return False

    def _figure_shades(self, placed: list, labels: np.ndarray) -> dict[str, str]:
        """The places holding a piece of a shadow's colour (``shadow_colours``) read beside a standing
        figure of another colour, smaller than it: the figure's foot in its own shade and its
        shadow, seen apart from its lit body (Swing State at 0.57 px a mm, a blue pawn's foot
        read as a black pawn on the next space), or another piece; either way not read."""
        out: dict[str, str] = {}
        shadows = per_layout(self, "_shadow_colours_known",
                             lambda: shadow_colours(self._piece_names, self._piece_bgr))
        # the standing figures of no shadow's colour, picked once (not once a dark piece)
        figures = [p for p in placed if p[1].colour not in shadows and self._stands_up(p[1].colour)]
        if not figures:
            return out
        for dark in placed:
            if dark[1].colour not in shadows:
                continue
            for figure in figures:
                if np.hypot(figure[2] - dark[2], figure[3] - dark[3]) > SHADE_BESIDE_MM:
                    continue
                if self._colour_round(dark, labels) <= HEAD_SHARE * self._colour_round(figure, labels):
                    out.setdefault(dark[0], "a standing piece's shade, or another piece?")
        return out


def _hue_of(seen: np.ndarray, colours: np.ndarray, printed: np.ndarray) -> int | None:
    """The piece colour (index of ``colours``, BGR) a patch seen as ``seen`` is nearest in hue;
    None where it has the print's own hue there (``printed``), as light and shade do.  A patch
    of little tint (``NEUTRAL_PTP``) is the nearest colourless piece's by its brightness."""
    colours = np.asarray(colours, np.float64)
    tint = seen - seen.mean()
    tints = colours - colours.mean(axis=1, keepdims=True)
    neutral = np.ptp(colours, axis=1) < NEUTRAL_PTP
    if float(np.ptp(seen)) < NEUTRAL_PTP / 2:
        if not neutral.any():
            return None
        far = np.where(neutral, np.abs(colours.sum(axis=1) - seen.sum()), np.inf)
        return int(np.argmin(far))
    size = max(float(np.linalg.norm(tint)), 1e-6)
    print_tint = printed - printed.mean()
    if float(print_tint @ tint) >= PRINT_HUE * size * float(np.linalg.norm(print_tint)):
        return None
    lengths = np.maximum(np.linalg.norm(tints, axis=1), 1e-6)
    cosines = np.where(neutral, -np.inf, tints @ tint / lengths / size)
    return int(np.argmax(cosines))
