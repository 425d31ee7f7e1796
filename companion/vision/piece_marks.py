"""The marks on one piece of a blob: a sharp crop of it straight from the frame, its pips
counted on its top face, and whether a blob's other colours are its own marks blurred.

A part of ``BoardReader`` (``reader.py``), through :class:`~companion.vision.blobs.Blobs`: the
methods here use the reader's state (its light, glare, pose, lens and caches).
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.coarse_face import coarse_count
from companion.vision.coarse_marks import RIM_PX_PER_MM, CoarseMarks
from companion.vision.die_square import low_face, reflection_off_a_low_face
from companion.vision.face_template import FEWEST, FEWEST_IN_ITS_COLOUR, face_count
from companion.vision.geometry import MARGIN_MM
from companion.vision.light import CLIPPED
from companion.vision.mark_peaks import light_marks, median_under
from companion.vision.palette import PIP_ON_LIGHT, WHITE
from companion.vision.pip_reflections import reflection_off_a_one
from companion.vision.pips import (
    DIE_RIM_SHARE,
    RIM_SHARE,
    TOP_FACE_SHARE,
    count_pips,
    lit_like_a_mark,
    outline,
    reflection_off_the_pips,
    washes_out_a_mark,
)
from companion.vision.pose import DIE_MM, FOOT_SLACK_MM, MOST_STACKED, Stand, die_within
from companion.vision.reading import SCALE, SHADE_HUE_COS, STILL_TOLERANCE, UNKNOWN

CROP_SCALE = 4.0  # px per mm of the crops pips are counted on, at most:
CROP_PIECE_PX = 80  # a bigger piece's crop is sampled to about this many px across
FOOT_REACH_MM = 3.0  # a column's foot worked out from its top's centre lies this near the truth
BAND_SLACK_MM = 2.0  # the strip a taller column's sides would cover is judged this far in from its ends
SIDES_BAND_SEEN = 0.8  # this share of it seen as the empty board: no column's sides stand there
CROP_PAD_MM = 2.0  # a piece's crop reaches this far past its box on the board ...
WIDE_PAD_MM = 5.0  # ... or this far, for a die whose count was unclear with its outline at the crop's edge
TOP_BAND_LEAN_MM = 1.0  # a die's colour this much longer out from the nadir than across shows a side
MARKS_TYPICAL = 0.55  # dice marks' contrast (``pips._peaks``) as most dice's marks read sure show it
MARKS_GAIN_MOST = 2.0  # a colour's marks' contrast raised by this at most
SHADE_TINT_LEAST = 20.0  # a die's colour as seen with a tint this strong (channels less their mean) has a hue
LIT_TOWARD_WHITE = 0.35  # a die's top whose median lies this share of the way from its colour to white is lit
SHADE_TINT_KEPT = 0.5  # its colour in shade keeps this share of that tint at least


class PieceMarks(CoarseMarks):
    """One piece's marks, read on a crop of its own."""

    _topped: frozenset[str] = frozenset()  # places another die's top was read on (``Blobs._tops_read``)
    _marks_gains: dict[int, float] = {}  # per dice colour, its marks' contrast raised by (``marks_gains``)

    @staticmethod
    def _holes(part: np.ndarray, labels: np.ndarray, index: int) -> np.ndarray:
        """What lies within a piece's outline that is not its colour (its marks, or else)."""
        contours, _ = cv2.findContours(part.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        filled = np.zeros(part.shape, np.uint8)
        if contours:
            cv2.drawContours(filled, [cv2.convexHull(max(contours, key=cv2.contourArea))], -1, 1, -1)
        return (filled > 0) & (labels != index)

    def _marks_of_one_piece(self, labels: np.ndarray, blob: np.ndarray, main: int,
                            picture: np.ndarray) -> bool:
        """Are a blob's other piece colours its main colour darkened alike in every channel and
        all well inside its main colour's box?  Then they are the marks on one piece, blurred
        into a colour of their own (dark pips on orange read as brown), not a second piece
        touching it (that would stick out) nor one of another hue lying on it."""
        marks = self.layout.marks.get(self._piece_names[main])
        if marks is not None and marks[1] == 0:
            return False  # a plain piece has no marks: a darker colour on it is another piece
        n_pieces = len(self._piece_names)
        inside = blob > 0
        own = (labels == main) & inside
        other = (labels < n_pieces) & (labels != main) & inside
        if not own.any() or not other.any():
            return False
        ox, oy, ow, oh = cv2.boundingRect(own.astype(np.uint8))
        tx, ty, tw, th = cv2.boundingRect(other.astype(np.uint8))
        edge = 2
        if tx < ox + edge or ty < oy + edge or tx + tw > ox + ow - edge or ty + th > oy + oh - edge:
            return False
        body = picture[own].astype(np.float32).mean(axis=0)
        marks = picture[other].astype(np.float32).mean(axis=0)
        # the same hue in shadow: no channel lighter, a fifth darker at least, and every
        # channel darkened alike, as a dark mark blurred into the body mixes them (red on a
        # white patch is no white piece's marks: a reflection on a red one, more likely)
        if not ((marks <= body + 4).all() and marks.sum() <= 0.8 * body.sum()):
            return False
        lit = body > 60
        share = (marks[lit] - PIP_ON_LIGHT[0]) / (body[lit] - PIP_ON_LIGHT[0])
        return bool(share.max() - share.min() <= 0.3)

    def _cached_pips(self, small: np.ndarray, frame: np.ndarray, index: int, bx: int, by: int, bw: int,
                     bh: int, fresh: dict, stand: Stand | None = None,
                     sheen: tuple[int, ...] = ()) -> tuple[int, bool, bool]:
        """Pips again only for a piece that looks different from the last frame's."""
        key = (index, bx // 3, by // 3, bw // 3, bh // 3, None if stand is None else stand.fits, sheen,
               self._topped, self._marks_gains.get(index, 1.0))
        patch = small[by:by + bh, bx:bx + bw]
        cached = self._pip_cache.get(key)
        if cached is not None and cached[0].shape == patch.shape and not self.keep_masks \
                and int(cv2.absdiff(cached[0], patch).max()) <= 3 * STILL_TOLERANCE \
                and float(cv2.absdiff(cached[0], patch).mean()) <= STILL_TOLERANCE / 2:
            fresh[key] = cached
            return cached[1]
        result = self._read_pips(frame, index, bx, by, bw, bh, 1.0, stand, sheen)
        low, high = self.layout.marks.get(self._piece_names[index], (0, 9))
        if result[1] and not low <= result[0] <= high and self._is_die(index):
            # no marks at all where a die's colour was seen (its specks round a top the lamp lit
            # pink or lilac): that top read with its lit colour taken for it, and its count kept
            # only when every mark of it stands out clearly (a lit top's sheen shows faint specks
            # where a washed-out face has no pip: a red 3 whose middle the lamp took, read as a
            # 4 of its two corners and two specks); from a frame too coarse for a piece's rim
            # never as a lone mark: what the lamp left of a face may be one pip of any (a King of
            # Clubs red 4 at 0.91 px a mm read as a 1; a Baron Voodoo blue 1 at 1.37 is a 1)
            lit = self._read_pips(frame, index, bx, by, bw, bh, 1.0, stand, sheen, lit=True, sure_marks=True)
            if lit[1] and not lit[2]:
                result = (1, False, False) if lit[0] == 1 and self.frame_px_per_mm < RIM_PX_PER_MM else lit
        elif not result[1] and self._is_die(index):
            # its count unclear: read again with its top lit past its colour taken for it
            # (``_lit_die_tops``, ``_sheen_lit_dice``), kept only when that count is clear and
            # no reflection.  A light spot first taken for a reflection may be that lit top
            # itself, the die's colour only round it: judged again with the top made whole
            lit = self._read_pips(frame, index, bx, by, bw, bh, 1.0, stand, sheen, lit=True)
            if lit[1] and not lit[2]:
                result = lit
            else:
                # or with its colour in shade joined to it (``_with_its_shade``), kept only for a
                # count of two or more: a die's sides are its colour in shade too, and a lamp's
                # highlight at the middle of a top and its sides passed for a sure 1 (King of
                # Clubs at 30 degrees: a red 2 whose pips the lamp washed out), or for a 1 the
                # plain read counted too, its lone mark only unclear (blurred wider than a mark);
                # and never fewer marks than the plain read counted clearly: its joined shade
                # moved the outline off marks of the face (Baron Voodoo at 30 degrees, a yellow 6
                # whose plain read counted 3 marks, its shaded read 2 in its top's square: a sure
                # 2).  Not the lit read's count: the specks of a lit top's sheen count there; but
                # a lone mark only where that read saw no more marks, unclear as they were: a 2
                # whose other corner the lamp lit past its colour shows it there (Baron Voodoo at
                # 30 degrees, a purple 2 and a blue 2 whose lit reads saw 2 and 4: sure 1s here)
                shaded = self._read_pips(frame, index, bx, by, bw, bh, 1.0, stand, sheen, shaded=True)
                if shaded[1] and not shaded[2] \
                        and (shaded[0] >= max(2, result[0]) or shaded[0] == result[0] == 1 >= lit[0]):
                    result = shaded
                else:
                    # or by its whole face (``face_template``): its colour's outline, bent by
                    # a lamp, leaves its marks' peaks where no face lays them out
                    whole = self._read_pips(frame, index, bx, by, bw, bh, 1.0, stand, sheen, whole_face=True)
                    if whole[1]:
                        result = (whole[0], True, result[2])
                    elif stand is None:
                        # or on its top alone: a die off the nadir shows a side between its top and
                        # the nadir, whose marks are no face's (Baron Voodoo from straight above,
                        # a die a third of the view out: a red 2 read as 3 and 4, a side's pips with
                        # it), and its side not seen in its colour's shade leaves it seen flat
                        top = self._read_pips(frame, index, bx, by, bw, bh, 1.0, stand, sheen, top_cut=True)
                        if top[1] and not top[2]:
                            result = top
        if (not result[1] or not low <= result[0] <= high) and self._is_die(index):
            # or, its marks not found one by one (none found, or unclear: a frame too coarse for
            # them, or a glossy top's sheen and blur running them together), by every face fitted
            # to its top as a picture (``coarse_face``: a 5 or a 6 only), kept with no reflection
            # on it.  On the tuning split's finer frames too (stop 108): a Baron Voodoo red 6 and
            # purple 5 at 10 degrees read, no place read wrong on either split
            fitted = self._read_pips(frame, index, bx, by, bw, bh, 1.0, stand, sheen, coarse=True)
            if fitted[1] and not fitted[2]:
                result = fitted
        fresh[key] = (patch.copy(), result)
        return result

    def _read_pips(self, frame: np.ndarray, index: int, bx: int, by: int, bw: int,
                   bh: int, glare_scale: float = 1.0, stand: Stand | None = None,
                   sheen: tuple[int, ...] = (), pad_mm: float = CROP_PAD_MM,
                   lit: bool = False, shaded: bool = False,
                   whole_face: bool = False, sure_marks: bool = False,
                   top_cut: bool = False, coarse: bool = False) -> tuple[int, bool, bool]:
        """Pips on one piece, from a sharp crop sampled straight from the frame (with the
        reflection measured round it taken off ``glare_scale`` times), whether the count is
        clear, and whether a light spot on it is a lamp's reflection rather than a mark.
        A die standing up (``stand``) is judged on its top face only: its side faces, and
        their marks, lie nearer the camera's nadir.  ``sheen``: the colours its face shows
        (its own, and lifted by a sheen over part of it).  ``pad_mm``: how far the crop
        reaches past the piece's box on the board.  ``lit``: a die's top lit past its colour
        is taken for it (``_lit_die_tops``); ``shaded``: its colour in shade (``_with_its_shade``);
        ``whole_face``: a die's count by its whole face (``face_template``) in its colour, lit or
        in shade, or unclear (no reflection asked); ``sure_marks``: a count only of marks that
        stand out clearly (``count_pips``); ``top_cut``: a die not seen standing is judged on
        the band of its colour farthest out from the nadir, as wide as it is across (``_top_band``);
        ``coarse``: a die's count by every face fitted to its top as a picture (``coarse_face``),
        for a die whose marks were not found one by one."""
        x0, y0 = bx / SCALE - pad_mm, by / SCALE - pad_mm
        x1, y1 = (bx + bw) / SCALE + pad_mm, (by + bh) / SCALE + pad_mm
        # (the frame holds 1.4-2.5 px a mm: a 30-40 mm piece's marks are still ~10 px wide)
        scale = min(CROP_SCALE, CROP_PIECE_PX * SCALE / max(bw, bh, 1))
        cw, ch = int((x1 - x0) * scale), int((y1 - y0) * scale)
        if self.lens is None:  # crop px -> canvas px -> frame px is one homography
            k = self.px_per_mm / scale
            to_canvas = np.array([[k, 0, (x0 + 0.5 / scale) * self.px_per_mm],
                                  [0, k, (y0 + 0.5 / scale) * self.px_per_mm], [0, 0, 1]])
            assert self._homography is not None
            to_frame = self._to_frame @ to_canvas
            crop = cv2.warpPerspective(frame, to_frame, (cw, ch),
                                       flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        else:  # through the lens, point by point
            ys, xs = np.mgrid[0:ch, 0:cw].astype(np.float32)
            pts = np.stack([x0 + (xs + 0.5) / scale, y0 + (ys + 0.5) / scale], -1).reshape(-1, 2)
            frame_pts = self._canvas_to_frame(pts * self.px_per_mm).reshape(ch, cw, 2)
            crop = cv2.remap(frame, frame_pts[..., 0], frame_pts[..., 1], cv2.INTER_LINEAR)
        gy = min(int(by + bh / 2), self.light.gain.shape[0] - 1) if self.light.gain is not None else 0
        gx = min(int(bx + bw / 2), self.light.gain.shape[1] - 1) if self.light.gain is not None else 0
        seen = crop
        if self.light.gain is not None:
            crop = self.light.flatten_with(crop, tuple(float(v) for v in self.light.gain[gy, gx]) + (0.0,))
        cells = self.glare.cells if glare_scale == 1.0 else self.glare.faint
        if cells is not None:  # the same glare taken off as on the board sampled
            g = cells[max(0, (by - 2) // 2):(by + bh + 3) // 2 + 1,
                      max(0, (bx - 2) // 2):(bx + bw + 3) // 2 + 1]
            if g.size and float(g.max()) > 0:
                g = cv2.resize(g, (cw, ch), interpolation=cv2.INTER_LINEAR)
                if glare_scale != 1.0:
                    g = np.clip(np.asarray(g, np.float32) * glare_scale, 0, 255).astype(np.uint8)
                crop = cv2.subtract(crop, cv2.merge([g, g, g]), dtype=cv2.CV_8U)
        seen_as = self._classify_seen(crop, seen, scale if lit else None)
        # (one colour: a comparison, a third of ``np.isin``'s cost)
        mask = (np.isin(seen_as, sheen) if sheen else seen_as == index).astype(np.uint8)
        if whole_face:  # its colour as seen and lit past it, together
            lit_as = self._classify_seen(crop, seen, scale)
            mask |= (np.isin(lit_as, sheen) if sheen else lit_as == index).astype(np.uint8)
        if (shaded or whole_face) and mask.any():
            mask = self._with_its_shade(crop, seen_as, mask)
        inset = int(round(pad_mm * scale))
        mask = self._black_sheen_on_crop(crop, mask, index, (inset, ch - inset, inset, cw - inset))
        top = None
        if stand is not None:
            ys, xs = np.mgrid[0:ch, 0:cw].astype(np.float32)
            along = (x0 + (xs + 0.5) / scale) * SCALE - stand.nadir_px[0]
            along *= stand.outward[0]
            along += ((y0 + (ys + 0.5) / scale) * SCALE - stand.nadir_px[1]) * stand.outward[1]
            top = along >= stand.top_from - 0.5
            mask[~top] = 0
        outward = self._outward((x0 + x1) / 2, (y0 + y1) / 2)
        if stand is None and top_cut and self._is_die(index):
            top = self._top_band(mask, outward, TOP_BAND_LEAN_MM * scale)
            if top is None:
                return 0, False, False
            mask[~top] = 0
        if self.keep_masks:
            self._last_mask = mask
        # (the re-reads with the reflection scaled ask only the count)
        face = outline(mask)
        gray = self._sheen_taken_off(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), mask, index)
        gain = self._marks_gains.get(index, 1.0)
        plain = gray
        if gain != 1.0 and mask.any():
            level = median_under(gray, mask)
            gray = np.clip(level + (gray.astype(np.float32) - level) * gain, 0, 255).astype(np.uint8)
        die_px = stands = None
        ink: bool | None = None  # (a dark die's marks are lighter than it, however a lamp lifts its face)
        if self._is_die(index):
            die_px = DIE_MM * scale
            ink = True if not self._light_die(index) else None

            read_at = self._spot_at((bx + bw / 2) / SCALE - MARGIN_MM, (by + bh / 2) / SCALE - MARGIN_MM)

            def stands(cx: float, cy: float) -> bool:
                return stand is not None or self._one_place_whatever_height(x0 + (cx + 0.5) / scale,
                                                                            y0 + (cy + 0.5) / scale, read_at)
        if whole_face and stands is not None:  # (a top read only where it stands on one place, however high)
            fewest = FEWEST_IN_ITS_COLOUR if self._in_its_own_colour(crop, seen, mask, index) else FEWEST
            read = face_count(gray, mask, DIE_MM * scale, not self._light_die(index), fewest)
            return (read[0], True, False) if read is not None and stands(*read[1]) else (0, False, False)
        # a dark die's face lit past mid-grey is under the lamp's light: a hotspot there
        # washes a pip out as it may pass for one, and its count is vouched for only where
        # the light lies clear of its empty places (the reflection checks below)
        lamp_lit = bool(ink and glare_scale == 1.0 and mask.any()
                        and not light_marks(median_under(gray, mask)))

        def lit_as_seen() -> bool:  # (asked only where the count leaves it to matter: see below)
            return glare_scale == 1.0 and (lamp_lit
                                           or lit_like_a_mark(crop, mask, self._in_focus, face, gray, ink))
        if coarse and stands is not None:  # (a top read only where it stands on one place)
            reflected = lit_as_seen()
            fitted = coarse_count(gray, mask, DIE_MM * scale, self._light_die(index),
                                  scale / self.frame_px_per_mm)
            return (fitted[0], True, reflected) if fitted is not None and stands(*fitted[1]) \
                else (0, False, reflected)
        if self.faces is not None:
            return self.faces.classify(mask), True, lit_as_seen()
        rim = DIE_RIM_SHARE if stand is not None or sheen else RIM_SHARE  # a die seen standing up
        # its top face, cut off its sides, may show less than a face: marks may be lost with it
        cut = (stand is not None or top is not None) \
            and (face is None or face[1] < TOP_FACE_SHARE * (DIE_MM * scale) ** 2)
        seen = None if die_px is None or gain != 1.0 else self._marks_seen.setdefault(index, [])
        coarse_edge = self._coarse_edge()
        pips, sure = count_pips(mask, gray, face, rim, top, die_px, stands, cut, outward, seen, ink,
                                sure_marks, coarse_edge)
        if not sure and die_px is not None:  # a face of 1-3, read inside its top's square
            # (asked from a coarse frame too: its marks' contrasts feed ``seen``, which the
            # frame's other dice are read with, though its count is not taken there)
            low = low_face(mask, gray, face, rim, die_px, outward, stands, seen, ink)
            if low is not None and coarse_edge:
                # from this far a side's pips are a pixel, no marks, and a face's marks run
                # together: marks the top's square leaves out are as likely its own, and two
                # in it may be four (Baron Voodoo at 0.64-0.68 px a mm: a yellow 6, a red 4 and
                # a yellow 4 whose marks, unclear, left two in a square read as 2s)
                low = None
            if low == 1 and shaded and pips > 1:
                # with its shade joined, a lone mark is taken only where one was counted: more,
                # cut to the one in its top's square, is no lone mark (King of Clubs at 30
                # degrees, 0.86 px a mm: a red 4 whose shaded read counted 3, read as a sure 1)
                low = None
            if low is not None:
                pips, sure = low, True
            elif pad_mm < WIDE_PAD_MM and face is not None and _at_the_crops_edge(face[0]):
                # the die reaches past its crop (its top's rim, seen past its colour on the
                # board's coarser sampling, was cut off with a pip): read again on a wider crop
                return self._read_pips(frame, index, bx, by, bw, bh, glare_scale, stand, sheen,
                                       WIDE_PAD_MM, lit, shaded, sure_marks=sure_marks)
        if gain != 1.0 and sure and count_pips(mask, plain, face, rim, top, die_px, stands, cut, outward,
                                               None, ink, sure_marks, coarse_edge) == (pips, False):
            # the re-read with the marks' contrast raised is for marks too faint to count: where
            # it finds no mark the plain read did not, what left that count unclear stands (King
            # of Clubs, a far red 2 at 30° with one pip lost to its rim: its lone pip was strong
            # and off its top's middle, and with the gain its body's extent moved under it)
            sure = False
        # a six read sure is laid out as one: a reflection that took one of its pips would
        # leave five in two rows, no face, and none that passed for a pip makes a 6 of a
        # 4 or a 5 (a 5's middle has no place in a 6; a 4 would need two, each a pip's size
        # at a side's middle); a broad sheen over it leaves its count as read.  On a light
        # die a five too: a reflection only lightens its dark marks, hiding one at most, and
        # nothing less one pip is a 5 (a 6 less one leaves five in two rows).  (Its reflection
        # check, a tenth of a die's read, is then not made: whatever it found is cleared)
        laid_out_sure = sure and die_px is not None and (pips == 6 or (pips == 5 and self._light_die(index)))
        reflected = not laid_out_sure and lit_as_seen()
        if reflected and sure and die_px is not None and face is not None:
            # a glossy die's highlight, clear of every place its face may hold a pip: light, not a doubt
            reflected = reflection_off_the_pips(crop, mask, face, gray, rim, die_px, ink) != pips and not (
                pips in (2, 3) and reflection_off_a_low_face(crop, mask, face, gray, rim, die_px, pips, ink))
        if reflected and sure and pips == 1 and die_px is not None and face is not None \
                and self._piece_names[index] not in WHITE:
            # a lone middle pip: light that took no diagonal's two corner pips hides no face.
            # (A white one's colour is in doubt under it: a yellow top the lamp washed out)
            reflected = reflection_off_a_one(crop, mask, face, gray, rim, die_px, ink)
        if reflected and sure and pips == 0 and die_px is None and face is not None:
            # a flat piece read with no mark: a reflection passes for none there, and hides one
            # only where it washes the face out (Jivecat's black Skull token under a sheen)
            reflected = washes_out_a_mark(crop, face)
        return pips, sure, reflected

    def _in_its_own_colour(self, crop: np.ndarray, seen: np.ndarray, mask: np.ndarray, index: int) -> bool:
        """Is a die's top (``mask`` on ``crop``, its light flattened) seen in its own colour,
        under no lamp's light past it, and nowhere clipped white by the camera (``seen``)?  A
        lamp's broad sheen mixes a die's colour with white: where a top's median lies
        ``LIT_TOWARD_WHITE`` of the way there or more, a pip under the light may show as the
        face (Baron Voodoo from straight above: a red 5 lit pink, its middle pip gone without a
        trace, read as a 4).  A white die's colour is white: judged only by its clipped pixels."""
        if not mask.any():
            return False
        if (seen[mask > 0].min(axis=1) >= CLIPPED).any():
            return False
        own = self._piece_bgr[index].astype(np.float32)
        toward = 255.0 - own
        reach = float(toward @ toward)
        if reach < 1.0:
            return True
        median = np.median(crop[mask > 0], axis=0).astype(np.float32)
        return float((median - own) @ toward) / reach < LIT_TOWARD_WHITE

    @staticmethod
    def _with_its_shade(crop: np.ndarray, seen_as: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """A die's colour mask on its crop with its colour in shade joined to it: pixels of no
        calibrated colour (``UNKNOWN``), of the die's hue (``SHADE_HUE_COS``), keeping half its
        tint at least (``SHADE_TINT_KEPT``: no grey, no board) and no lighter than it, joined to
        its colour.  A lamp low to one side leaves part of a glossy die's top a darker, greyer
        purple than any calibrated colour, and its colour's outline cuts that corner off with
        the pip on it (King of Clubs: a purple 2's lower pip at the outline's edge, unclear)."""
        colour = np.median(crop[mask > 0].astype(np.float32), axis=0)
        tint = colour - float(colour.mean())
        strength = float(np.linalg.norm(tint))
        if strength < SHADE_TINT_LEAST:
            return mask
        pixels = crop.astype(np.float32)
        tints = pixels - pixels.mean(axis=2, keepdims=True)
        norms = np.linalg.norm(tints, axis=2)
        like = (seen_as == UNKNOWN) & (tints @ tint >= SHADE_HUE_COS * norms * strength) \
            & (norms >= SHADE_TINT_KEPT * strength) & (pixels.sum(axis=2) <= float(colour.sum()))
        n, parts = cv2.connectedComponents(((mask > 0) | like).view(np.uint8), connectivity=8)
        joined = np.zeros(n, np.uint8)
        joined[parts[mask > 0]] = 1
        joined[0] = 0
        return joined[parts]

    def marks_gains(self) -> dict[int, float]:
        """Per dice colour, how much its marks' contrast is raised for a second read of the dice
        of that colour whose count was unclear: the dice's marks show their colour's contrast
        to the camera, the same on every die of it in one frame (its light, the blur, the pips'
        drilled shade), and a red die's white pips may show half a purple one's.  Measured on
        the dice of the colour read sure in a face's layout of three or more (``count_pips``'s
        ``laid_out``) or as a face of two or three inside its top's square (``low_face``'s) in
        this frame, or else the last that showed one (the median of all their marks); a colour
        whose marks show ``MARKS_TYPICAL`` or more is not raised, and none by more than
        ``MARKS_GAIN_MOST``.  Asked only of a frame with a die still unclear."""
        seen = {**self._marks_last_seen, **{i: marks for i, marks in self._marks_seen.items() if marks}}
        typical = {index: float(np.median(np.concatenate(marks))) for index, marks in seen.items()}
        return {index: min(MARKS_GAIN_MOST, MARKS_TYPICAL / t) for index, t in typical.items()
                if 0 < t < MARKS_TYPICAL}

    def _outward(self, x_mm: float, y_mm: float) -> tuple[float, float] | None:
        """The way a die's top shows off its foot here (canvas mm): from the camera's nadir
        out; None with no pose or right under the camera."""
        if self.pose is None:
            return None
        ux, uy, d = self.pose.outward(x_mm, y_mm)
        return (ux, uy) if d > 1.0 else None

    @staticmethod
    def _top_band(mask: np.ndarray, outward: tuple[float, float] | None,
                  least_px: float) -> np.ndarray | None:
        """Where a die's top lies in its colour's mask (a crop's): the band farthest out from
        the nadir along ``outward``, as deep as the mask is wide across it (a square's extent
        is the same along and across, however it is turned); None right under the camera or
        with no side shown (the mask not ``least_px`` longer along than across: nothing to cut)."""
        if outward is None or not mask.any():
            return None
        ys, xs = np.nonzero(mask)
        along_px = xs * outward[0] + ys * outward[1]
        across_px = xs * -outward[1] + ys * outward[0]
        far, across = float(along_px.max()) + 1.0, float(np.ptp(across_px)) + 1.0
        if float(np.ptp(along_px)) + 1.0 - across < least_px:
            return None
        yy, xx = np.mgrid[0:mask.shape[0], 0:mask.shape[1]]
        return (xx * outward[0] + yy * outward[1]) >= far - across - 0.5

    def _one_place_whatever_height(self, x_mm: float, y_mm: float, read_at: str | None = None) -> bool:
        """Does a die's top face seen here (canvas mm) stand on one place, however many dice
        its column holds?  With no sides measured its height is not known; from a slant a
        column's top shows over a place further out from the camera's nadir than its foot.
        ``read_at``: the place the die is read at (its blob's), whose die's top may show past
        its edge, between two places or over the next one out: standing there, it is read."""
        spot = self._spot_at(x_mm - MARGIN_MM, y_mm - MARGIN_MM)
        if self.pose is None:  # (the dice's vote may miss sides in shade: not asked)
            return spot is not None
        feet = self.pose.feet(x_mm, y_mm, DIE_MM, MOST_STACKED)
        foot = self._spot_at(feet[0][0] - MARGIN_MM, feet[0][1] - MARGIN_MM)
        if foot is None or foot not in (spot, read_at):
            return False
        spot = foot
        # a taller column stands on a place within a foot's reach of where its foot would be,
        # one whose rules stack that many dice there (a mat's place holds one), its die within
        # the place give or take a foot's reach and its slack (``_column_fits``), and none
        # where another die's top was read (``_tops_read``): a foot off every place is no column
        for height, foot in enumerate(feet[1:], start=2):
            under = [place for place in self._places_near(*foot)
                     if place != spot and place not in self._topped
                     and (self.layout.spot(place).holds or height) >= height
                     and self._column_fits(place, *foot)]
            if under and not self._board_where_sides_would_be(x_mm, y_mm, feet[0], foot):
                return False
        return True

    def _column_fits(self, place: str, x_mm: float, y_mm: float) -> bool:
        """May a column whose foot would be here (canvas mm, as worked out from its top: within
        ``FOOT_REACH_MM``) stand on ``place``, its die within the place's sides give or take
        ``FOOT_SLACK_MM``?  A die hanging half over a place's edge stands on none."""
        return die_within(self.layout.spot(place), x_mm - MARGIN_MM, y_mm - MARGIN_MM,
                          FOOT_SLACK_MM + FOOT_REACH_MM)

    def _places_near(self, x_mm: float, y_mm: float) -> set[str]:
        """The place at this point (canvas mm); off every place (between two, or off the
        grid), those within about ``FOOT_REACH_MM`` of it: a foot worked out from a top is
        that sure."""
        at = self._spot_at(x_mm - MARGIN_MM, y_mm - MARGIN_MM)
        if at is not None:
            return {at}
        steps = (-FOOT_REACH_MM, 0.0, FOOT_REACH_MM)
        near = (self._spot_at(x_mm + dx - MARGIN_MM, y_mm + dy - MARGIN_MM) for dx in steps for dy in steps)
        return {place for place in near if place is not None}

    def _board_where_sides_would_be(self, x_mm: float, y_mm: float, one: tuple[float, float],
                                    foot: tuple[float, float]) -> bool:
        """Is the empty board seen where a taller column's sides would stand?  A column whose
        top shows at ``x_mm, y_mm`` (canvas mm) covers the board from its top to its foot:
        one die's, up to its foot ``one`` and a corner's reach past it; a taller one's, on
        to its foot ``foot``.  The board seen as it is when empty over most of the strip
        between (``SIDES_BAND_SEEN``) rules the taller column out; a piece, a shadow or
        anything else there rules nothing out."""
        if self._as_empty is None:
            return False
        dx, dy = one[0] - x_mm, one[1] - y_mm
        near = float(np.hypot(dx, dy))
        reach = float(np.hypot(foot[0] - x_mm, foot[1] - y_mm))
        if near < 1e-6:
            return False
        ux, uy = dx / near, dy / near
        start, stop = near + DIE_MM / np.sqrt(2) + BAND_SLACK_MM, reach + DIE_MM / 2 - BAND_SLACK_MM
        if stop - start < 2.0:
            return False  # too short a strip to judge (a camera nearly above: the leans are small)
        along = np.arange(start, stop, 1.0)
        across = np.array([-0.25, 0.0, 0.25]) * DIE_MM
        px = (x_mm + along[:, None] * ux - across[None] * uy) * SCALE
        py = (y_mm + along[:, None] * uy + across[None] * ux) * SCALE
        h, w = self._as_empty.shape
        inside = (px >= 0) & (px < w) & (py >= 0) & (py < h)
        if inside.sum() < 6:
            return False
        seen = self._as_empty[py[inside].astype(int), px[inside].astype(int)]
        return float(seen.mean()) >= SIDES_BAND_SEEN


def _at_the_crops_edge(hull: np.ndarray) -> bool:
    """Does a piece's outline meet its crop's edge?"""
    return bool(hull[0].any() or hull[-1].any() or hull[:, 0].any() or hull[:, -1].any())
