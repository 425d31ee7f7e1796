"""Frames in, board snapshots out.

The board is found by its four ArUco markers and a homography, re-detected
only near where the markers were last seen (a full search costs far more than
the rest of the read).  The frame is warped to a top-down picture, its light
flattened against the white margin, and every pixel given the nearest
calibrated colour.  Pieces are connected blobs of a piece colour; a blob's
spot is where its centre falls; its pips are the holes inside it.  An arm over
the board (a large skin-coloured blob, or a hidden marker) makes the frame
unusable, never a board.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from companion.games.base import BoardView, Layout, Piece, make_view
from companion.vision.faces import FaceTemplates
from companion.vision.geometry import (
    MARGIN_MM,
    MARKER_IDS,
    aruco_dictionary,
    canvas_size_mm,
    marker_corners_mm,
)
from companion.vision.palette import PIECE_COLOURS, SURFACE_COLOURS
from companion.vision.render import SKIN_BGR, piece_slots

HAND = "hand"


def bgr_to_lab(colour: tuple[int, int, int]) -> np.ndarray:
    pixel = np.array([[colour]], np.uint8)
    return cv2.cvtColor(pixel, cv2.COLOR_BGR2LAB)[0, 0].astype(np.float32)


@dataclass
class ColourProfile:
    """Calibrated colours (Lab) by name: pieces, the board's surfaces, and skin."""

    pieces: dict[str, list[float]]
    surfaces: dict[str, list[float]]
    skin: list[float]

    @classmethod
    def default(cls) -> ColourProfile:
        """The synthetic renderer's paints; a real table's come from calibration."""
        return cls(
            {k: bgr_to_lab(v).tolist() for k, v in PIECE_COLOURS.items()},
            {k: bgr_to_lab(v).tolist() for k, v in SURFACE_COLOURS.items()}
            | {"outline": bgr_to_lab((95, 125, 145)).tolist()},
            bgr_to_lab(SKIN_BGR).tolist(),
        )

    @classmethod
    def load(cls, path: str | Path) -> ColourProfile:
        data = json.loads(Path(path).read_text())
        return cls(data["pieces"], data["surfaces"], data["skin"])

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(
            {"pieces": self.pieces, "surfaces": self.surfaces, "skin": self.skin}, indent=1))


@dataclass
class Reading:
    """One frame's verdict: a board, or why there is none."""

    view: BoardView | None
    hand: bool = False
    markers_found: int = 0
    problem: str = ""


