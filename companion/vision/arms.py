"""What neither a piece nor the empty board explains: a hand, an arm, a sleeve, a shadow,
glare, whatever its colour.

A large patch reaching in from an edge (or anything across the white margin) is an arm.
The board round it is read: the places it lies on, or reaches within a few millimetres of,
are named "under a hand or arm" and never guessed, with the pieces that touch it (a sleeve
of a piece's colour, a piece half under a finger).  Its outline is closed over a palm of the
board's own colour, of which only the board's printed lines it covers are unexplained, and
it runs straight from where it crosses the margin to what is seen of it (over a surface of
its own colour, what has the colour it showed on the margin is taken as the forearm).  A
light fitted with an arm over the board is fitted again clear of it and its shadow.  Only
an arm over most of the board gives no board at all.  A small patch makes the places under
it doubtful, with the likely reason, and (a reflection's rim or a shadow reaching past what
was seen of it) the places beside them where the reflection reaches.

A part of ``BoardReader`` (``reader.py``): the methods here use its state.
"""

from __future__ import annotations

from collections.abc import Iterator

import cv2
import numpy as np

from companion.vision.arm_tip import ArmEnd
from companion.vision.channels import channel_all, channel_max, channel_sum
from companion.vision.geometry import MARGIN_MM, MARKER_IDS
from companion.vision.glare import GLARE_MIN, SHEEN_MIN
from companion.vision.lamp_spot import hot_spot_not_arm
from companion.vision.light import CLIPPED
from companion.vision.palette import shadow_colours
from companion.vision.pips import connected_components
from companion.vision.print_edges import PrintEdges
from companion.vision.reading import (
    SCALE,
    SQUARE5,
    UNDER_A_HAND,
    UNKNOWN,
    Reading,
    clear_outside,
    filled_hull,
)

ANCHOR_SEEN_PX = 30  # a printed surface with this many pixels clear of an arm still anchors the light
ARM_JOIN_MM = 8  # what lies this close to an arm is the arm (a palm of the board's colour
# leaves only the board's printed lines it covers unexplained, a cell apart)
ARM_SHADOW_MM = 25  # an arm's shadow and its edge reach this far past what is seen of it ...
ARM_LIGHT_MM = 45  # ... and its faint outskirts, that bias a fit of the light, this far
FOREARM_MM = 120  # an arm seen this far from where it crosses the margin is straight to it
CROSSING_JOIN = np.ones((9, 9), np.uint8)  # the margin's samples of one crossing lie closer than this
SLEEVE_LIKE = 30  # levels: the board this near a sleeve's colour where it crossed the margin may be it
ARM_PIECE = 0.05  # a patch this share of a hand's size where an arm crosses the margin is the arm
TINT_OFF = 0.07  # a margin's sample this far off the paper's tint (a share of its sum) is no paper ...
TINT_OFF_DARKER = 0.025  # ... nor one this far off and darker than the paper's light by DARKER
DARKER = 0.95  # (a share of the light the paper shows there)
WARMER = 0.05  # ... nor one whose red outweighs its blue by this share more than the paper's
HAND_MAX_SHARE = 0.5  # an arm over more of the board than this: no board is read at all
OVER = "something over it (a hand, a shadow)?"
WIDE_PX = 16  # a mask is grown this far or more at half size
JOIN_ROUNDS = 8  # what touches the arm is joined to it this many times over, at most
HAND_HALF_MM = 45  # a hand's half width: its outline closed over gaps twice this wide ...
HAND_MM = 90  # a hand's patches lie this near its arm (a palm's length past a sleeve) ...
HULL_SHARE = 0.25  # ... holds a place this share within it, with no piece's colour, under the hand
POOL_EXPLAINS = 0.8  # a pool of light taken off leaves this share of what looked like an arm the empty board
# a patch's print detail (``EmptyBoard._print_detail``) follows the print's this closely
# (correlation), with a contrast this share of the print's at least and at most: the print under
# more light ...
PRINT_THROUGH = (0.7, 0.4, 1.8)
PRINT_FAINT = (0.2, 0.05)  # ... this closely, with this share of its contrast: the print under a sheen


