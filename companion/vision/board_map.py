"""Where the places lie on the board as the reader samples it (1 px/mm): a map of the
places, the sizes of the pieces that may stand on them, their neighbours, the margin.

A part of ``BoardReader`` (``reader.py``): the methods here use its state.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.games.base import Piece
from companion.vision.board_print import piece_slots
from companion.vision.geometry import MARGIN_MM
from companion.vision.mark_peaks import connected_components
from companion.vision.reading import BESIDE_MM, SCALE, per_layout

HIDDEN_SHARE = 0.85  # a disc this share of a place's smallest piece, unseen, may hide one


class BoardMap:
    """The places' map, built once per layout; which place lies where."""

    def _build_spots(self) -> None:
        """Spot maps at the sampling scale; piece sizes; where the margin and the board are."""
        w, h = self._small_size
        self._spot_ids = [s.id for s in self.layout.spots]
        self._spot_map = np.full((h, w), -1, np.int32)
        self._min_area: dict[str, float] = {}
        self._max_area: dict[str, float] = {}
        self._spot_free = np.ones((h, w), bool)  # where no piece can stand (light anchors)
        self._spot_corners = np.zeros((h, w), bool)  # and the corners of spots, inside their outline
        boxes: list[tuple[int, int, int, int]] = []  # rows and columns of each, and a rim
        for i, spot in enumerate(self.layout.spots):
            x0, y0 = int((spot.x + MARGIN_MM) * SCALE), int((spot.y + MARGIN_MM) * SCALE)
            x1 = int((spot.x + MARGIN_MM + spot.w) * SCALE) + 1
            y1 = int((spot.y + MARGIN_MM + spot.h) * SCALE) + 1
            self._spot_map[y0:y1, x0:x1] = i
            self._spot_free[max(0, y0 - 3):y1 + 3, max(0, x0 - 3):x1 + 3] = False
            self._spot_corners[y0 + 2:y0 + 4, x0 + 2:x0 + 4] = True  # pieces stand clear of these
            self._spot_corners[y0 + 2:y0 + 4, x1 - 5:x1 - 3] = True
            self._spot_corners[y1 - 5:y1 - 3, x0 + 2:x0 + 4] = True
            self._spot_corners[y1 - 5:y1 - 3, x1 - 5:x1 - 3] = True
            boxes.append((max(0, y0 - 6), max(0, x0 - 6), y1 + 6, x1 + 6))
            radius = piece_slots(4, spot.w, spot.h)[0][2]
            self._min_area[spot.id] = 0.35 * np.pi * radius * radius
            self._max_area[spot.id] = 1.1 * spot.w * spot.h
        self._spot_boxes = np.array(boxes, np.int32).reshape(-1, 4)
        self._spot_index = {spot_id: i for i, spot_id in enumerate(self._spot_ids)}
        # the places within a few millimetres of each place
        b = self._spot_boxes + np.array([-BESIDE_MM, -BESIDE_MM, BESIDE_MM, BESIDE_MM]) * SCALE
        self._beside: dict[str, list[str]] = {}
        for i, spot_id in enumerate(self._spot_ids):
            y0, x0, y1, x1 = b[i]
            touching = (b[:, 0] < y1) & (b[:, 2] > y0) & (b[:, 1] < x1) & (b[:, 3] > x0)
            self._beside[spot_id] = [self._spot_ids[j] for j in np.flatnonzero(touching) if j != i]
        self._smallest_px = min(self._min_area.values(), default=0.0) * SCALE * SCALE
        self._largest_piece = max(self._max_area.values(), default=1.0)
        self._speck_px = max(12.0, 0.25 * self._smallest_px)
        # per pixel, the widest an unseen patch centred there may be and still show part of any
        # piece standing at the place there (no piece stands off its places); a share of the
        # radius, for a piece's rim blurs into the board
        # (each pixel is one place's, the last drawn there: looked up by its index in one pass,
        # not a pass over the map per place, which cost Swing State 90 ms a reader)
        self._hidden_radius = np.full((h, w), np.inf, np.float32)
        hidden = np.array([HIDDEN_SHARE * np.sqrt(self._min_area[spot.id] / (0.35 * np.pi)) * SCALE
                           for spot in self.layout.spots], np.float64)
        placed = self._spot_map >= 0
        self._hidden_radius[placed] = hidden[self._spot_map[placed]]
        largest_spot = max((s.w * s.h for s in self.layout.spots), default=1.0)
        self._hand_px = max(2.0 * largest_spot, 2500.0) * SCALE * SCALE
        self._outside = np.ones((h, w), bool)
        m = int(round(MARGIN_MM * SCALE))
        self._board_rect = (slice(m, m + int(self.layout.height * SCALE)),
                            slice(m, m + int(self.layout.width * SCALE)))
        self._outside[self._board_rect] = False
        self._inside_255 = np.where(self._outside, 0, 255).astype(np.uint8)  # (the board as cv2 masks it)
        self._board_area = self.layout.width * self.layout.height * SCALE * SCALE
        reach = 2 * int(round(BESIDE_MM * SCALE)) + 1
        self._beside_disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach))
        mask = np.zeros((h, w), np.uint8)
        band = int(m * 0.1)
        mask[band:m - band, :] = 1
        mask[h - m + band:h - band, :] = 1
        mask[:, band:m - band] = 1
        mask[:, w - m + band:w - band] = 1
        for corners in self._targets.values():
            cx0, cy0 = (corners.min(0) * SCALE - 3).astype(int)
            cx1, cy1 = (corners.max(0) * SCALE + 3).astype(int)
            mask[max(0, cy0):cy1, max(0, cx0):cx1] = 0
        self._margin_mask = mask

    def _spot_at(self, x_mm: float, y_mm: float) -> str | None:
        xi, yi = int((x_mm + MARGIN_MM) * SCALE), int((y_mm + MARGIN_MM) * SCALE)
        if 0 <= yi < self._spot_map.shape[0] and 0 <= xi < self._spot_map.shape[1]:
            i = int(self._spot_map[yi, xi])
            return self._spot_ids[i] if i >= 0 else None
        return None

    def _place_at(self, x_px: float, y_px: float) -> str | None:
        """The place under a point of the sampled board (px, margin included)."""
        return self._spot_at(x_px / SCALE - MARGIN_MM, y_px / SCALE - MARGIN_MM)

    def _fits(self, spot_id: str, area_px: float) -> bool:
        """Is a patch of this area (sampled px) one piece as large as this place's pieces?"""
        return self._min_area[spot_id] <= area_px / (SCALE * SCALE) <= self._max_area[spot_id]

    def _colours_read_near(self, x: int, y: int, w: int, h: int, reach_mm: float) -> set[str]:
        """The colours of the pieces read so far this frame (``_read_so_far``) on places within
        ``reach_mm`` of a box of the sampled board (x, y, w, h)."""
        reach = int(round(reach_mm * SCALE))
        near = self._spot_map[max(0, y - reach):y + h + reach, max(0, x - reach):x + w + reach]
        read: dict[str, list[Piece]] = getattr(self, "_read_so_far", {})
        return {piece.colour for i in np.unique(near) if i >= 0
                for piece in read.get(self._spot_ids[int(i)], ())}

    def _may_hold_all(self, spot_id: str, pieces: list[Piece]) -> bool:
        """``Spot.may_hold_all`` of these pieces' colours, by the game's rules: asked of every
        place read, every frame, and answered once a layout for each place and colours."""
        known: dict[tuple[str, ...], bool] = per_layout(self, "_holds_all_known", dict)
        key = (spot_id, *(piece.colour for piece in pieces))
        held = known.get(key)
        if held is None:
            held = known[key] = self.layout.spot(spot_id).may_hold_all(key[1:])
        return held

    def _may_hold(self, spot_id: str, colour: str) -> bool:
        """``Spot.may_hold``, answered once a layout for each place and colour (``_may_hold_all``)."""
        known: dict[tuple[str, str], bool] = per_layout(self, "_holds_known", dict)
        held = known.get((spot_id, colour))
        if held is None:
            held = known[spot_id, colour] = self.layout.spot(spot_id).may_hold(colour)
        return held

    def spot_label(self, spot_id: str) -> str:
        """The spot as the game names it (its printed label, else its id)."""
        try:
            spot = self.layout.spot(spot_id)
        except KeyError:
            return spot_id
        return spot.label or spot.id

    def blind_places(self, frame: np.ndarray) -> list[str]:
        """The places where a piece could lie wholly in what the camera clipped to white in
        every channel (a lamp's reflection): no camera sees what lies there."""
        top = self.sampled(frame)
        if top is None:
            return []
        blind = (top >= 250).all(axis=2) & ~self._outside
        if not blind.any():
            return []
        depth = cv2.distanceTransform(blind.astype(np.uint8), cv2.DIST_L2, 3)
        hidden = np.unique(self._spot_map[(depth >= self._hidden_radius) & (self._spot_map >= 0)])
        return [self._spot_ids[int(i)] for i in hidden]

    @property
    def spot_index_map(self) -> np.ndarray:
        """Per top-down pixel, the index of the spot there (-1: none)."""
        return self._spot_map

    def _within_board(self, region: tuple[slice, slice] | None) -> bool:
        """Does a region lie inside the board, clear of the margin and its markers?"""
        if region is None:
            return False
        rows, cols = region
        m = int(round(MARGIN_MM * SCALE))
        return rows.start >= m and cols.start >= m and rows.stop <= m + int(self.layout.height * SCALE) \
            and cols.stop <= m + int(self.layout.width * SCALE)

    def _doubt_under(self, mask: np.ndarray, corner: tuple[int, int], why: str, doubtful: dict[str, str],
                     whence: dict[str, list[tuple[int, int, int, int]]] | None) -> None:
        """Doubt (``why``) every place a mask over the sampled board touches (``corner``: the
        row and column of its top-left pixel), with the box of the part of the mask on it as
        what made it doubtful (not the whole mask's: two pieces' tops in one lamp's pool, far
        apart, would reach every place between them)."""
        if not mask.any():
            return
        y0, x0 = corner
        n, parts, stats, _ = cv2.connectedComponentsWithStats(mask.view(np.uint8), connectivity=8)
        spots = self._spot_map[y0:y0 + mask.shape[0], x0:x0 + mask.shape[1]]
        for k in range(1, n):
            x, y, w, h = (int(v) for v in stats[k, :4])
            under = spots[y:y + h, x:x + w][parts[y:y + h, x:x + w] == k]
            box = (y0 + y, y0 + y + h, x0 + x, x0 + x + w)
            for i in np.unique(under[under >= 0]):
                doubtful.setdefault(self._spot_ids[int(i)], why)
                if whence is not None:
                    whence.setdefault(self._spot_ids[int(i)], []).append(box)


