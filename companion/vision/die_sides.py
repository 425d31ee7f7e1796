"""A die's side faces, never a piece of their own: seen from a camera's slant a die shows
its sides between its top and the camera's nadir, in its colour in shade (a red die's read
brown, a purple one's black), apart from its top or joined to it.  A patch so placed is a
side, a token read beside a die so is a side or a piece against it (doubted), and a dark
token whose die's top the lamp washed out is no token.

A part of ``BoardReader`` (``reader.py``), through :class:`~companion.vision.standing.Standing`.
"""

from __future__ import annotations

import math
from collections import Counter

import cv2
import numpy as np

from companion.games.base import Piece, Spot
from companion.vision.channels import channel_all
from companion.vision.dark_sheen import BLACK_MOST, DarkSheen
from companion.vision.geometry import MARGIN_MM
from companion.vision.pose import DIE_MM, MOST_STACKED
from companion.vision.reading import BESIDE, SCALE, SHADE, SHADE_HUE_COS, SHADOW_REACH_MM, SQUARE3, per_layout

SIDE_HUE_SHADE = 0.9  # a token's colour this near a die's hue ...
SHADE_DARKER = 0.85  # ... and this much darker may be that die in shade
SIDE_TOP_UNSEEN = 0.5  # a die's shaded side: this share of the board where its top lies no colour,
SIDE_TO_TOP = 0.6  # ... that top this many die widths beyond it, away from the camera's nadir
SIDE_SHADE_NUM, SIDE_SHADE_DEN = 17, 20  # a side in shade: at most 0.85 of the empty board, every channel
COLUMN_CLEAR_MM = 3.0  # a piece this far clear of a column's blob has nothing of it behind the column
PIECE_RIM_PX = 4  # a piece explains its box and this rim round it: its pips and its anti-aliased rim
SIDES_SLACK_PX = 2  # a die's sides as seen reach this far past one die's lean (its rounded foot, blur)
HUELESS_PIECE = 20  # a piece's colour whose channels lie this near each other has no hue (black)
PRINT_HUE = 40  # print whose channels spread this far has a hue a shadow keeps ...
SHADE_KEEPS_HUE = 22  # ... and the print in shade still spreads this far, its hue kept (black plastic: 19)
TOPS_AT_ONE_PLACE = "another die's top over it?"  # two dice's tops read at one place
READ_TWICE = "one die read on two places?"  # the same die read at two places under a die's width apart
COLUMN_TOP_MM = 5.0  # a die read this near where a doubted column's top would show may be that top
FOOT_ASTRAY_MM = 4.0  # a die's top read where every foot it may have lies this far past its place: not its
Box = tuple[int, int, int, int]  # rows y0..y1, columns x0..x1


def clear_of(piece: Box | None, column: Box | None) -> bool:
    """Are a piece's blob and a column's (their boxes: rows y0..y1, columns x0..x1) apart by a
    strip of board?  Whatever stands at a place a column's sides lie over, seen clear of the
    column, has nothing of it behind the column: a lower die under a top seen would fill the
    strip between them."""
    if piece is None or column is None:
        return False
    (py0, py1, px0, px1), (cy0, cy1, cx0, cx1) = piece, column
    return max(cy0 - py1, py0 - cy1, cx0 - px1, px0 - cx1) >= COLUMN_CLEAR_MM * SCALE