class Arms:
    """Hands, arms, shadows and glare: what the empty board and the pieces do not explain."""

    _print_edges: PrintEdges | None = None  # the reference's edges (``print_edges``), kept while it is
    lamp_not_arm = False  # what the last frame's judging took for an arm was a lamp's hot spot

    def _reaches_in(self, x: int, y: int, w: int, h: int, area: int) -> bool:
        """Is a patch the empty board and the pieces do not explain an arm: bigger than a hand,
        or a third of one reaching in from the board's edge?"""
        return area > self._hand_px or (area > 0.3 * self._hand_px and self._reaches_edge(x, y, w, h))

    def _fit_light(self, small: np.ndarray, margin: np.ndarray, away: np.ndarray | None = None) -> str:
        """Fit the light to the margin's paper and the board's printed surfaces (those not
        under ``away``, an arm and its shadow); a reason it cannot be judged, or ""."""
        ys, xs = self._margin_samples
        anchors, clear = self._anchors, None
        if away is not None:
            clear = away[ys, xs] == 0
            anchors = {}
            for name, (ay, ax) in self._anchors.items():
                seen = away[ay, ax] == 0
                if seen.sum() >= min(ANCHOR_SEEN_PX, len(ay)):
                    anchors[name] = (ay[seen], ax[seen])
        problem = self.light.fit(small, self._margin_samples, anchors, self._reference, clear)
        if problem:
            self.light.gain = None
            return problem
        if away is None:
            self.light.take_known_pool()  # (measured with no arm over the board: ``_refine_light``)
        self.light.frames_since_fit = 0
        self.light.margin_at_fit = margin
        self.light.round_arm = away is not None
        return ""

    def _refine_light(self, flat: np.ndarray, on_places: bool = False) -> bool:
        """With no arm over the board, take off the light a fit to the margin leaves inside it
        (``Light.refine``: a low lamp's pool, a silk print's sheen), measured on the print where
        no piece stands, or, ``on_places``, on the places too (their print wherever no piece
        hides it: a cell off its neighbourhood is left out); did the light change?  (Not with
        an arm: a pale one passes for the print lit more.)"""
        inside = ~self._outside
        measure = inside if on_places else inside & self._spot_free
        return self.light.refine(flat, self._reference, inside, measure)

    @staticmethod
    def _arm_entry(crossing: np.ndarray) -> np.ndarray:
        """Where an arm crossing the margin enters the board: the crossing, grown by
        ``ARM_LIGHT_MM``."""
        return _grown(crossing, ARM_LIGHT_MM * SCALE)

    def _arm_patches(self, labels: np.ndarray, as_empty: np.ndarray) -> np.ndarray | None:
        """The big patches the empty board and the pieces' colours do not explain, where an
        arm reaching in would lie (``_reaches_in``); None when there are none."""
        unexplained = (labels == UNKNOWN) | ((labels >= len(self._piece_names)) & ~as_empty)
        unexplained = unexplained.astype(np.uint8)
        clear_outside(unexplained, self._board_rect)  # a cast may leave the margin's white unexplained
        n, components, stats, _ = connected_components(unexplained)
        big = [k for k in range(1, n) if self._reaches_in(*(int(v) for v in stats[k]))]
        return np.isin(components, big) if big else None

    def _pool_for_an_arm(self, small: np.ndarray, flat: np.ndarray, labels: np.ndarray,
                         as_empty: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The board flattened again, its colours and empty-board match, with a low lamp's pool
        of light taken off, when that pool is what was taken for an arm's patch: with nothing across
        the margin, the light was fitted again clear of a big patch, and the pool (which the margin's
        paper does not show) was not measured.  Kept only when the patch is then the empty board over
        ``POOL_EXPLAINS`` of it: a pale sleeve passes for the print lit more (``Light.untake_pool``)."""
        patch = self._arm_patches(labels, as_empty)
        if patch is None:
            return flat, labels, as_empty
        # measured where no piece stands, then on the places too, even if the first found none: the
        # print free of Swing State's track lies at its edges, and a pool over the track fades before it
        for on_places in (False, True):
            if on_places:
                self.light.forget_no_pool()
            if not self._refine_light(flat, on_places):
                continue
            pooled = self._flatten_whole(small, None)
            if float(pooled[2][patch].mean()) >= POOL_EXPLAINS:
                return pooled
            self.light.untake_pool()
        return flat, labels, as_empty

    def _arm_over(self, labels: np.ndarray, as_empty: np.ndarray) -> Iterator[np.ndarray] | None:
        """Where an arm reaching in lies, with room for its shadow: the big patches the empty
        board and the pieces' colours do not explain, as first seen, their hull (a light
        sleeve's middle passes for paper or a piece) grown by ``ARM_LIGHT_MM``; for when that
        leaves too little to judge the light by, the hull and then the patches themselves
        grown by ``ARM_SHADOW_MM`` (each made only when the one before leaves too little)."""
        arm = self._arm_patches(labels, as_empty)
        if arm is None:
            return None
        hull = filled_hull(arm)
        return (_grown(mask, mm * SCALE) for mask, mm in ((hull, ARM_LIGHT_MM), (hull, ARM_SHADOW_MM),
                                                          (arm, ARM_SHADOW_MM)))

    def _judge_unexplained(self, unexplained: np.ndarray, flat: np.ndarray, doubtful: dict[str, str],
                           blobs: np.ndarray, crossing: np.ndarray | None = None,
                           whence: dict[str, list[tuple[int, int, int, int]]] | None = None,
                           odd: np.ndarray | None = None) -> tuple[Reading | None, set[str] | None]:
        """The spots that something unexplained lies on, and, when a hand or arm is over the
        board (its places are doubtful: ``_under_hand``), the places within its shadow's
        reach; no board at all when it covers most of it.  ``blobs`` labels the blobs of
        piece colours; ``crossing`` is where an arm lies across the margin, if one does;
        ``whence`` gets, per place doubted, the box of the patch that made it so; ``odd``: the
        pixels of blobs that were read as no piece."""
        self._arm_seen = None
        self.lamp_not_arm = False
        found = _opened_components(unexplained)
        if found is None:
            return None, None
        mask, n, components, stats = found
        whys: dict[int, str] = {}
        hand: list[int] = []
        cores: list[tuple[np.ndarray, tuple[int, int]]] = []  # reflections' washed-out cores
        lighter_share, washed_share = self._lighter_shares(flat, components, stats)
        pieces = cv2.dilate((blobs > 0).astype(np.uint8), SQUARE5) > 0  # (and their rims)
        read = pieces if odd is None or not odd.any() \
            else cv2.dilate(((blobs > 0) & (odd == 0)).astype(np.uint8), SQUARE5) > 0  # (``washed_core``)
        for k in range(1, n):
            x, y, w, h, area = (int(v) for v in stats[k])
            if area < self._speck_px or self._faint_stray(flat, components, k, stats[k]):
                continue
            part = components[y:y + h, x:x + w] == k
            washed = bool(washed_share[k] > 0.3)
            lighter = bool(lighter_share[k] > 0.6)  # than the empty board, in every channel
            reaching = area > 0.3 * self._hand_px and self._reaches_edge(x, y, w, h)
            sleeve = reaching and not washed  # a light sleeve is no reflection, but for ...
            core = self.glare.washed_core(part, x, y, w, h, pieces, read) \
                if (washed or lighter) and (not sleeve or crossing is None) else None
            if core is not None and self.glare.hides_nothing(*core):
                # ... the board lifted smoothly by a reflection, no arm across the margin (a glossy sheen)
                continue
            if lighter and not washed and crossing is None:
                detail = self._print_detail(part, x, y, flat)
                if detail is not None and detail[0] >= PRINT_THROUGH[0] \
                        and PRINT_THROUGH[1] <= detail[1] <= PRINT_THROUGH[2]:
                    continue  # the board under more light than the light's fit gives it (a lamp near it)
                if not sleeve and self._missed_light(flat, components, k, stats[k], blobs):
                    continue  # ... as the print round it shows (a lamp's pool with a sharp rim)
                if sleeve and detail is not None and detail[0] >= PRINT_FAINT[0] \
                        and detail[1] >= PRINT_FAINT[1]:
                    # the print faint through it: a glossy print's sheen at its edge, no sleeve
                    sleeve = False
            if core is not None and crossing is None:
                # a lamp's hotspot on a print that shines, its core washed out, with nothing across
                # the margin (an arm crosses it): the board round it is the board, what it may hide in doubt
                cores.append(core)
                continue
            if (washed or lighter) and not sleeve:
                whys[k] = "glare?"
            elif self._reaches_in(x, y, w, h, area):
                hand.append(k)
            else:
                whys[k] = OVER
        if crossing is not None:
            # an arm of the board's own colours breaks into pieces at the board's printed lines:
            # the patches where it crosses the margin are the arm all the same, a pale arm's too,
            # lighter than the board as a reflection is (which does not darken the margin's paper)
            entry = self._arm_entry(crossing)
            big = ARM_PIECE * self._hand_px
            for k in [k for k in whys if stats[k, 4] >= big]:
                x, y, w, h = (int(v) for v in stats[k, :4])
                if (entry[y:y + h, x:x + w] & (components[y:y + h, x:x + w] == k)).any():
                    hand.append(k)
                    del whys[k]
        # no arm across the margin, all taken for one a lamp's hot spot? (``lamp_spot``: told as glare)
        self.lamp_not_arm = crossing is None and hot_spot_not_arm(flat, self._reference, components, stats,
                                                                  hand, pieces)
        if not hand and crossing is None:  # a piece's cast shadow is light (near an arm, maybe the arm's)
            whys = {k: why for k, why in whys.items()
                    if not self._hides_no_piece(flat, unexplained, components, k, stats[k], pieces)
                    and (why != OVER or not self._only_light(flat, components, k, stats[k], blobs))}
        arm = None
        if hand:
            if int(stats[hand, cv2.CC_STAT_AREA].sum()) > HAND_MAX_SHARE * self._board_area:
                return Reading(None, hand=True, markers_found=len(MARKER_IDS),
                               problem="a hand is over the board"), set()
            arm, joined = self._join_arm(hand, whys, mask, components, stats, blobs)
        for unseen, corner in cores:
            # only where a piece of the place could lie: a piece partly in a core shows the rest of
            # itself, no board either (``washed_core``); a speck the fit missed at a line hides nothing
            self._doubt_under(self.glare.could_hide(unseen, corner), corner, "glare?", doubtful, whence)
        for k, why in whys.items():
            x, y, w, h, _ = (int(v) for v in stats[k])
            on = _places(self._spot_map[y:y + h, x:x + w][components[y:y + h, x:x + w] == k])
            for s in on if len(on) or why != OVER else self._places_leaning_onto(components, k, stats[k]):
                doubtful.setdefault(self._spot_ids[int(s)], why)
                if whence is not None:
                    whence.setdefault(self._spot_ids[int(s)], []).append((y, y + h, x, x + w))
        if arm is None:
            return None, None
        if crossing is not None:
            arm |= _limb(arm, crossing, flat)
            rows, cols = _box(crossing, 0)  # (the crossing lies on the margin: its box is a strip of it)
            ys, xs = np.nonzero(crossing[rows, cols])
            self._arm_seen = (arm, (float((xs + cols.start).mean()), float((ys + rows.start).mean())))
        # (and the print's lines it covers where it passes for the print: ``print_edges``)
        if self._print_edges is None or self._print_edges.empty is not self._reference:
            self._print_edges = PrintEdges(self._reference)
        arm = arm | self._print_edges.covered(flat, arm, _grown(arm, HAND_HALF_MM * SCALE), pieces)
        outline = _filled_outline(arm, ARM_SHADOW_MM * SCALE)
        # the patches joined to it, solid or not (a shadow's thin edge over half a die), lie
        # over what they cover as the arm does
        self._under_hand(outline | joined, blobs, doubtful)
        hand_hull = _filled_outline(self._hand_round(arm, whys, components, stats), HAND_HALF_MM * SCALE)
        self._bare_within(hand_hull & ~outline, blobs, doubtful)
        # within an arm's shadow, what else is doubted is the arm's doing (its shadow, the
        # light beside it), not a reflection whose rim reaches past what was seen of it
        rows, cols, zone = _grown_part(outline, ARM_SHADOW_MM * SCALE)
        return None, {self._spot_ids[int(s)] for s in _places(self._spot_map[rows, cols][zone])}

    def _hand_round(self, arm: np.ndarray, whys: dict[int, str], components: np.ndarray,
                    stats: np.ndarray) -> np.ndarray:
        """The arm and the patches of something over the board, or of glare, within a hand's
        reach of it (``HAND_MM``): a hand paler than the print shows only bits of itself (a
        pale palm past a dark sleeve), and between them it passes for the board."""
        if not whys:
            return arm
        rows, cols, near = _grown_part(arm, HAND_MM * SCALE)
        reach = np.bincount(components[rows, cols][near], minlength=len(stats)) > 0
        out = [k for k in whys if reach[k]]
        return arm | _labelled(components, out, len(stats)) if out else arm

    def _lighter_shares(self, flat: np.ndarray, components: np.ndarray,
                        stats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per component (``stats``' rows), the share of its pixels lighter than the empty
        board in every channel (by more than ``SHEEN_MIN``), and of those a reflection washed
        out: worked out over every component's pixels at once (a patch's own pass, per patch,
        cost a third of an arm frame's judging).  Lighter by more than ``SHEEN_MIN`` (> 0) is
        OpenCV's saturating difference over it, channel by channel."""
        n = len(stats)
        rows, cols = _box(components > 0, 0)
        if rows is None:
            return np.zeros(n), np.zeros(n)
        labels = components[rows, cols].ravel()
        area = np.maximum(stats[:, cv2.CC_STAT_AREA], 1)
        b, g, r = cv2.split(cv2.subtract(flat[rows, cols], self._reference[rows, cols]))
        lit = cv2.min(cv2.min(b, g), r) > SHEEN_MIN
        lighter = np.bincount(labels, weights=lit.ravel(), minlength=n)[:n] / area
        washed_out = self.glare.washed_out
        if washed_out is None:
            return lighter, np.zeros(n)
        return lighter, np.bincount(labels, weights=washed_out[rows, cols].ravel(), minlength=n)[:n] / area

    def _join_arm(self, hand: list[int], whys: dict[int, str], mask: np.ndarray, components: np.ndarray,
                  stats: np.ndarray, blobs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The arm's solid parts (a dense speckle it touches is not the arm), with what
        touches it joined to it (moved from ``whys`` to ``hand``): a light sleeve, its shadow
        cut off by a piece, the pieces of a hand's rim round a palm of the board's colour.
        Touching is judged against the arm's hull with the pieces it holds.  And every patch
        joined, solid or not."""
        solid = cv2.morphologyEx(mask, cv2.MORPH_OPEN, SQUARE5) > 0
        n, n_blobs = len(stats), int(blobs.max()) + 1
        arm = np.zeros(mask.shape, bool)
        every = np.zeros(mask.shape, bool)
        joined = list(hand)
        for rounds in range(JOIN_ROUNDS + 1):
            for k in joined:
                x, y, w, h = (int(v) for v in stats[k, :4])
                patch = components[y:y + h, x:x + w] == k
                every[y:y + h, x:x + w] |= patch
                arm[y:y + h, x:x + w] |= patch & solid[y:y + h, x:x + w]
            if not joined or rounds == JOIN_ROUNDS:
                break
            over = filled_hull(arm)
            rows, cols, near = _dilated(over, self._beside_disc)
            held = np.flatnonzero(np.bincount(blobs[rows, cols][near], minlength=n_blobs)[1:]) + 1
            if len(held):
                over |= _labelled(blobs, held, n_blobs)
            rows, cols, grown = _grown_part(over, ARM_JOIN_MM * SCALE)
            touching = np.bincount(components[rows, cols][grown], minlength=n) > 0
            joined = [k for k in whys if touching[k]]
            for k in joined:
                hand.append(k)
                del whys[k]
        return arm, every

    def _under_hand(self, hand: np.ndarray, blobs: np.ndarray, doubtful: dict[str, str]) -> None:
        """Doubt every place a hand or arm (``hand``: its outline, filled) lies on, or reaches
        within a few mm of, with the blobs of piece colours that touch it (a sleeve or skin of
        a piece's colour, a piece half under a finger): what is under a hand is asked for,
        never guessed.  The arm's edge is seen, so its neighbours are not doubted for its sake
        (as a reflection's are), nor a piece's neighbours for the piece's sake."""
        arm = hand & (blobs == 0)
        rows, cols, near = _dilated(arm, self._beside_disc)
        touching = np.unique(blobs[rows, cols][near])
        touching = touching[touching > 0]
        over = hand.copy()
        over[rows, cols] |= near
        if len(touching):
            over |= np.isin(blobs, touching)
        for s in _places(self._spot_map[over]):
            doubtful[self._spot_ids[int(s)]] = UNDER_A_HAND

    def _bare_within(self, hull: np.ndarray, blobs: np.ndarray, doubtful: dict[str, str]) -> None:
        """Doubt the places a quarter or more within ``hull`` (the arm's outline closed over a
        hand's width, past its outline) that hold no blob of a piece's colour.  A hand of the
        print's own lightness (the palest skin over a pale place) shows only its rim: between
        its edges, beyond where the outline closes over them, it passes for the empty board,
        and a piece under its fingertips would be read as nothing.  (Not the arm's convex
        hull: a hand wider than the forearm makes it a sliver along the whole arm.)  A piece
        seen there is read as it is seen."""
        if not hull.any():
            return
        spots = self._spot_map
        within = np.bincount(spots[hull & (spots >= 0)], minlength=len(self._spot_ids))
        whole = np.bincount(spots[spots >= 0], minlength=len(self._spot_ids))
        for s in np.flatnonzero(within >= HULL_SHARE * np.maximum(whole, 1)):
            spot_id = self._spot_ids[int(s)]
            y0, x0, y1, x1 = (int(v) for v in self._spot_boxes[int(s)])
            if spot_id not in doubtful and not (blobs[y0:y1, x0:x1] > 0).any():
                doubtful[spot_id] = UNDER_A_HAND

    def _shadow_coloured_near_arm(self, placed: list) -> list[str]:
        """The places of pieces read (``placed``: place, piece, x and y mm) of a shadow's
        colour (black: no hue, darker than mid-grey) past the far end of an arm reaching in
        across the margin (``ArmEnd.past_its_end``): the arm is seen short of a fingertip
        paler or darker than the print, and the shade on or under that tip is the colour of
        a dark piece, so there a dark piece is not vouched for (beside the forearm, it is)."""
        if self._arm_seen is None:
            return []
        arm, (cx, cy) = self._arm_seen
        shadows = shadow_colours(self._piece_names, self._piece_bgr)
        dark = [(spot, (x_mm + MARGIN_MM) * SCALE, (y_mm + MARGIN_MM) * SCALE)
                for spot, piece, x_mm, y_mm, _conf in placed if piece.colour in shadows]
        if not dark:
            return []
        end = ArmEnd.of(arm, (cx, cy))
        if end is None:  # the arm's patches were all too thin to be its solid part: no far end seen
            return []
        return sorted({spot for spot, x, y in dark if end.past_its_end(x, y, SCALE)})

    def _crosses_margin(self, small: np.ndarray) -> bool:
        """Something lies across the white margin (an arm reaching in from a seat)."""
        return self._margin_crossing(small) is not None

    def _margin_crossing(self, small: np.ndarray) -> np.ndarray | None:
        """Where something lies across the white margin (an arm reaching in from a seat):
        the margin's samples of another tint than the paper's, or much darker than the light
        there, or of a slightly other tint and darker (a reflection makes the paper lighter,
        not darker), or warmer than the paper (the palest skin: red's share 0.07 above blue's,
        0.03-0.04 off the paper's tint, and in its own shadow no darker than the paper's light
        there), as a mask of the sampled board; None when too few are."""
        if self.light.paper is None:
            return None
        tint, level = self.light.paper
        ys, xs = self._margin_samples
        samples = small[ys, xs].astype(np.float32)
        total = channel_sum(samples)  # (the mean, sum and most channel by channel: ``channel_sum``)
        luma, own = total / 3, samples / np.maximum(total, 1)[:, None]
        off = channel_max(np.abs(own - tint))
        odd = (off > TINT_OFF) | (luma < 0.6 * level) | ((off > TINT_OFF_DARKER) & (luma < DARKER * level))
        # skin is warmer than paper under any lamp: red's share above blue's by more than the
        # paper's, judged where no channel clipped (a lamp of another colour clips the paper's
        # strongest channel, which bends its tint where it clipped)
        clear = channel_all(samples < CLIPPED)
        if int(clear.sum()) >= 30:
            paper = np.median(own[clear & (luma >= np.median(luma[clear]))], axis=0)
            odd |= clear & ((own[:, 2] - own[:, 0]) - (paper[2] - paper[0]) > WARMER)
        if int(odd.sum()) <= max(20, 0.025 * len(odd)):
            return None
        crossing = np.zeros(small.shape[:2], np.uint8)
        crossing[ys[odd], xs[odd]] = 1
        return crossing

    def _reaches_edge(self, x: int, y: int, w: int, h: int) -> bool:
        """Does a patch touch the board's edge (as an arm reaching in from a seat does)?"""
        m = int(round(MARGIN_MM * SCALE))
        x1 = m + int(self.layout.width * SCALE)
        y1 = m + int(self.layout.height * SCALE)
        return x <= m + 2 or y <= m + 2 or x + w >= x1 - 2 or y + h >= y1 - 2

    def _reflection_reaches(self, spot_id: str) -> bool:
        """Does a reflection measured on the board reach a place (its rim too) as strongly as
        a reflection is told by (``GLARE_MIN``)?  Fainter, it hides nothing there: a piece's
        own reading weighs what lift it has.  Without a measure of it (a patch too bright to
        measure), say it may."""
        if self.glare.cells is None:
            return True
        y0, x0, y1, x1 = (int(v) for v in self._spot_boxes[self._spot_index[spot_id]])
        return self.glare.on(x0, y0, x1 - x0, y1 - y0, faint=True) >= GLARE_MIN


def _opened_components(unexplained: np.ndarray) -> tuple[np.ndarray, int, np.ndarray, np.ndarray] | None:
    """``unexplained`` opened by a 3x3 square (specks and threads a pixel wide taken off) and
    its 8-connected components (count, labels, boxes as board pixels), worked out in the box
    round what is unexplained only (a few px of nothing round it, starting on an even row
    and column: the block scan labels every component as over the whole board); None when
    nothing is left."""
    rows, cols = _box(unexplained, 2)
    if rows is None:
        return None
    rows, cols = slice(rows.start & ~1, rows.stop), slice(cols.start & ~1, cols.stop)
    square3 = np.ones((3, 3), np.uint8)
    part = cv2.morphologyEx(unexplained[rows, cols].astype(np.uint8), cv2.MORPH_OPEN, square3)
    if not part.any():
        return None
    n, labels, stats, _ = connected_components(part)
    mask = np.zeros(unexplained.shape, np.uint8)
    mask[rows, cols] = part
    components = np.zeros(unexplained.shape, np.int32)
    components[rows, cols] = labels
    stats[:, cv2.CC_STAT_LEFT] += cols.start
    stats[:, cv2.CC_STAT_TOP] += rows.start
    return mask, n, components, stats


def _limb(arm: np.ndarray, crossing: np.ndarray, flat: np.ndarray) -> np.ndarray:
    """The forearm between where it crosses the margin and what is seen of it on the board:
    a forearm is straight, and a sleeve or skin of the board's own colours shows nothing of
    itself over a surface of those colours.  For each crossing, what is of the colour it
    shows on the margin within the hull of it and the arm seen within a forearm's length
    (each worked out in a window a forearm's length round the crossing, and a few px more
    than ``_grown`` looks at)."""
    limb = np.zeros(arm.shape, bool)
    # the margin's samples lie a few px apart: those of one crossing are joined (worked out
    # round the samples only: the dilation reaches half the join's width past them)
    labels = np.zeros(arm.shape, np.int32)
    rows, cols = _box(crossing, CROSSING_JOIN.shape[0] // 2 + 1)
    if rows is None:
        return limb
    n, labels[rows, cols], stats, _ = connected_components(cv2.dilate(crossing[rows, cols], CROSSING_JOIN))
    stats = stats + np.array([cols.start, rows.start, 0, 0, 0], stats.dtype)
    reach = int(FOREARM_MM * SCALE) + 4
    height, width = arm.shape
    for k in range(1, n):
        x, y, w, h = (int(v) for v in stats[k, :4])
        window = (slice(max(0, y - reach), min(height, y + h + reach)),
                  slice(max(0, x - reach), min(width, x + w + reach)))
        at = (labels[window] == k) & (crossing[window] > 0)
        near = arm[window] & _grown(at, FOREARM_MM * SCALE)
        if not near.any():
            continue
        hull = filled_hull(near | at)
        bx, by, bw, bh = cv2.boundingRect(hull.astype(np.uint8))
        box = (slice(by, by + bh), slice(bx, bx + bw))
        seen = flat[window]
        colour = np.median(seen[at], axis=0).astype(np.int16)
        like = _within(seen[box], colour, SLEEVE_LIKE)
        limb[window][box] |= hull[box] & like
    return limb


def _filled_outline(mask: np.ndarray, px: float) -> np.ndarray:
    """A mask closed over gaps narrower than twice ``px`` and with its holes filled: an arm
    and hand with the palm a rim leaves unexplained (its middle is of the board's colour),
    not the hull's slivers beside an arm that meets something on its way."""
    grown = _grown(mask, px, exact=True).astype(np.uint8)  # then shrunk as much: exactly
    closed = np.zeros(mask.shape, np.uint8)
    rows, cols = _box(grown, 1)  # worked out round it only: a ring of nothing round it
    if rows is None:
        return closed > 0
    part = (cv2.distanceTransform(grown[rows, cols], cv2.DIST_L2, cv2.DIST_MASK_5) > px).astype(np.uint8)
    contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(part, contours, -1, 1, cv2.FILLED)
    closed[rows, cols] = part
    return closed > 0


def _places(indices: np.ndarray) -> np.ndarray:
    """The places (indices of the board's map, -1 for none) among some of its pixels, each
    once, in order: a count of each, not a sort of every pixel (an arm covers thousands)."""
    if not indices.size:
        return indices[:0]
    return np.flatnonzero(np.bincount(indices.ravel() + 1)[1:])


def _labelled(labels: np.ndarray, which: list[int] | np.ndarray, n: int) -> np.ndarray:
    """Where ``labels`` is one of ``which`` (labels below ``n``): a look-up, not ``np.isin``."""
    lut = np.zeros(n, bool)
    lut[which] = True
    return lut[labels]


def _box(mask: np.ndarray, pad: int) -> tuple[slice, slice] | tuple[None, None]:
    """The rows and columns of a mask's box, ``pad`` px round it (within the mask); None, None
    for an empty mask.  Work on a mask's box gives what work on the whole mask does when what
    it does reaches no further than ``pad`` (a dilation, a distance to nothing)."""
    x, y, w, h = cv2.boundingRect(mask.view(np.uint8) if mask.dtype == bool else mask.astype(np.uint8))
    if not w:
        return None, None
    return slice(max(0, y - pad), y + h + pad), slice(max(0, x - pad), x + w + pad)


def _dilated(mask: np.ndarray, kernel: np.ndarray) -> tuple[slice, slice, np.ndarray]:
    """A mask dilated by ``kernel`` (centred), worked out round the mask only: the rows and
    columns it can reach and, there, where it reaches (all False for an empty mask)."""
    rows, cols = _box(mask, max(kernel.shape) // 2 + 1)
    if rows is None:
        return slice(0, 0), slice(0, 0), np.zeros((0, 0), bool)
    return rows, cols, cv2.dilate(mask[rows, cols].astype(np.uint8), kernel) > 0


def _within(pixels: np.ndarray, colour: np.ndarray, levels: int) -> np.ndarray:
    """Where every channel of ``pixels`` lies within ``levels`` of ``colour`` (a range test,
    not a difference of every pixel widened to int16)."""
    lo = tuple(float(c) - levels for c in colour)
    hi = tuple(float(c) + levels for c in colour)
    return cv2.inRange(pixels, lo, hi) > 0


def _grown(mask: np.ndarray, px: float, exact: bool = False) -> np.ndarray:
    """A mask grown by a disc of radius ``px`` (see ``_grown_part``), as a whole mask."""
    out = np.zeros(mask.shape, bool)
    rows, cols, part = _grown_part(mask, px, exact)
    out[rows, cols] = part
    return out


def _grown_part(mask: np.ndarray, px: float, exact: bool = False) -> tuple[slice, slice, np.ndarray]:
    """A mask grown by a disc of radius ``px``, from its distance transform: as quick for a
    wide disc (an arm's shadow, 25-45 mm) as for a narrow one, where a dilation is not.  A
    wide one is grown at half size (a pixel of the half counts if any of its four does), a
    pixel or two wider than asked, never narrower (unless ``exact``).  Only the mask's box and
    its reach are looked at: returned are its rows and columns, and the grown mask there."""
    rows, cols = _box(mask, int(px) + 3)
    if rows is None:
        return slice(0, 0), slice(0, 0), np.zeros((0, 0), bool)
    part = mask[rows, cols]
    if px < WIDE_PX or exact:
        dist = cv2.distanceTransform((part == 0).astype(np.uint8), cv2.DIST_L2, cv2.DIST_MASK_5)
        return rows, cols, dist <= px
    ph, pw = part.shape
    half = (pw + 1) // 2, (ph + 1) // 2
    any_of_four = cv2.resize(part.astype(np.uint8) * 255, half, interpolation=cv2.INTER_AREA) > 0
    near = cv2.distanceTransform((~any_of_four).astype(np.uint8), cv2.DIST_L2, cv2.DIST_MASK_5) <= px / 2 + 1
    return rows, cols, cv2.resize(near.astype(np.uint8), (pw, ph), interpolation=cv2.INTER_NEAREST) > 0
