"""Pieces as blobs of a piece colour: each placed by its centre, split when it holds two
colours, doubted when a reflection or a neighbour may have made it, and its marks counted
on a sharp crop of it (``piece_marks.py``, ``pips.py``).  A blob whose pixels are as they were in the last
frame is told again as it was read then.

A part of ``BoardReader`` (``reader.py``): the methods here use its state.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from itertools import compress

import cv2
import numpy as np

from companion.games.base import Piece
from companion.vision.board_map import components_in_box, grown_over
from companion.vision.die_sides import FOOT_ASTRAY_MM, PIECE_RIM_PX, TOPS_AT_ONE_PLACE, clear_of
from companion.vision.face_template import PIP_SHARE
from companion.vision.figure_shadows import FigureShadows
from companion.vision.geometry import MARGIN_MM
from companion.vision.glare import (
    GLARE_ERRORS,
    GLARE_FAINT,
    GLARE_MIN,
    LIGHT_PIECES,
    even_lift,
    glow_around,
    lit_around,
)
from companion.vision.light import CLIPPED
from companion.vision.mark_peaks import channel_medians
from companion.vision.necks import neck_patches
from companion.vision.palette import DARK_PIECES
from companion.vision.piece_marks import PieceMarks
from companion.vision.plain_sheen import clipped_white, plain_in_a_sheen
from companion.vision.pose import DIE_MM, Stand
from companion.vision.reading import (
    BESIDE,
    SCALE,
    SQUARE3,
    SQUARE5,
    STILL_TOLERANCE,
    UNKNOWN,
    alike,
    one_piece_shape,
)
from companion.vision.standing import DIE_FACE_SHARE

SHEEN_LARGEST = 2.0  # a sheen lies on a die's top: a blob of it and its die is at most this many faces
BLOB_PAD = 30  # blobs round a change are looked for this far round it (px of the board) ...
BLOB_PAD_WIDE = 60  # ... or this far, when a blob runs past that
COLUMN_OVER = "a column's sides over it?"
MARKS_UNCLEAR = "marks unclear: blur?"
HIDDEN = "partly hidden?"
COLUMN_SIDES = True
"""Whether a column's lower dice's sides, seen between its top and its foot on its own place,
are taken as the column (7fd442c, d48ed7f; off while a 2's or 3's step rule was out, ff87a57):
a yellow die on a white one no longer reads as "something over it" for the white die's sides."""
SURE_READ = 0.75  # a piece read this sure or more is read (less: doubted, ``_read_blob``)
_NEAREST = {0: 0, -1: 1, 1: 2}  # a box's side the same, a pixel shorter, a pixel longer


@dataclass
class _Blob:
    """What one blob of piece colours told: kept to be told again while its pixels stay."""

    odd: list[tuple[tuple[int, int], np.ndarray]] = field(default_factory=list)  # no piece's
    explained: list[tuple[int, int, int, int]] = field(default_factory=list)  # rows, columns
    shaded: list[tuple[tuple[int, int], np.ndarray]] = field(default_factory=list)  # a die's sides in shade
    doubts: list[tuple[str, str]] = field(default_factory=list)
    found: list[tuple[str, Piece, float, float, float]] = field(default_factory=list)
    box: tuple[int, int, int, int] | None = None  # rows y0..y1, columns x0..x1: what raised its doubts
    speck: tuple[float, float] | None = None  # the centre (sampled px) of a patch too small for a piece
    astray: list[tuple[str, str]] = field(default_factory=list)  # dice read off any foot on their place


@dataclass
class _Kept:
    """The last board read whole and clear (no hand, no glare), to read only what changed
    since: its 4 mm cells, flattened picture, colours, empty-board match and blobs, and the
    light it was flattened with."""

    cells: np.ndarray
    flat: np.ndarray
    labels: np.ndarray
    as_empty: np.ndarray
    blobs: dict[tuple, tuple[np.ndarray, _Blob, int]]
    gain: np.ndarray  # a sample of the light's gain
    tone: np.ndarray | None
    boxes: np.ndarray = field(init=False)  # the blobs' boxes (x, y, w, h), one a row

    def __post_init__(self) -> None:
        self.boxes = np.array(list(self.blobs), np.int64).reshape(-1, 4)