class DieSides(DarkSheen):
    """A die's sides told from the pieces beside it (see the module's docstring)."""


    def _dice_feet(self, told: list) -> list[tuple[Box, Box]]:
        """Where the dice read alone and sure stand on the board (``EmptyBoard._at_a_dies_foot``):
        per box a blob that read one die sure and nothing else explains (rows y0..y1, columns
        x0..x1, sampled px), that box (the die's top) and the box swept from it towards the
        camera's nadir one die's lean (its sides show that far, and its foot lies at their
        end).  A blob that read a column, or doubted anything (a piece it read less than sure
        among them), is left out: what lies past its top may be another die of a column, leaning."""
        feet = []
        for blob in told:
            if len(blob.found) != 1 or blob.doubts \
                    or not self._is_die(self._piece_names.index(blob.found[0][1].colour)):
                continue
            for y0, y1, x0, x1 in blob.explained:
                sx = sy = 0.0
                if self.pose is not None:
                    ux, uy, _d, lean = self._one_dies_lean((x0 + x1) / 2, (y0 + y1) / 2)
                    sx, sy = -ux * lean, -uy * lean
                feet.append(((y0, y1, x0, x1), (int(y0 + min(0.0, sy)), int(np.ceil(y1 + max(0.0, sy))),
                                                int(x0 + min(0.0, sx)), int(np.ceil(x1 + max(0.0, sx))))))
        return feet

    def _one_dies_lean(self, x_px: float, y_px: float) -> tuple[float, float, float, float]:
        """Here (sampled px; a pose known): the way out from the camera's nadir (a unit vector),
        the distance from it (mm), and how far one die's sides show from its top towards the
        nadir (sampled px, ``SIDES_SLACK_PX`` included)."""
        assert self.pose is not None
        ux, uy, d = self.pose.outward(x_px / SCALE, y_px / SCALE)
        return ux, uy, d, self.pose.lean(d, DIE_MM) * SCALE + SIDES_SLACK_PX

    def _without_die_sides(self, blobs: list) -> list:
        """The colour patches of one blob less those that are a die's side face in shade (a
        red die's reads brown): a patch of another colour lying between a die's top and the
        camera's nadir, within a column's lean of it.  Side faces are never a neighbour."""
        if self.pose is None or len(blobs) < 2:
            return blobs
        sides = {j for i, (index, top, _stats, _purity) in enumerate(blobs) if self._is_die(index)
                 for j, (other, patch, _s, _p) in enumerate(blobs)
                 if j != i and other != index and self._as_a_side(top, patch)}
        return [b for j, b in enumerate(blobs) if j not in sides]

    def _as_a_side(self, top: tuple[float, float], patch: tuple[float, float]) -> bool:
        """Does a patch (its centre, sampled px) lie where a die's side faces would show, the die's
        top centred at ``top``: between it and the camera's nadir, within a column's lean and
        half a die of it, and no further aside than its sides reach (a pose known)."""
        assert self.pose is not None
        (cx, cy), (ox, oy) = top, patch
        nx, ny = self.pose.nadir_mm[0] * SCALE, self.pose.nadir_mm[1] * SCALE
        d = max(1e-6, float(np.hypot(cx - nx, cy - ny)))
        ux, uy = (cx - nx) / d, (cy - ny) / d
        reach = self.pose.lean(d / SCALE, MOST_STACKED * DIE_MM) * SCALE + DIE_MM * SCALE / 2
        inward = -((ox - cx) * ux + (oy - cy) * uy)
        aside = abs(-(ox - cx) * uy + (oy - cy) * ux)
        return 0 < inward <= reach and aside <= 0.75 * DIE_MM * SCALE

    def _a_dies_side(self, patch: tuple[float, float], spot: str, blobs: list) -> bool:
        """Does a patch (its centre, sampled px) on ``spot`` lie as the side face of a die that
        one of ``blobs`` read there (``_as_a_side``, from where the die was read)?  Only a die
        of its own place: a patch on a place no piece was read at may be all that shows of its
        die (a yellow die's top washed out, its rim's yellow left)."""
        return self.pose is not None and any(
            at == spot and self._is_die(self._piece_names.index(piece.colour))
            and self._as_a_side(((x + MARGIN_MM) * SCALE, (y + MARGIN_MM) * SCALE), patch)
            for blob in blobs for at, piece, x, y, _conf in blob.found)

    def _sides_of_a_die(self, bx: int, by: int, bw: int, bh: int, own: np.ndarray | None = None,
                        spot: str | None = None, strange: np.ndarray | None = None
                        ) -> list[tuple[tuple[int, int], np.ndarray]]:
        """A die's side faces, beside its top's colour (its box, sampled px): in the strip
        towards the camera's nadir, one die's lean deep, the pixels darker than the empty
        board there in every channel (a side in shade is too dark for its colour, a white
        die's is grey).  They are the die, not something over the board.  A side the lamp
        lights is no darker than the board, and a column's lower dice show sides of their
        own colours: where the die's top (``own``: its colour in the box), swept towards the
        nadir as far as the tallest column's sides reach, covers the board of its own place
        (``spot``: nothing but the column shows there, whatever its height), what is seen is
        the column's.  Past its place it is still judged: a column's sides may hide what
        stands on the next place.  (``strange``: the board's pixels neither the empty board nor a
        piece's colour, the only ones the column need explain: where none lie, it is not swept.)"""
        if self.pose is None or self._flat is None:
            return []
        ux, uy, d, lean = self._one_dies_lean(bx + bw / 2, by + bh / 2)
        if lean < 1:
            return []
        sx, sy = -ux * lean, -uy * lean
        x0, x1 = max(0, int(bx + min(0.0, sx))), int(np.ceil(bx + bw + max(0.0, sx)))
        y0, y1 = max(0, int(by + min(0.0, sy))), int(np.ceil(by + bh + max(0.0, sy)))
        seen = self._flat[y0:y1, x0:x1].astype(np.int16)
        empty = self._reference[y0:y1, x0:x1].astype(np.int16)
        darker = channel_all(seen * SIDE_SHADE_DEN <= empty * SIDE_SHADE_NUM)  # (a third of ``all(axis=2)``)
        if own is not None and own.any() and spot is not None:
            tallest = self.pose.lean(d, MOST_STACKED * DIE_MM) * SCALE
            reach = int(np.ceil(tallest))
            wx0 = max(0, int(bx + min(0.0, -ux * reach)) - 1)
            wy0 = max(0, int(by + min(0.0, -uy * reach)) - 1)
            wx1 = int(np.ceil(bx + bw + max(0.0, -ux * reach))) + 1
            wy1 = int(np.ceil(by + bh + max(0.0, -uy * reach))) + 1
            box = (bx - wx0, by - wy0, bw, bh)
            if strange is not None and not _past_the_box(strange[wy0:wy1, wx0:wx1], box):
                return [((y0, x0), darker)] if darker.any() else []
            column = _swept(own, (bx - wx0, by - wy0), (wy1 - wy0, wx1 - wx0), (sx, sy), tallest)
            mine = self._spot_map[wy0:wy1, wx0:wx1] == self._spot_index[spot]
            column = column[:mine.shape[0], :mine.shape[1]] & mine
            if column.any():
                out = [((wy0, wx0), column)]
                return out + ([((y0, x0), darker)] if darker.any() else [])
        return [((y0, x0), darker)] if darker.any() else []

    def _hidden_beside(self, labels: np.ndarray, blob: np.ndarray, x: int, y: int, main: int) -> list[str]:
        """The places (in the layout's order) where a blob read as one piece of colour ``main``
        (``labels`` and ``blob``: its box at ``x, y``) holds a patch of another piece's colour
        at least half the smallest piece there: a piece partly hidden under it (a die leaning
        over its neighbour's place from a slant) or touching it, never read as nothing.  A
        patch in a die's colour in shade (a side face) is no piece."""
        found = np.flatnonzero(np.bincount(labels[blob], minlength=1))  # (its labels, as ``np.unique``'s)
        out: list[str] = []
        for index in found[found < len(self._piece_names)]:
            if int(index) == main or self._shade_of_a_die(int(index)):
                continue
            part = cv2.morphologyEx(((labels == index) & blob).astype(np.uint8), cv2.MORPH_OPEN, SQUARE3)
            n, _, stats, centres = cv2.connectedComponentsWithStats(part, connectivity=8)
            for k in range(1, n):
                spot = self._spot_at((centres[k][0] + x) / SCALE - MARGIN_MM,
                                     (centres[k][1] + y) / SCALE - MARGIN_MM)
                if spot is not None and spot not in out \
                        and stats[k, cv2.CC_STAT_AREA] >= 0.5 * self._min_area[spot] * SCALE * SCALE:
                    out.append(spot)
        return sorted(out, key=self._spot_ids.index)

    def _shade_of_a_die(self, index: int) -> bool:
        """Is this colour a die's in shade: its hue, darker (brown is a red or orange die's)?
        Not a white die's: in shade it is a light grey, no black piece."""
        colours = range(len(self._piece_names))
        return index in per_layout(self, "_die_shades_known", lambda: frozenset(
            j for j in colours if any(i != j and self._is_die(i) and self._in_shade(j, i) for i in colours)))

    def _in_shade(self, index: int, of: int) -> bool:
        """Is colour ``index`` colour ``of`` in shade: its hue, darker?  Never a colour without
        hue's (white in shade is a light grey, no black piece)."""
        colour, lit = self._piece_bgr[index], self._piece_bgr[of]
        norm, lit_norm = float(np.linalg.norm(colour)), float(np.linalg.norm(lit))
        return float(np.ptp(lit)) >= 40 and norm < SHADE_DARKER * lit_norm \
            and float(colour @ lit) >= SIDE_HUE_SHADE * norm * lit_norm

    def _shades_apart(self, blobs: list) -> tuple[list, list[str]]:
        """The colour patches of one blob less those in another patch's colour in shade (an
        orange token's rim in a die's shadow reads brown, a score marker's colour), and the
        places those lie at: no piece of their own is read there, but a piece of that colour
        may lie against the lighter one, so the place is not vouched for either, unless the
        game never puts a piece of that colour there (``Spot.takes``: a red die's side in
        shade reads as a score marker's black on a grid cell, where no marker stands)."""
        if len(blobs) < 2:
            return blobs, []
        shaded = [j for j, (index, *_rest) in enumerate(blobs)
                  if any(other != index and self._in_shade(index, other) for other, *_more in blobs)]
        spots = [(self._spot_at(blobs[j][1][0] / SCALE - MARGIN_MM, blobs[j][1][1] / SCALE - MARGIN_MM),
                  self._piece_names[blobs[j][0]]) for j in shaded]
        return [b for j, b in enumerate(blobs) if j not in shaded], \
            [s for s, colour in spots if s is not None and self.layout.spot(s).may_hold(colour)]

    def _die_sides_apart(self, placed: list, pieces: dict[str, list]) -> dict[str, str]:
        """The places where a plain token is read with a die, on the camera's side of it,
        within a column's lean and a die's width of the line from the nadir through it: a
        die's side face in shade, cut off from its top (a purple die's reads black), or a
        piece against it; either way not read.  Where the game puts no such token on that
        place (``Spot.takes``), it is the die's side: taken out of ``placed`` and ``pieces``
        (the place's pieces as read), the die read."""
        if self.pose is None:
            return {}
        nx, ny = self.pose.nadir_mm[0] - MARGIN_MM, self.pose.nadir_mm[1] - MARGIN_MM
        tokens: dict[str, list] = {}  # per place, the plain tokens read there (most places: none)
        for p in placed:
            if self.layout.marks.get(p[1].colour, (0, 0)) == (0, 0):
                tokens.setdefault(p[0], []).append(p)
        dice = self._dice_colours()
        out: dict[str, str] = {}
        for die in (p for p in placed if p[0] in tokens and p[1].colour in dice):
            d = max(1e-6, float(np.hypot(die[2] - nx, die[3] - ny)))
            ux, uy = (die[2] - nx) / d, (die[3] - ny) / d
            reach = self.pose.lean(d, MOST_STACKED * DIE_MM) + DIE_MM / 2
            for token in tokens[die[0]]:
                inward = -((token[2] - die[2]) * ux + (token[3] - die[3]) * uy)
                aside = abs(-(token[2] - die[2]) * uy + (token[3] - die[3]) * ux)
                if 0 < inward <= reach and aside <= 0.75 * DIE_MM:
                    if self.layout.spot(die[0]).may_hold(token[1].colour):
                        out.setdefault(die[0], "a die's side, or a piece against it?")
                    elif token in placed:
                        placed.remove(token)
                        pieces[die[0]].remove(token[1])
        return out

    def _foot_astray(self, spot_id: str, x_px: float, y_px: float) -> tuple[float, str | None]:
        """For a die read where its top shows (sampled px) on ``spot_id``: how far (mm) past the
        place's sides the nearest of its possible feet lies, standing alone or atop a column the
        place may hold (``Spot.holds``), and, past ``FOOT_ASTRAY_MM``, the place beside it whose
        column it may top (one die's, if none).  A die's top shows out from its foot along the
        line from the camera's nadir, never nearer it: a top read where no die standing on its
        place could show it is a column's beside it, leaning over (Baron Voodoo at 30 degrees: a
        purple 3 atop a white die on B7, its top read on A7, a die's width from where one on A7
        could show)."""
        if self.pose is None:
            return 0.0, None
        spot = self.layout.spot(spot_id)
        most = max(1, min(MOST_STACKED, spot.holds))
        feet = self.pose.feet(x_px / SCALE, y_px / SCALE, DIE_MM, MOST_STACKED)
        past = min(math.hypot(max(spot.x - fx, 0.0, fx - spot.x - spot.w),
                              max(spot.y - fy, 0.0, fy - spot.y - spot.h))
                   for fx, fy in ((x - MARGIN_MM, y - MARGIN_MM) for x, y in feet[:most]))
        if past <= FOOT_ASTRAY_MM:
            return past, None  # (a die of its own place: no other to name)
        # (the shortest column whose foot lies on a place that holds one so tall, else one die's)
        under = [(k, self._spot_at(x - MARGIN_MM, y - MARGIN_MM)) for k, (x, y) in enumerate(feet, 1)]
        columns = [s for k, s in under[1:]
                   if s is not None and s != spot_id and self.layout.spot(s).holds >= k]
        return past, next(iter(columns), under[0][1] if under[0][1] != spot_id else None)

    def _column_tops(self, spot: Spot) -> list[tuple[float, float]]:
        """Where a column of two, then three, dice standing on a place would show its top
        (board mm), leaning out from the camera's nadir; none right under the camera, where a
        column shows its top over its own place."""
        if self.pose is None:
            return []
        nx, ny = self.pose.nadir_mm[0] - MARGIN_MM, self.pose.nadir_mm[1] - MARGIN_MM
        qx, qy = spot.x + spot.w / 2, spot.y + spot.h / 2
        d = math.hypot(qx - nx, qy - ny)
        if d < 1.0:
            return []
        leans = [self.pose.lean(d, k * DIE_MM) / d for k in range(2, MOST_STACKED + 1)]
        return [(qx + (qx - nx) * lean, qy + (qy - ny) * lean) for lean in leans]

    def _columns_under_doubted_tops(self, placed: list, doubtful: dict[str, str],
                                    whence: dict[str, list[tuple[int, int, int, int]]]) -> dict[str, str]:
        """The places read empty where a column of two or three dice, standing there, would show
        its top over a doubted place beside it, within the blob that made it doubtful
        (``whence``: the boxes of what made each place doubtful), that blob reaching onto the
        place.  The slant lays a column's top over the next place out from the camera's nadir,
        and its foot, sides over a place of the board's colours, may pass for an empty place
        (Baron Voodoo at 30 degrees: a column of three on A7 read as an empty A7, its top's
        marks unclear at A6); or just where a die was read on a doubted place (``COLUMN_TOP_MM``:
        at 30 degrees a column of two on E3 read as an empty place, its yellow 2 top read on
        E2, doubted for a patch beside it).  Whose top that is is not known: asked."""
        if self.pose is None:
            return {}
        dice = self._dice_colours()
        boxes = [(spot_id, box) for spot_id, why in doubtful.items() if not why.startswith(BESIDE)
                 for box in whence.get(spot_id, ())]
        # (and the dice read on doubted places: a column's top read there, its place then asked
        # for something else, is no less over it)
        held = [(spot_id, x, y) for spot_id, piece, x, y, *_ in placed
                if piece.colour in dice and spot_id in doubtful]
        if not boxes and not held:
            return {}
        taken = {spot_id for spot_id, *_ in placed} | set(doubtful)
        grow = COLUMN_TOP_MM * SCALE
        out: dict[str, str] = {}
        for spot in self.layout.spots:
            if spot.id in taken or spot.holds == 1 or not any(spot.may_hold(colour) for colour in dice):
                continue
            # (a column's blob runs from its top down its sides onto its own place)
            left, top = (spot.x + MARGIN_MM) * SCALE, (spot.y + MARGIN_MM) * SCALE
            right, bottom = left + spot.w * SCALE, top + spot.h * SCALE
            onto = [(other, (y0, y1, x0, x1)) for other, (y0, y1, x0, x1) in boxes
                    if other != spot.id and x0 < right and x1 > left and y0 < bottom and y1 > top]
            for mx, my in self._column_tops(spot) if onto or held else ():
                tx, ty = (mx + MARGIN_MM) * SCALE, (my + MARGIN_MM) * SCALE
                near = [other for other, (y0, y1, x0, x1) in onto
                        if x0 - grow <= tx <= x1 + grow and y0 - grow <= ty <= y1 + grow
                        and _within(self.layout.spot(other), mx, my)]  # (over that place)
                near += [other for other, x, y in held
                         if other != spot.id and math.hypot(x - mx, y - my) <= COLUMN_TOP_MM]
                if near:
                    out.setdefault(spot.id, f"a column whose top is at {near[0]}?")
                    break
        return out

    def _two_tops_on_a_column(self, placed: list) -> dict[str, str]:
        """The places of one column of dice (``Spot.holds`` over 1) where two dice were read
        (``placed``: place, piece, ...), each asked: a column shows one top, its lower dice
        under it, so one of the two is a taller column's top beside it, over this place from
        the camera's slant (Baron Voodoo at 30 degrees: a yellow 6 on a purple die at G3, its
        top read on G2 with G2's blue 6 by a blob of its own).  Two read by one blob are asked
        there already (``Blobs._read_blob``).  And the places one die was read on twice."""
        dice = self._dice_colours()
        read = Counter(spot_id for spot_id, piece, *_ in placed if piece.colour in dice)
        out = {spot_id: TOPS_AT_ONE_PLACE for spot_id, n in read.items()
               if n > 1 and self.layout.spot(spot_id).holds > 1}
        # one die read on two places, nearer each other than a die is wide, one of them a
        # column's: dice do not overlap, so it is one die, a column's lit top parted from its
        # sides (Baron Voodoo at 20 degrees: a red 3 atop a column on G5, its top read on G4
        # too), or a column's top over the other's die: each asked.  (Dice on two places of
        # one, side by side, are read a few millimetres off from a slant: two blue 5s on
        # Caught Soul places read 15 mm apart at 30 degrees.  Each die is set against the later
        # ones of its own piece only, then in the order read: every pair of a Baron Voodoo
        # board's 50 dice cost a changed board 0.3 ms)
        alike: dict[Piece, list[tuple[int, str, float, float]]] = {}
        for i, (spot_id, piece, x, y, *_) in enumerate(placed):
            if piece.colour in dice:
                alike.setdefault(piece, []).append((i, spot_id, x, y))
        twice = sorted((i, j, spot_id, other) for reads in alike.values() if len(reads) > 1
                       for k, (i, spot_id, x, y) in enumerate(reads) for j, other, ox, oy in reads[k + 1:]
                       if other != spot_id and math.hypot(x - ox, y - oy) < DIE_MM
                       and max(self.layout.spot(spot_id).holds, self.layout.spot(other).holds) > 1)
        for _i, _j, spot_id, other in twice:
            out.setdefault(spot_id, READ_TWICE)
            out.setdefault(other, READ_TWICE)
        return out

    def _column_tops_over(self, placed: list, doubtful: dict[str, str],
                          whence: dict[str, list[tuple[int, int, int, int]]] | None = None,
                          told: list | None = None) -> dict[str, str]:
        """The places where a die is read just where a column of two or three dice standing on
        a place beside it, doubted, that may hold one (``Spot.holds``), would show its top
        (within ``COLUMN_TOP_MM``): the camera's slant lays a column's top over the next place
        out from the nadir, and there it passes for a die of that place (Baron Voodoo at 20-30
        degrees: a yellow 2 on a purple die read on the next, empty place, and a purple 1 on a
        red die read under the white die beside it).  Whose die it is, the column beside it
        unread, is not known: asked.  (A place of one, a Caught Soul's, holds no column.)  First
        the places of a column where two dice's tops were read (``_two_tops_on_a_column``), and
        where a die's top was read off any foot a die of that place could stand on (``told``'s
        blobs, ``_foot_astray``): each a place doubted, its top over a place beside it."""
        # (a reason found for a place below stands: one astray is asked so where nothing else asks it)
        astray = {spot_id: why for blob in told or ()
                  for spot_id, why in blob.astray if spot_id not in doubtful}
        two = {**astray, **self._two_tops_on_a_column(placed)}
        if self.pose is None or not (doubtful or two):
            return two
        # (a place of two tops may have a column beside it as any doubted place may; a reason
        # found below names the column, and stands)
        seen = {**doubtful, **{spot_id: why for spot_id, why in two.items() if spot_id not in doubtful}}
        under = self._columns_under_doubted_tops(placed, seen, whence or {})
        dice = self._dice_colours()
        columns: list[str] = []  # each doubted place a column may stand on, and where its tops would show
        tops: list[tuple[float, float]] = []
        for spot_id, why in doubtful.items():
            spot = self.layout.spot(spot_id)
            if why.startswith(BESIDE) or spot.holds == 1 or not any(spot.may_hold(colour) for colour in dice):
                continue
            for at in self._column_tops(spot):
                columns.append(spot_id)
                tops.append(at)
        read = [(spot_id, x, y) for spot_id, piece, x, y, *_ in placed
                if piece.colour in dice and spot_id not in doubtful]
        if not tops or not read:
            return {**two, **under}
        # (every die read against every top at once: a board's dice times its doubts)
        apart = np.array([(x, y) for _s, x, y in read])[:, None] - np.array(tops)[None]
        near = np.linalg.norm(apart, axis=2) <= COLUMN_TOP_MM
        out: dict[str, str] = dict(under)
        for (spot_id, _x, _y), hits in zip(read, near, strict=True):
            for j in np.flatnonzero(hits):
                if columns[j] != spot_id:
                    out.setdefault(spot_id, f"a column's top from {columns[j]}?")
        return {**two, **out}

    def _side_without_its_top(self, index: int, own: np.ndarray, bx: int, by: int,
                              strange: np.ndarray | None) -> bool:
        """Is a plain token of a colour that is a die's in shade (brown: a red or orange
        die's) a die's side face whose top the lamp lit past any colour: the board where that
        top would lie, beyond it away from the camera's nadir (``SIDE_TO_TOP``), mostly
        neither the empty board nor a piece (``strange``, ``SIDE_TOP_UNSEEN``)?  A red die's
        shaded side was read as a brown token so, its lit top no colour at all.  (``own``:
        the token's pixels, its box at ``bx, by``.)"""
        if self.pose is None or strange is None or not self._shade_of_a_die(index) or not own.any():
            return False
        ys, xs = np.nonzero(own)
        cx, cy = bx + float(xs.mean()), by + float(ys.mean())
        nx, ny = self.pose.nadir_mm[0] * SCALE, self.pose.nadir_mm[1] * SCALE
        d = float(np.hypot(cx - nx, cy - ny))
        if d < 1.0:
            return False  # right under the camera no side shows
        reach = SIDE_TO_TOP * DIE_MM * SCALE  # a shaded side's middle to its top's
        shift_x, shift_y = int(round((cx - nx) / d * reach)), int(round((cy - ny) / d * reach))
        h, w = strange.shape
        beyond_y, beyond_x = ys + by + shift_y, xs + bx + shift_x
        inside = (beyond_y >= 0) & (beyond_y < h) & (beyond_x >= 0) & (beyond_x < w)
        if not inside.any():
            return False
        return float(strange[beyond_y[inside], beyond_x[inside]].mean()) >= SIDE_TOP_UNSEEN

    def _print_in_shade(self, index: int, own: np.ndarray, bx: int, by: int, labels: np.ndarray) -> bool:
        """Is a plain token of a colour without hue (black) the print in a die's shadow: a bare
        bulb's hard shadow leaves the tan print a third of its light, as dark as a black token
        under a sheen, but it keeps the print's hue (its channels spread as the print's do,
        ``SHADE_KEEPS_HUE``, ``SHADE_HUE_COS``) and a shadow's share of its light (``SHADE``),
        where black plastic under any light is grey and darker (a fifth of the print at most
        on the physically based frames: 0.12-0.28).  Judged on the token's inside (its rim
        mixes in the print round it), only where a die lies within a shadow's reach
        (``SHADOW_REACH_MM``): read as a black token under the die, three dice's shadows were
        committed as columns.  (``own``: the token's pixels, its box at ``bx, by``.)"""
        colour = self._piece_bgr[index]
        spread = float(self._paints()[3][index])  # (its channels' spread, kept per layout)
        if self._flat is None or spread >= HUELESS_PIECE or float(colour.max()) > BLACK_MOST:
            return False
        h, w = own.shape
        reach = int(round(SHADOW_REACH_MM * SCALE))
        window = labels[max(0, by - reach):by + h + reach, max(0, bx - reach):bx + w + reach]
        if not self._dice_labels()[window].any():
            return False  # (asked first: most black pieces lie far from a die, or the game has none)
        core = cv2.erode(own.view(np.uint8), SQUARE3, borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0
        pick = core if np.count_nonzero(core) >= 4 else own
        seen = np.median(self._flat[by:by + h, bx:bx + w][pick].astype(np.float32), axis=0)
        empty = np.median(self._reference[by:by + h, bx:bx + w][pick].astype(np.float32), axis=0)
        if float(np.ptp(empty)) < PRINT_HUE or float(np.ptp(seen)) < SHADE_KEEPS_HUE:
            return False
        share = float(seen.mean()) / max(1.0, float(empty.mean()))
        tint, hue = seen - seen.mean(), empty - empty.mean()
        return SHADE[0] <= share <= SHADE[1] \
            and float(tint @ hue) >= SHADE_HUE_COS * float(np.linalg.norm(tint) * np.linalg.norm(hue))

    def _dice_labels(self) -> np.ndarray:
        """Which labels (0-255) are a die's colour: a lookup, made once a layout."""
        def lookup() -> np.ndarray:
            out = np.zeros(256, bool)
            out[[i for i in range(len(self._piece_names)) if self._is_die(i)]] = True
            return out
        return per_layout(self, "_dice_labels_known", lookup)


def _past_the_box(strange: np.ndarray, box: tuple[int, int, int, int]) -> bool:
    """Are any of a window's pixels set (``strange``) past a piece's box (x, y, w, h in the
    window) and the rim its blob explains round it (``PIECE_RIM_PX``)?"""
    x, y, w, h = box
    if not strange.any():
        return False
    outside = strange.copy()
    outside[max(0, y - PIECE_RIM_PX):max(0, y + h + PIECE_RIM_PX),
            max(0, x - PIECE_RIM_PX):max(0, x + w + PIECE_RIM_PX)] = False
    return bool(outside.any())


def _swept(own: np.ndarray, at: tuple[int, int], shape: tuple[int, ...], way: tuple[float, float],
           lean: float) -> np.ndarray:
    """A die's top (``own``, placed at ``at`` in a window of ``shape``) swept ``lean`` px along
    ``way`` (a vector of any length: towards the nadir): where its side faces stand.  (One
    dilation by the segment it is swept along.)"""
    out = np.zeros(shape[:2], np.uint8)
    norm = float(np.hypot(*way))
    if norm < 1e-6 or lean < 0.5:
        return out > 0
    x, y = at
    h, w = own.shape
    out[y:y + h, x:x + w] = own[:max(0, shape[0] - y), :max(0, shape[1] - x)]
    reach = int(np.ceil(lean))
    segment = np.zeros((2 * reach + 1, 2 * reach + 1), np.uint8)
    # (a pixel at the anchor less the sweep brings the top's pixel there along it)
    tip = (int(round(reach - way[0] / norm * lean)), int(round(reach - way[1] / norm * lean)))
    cv2.line(segment, (reach, reach), tip, 1)
    return cv2.dilate(out, segment, borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0


def _within(spot: Spot, x_mm: float, y_mm: float) -> bool:
    """Does a point of the board (mm) lie on a place?"""
    return spot.x <= x_mm <= spot.x + spot.w and spot.y <= y_mm <= spot.y + spot.h