@dataclass
class BoardReader:
    """Reads one game's board from camera frames."""

    layout: Layout
    profile: ColourProfile = field(default_factory=ColourProfile.default)
    px_per_mm: float = 2.0
    colours: tuple[str, ...] | None = None  # piece colours this game uses (all if None)
    faces: FaceTemplates | None = None  # learnt icons; None: marks are counted as pips
    keep_masks: bool = False  # calibration: keep each piece's colour mask by spot

    def __post_init__(self) -> None:
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        self._detector = cv2.aruco.ArucoDetector(aruco_dictionary(), params)
        self._last: dict[int, np.ndarray] | None = None
        self._homography: np.ndarray | None = None
        self.masks: dict[str, list[tuple[str, np.ndarray]]] = {}
        total_w, total_h = canvas_size_mm(self.layout)
        self._size = (int(total_w * self.px_per_mm), int(total_h * self.px_per_mm))
        self._small_size = (self._size[0] // 2, self._size[1] // 2)
        self._gain: np.ndarray | None = None
        self._frames_since_fit = 0
        self._targets = marker_corners_mm(self.layout)
        self._templates = self._build_marker_templates()
        names = list(self.colours or self.profile.pieces)
        self._piece_names = names
        centroids = [self.profile.pieces[n] for n in names]
        centroids += list(self.profile.surfaces.values()) + [self.profile.skin]
        self._centroids = np.array(centroids, np.float32)
        self._skin_label = len(centroids) - 1
        self._weights = np.array([0.5, 1.0, 1.0], np.float32)  # lightness counts for less
        self._lut = self._build_lut()
        self._spot_index = self._build_spot_index()
        self._margin_mask = self._build_margin_mask()
        half = self.px_per_mm / 2
        self._outside = np.ones((self._small_size[1], self._small_size[0]), bool)
        scale = self.px_per_mm / 2
        self._smallest_px = min(self._min_area.values(), default=0.0) * scale * scale
        ys, xs = np.nonzero(self._margin_mask)
        step = max(1, len(xs) // 3000)
        self._margin_samples = (ys[::step], xs[::step])
        m = int(round(MARGIN_MM * half))
        self._outside[m:m + int(self.layout.height * half), m:m + int(self.layout.width * half)] = False

    # ------------------------------------------------------------------ markers
    def _build_marker_templates(self) -> list[tuple[slice, slice, np.ndarray]]:
        """Each marker's expected black/white cells where the warped image should show them."""
        dictionary = aruco_dictionary()
        out = []
        half = self.px_per_mm / 2
        for marker_id, corners in self._targets.items():
            x0, y0 = (corners[0] * half).round().astype(int)
            size = int(round((corners[1][0] - corners[0][0]) * half))
            bits = cv2.aruco.generateImageMarker(dictionary, marker_id, size) > 127
            pad = max(2, size // 12)  # judge cell centres only: edges blur under warping
            out.append((slice(y0 + pad, y0 + size - pad), slice(x0 + pad, x0 + size - pad),
                        bits[pad:size - pad, pad:size - pad]))
        return out

    def _markers_fit(self, top: np.ndarray) -> bool:
        """Does the last homography still put every marker where it is printed (half scale)?"""
        for rows, cols, bits in self._templates:
            patch = cv2.cvtColor(top[rows, cols], cv2.COLOR_BGR2GRAY)
            if patch.shape != bits.shape:
                return False
            threshold = (float(patch.max()) + float(patch.min())) / 2
            if float(patch.max()) - float(patch.min()) < 60:
                return False  # covered: a hand or a shadow, not ink on paper
            if np.mean((patch > threshold) != bits) > 0.12:
                return False
        return True

    def _detect(self, gray: np.ndarray) -> dict[int, np.ndarray]:
        found: dict[int, np.ndarray] = {}
        if self._last is not None:  # look only where the markers were
            for marker_id, corners in self._last.items():
                x0, y0 = np.maximum(corners.min(axis=0) - 40, 0).astype(int)
                x1, y1 = (corners.max(axis=0) + 40).astype(int)
                roi = gray[y0:y1, x0:x1]
                if roi.size == 0:
                    continue
                c, ids, _ = self._detector.detectMarkers(roi)
                if ids is not None:
                    for quad, mid in zip(c, ids.ravel(), strict=True):
                        if int(mid) == marker_id:
                            found[marker_id] = quad.reshape(4, 2) + np.array([x0, y0], np.float32)
            if len(found) == len(MARKER_IDS):
                return found
        corners, ids, _ = self._detector.detectMarkers(gray)
        found = {}
        if ids is not None:
            for quad, mid in zip(corners, ids.ravel(), strict=True):
                if int(mid) in MARKER_IDS:
                    found[int(mid)] = quad.reshape(4, 2)
        return found

    # ------------------------------------------------------------------ reading
    def read(self, frame: np.ndarray | None) -> Reading:
        """Read one BGR frame; a garbled or empty frame is a Reading with a problem."""
        if frame is None or not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 \
                or frame.shape[0] < 32 or frame.shape[1] < 32:
            return Reading(None, problem="not a colour camera frame")
        if frame.dtype != np.uint8:
            return Reading(None, problem=f"frame has pixel type {frame.dtype}, expected uint8")
        if self._homography is not None:
            small = self._warp_small(frame, self._homography)
            if self._markers_fit(small):
                return self._read_small(small, self._frame_cropper(frame, self._homography))
            self._homography = None
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        markers = self._detect(gray)
        if len(markers) < len(MARKER_IDS):
            self._last = None
            hidden = sorted(set(MARKER_IDS) - set(markers))
            return Reading(None, hand=bool(markers), markers_found=len(markers),
                           problem=f"board markers {hidden} not visible")
        self._last = markers
        src = np.concatenate([markers[i] for i in MARKER_IDS]).astype(np.float32)
        dst = np.concatenate([self._targets[i] for i in MARKER_IDS]) * self.px_per_mm
        homography, _ = cv2.findHomography(src, dst)
        if homography is None:
            return Reading(None, markers_found=4, problem="markers do not form a board")
        self._homography = homography
        self._gain = None  # the light is fitted afresh for a new view of the board
        small = self._warp_small(frame, homography)
        return self._read_small(small, self._frame_cropper(frame, homography))

    def read_topdown(self, top: np.ndarray) -> Reading:
        """Read a top-down picture of the canvas (margin included) at ``px_per_mm``."""
        small = cv2.resize(top, (self._small_size[0], self._small_size[1]), interpolation=cv2.INTER_AREA)
        self._gain = None

        def crop(x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
            return top[max(0, y0):y1, max(0, x0):x1]

        return self._read_small(small, crop)

    def _warp_small(self, frame: np.ndarray, homography: np.ndarray) -> np.ndarray:
        """The board at half the reading scale: enough for colours, four times cheaper."""
        half = np.diag([0.5, 0.5, 1.0]) @ homography
        return cv2.warpPerspective(frame, half, self._small_size)

    def _frame_cropper(self, frame: np.ndarray, homography: np.ndarray):  # noqa: ANN202
        """Full-scale top-down crops warped straight from the frame, only where pips are read."""
        def crop(x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
            shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
            return cv2.warpPerspective(frame, shift @ homography, (x1 - x0, y1 - y0))
        return crop

    def _read_small(self, small: np.ndarray, crop_full) -> Reading:  # noqa: ANN001
        self._frames_since_fit += 1
        if self._gain is None or self._frames_since_fit >= 15:  # light changes slowly
            self._gain = self._light_gain(small)
            self._frames_since_fit = 0
        gain = self._gain
        flat = np.clip(small * gain, 0, 255).astype(np.uint8)
        labels = self._classify(flat)
        labels[self._outside] = self._skin_label + 1  # the margin holds no pieces
        scale = 0.5 * self.px_per_mm
        # an arm over the board: a skin-coloured blob larger than any piece could be
        skin = (labels == self._skin_label).astype(np.uint8)
        if skin.any():
            n, _, stats, _ = cv2.connectedComponentsWithStats(skin, connectivity=8)
            if n > 1 and stats[1:, cv2.CC_STAT_AREA].max() > (40 * scale) ** 2:
                return Reading(None, hand=True, markers_found=4, problem="a hand is over the board")
        n_pieces = len(self._piece_names)
        # close first, so that a row of pips cannot cut a small card in two; then open, so
        # that printed lines and noise do not count as pieces
        kernel = np.ones((3, 3), np.uint8)
        mask = cv2.morphologyEx((labels < n_pieces).astype(np.uint8), cv2.MORPH_CLOSE, kernel)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
        n, components, stats, centres = cv2.connectedComponentsWithStats(mask, connectivity=8)
        pieces: dict[str, list[Piece]] = {}
        for k in range(1, n):
            x, y, w, h, area_px = stats[k]
            if area_px < self._smallest_px:
                continue
            inside = labels[y:y + h, x:x + w][components[y:y + h, x:x + w] == k]
            votes = np.bincount(inside, minlength=n_pieces)[:n_pieces]
            order = np.argsort(votes)[::-1]
            if votes[order[1]] > 0.25 * votes[order[0]]:
                # two colours touching: split this blob by colour
                blobs = self._split_by_colour(labels[y:y + h, x:x + w], x, y, order[:3])
            else:
                blobs = [(int(order[0]), centres[k], stats[k])]
            for index, (cx, cy), (bx, by, bw, bh, barea) in blobs:
                spot = self._spot_at(cx / scale, cy / scale)
                if spot is None:
                    continue
                if not self._min_area[spot] <= barea / (scale * scale) <= self._max_area[spot]:
                    continue
                x0, y0 = 2 * bx - 4, 2 * by - 4
                x1, y1 = 2 * (bx + bw) + 4, 2 * (by + bh) + 4
                crop = crop_full(max(0, x0), max(0, y0), x1, y1).astype(np.float32)
                local = cv2.resize(gain[max(0, y0) // 2:y1 // 2 + 1, max(0, x0) // 2:x1 // 2 + 1],
                                   (crop.shape[1], crop.shape[0]))
                lit = np.clip(crop * local, 0, 255).astype(np.uint8)
                pips = self._count_pips(lit, index)
                pieces.setdefault(spot, []).append(Piece(self._piece_names[index], pips))
                if self.keep_masks:
                    self.masks.setdefault(spot, []).append(
                        (self._piece_names[index], (self._classify(lit) == index).astype(np.uint8)))
        return Reading(make_view(pieces), markers_found=4)

    def _split_by_colour(self, labels: np.ndarray, x: int, y: int, indices: np.ndarray) -> list:
        out = []
        for index in indices:
            part = cv2.morphologyEx((labels == index).astype(np.uint8), cv2.MORPH_OPEN,
                                    np.ones((3, 3), np.uint8))
            n, _, stats, centres = cv2.connectedComponentsWithStats(part, connectivity=8)
            for k in range(1, n):
                if stats[k, cv2.CC_STAT_AREA] >= self._smallest_px:
                    bx, by, bw, bh, area = stats[k]
                    out.append((int(index), (centres[k][0] + x, centres[k][1] + y),
                                (bx + x, by + y, bw, bh, area)))
        return out

    # ------------------------------------------------------------------ helpers
    def _build_lut(self) -> np.ndarray:
        """Nearest calibrated colour for every BGR value at 6 bits a channel, computed once."""
        levels = (np.arange(64, dtype=np.uint8) << 2) + 2
        b, g, r = np.meshgrid(levels, levels, levels, indexing="ij")
        cube = np.stack([b, g, r], -1).reshape(-1, 1, 3)
        lab = cv2.cvtColor(cube, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
        lab *= self._weights
        centroids = self._centroids * self._weights
        # squared distances through |a|^2 - 2ab + |b|^2: one matrix product for all colours
        d = (lab * lab).sum(1, keepdims=True) - 2 * lab @ centroids.T + (centroids**2).sum(1)
        return d.argmin(1).astype(np.uint8)

    def _classify(self, img: np.ndarray) -> np.ndarray:
        q = (img >> 2).astype(np.int32)
        return self._lut[(q[..., 0] << 12) | (q[..., 1] << 6) | q[..., 2]]

    def _count_pips(self, crop: np.ndarray, index: int) -> int:
        if crop.size == 0:
            return 0
        mask = (self._classify(crop) == index).astype(np.uint8)
        if self.faces is not None:
            return self.faces.classify(mask)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if not contours:
            return 0
        body = max(contours, key=cv2.contourArea)
        filled = np.zeros_like(mask)
        cv2.drawContours(filled, [cv2.convexHull(body)], -1, 1, -1)
        body_area = cv2.contourArea(body)
        # pips sit well inside the piece: shave the rim, where edge pixels blur into the board
        rim = max(1, int(round(0.06 * np.sqrt(body_area))))
        filled = cv2.erode(filled, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8),
                           borderType=cv2.BORDER_CONSTANT, borderValue=0)
        holes = (filled & (1 - mask)).astype(np.uint8)
        holes = cv2.morphologyEx(holes, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        n, _, stats, _ = cv2.connectedComponentsWithStats(holes, connectivity=8)
        min_area = max(2.0, 0.004 * body_area)
        return int(sum(1 for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= min_area))

    def _light_gain(self, top: np.ndarray) -> np.ndarray:
        """Per-pixel gain that divides out uneven light, fitted to the margin's white paper."""
        ones = np.ones(top.shape, np.float32)
        ys, xs = self._margin_samples
        if len(xs) < 50:
            return ones
        samples = top[ys, xs].astype(np.float32)
        bright = samples.mean(1) > 80  # skip marker ink and shadows
        if bright.sum() < 30:
            return ones
        xs_f, ys_f = xs[bright] / top.shape[1], ys[bright] / top.shape[0]
        basis = np.stack([np.ones_like(xs_f), xs_f, ys_f, xs_f * ys_f, xs_f ** 2, ys_f ** 2], 1)
        # normal equations of a 6-term quadratic: a 6x6 solve instead of a full least squares
        coeffs = np.linalg.solve(basis.T @ basis + 1e-6 * np.eye(6), basis.T @ samples[bright])
        gy, gx = np.mgrid[0:1:24j, 0:1:32j]
        grid = np.stack([np.ones_like(gx), gx, gy, gx * gy, gx ** 2, gy ** 2], -1) @ coeffs
        field_ = cv2.resize(grid.astype(np.float32), (top.shape[1], top.shape[0]))
        return 250.0 / np.clip(field_, 20, None)

    def _build_margin_mask(self) -> np.ndarray:
        """Where the margin's white paper is, at half the reading scale."""
        half = self.px_per_mm / 2
        w, h = int(self._size[0] / 2), int(self._size[1] / 2)
        mask = np.zeros((h, w), np.uint8)
        m = int(MARGIN_MM * half)
        band = int(m * 0.15)
        mask[band:m - band, :] = 1
        mask[h - m + band:h - band, :] = 1
        mask[:, band:m - band] = 1
        mask[:, w - m + band:w - band] = 1
        for corners in self._targets.values():
            x0, y0 = (corners.min(0) * half - 3).astype(int)
            x1, y1 = (corners.max(0) * half + 3).astype(int)
            mask[max(0, y0):y1, max(0, x0):x1] = 0
        return mask

    def _build_spot_index(self) -> np.ndarray:
        """A map of board millimetres to spot numbers, for placing blob centres."""
        total_w, total_h = canvas_size_mm(self.layout)
        index = np.full((int(total_h) + 1, int(total_w) + 1), -1, np.int32)
        self._spot_ids = [s.id for s in self.layout.spots]
        self._min_area: dict[str, float] = {}
        self._max_area: dict[str, float] = {}
        for i, spot in enumerate(self.layout.spots):
            x0, y0 = int(spot.x + MARGIN_MM), int(spot.y + MARGIN_MM)
            index[y0:int(y0 + spot.h) + 1, x0:int(x0 + spot.w) + 1] = i
            radius = piece_slots(4, spot.w, spot.h)[0][2]
            self._min_area[spot.id] = 0.35 * np.pi * radius * radius
            self._max_area[spot.id] = 1.1 * spot.w * spot.h
        return index

    def _spot_at(self, x_mm: float, y_mm: float) -> str | None:
        xi, yi = int(x_mm), int(y_mm)
        if 0 <= yi < self._spot_index.shape[0] and 0 <= xi < self._spot_index.shape[1]:
            i = int(self._spot_index[yi, xi])
            return self._spot_ids[i] if i >= 0 else None
        return None