class Blobs(FigureShadows, PieceMarks):
    """Pieces as blobs of their colours (the marks on each: :class:`PieceMarks`)."""

    def _blobs_in(self, is_piece: np.ndarray, region: tuple[slice, slice] | None,
                  kept: _Kept | None, pad: int = BLOB_PAD) -> tuple | None:
        """Blobs of piece colours: over the whole board, or only those that reach into a
        changed region, with the kept board's blobs clear of it carried over as they were
        read.  None when a blob runs past the window around the region (read it all)."""
        h_all, w_all = is_piece.shape
        if region is None or kept is None:
            rows, cols = slice(0, h_all), slice(0, w_all)
        else:
            rows, cols = region
        # a window wider than the region: closing, opening and a glare check's ring see its neighbours
        r0, r1 = max(0, rows.start - pad), min(h_all, rows.stop + pad)
        c0, c1 = max(0, cols.start - pad), min(w_all, cols.stop + pad)
        mask = cv2.morphologyEx(is_piece[r0:r1, c0:c1].view(np.uint8), cv2.MORPH_CLOSE, SQUARE3)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, SQUARE3)
        n, local, stats, centres = components_in_box(mask)
        near_pieces = np.zeros(is_piece.shape, np.uint8)
        near_pieces[r0:r1, c0:c1] = cv2.dilate(mask, SQUARE5)
        carried: dict[tuple, tuple[np.ndarray, _Blob, int]] = {}
        if region is None or kept is None:
            return n, local, stats, centres, near_pieces, carried
        stats = stats.copy()
        stats[:, 0] += c0
        stats[:, 1] += r0
        centres = centres + np.array([c0, r0], np.float64)
        x, y, w, h = stats[:, 0], stats[:, 1], stats[:, 2], stats[:, 3]
        # one piece's box now and in the kept board may differ by a pixel of rim: decide on
        # a region grown over every box (now or kept) near it, so that a piece beside the
        # change is either read now or carried, never both and never neither
        y0, y1, x0, x1 = grown_over((rows.start, rows.stop, cols.start, cols.stop),
                                     np.concatenate([stats[1:, :4], kept.boxes]))
        if (y0 < r0 and r0 > 0) or (x0 < c0 and c0 > 0) or (y1 > r1 and r1 < h_all) \
                or (x1 > c1 and c1 < w_all):
            return None
        rows, cols = slice(y0, y1), slice(x0, x1)
        reaches = (y < rows.stop) & (y + h > rows.start) & (x < cols.stop) & (x + w > cols.start)
        reaches[0] = False
        cut = ((x == c0) & (c0 > 0)) | ((y == r0) & (r0 > 0)) | ((x + w == c1) & (c1 < w_all)) \
            | ((y + h == r1) & (r1 < h_all))
        if (reaches & cut).any():
            return None
        # blobs clear of the region stay as the kept board read them; the rest are read now
        for k in np.flatnonzero(~reaches[1:]) + 1:  # in its own box: cheaper than a pass over all
            kx, ky = int(x[k]) - c0, int(y[k]) - r0
            box = local[ky:ky + int(h[k]), kx:kx + int(w[k])]
            box[box == k] = 0
        components = np.zeros(is_piece.shape, np.int32)
        components[r0:r1, c0:c1] = local
        stats[~reaches, 4] = 0  # left out of this frame's reading
        bx, by, bw, bh = kept.boxes.T  # (the kept blobs' boxes, in the order they are kept)
        clear = ~((by < rows.stop) & (by + bh > rows.start) & (bx < cols.stop) & (bx + bw > cols.start))
        carried.update(compress(kept.blobs.items(), clear.tolist()))
        return n, components, stats, centres, near_pieces, carried

    @staticmethod
    def _tell(blob: _Blob, odd: np.ndarray, explained: np.ndarray, doubtful: dict[str, str],
              pieces: dict[str, list[Piece]], placed: list, confidence: dict[str, float],
              whence: dict[str, list[tuple[int, int, int, int]]]) -> None:
        """Add what one blob told to the frame's reading (``whence``: per doubted place, the
        boxes of what made it doubtful)."""
        for (oy, ox), part in blob.odd:
            odd[oy:oy + part.shape[0], ox:ox + part.shape[1]] |= part
        for y0, y1, x0, x1 in blob.explained:
            explained[y0:y1, x0:x1] = True
        for (oy, ox), part in blob.shaded:
            explained[oy:oy + part.shape[0], ox:ox + part.shape[1]] |= part
        for spot, why in blob.doubts:
            doubtful.setdefault(spot, why)
            if blob.box is not None:
                whence.setdefault(spot, []).append(blob.box)
        for spot, piece, x_mm, y_mm, conf in blob.found:
            pieces.setdefault(spot, []).append(piece)
            placed.append((spot, piece, x_mm, y_mm, conf))
            confidence[spot] = min(confidence.get(spot, 1.0), conf)

    @staticmethod
    def _claimed_twice(blobs: list[_Blob]) -> bool:
        """Do two blobs read a piece at one place?  (A blob that reads two at a place claims it
        once.)  Asked of every blob of the board each round of a frame's re-reads: a set the
        places are added to, stopping at the first claimed again, costs a third of a ``Counter``
        of them all."""
        claimed: set[str] = set()
        for blob in blobs:
            found = blob.found
            mine = {found[0][0]} if len(found) == 1 else {spot for spot, *_ in found}
            if not claimed.isdisjoint(mine):
                return True
            claimed |= mine
        return False

    def _tops_read(self, blobs: list[_Blob], but: _Blob) -> frozenset[str]:
        """The places where a die's top was read sure by another blob than ``but``: each holds
        one column, whose top that is, so no other top seen stands on it (a lower die's top
        is never seen: the die on it covers it).  A top the camera's slant shows over a
        place further out is then no column's standing on one of them."""
        return frozenset(spot for spot, by in self._tops_by_place(blobs).items()
                         if any(b is not but for b in by))

    def _tops_by_place(self, blobs: list[_Blob]) -> dict[str, list[_Blob]]:
        """Per place, the blobs that read a die's top there sure (``_tops_read``)."""
        dice = self._dice_colours()
        out: dict[str, list[_Blob]] = {}
        for blob in blobs:
            for spot, piece, _x, _y, conf in blob.found:
                if conf >= SURE_READ and piece.colour in dice and all(s != spot for s, _why in blob.doubts):
                    out.setdefault(spot, []).append(blob)
        return out

    def _one_held_read(self, blobs: list[_Blob]) -> list[_Blob]:
        """The blobs less their "partly hidden?" doubts on a place holding one piece (``Spot.holds``)
        or one column of dice (it takes dice only), which a blob of its own read sure: it holds
        no more than was read there (a neighbour's sides or lean hide no other piece; a column's
        lower dice lie under its top).  Nor is a speck (``_Blob.speck``) that reads nothing and
        lies as the side face of a die another blob read at its place: a die's side in shade shows
        another colour (a yellow die's brown, a blue's black), parted from its top by the lit edge,
        and a column's lower dice are read by its height, not its sides' colours.  Nor are a
        column's sides over a place whose piece a blob of its own read sure with board between
        the two (``die_sides.clear_of``)."""
        clear = {spot: blob for blob in blobs for spot, _piece, _x, _y, conf in blob.found
                 if conf >= SURE_READ and (not blob.doubts or all(s != spot for s, _why in blob.doubts))}
        ones = self._places_holding_one()
        read = {spot: blob for spot, blob in clear.items() if spot in ones}

        def lifted(blob: _Blob, spot: str, why: str) -> bool:  # (a blob that read a piece elsewhere)
            if why == COLUMN_OVER:
                seen = clear.get(spot, blob)
                return seen is not blob and clear_of(seen.box, blob.box)
            return why == HIDDEN and (read.get(spot, blob) is not blob and bool(blob.found)
                                      and all(s != spot for s, *_ in blob.found)
                                      or blob.speck is not None and not blob.found
                                      and self._a_dies_side(blob.speck, spot, blobs))

        return [replace(blob, doubts=[(s, w) for s, w in blob.doubts if not lifted(blob, s, w)])
                if any(lifted(blob, s, w) for s, w in blob.doubts) else blob for blob in blobs]

    @staticmethod
    def _under_seen(blobs: list[_Blob]) -> set[str]:
        """The places doubted as partly hidden only under a piece seen beside them: by blobs
        that read a piece at another place, whose pixels lie over them (its sides, its lean).
        What hides them is seen whole, and the places it reaches are doubted each: nothing
        of it reaches the places beside them (a hand's edge or a shadow may reach past what
        was seen of it; a die's outline is seen)."""
        seen: set[str] = set()
        unseen: set[str] = set()
        for blob in blobs:
            elsewhere = {s for s, *_ in blob.found}
            for spot, why in blob.doubts:
                if why == HIDDEN:
                    (seen if elsewhere and spot not in elsewhere else unseen).add(spot)
        return seen - unseen

    def _set_blob_cache(self, cache: dict[tuple, tuple[np.ndarray, _Blob, int]]) -> None:
        self._blob_cache = cache
        self._blob_corners = {}
        for box in cache:
            self._blob_corners.setdefault(box[:2], []).append(box)

    def _same_blob(self, key: tuple[int, int, int, int], area: int,
                   small: np.ndarray) -> tuple[tuple, tuple[np.ndarray, _Blob, int]] | None:
        """A blob of the last frame in the same box (give or take a pixel of rim as the light
        is refitted) whose pixels, where it stood, are as they were."""
        x, y, w, h = key
        corners = self._blob_corners
        for olds in filter(None, (corners.get((x + dx, y + dy)) for dx in (0, -1, 1) for dy in (0, -1, 1))):
            # the last frame's boxes with this corner, the same size first, then a pixel less, more
            near = [old for old in olds if abs(old[2] - w) <= 1 and abs(old[3] - h) <= 1]
            for old in near if len(near) < 2 else \
                    sorted(near, key=lambda b: (_NEAREST[b[2] - w], _NEAREST[b[3] - h])):
                hit = self._blob_cache[old]
                if abs(hit[2] - area) > max(6, 0.04 * area):
                    continue
                ox, oy, ow, oh = old
                patch = small[max(0, oy - 8):oy + oh + 8, max(0, ox - 8):ox + ow + 8]
                if hit[0].shape != patch.shape:
                    continue
                if alike(hit[0], patch, 2 * STILL_TOLERANCE, STILL_TOLERANCE / 2):
                    return old, hit
                return None  # the same blob, changed: read it again
        return None

    def _read_blob(self, k: int, stats: np.ndarray, centres: np.ndarray, components: np.ndarray,
                   labels: np.ndarray, around: tuple[np.ndarray, np.ndarray], near_pieces: np.ndarray,
                   small: np.ndarray, frame: np.ndarray, pip_cache: dict) -> _Blob:
        """One blob of piece colours: the pieces it holds, or the doubts it raises.  ``around``:
        where the board is lighter than the empty board, and where it shows neither the empty
        board nor a piece."""
        lit, strange = around
        shadow = self._shadow_tail_off(k, stats, centres, components, labels)  # (light: its box explained)
        x, y, w, h, _area = (int(v) for v in stats[k])
        n_pieces = len(self._piece_names)
        out = _Blob(box=(y, y + h, x, x + w), explained=shadow)
        sheen: tuple[int, ...] = ()  # a die's colour and its colour under a sheen, read as one
        hidden: list[str] = []
        blob = (components[y:y + h, x:x + w] == k).astype(np.uint8)
        core = cv2.erode(blob, SQUARE5, borderType=cv2.BORDER_CONSTANT, borderValue=0)
        # colours voted by the blob's core: a blurred rim mixes the piece with the board
        inside = labels[y:y + h, x:x + w][(core if core.any() else blob) > 0]
        votes = np.bincount(inside, minlength=256)[:n_pieces]
        order = np.argsort(votes)[::-1]
        purity = votes[order[0]] / max(1, len(inside))
        # (pixels of no colour in the core: a die's marks among them, ``_marks_taken_off``)
        unknown: tuple[int, int] | None = (len(inside), int(np.count_nonzero(inside == UNKNOWN)))
        if votes[order[1]] > 0.25 * votes[order[0]]:
            box = (slice(y, y + h), slice(x, x + w))
            if self._marks_of_one_piece(labels[box], blob, int(order[0]), small[box]):
                purity = votes.sum() / max(1, len(inside))  # its marks are its own
                blobs = [(int(order[0]), centres[k], stats[k], purity)]
            elif self.glare.one_piece_lifted(labels[box], blob > 0, int(order[0]), int(order[1]), box,
                                             self.glare.on(x, y, w, h, faint=True) > GLARE_FAINT, self._flat):
                # one piece with a reflection over part of it, not two pieces
                darker = min((int(order[0]), int(order[1])), key=lambda i: float(self._piece_bgr[i].sum()))
                if self._is_die(darker) and self.glare.on(x, y, w, h, faint=True) <= GLARE_FAINT \
                        and int(stats[k][4]) <= SHEEN_LARGEST * DIE_MM * DIE_MM * SCALE * SCALE:
                    # a glossy die's sheen over part of its top, and no reflection on the board
                    # round it: one die of the darker colour, its marks read over both
                    sheen = (int(order[0]), int(order[1]))
                    both = (votes[sheen[0]] + votes[sheen[1]]) / max(1, len(inside))
                    blobs = [(darker, centres[k], stats[k], both)]
                else:
                    spot = self._spot_at(centres[k][0] / SCALE - MARGIN_MM, centres[k][1] / SCALE - MARGIN_MM)
                    if spot is not None:
                        out.doubts.append((spot, "glare?"))
                    out.odd.append(((y, x), blob))
                    return out
            else:
                blobs = self._split_by_colour(labels[y:y + h, x:x + w], blob > 0, x, y, votes)
                unknown = None  # (each colour's patch judged on its own)
        else:
            blobs = [(int(order[0]), centres[k], stats[k], purity)]
            if self._flat_at_necks(int(order[0]), centres[k], w, h):  # two flat pieces joined? (``necks``)
                blobs = neck_patches(blobs[0], blob, (x, y), self._smallest_px, self._place_at,
                                     self._fits) or blobs
            # (another piece's colour in it, at another place: a piece there partly hidden)
            hidden = self._hidden_beside(labels[y:y + h, x:x + w], blob > 0, x, y, int(order[0]))
        stood: str | None = None  # the place a die standing up was read at, from its foot
        kept = self._without_die_sides(blobs)
        sides = frozenset(b[0] for b in blobs if all(b is not c for c in kept))  # (their colours)
        blobs = kept
        blobs, shaded = self._shades_apart(blobs)
        out.doubts += [(spot, "a piece in shade, or another piece?") for spot in dict.fromkeys(shaded)]
        # a speck of a colour (a pip's rim, a corner of a side in another shade) is no piece
        # (the loop below passes it by): one die with a speck beside it still stands at its foot
        blobs = [b for b in blobs if not self._speck(b)] or blobs
        figures = len(blobs) > 1 and self._figures_of_hues(blobs)  # (asked once a blob)
        if figures:
            # a figure behind another shows in parts (its head past the one in front, a sliver
            # beside it): one figure of its colour, read from all its pixels at its largest part,
            # with the parts at that part's place (a chip of a pile on the next place is its own)
            blobs = [b for b in blobs if not self._part_of_a_larger(b, blobs)]
        a_die = False  # a die's colour the size of its top or part (larger is no die: a print lit white)
        for index, (cx, cy), (bx, by, bw, bh, barea), purity in blobs:
            # a die stands at its foot, its top face out along the line from the camera's
            # nadir and its sides between: read at its foot, its marks on its top face
            stand = None
            if len(blobs) == 1:
                foot = self._foot(index, components, k, stats[k], out, sides)
                if foot is False:
                    continue  # its place is doubted: which, the foot's doubt names
                if foot is not None:
                    (cx, cy), stand = foot
                    barea = min(barea, stand.across * stand.across)
            spot = self._spot_at(cx / SCALE - MARGIN_MM, cy / SCALE - MARGIN_MM)
            if stand is not None:
                stood = spot
            size_mm = barea / (SCALE * SCALE)
            if spot is None or size_mm > self._largest_piece:
                if size_mm >= self._smallest_px * 0.6:
                    part = components[by:by + bh, bx:bx + bw] == k
                    out.odd.append(((by, bx), part.astype(np.uint8)))
                if spot is None and size_mm <= self._largest_piece and self._is_die(index):
                    out.doubts += [(s, COLUMN_OVER)  # a die's top over no place: a column's, from a slant
                                   for s in self._places_under(components[y:y + h, x:x + w] == k, x, y)]
                continue
            lo, hi = self._min_area[spot], self._max_area[spot]
            if size_mm < 0.5 * lo:
                continue  # a speck of colour: not a piece
            a_die |= self._is_die(index)
            # a piece explains its own box: its pips and its anti-aliased rim
            rim = PIECE_RIM_PX
            out.explained.append((max(0, by - rim), by + bh + rim, max(0, bx - rim), bx + bw + rim))
            if stand is None and self._is_die(index):
                own = components[by:by + bh, bx:bx + bw] == k if COLUMN_SIDES else None
                out.shaded += self._sides_of_a_die(bx, by, bw, bh, own, spot, strange)
            if size_mm < lo or size_mm > hi:
                out.doubts.append((spot, HIDDEN if size_mm < lo else "pieces touching?"))
                out.speck = (float(cx), float(cy)) if size_mm < lo and len(blobs) == 1 else None
                if size_mm > hi:  # it may reach over other places: they are not seen either
                    out.odd.append(((by, bx), (components[by:by + bh, bx:bx + bw] == k).astype(np.uint8)))
                continue
            own = components[by:by + bh, bx:bx + bw] == k
            at_top = stand is None  # (read where its top shows, not at its foot)
            if stand is None and not one_piece_shape(int(bw), int(bh)):
                # two chips of a pile whose gap a light fit or blur bridges are one blob, not one
                # chip (a pile's place holds several, so its size alone does not tell); a
                # figure from a slant is one piece drawn out along the line from the nadir,
                # read at its base's centre (``slant.py``)
                if len(blobs) == 1:
                    foot = self._leaning_foot(index, own, bx, by)
                elif figures:
                    # figures of colours with a hue, one in front of the other from a slant: each
                    # drawn out on its own, read at its own base (no shadow passes for one)
                    mine = own & (labels[by:by + bh, bx:bx + bw] == index)
                    foot = self._leaning_foot(index, mine, bx, by)
                else:
                    foot = None
                if foot is None \
                        or self._spot_at(foot[0] / SCALE - MARGIN_MM, foot[1] / SCALE - MARGIN_MM) != spot:
                    # (each place the blob lies over: the piece against this one is at one of them)
                    out.doubts += [(s, "pieces touching?") for s in [spot, *self._places_under(own, bx, by)]]
                    continue
                cx, cy = foot
                at_top = False
            # (pixels the camera clipped in any channel are left out: a cast that clips one
            # channel of a white face tints it as no sheen does)
            unclipped = own & (cv2.inRange(small[by:by + bh, bx:bx + bw], (0,) * 3, (CLIPPED - 1,) * 3) > 0)
            index = self.colour_under_a_sheen(index, spot, self._flat, (bx, by, bw, bh), unclipped)
            if index is None:
                out.doubts.append((spot, "colour unclear"))  # a pale tinted face: white, or a sheen?
                continue
            if self._clipping_hides(index, spot) and clipped_white(small, bx - 3, by - 3, bw + 6, bh + 6):
                # a glossy piece's highlight, clipped white, holds no colour (``_clipping_hides``)
                out.doubts.append((spot, "glare?"))
                out.odd.append(((by, bx), own.astype(np.uint8)))
                continue
            lit_round = lit_around(lit, near_pieces, bx, by, bw, bh) and not plain_in_a_sheen(
                self._piece_names, self.layout.marks.get(self._piece_names[index]), index, own,
                (bx, by, bw, bh), (self._flat, self._reference, small), near_pieces, self._classify)
            # (a dark die's marks read here are its read below: read once a frame)
            dark_read = self._dark_die_read(index, small, frame, (bx, by, bw, bh), pip_cache, stand, sheen) \
                if lit_round else None
            if (lit_round and not (dark_read is not None and dark_read[1] and not dark_read[2])) or (
                    # a light piece ringed by colours that are nothing (a lit piece's glow round
                    # its reflection's white core), or that is another piece lit evenly
                    self._piece_names[index] in LIGHT_PIECES and (
                        glow_around(strange, self._flat, self._reference, near_pieces, bx, by, bw, bh)
                        or self._another_lit(index, own, bx, by, small)
                        # a white core read as a die: its "pips" are the lit piece round it
                        or (self.layout.marks.get(self._piece_names[index], (0, 0))[1] > 0
                            and self._another_lit(index, self._holes(own, labels[by:by + bh, bx:bx + bw],
                                                                     index), bx, by, small)))) or (
                    self.glare.too_strong_on(index, bx, by, bw, bh)
                    and not self.glare.colour_holds(index, own, bx, by, self._flat)):
                out.doubts.append((spot, "glare?"))  # and the places its pixels reach
                out.odd.append(((by, bx), own.astype(np.uint8)))
                continue
            marks = self.layout.marks.get(self._piece_names[index])
            if marks == (0, 0):  # a plain token: its print or a mid-grey face is no mark
                pips, sure, reflected = 0, True, False
                if size_mm >= DIE_FACE_SHARE * DIE_MM * DIE_MM and self._shade_of_a_die(index) \
                        and self._read_pips(frame, index, bx, by, bw, bh)[:2] != (0, True):
                    # a token of a die's size with marks, or perhaps some: a die in shade
                    out.doubts.append((spot, "a die in shade?"))
                    continue
                if self._side_without_its_top(index, own, bx, by, strange):
                    out.doubts.append((spot, "a die's side, or a piece against it?"))
                    continue
                if self._print_in_shade(index, own, bx, by, labels):
                    continue  # light, not a piece: its box is explained
            else:
                pips, sure, reflected = dark_read or self._cached_pips(small, frame, index, bx, by, bw, bh,
                                                                       pip_cache, stand, sheen)
            if reflected:
                out.doubts.append((spot, "glare?"))  # a lamp's reflection passes for a light mark
                continue
            if pips and self.glare.on(bx, by, bw, bh, faint=True) > GLARE_FAINT and any(
                    self._read_pips(frame, index, bx, by, bw, bh, scale, stand, sheen)[0] != pips
                    for scale in GLARE_ERRORS):
                out.doubts.append((spot, "glare?"))  # a reflection's edge looks like a mark
                continue
            if self.keep_masks:
                self.masks.setdefault(spot, []).append((self._piece_names[index], self._last_mask))
            if marks is not None and not marks[0] <= pips <= marks[1]:
                sure = False  # no such piece shows that many marks: misread, not a new face
            sure = sure and not self._count_too_fine(marks, pips)
            if sure and pips and unknown is not None and len(blobs) == 1 and self._is_die(index):
                purity = _marks_taken_off(purity, unknown, pips, barea)
            conf = min(1.0, purity / 0.8) * (1.0 if sure else 0.4)
            if conf < SURE_READ:
                out.doubts.append((spot, MARKS_UNCLEAR if not sure else "colour unclear"))
            if at_top and self._is_die(index):
                past, column = self._foot_astray(spot, cx, cy)
                if past > FOOT_ASTRAY_MM:  # (asked where nothing else asks it: ``_column_tops_over``)
                    out.astray.append((spot, f"a column's top from {column or 'beside it'}?"))
            out.found.append((spot, Piece(self._piece_names[index], pips), cx / SCALE - MARGIN_MM,
                              cy / SCALE - MARGIN_MM, conf))
        why = next((w for s, w in out.doubts if s == stood), None) if stood is not None else None
        if stood is not None:
            # a die read at its foot: the places the rest of it lies over are not vouched for
            # (never read empty).  Doubted, its foot was judged from what it showed; read, its
            # sides (a column's, from a slant) hide what stands there
            for spot in self._places_under(components[y:y + h, x:x + w] == k, x, y):
                if spot == stood:
                    continue
                out.doubts.append((spot, f"{BESIDE} {self.spot_label(stood)}, {why}" if why is not None
                                   else COLUMN_OVER))
        told = {spot for spot, *_ in out.found} | {spot for spot, _ in out.doubts}
        if stood is None and a_die:
            # a die read where its top shows, its foot not found: the places the rest of its blob
            # lies over (its sides, its lean, a piece against it) are not vouched for (``a_die``)
            hidden += self._places_under(components[y:y + h, x:x + w] == k, x, y)
        out.doubts += [(spot, HIDDEN) for spot in dict.fromkeys(hidden) if spot not in told]
        # two dice's tops read at one place: a lower die's top is never seen (the die on it
        # covers it), so one of them stands elsewhere, a taller column's top the camera's slant
        # shows over this place (Baron Voodoo at 20 degrees: a yellow 6 on a white die at A4,
        # its top against A3's red 4 in one blob)
        dice = self._dice_colours() if len(out.found) > 1 else frozenset()
        dice_at = Counter(spot for spot, piece, *_ in out.found if piece.colour in dice)
        for spot in [spot for spot, n in dice_at.items() if n > 1]:
            out.found = [read for read in out.found if read[0] != spot]
            out.doubts.append((spot, TOPS_AT_ONE_PLACE))
        return out

    def _dark_die_read(self, index: int, small: np.ndarray, frame: np.ndarray,
                       box: tuple[int, int, int, int], pip_cache: dict, stand: Stand | None,
                       sheen: tuple[int, ...]) -> tuple[int, bool, bool] | None:
        """A dark die's marks (count, sure, reflected) when the board round it is lighter than
        the empty board (a lamp's sheen on a glossy print); None for any other piece, or one
        under too strong a reflection.  A reflection's glow round a piece makes a light piece's
        colour doubtful (its white core passes for white or yellow) and may hide a die's marks;
        a dark die's colour holds under it, and its marks read clear, laid out, with no light
        off them, are its own."""
        if not self._is_die(index) or self._piece_names[index] not in DARK_PIECES \
                or self.glare.too_strong_on(index, *box):
            return None
        return self._cached_pips(small, frame, index, *box, pip_cache, stand, sheen)

    def _places_under(self, part: np.ndarray, x: int, y: int) -> list[str]:
        """The places a blob (``part``, its box at ``x, y``) covers a quarter of a die's face
        of, in the layout's order (so the doubts they get, and their texts, are the same on
        every run, whatever Python's string hashing)."""
        under = self._spot_map[y:y + part.shape[0], x:x + part.shape[1]][part]
        counts = np.bincount(under[under >= 0], minlength=len(self._spot_ids))
        return [self._spot_ids[i] for i in np.flatnonzero(counts >= 0.25 * DIE_MM * DIE_MM * SCALE * SCALE)]

    def _speck(self, patch: tuple) -> bool:
        """Is a colour patch of a blob (index, centre, stats, purity) under half the smallest
        piece its place holds: passed by as no piece when the blob is read?"""
        (cx, cy), area = patch[1], float(patch[2][4])
        spot = self._spot_at(cx / SCALE - MARGIN_MM, cy / SCALE - MARGIN_MM)
        return spot is not None and area / (SCALE * SCALE) < 0.5 * self._min_area[spot]

    def _another_lit(self, index: int, part: np.ndarray, bx: int, by: int, small: np.ndarray) -> bool:
        """Is a light piece as seen a darker piece's colour lifted evenly in every channel, as a
        lamp's reflection lifts it (an orange die under one reads yellow)?  A piece without
        colour lifted is another one without colour (black, grey and white are each other
        lifted), and a colour clipped in a channel is many colours lifted, so those are taken
        for a reflection only where one was seen.  Clipped as the camera saw it (``small``): a
        cast that clips one channel of a white face flattens it below white, not lifted."""
        picture = self.glare.pre if self.glare.pre is not None else self._flat
        if picture is None or not part.any():
            return False
        box, mask = (slice(by, by + part.shape[0]), slice(bx, bx + part.shape[1])), part.astype(np.uint8)
        seen = channel_medians(picture[box], mask)
        measured = self.glare.on(bx, by, part.shape[1], part.shape[0], faint=True) > GLARE_FAINT
        colours, sums, no_hue, _spreads = self._paints()
        darker = (np.arange(len(colours)) != index) & (sums < seen.sum())
        if not measured:
            # a white piece the lamp lifts to the clipping point is any light colour lifted: only a
            # colour seen whole (no channel clipped) is judged without a reflection seen round it
            darker &= ~(no_hue & (float(np.ptp(seen)) < 40))
            if darker.any() and not (seen < CLIPPED).all():
                return False
        if not darker.any():
            return False
        level, even = even_lift(np.broadcast_to(seen, colours.shape)[darker][None], colours[darker][None])
        return bool((even[0] & (level[0] > GLARE_MIN)).any()) and (  # (whole as seen: asked of a lift only)
            measured or bool((channel_medians(small[box], mask) < CLIPPED).all()))


def _marks_taken_off(purity: float, unknown: tuple[int, int], pips: int, area_px: float) -> float:
    """A die's colour purity with its own marks, counted sure, out of its core: a pip is of no
    calibrated colour (a white pip on a purple die's lit top is neither), and a 5 or a 6 on
    a small die leaves its colour under six tenths of its core (King of Clubs' purple 5 at
    0.59, read "colour unclear").  At most a pip's blurred disc each (``PIP_SHARE`` of the
    face's width across, a pixel of blur round it) is taken off: more of no colour is
    something else on the die.  ``unknown``: the core's pixels and those of no colour."""
    inside, none = unknown
    face = np.sqrt(max(area_px, 1.0))
    disc = np.pi * (PIP_SHARE * face / 2 + 1.0) ** 2
    left = inside - min(none, pips * disc)
    return purity * inside / left if left > 0 else purity