def components_in_box(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``connected_components`` of a mask of the board, the same to the last bit, labelled
    only in the box round its pixels: OpenCV's statistics cost a pass over every pixel,
    background or not, and a board's pieces lie in part of it.  The box starts on an even row
    and column, so the block-based scan meets the same blocks in the same order: the same
    labels.  The blobs' boxes and centres are moved back to the mask's own place (a centre from
    its whole-number sums, as OpenCV takes it); the background's are of the whole mask."""
    h, w = mask.shape
    x, y, bw, bh = cv2.boundingRect(mask)
    x0, y0, x1, y1 = x & ~1, y & ~1, x + bw, y + bh
    if not bw or (x0, y0, x1, y1) == (0, 0, w, h):
        return connected_components(mask)
    box = mask[y0:y1, x0:x1]
    if ((y1 - y0 + 1) // 2) * ((x1 - x0 + 1) // 2) < 1 << 16:
        # labels of 16 bits, a quarter cheaper: a 2 x 2 block holds one component at most, so a
        # box of fewer blocks than that has fewer components (the same labels, widened below)
        n, part, stats, centres = cv2.connectedComponentsWithStatsWithAlgorithm(box, 8, cv2.CV_16U,
                                                                                cv2.CCL_BBDT)
    else:
        n, part, stats, centres = connected_components(box)
    labels = np.zeros((h, w), np.int32)
    labels[y0:y1, x0:x1] = part
    area = stats[1:, cv2.CC_STAT_AREA].astype(np.int64)[:, None]
    sums = np.rint(centres[1:] * area) + np.array([x0, y0]) * area  # each blob's columns, rows summed
    background = h * w - int(area.sum())
    # the background's box: the box's own background, and the strips round the box (all of it)
    boxes = [(0, 0, w - 1, y0 - 1)] * (y0 > 0) + [(0, y1, w - 1, h - 1)] * (y1 < h) \
        + [(0, y0, x0 - 1, y1 - 1)] * (x0 > 0) + [(x1, y0, w - 1, y1 - 1)] * (x1 < w)
    if stats[0, cv2.CC_STAT_AREA] > 0:
        left, top, width, height = (int(v) for v in stats[0, :4])
        boxes.append((x0 + left, y0 + top, x0 + left + width - 1, y0 + top + height - 1))
    left, top = min(b[0] for b in boxes), min(b[1] for b in boxes)
    right, bottom = max(b[2] for b in boxes), max(b[3] for b in boxes)
    stats = stats.copy()
    stats[1:, cv2.CC_STAT_LEFT] += x0
    stats[1:, cv2.CC_STAT_TOP] += y0
    stats[0] = (left, top, right - left + 1, bottom - top + 1, background)
    every = np.array([h * (w * (w - 1) // 2), w * (h * (h - 1) // 2)], np.float64)  # all columns, rows summed
    centres = np.vstack([(every - sums.sum(axis=0)) / background, sums / area])
    return n, labels, stats, centres


def grown_over(region: tuple[int, int, int, int], boxes: np.ndarray,
                reach: int = 3) -> tuple[int, int, int, int]:
    """``region`` (rows y0..y1, columns x0..x1) grown until every box (x, y, w, h; one a
    row) within ``reach`` pixels of it lies inside it: the rest stay ``reach`` or more away."""
    y0, y1, x0, x1 = region
    boxes = np.asarray(boxes, np.int64).reshape(-1, 4)
    bx, by = boxes[:, 0], boxes[:, 1]
    bx1, by1 = bx + boxes[:, 2], by + boxes[:, 3]
    while True:  # each pass takes in at least one more box, so at most len(boxes) passes
        near = (by < y1 + reach) & (by1 > y0 - reach) & (bx < x1 + reach) & (bx1 > x0 - reach)
        out = near & ((by < y0) | (by1 > y1) | (bx < x0) | (bx1 > x1))
        if not out.any():
            return y0, y1, x0, x1
        y0, y1 = min(y0, int(by[out].min())), max(y1, int(by1[out].max()))
        x0, x1 = min(x0, int(bx[out].min())), max(x1, int(bx1[out].max()))
