"""Frames in, board snapshots out, every position with a confidence.

The board is found by its ArUco markers (any two fix it) and a homography,
tracked between frames: the markers are looked for again only when the board
stops fitting where they were.  A lens profile from ``calibrate camera`` is
folded into a sampling map computed once per homography, so no frame is
ever undistorted whole.  The board is sampled top-down at 1 px/mm; its light
is flattened against the white margin (clipped pixels left out) and a tone
curve per channel is fitted to the board's own printed surfaces, so warm, cool,
dim and uneven light all come back to the calibrated colours.

Each pixel then gets the nearest calibrated colour, or none when it is far from
all of them.  Pieces are blobs of a piece colour placed by their centre.  What
neither a piece nor the empty board explains (the board as learnt when empty)
is a hand, an arm, a sleeve, a shadow or glare, whatever its colour: a large
patch of it is a hand over the board (no board at all), a small one makes the
spots under it doubtful, with the likely reason.  A doubtful position is never
guessed: the stabiliser commits nothing while one is doubtful.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
from companion.vision.lens import Lens
from companion.vision.palette import PIECE_COLOURS, SURFACE_COLOURS
from companion.vision.render import SKIN_BGR, piece_slots, render_topdown

HAND = "hand"
UNKNOWN = 255  # the label of a pixel near no calibrated colour
SCALE = 1.0  # px per mm of the board sampled for colours
CROP_SCALE = 4.0  # px per mm of the crops pips are counted on
OUTLINE_BGR = (95, 125, 145)
SHARPNESS_MIN = 1.35  # see BoardReader.sharpness
SHAKE_SKEW_MAX = 1.28  # focus blur is the same every way (1.16-1.22); a shake is not (1.3+)
_SQUARE3 = np.ones((3, 3), np.uint8)
_SQUARE5 = np.ones((5, 5), np.uint8)
_ANGLES = np.deg2rad(np.arange(0, 180, 30))
_COS, _SIN = np.cos(_ANGLES).astype(np.float32), np.sin(_ANGLES).astype(np.float32)
# a frame whose 4 mm cells all match the last one read within this is read the same
STILL_TOLERANCE = 16
BESIDE_MM = 4  # places this close (beyond their rims) to a hidden one are doubtful too
BESIDE = "next to"  # how a place doubted for its neighbour's sake says so
HIDING = {"glare?", "something over it (a hand, a shadow)?", "partly hidden?", "pieces touching?"}
GLARE_MIN = 20  # lighter than the empty board by this in every channel: a reflection
GLARE_FAINT = 8  # a reflection this faint on a piece with marks may still make a mark
GLARE_DOUBT = 50  # more reflection than this on a piece: its colour read only if it holds below
# how far the reflection measured round a piece may be off under it: a reading under glare is
# confident only if it is the same with the estimate scaled by each of these
GLARE_ERRORS = (0.5, 1.6)
LIGHT_PIECES = {"white", "yellow", "grey", "pink", "cyan"}  # what a reflection can look like
EMPTY_TOLERANCE = 24  # how far (per channel, of 255) the board may stray from the empty board


def bgr_to_lab(colour: tuple[int, int, int]) -> np.ndarray:
    pixel = np.array([[colour]], np.uint8)
    return cv2.cvtColor(pixel, cv2.COLOR_BGR2LAB)[0, 0].astype(np.float32)


@dataclass
class ColourProfile:
    """Calibrated colours (Lab) by name: pieces, the board's surfaces, and skin.

    ``skin`` is kept for the files ``calibrate colours`` wrote; hands are found by
    what the empty board does not explain, not by a skin colour.
    """

    pieces: dict[str, list[float]]
    surfaces: dict[str, list[float]]
    skin: list[float]

    @classmethod
    def default(cls) -> ColourProfile:
        """The synthetic renderer's paints; a real table's come from calibration."""
        return cls(
            {k: bgr_to_lab(v).tolist() for k, v in PIECE_COLOURS.items()},
            {k: bgr_to_lab(v).tolist() for k, v in SURFACE_COLOURS.items()}
            | {"outline": bgr_to_lab(OUTLINE_BGR).tolist()},
            bgr_to_lab(SKIN_BGR).tolist(),
        )

    @classmethod
    def load(cls, path: str | Path) -> ColourProfile:
        data = json.loads(Path(path).read_text())
        return cls(data["pieces"], data["surfaces"], data.get("skin", bgr_to_lab(SKIN_BGR).tolist()))

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(
            {"pieces": self.pieces, "surfaces": self.surfaces, "skin": self.skin}, indent=1))


@dataclass
class Reading:
    """One frame's verdict: a board (with the positions it is unsure of), or why there is none.

    ``view`` holds every position read confidently; ``doubtful`` names the spots
    that could not be read, with the likely reason ("glare?").  ``confidence``
    gives each spot read (pieces or empty) a value in [0, 1].
    """

    view: BoardView | None
    hand: bool = False
    markers_found: int = 0
    problem: str = ""
    doubtful: dict[str, str] = field(default_factory=dict)
    confidence: dict[str, float] = field(default_factory=dict)
    pieces_at: list[tuple[str, Piece, float, float, float]] = field(default_factory=list)

    @property
    def usable(self) -> bool:
        """A whole board, every position confident."""
        return self.view is not None and not self.doubtful


@dataclass
class _Blob:
    """What one blob of piece colours told: kept to be told again while its pixels stay."""

    odd: list[tuple[tuple[int, int], np.ndarray]] = field(default_factory=list)  # no piece's
    explained: list[tuple[int, int, int, int]] = field(default_factory=list)  # rows, columns
    doubts: list[tuple[str, str]] = field(default_factory=list)
    found: list[tuple[str, Piece, float, float, float]] = field(default_factory=list)


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


@dataclass
class BoardReader:
    """Reads one game's board from camera frames."""

    layout: Layout
    profile: ColourProfile = field(default_factory=ColourProfile.default)
    px_per_mm: float = 2.0  # the canvas scale of the homography (calibration draws at it)
    colours: tuple[str, ...] | None = None  # piece colours this game uses (all if None)
    faces: FaceTemplates | None = None  # learnt icons; None: marks are counted as pips
    keep_masks: bool = False  # calibration: keep each piece's colour mask by spot
    lens: Lens | dict | str | Path | None = None  # from ``calibrate camera``

    def __post_init__(self) -> None:
        if self.lens is not None and not isinstance(self.lens, Lens):
            self.lens = Lens.load(self.lens)
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        params.cornerRefinementWinSize = 4
        params.adaptiveThreshWinSizeMax = 33  # wider windows hold markers under blur and glare
        params.minMarkerPerimeterRate = 0.02
        params.polygonalApproxAccuracyRate = 0.05  # a lens bends the edges a little
        params.perspectiveRemovePixelPerCell = 6
        self._detector = cv2.aruco.ArucoDetector(aruco_dictionary(), params)
        self._homography: np.ndarray | None = None  # undistorted frame px -> canvas px
        self._last: dict[int, np.ndarray] = {}
        self.masks: dict[str, list[tuple[str, np.ndarray]]] = {}
        total_w, total_h = canvas_size_mm(self.layout)
        self._size = (int(total_w * self.px_per_mm), int(total_h * self.px_per_mm))
        self._small_size = (int(total_w * SCALE), int(total_h * SCALE))
        self._targets = marker_corners_mm(self.layout)
        names = list(self.colours or self.profile.pieces)
        self._piece_names = names
        self._surface_names = list(self.profile.surfaces)
        centroids = [self.profile.pieces[n] for n in names] + list(self.profile.surfaces.values())
        self._centroids = np.array(centroids, np.float32)
        self._weights = np.array([0.5, 1.0, 1.0], np.float32)  # lightness counts for less
        self._lut = self._build_lut()
        self._build_spots()
        self._build_reference(render_topdown(self.layout, {}, SCALE))
        self.empty_board: np.ndarray | None = None  # learnt from a photo; None: the drawn layout
        self._maps: tuple[np.ndarray, np.ndarray] | None = None
        self._last_reading: Reading | None = None
        self._last_cells: np.ndarray | None = None
        self._pip_cache: dict[tuple, tuple[np.ndarray, tuple[int, bool]]] = {}
        self._blob_cache: dict[tuple, tuple[np.ndarray, _Blob, int]] = {}
        self._marker_sharpness: list[tuple[np.ndarray, tuple[float, float] | None]] = []
        self._kept: _Kept | None = None
        self._paper: tuple[np.ndarray, np.ndarray] | None = None  # the margin's tint and light
        self._gain: np.ndarray | None = None
        self._tone: np.ndarray | None = None
        self._glare: np.ndarray | None = None  # the reflections taken off the last frame (2 mm cells)
        self._washed_out: np.ndarray | None = None  # where they clipped the picture
        self._glare_faint: np.ndarray | None = None  # all of the reflection measured, faint rims too
        self._pre_glare: np.ndarray | None = None  # this frame's board before reflections were taken off
        self._flat: np.ndarray | None = None  # this frame's board, light and reflections taken off
        self._frames_since_fit = 0
        self._margin_at_fit: np.ndarray | None = None
        self.frame_size: tuple[int, int] | None = None

    # ------------------------------------------------------------------ the empty board
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
        # glare is judged against the lightest the empty board shows nearby (a line drawn a
        # pixel off is no reflection), inside the board (the margin is the light model's)
        self._reference_half = cv2.pyrDown(cv2.dilate(top, np.ones((5, 5), np.uint8))).astype(np.int16)
        inside = cv2.pyrDown((~self._outside).astype(np.uint8) * 255) > 254
        self._inside_half = cv2.erode(inside.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        self._inside_u8 = self._inside_half.astype(np.uint8) * 255
        self._inside_count = int(self._inside_half.sum())
        self._glare_floor = np.clip(self._reference_half + 13, 0, 255).astype(np.uint8)
        self._white_half = np.full(self._glare_floor.shape, 255, np.uint8)
        # the colours each pixel of the empty board may show, allowing for a pixel or two of
        # misplacement and for light the flattening does not quite take out
        k3 = np.ones((5, 5), np.uint8)
        self._ref_lo = cv2.subtract(cv2.erode(top, k3), np.full(3, EMPTY_TOLERANCE, np.float64))
        self._ref_hi = cv2.add(cv2.dilate(top, k3), np.full(3, EMPTY_TOLERANCE, np.float64))
        self._ref_lit = cv2.add(cv2.dilate(top, k3), np.full(3, 13, np.float64))
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
                anchors[name] = (ys[::step], xs[::step])
        self._anchors = anchors
        ys, xs = np.nonzero(self._margin_mask)
        step = max(1, len(xs) // 3000)
        self._margin_samples = (ys[::step], xs[::step])

    def learn_empty(self, frame: np.ndarray) -> Reading:
        """Learn the empty board from a photo of it: a real board's print, paper and wear are
        not the drawn layout's, and hands and shadows are found against what it really shows.

        Before learning, artwork the drawn layout lacks may look like a hand inside the board;
        so the photo is judged after learning: refused (ValueError, nothing changed) when the
        board is not found, something lies across the margin (an arm), or pieces stand on it
        (the classifier still sees them: a piece learnt as board would confuse every frame).
        """
        self.read(frame)
        if self._maps is None:
            raise ValueError("the board was not found: all its markers must be in the photo")
        small = cv2.remap(frame, *self._maps, cv2.INTER_LINEAR)
        if self._crosses_margin(small):
            raise ValueError("something lies across the board's margin (an arm?): "
                             "photograph the empty board with nothing over it")
        before = (self._reference.copy(), self.empty_board)
        self.use_empty(self._flatten(small))
        reading = self.read(frame)
        pieces = sorted(reading.view or {})
        if reading.view is None or pieces:
            self._build_reference(before[0])
            self.empty_board = before[1]
            self._gain = None
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
        self._gain = None  # refit the light against the new anchors
        self._last_reading = None

    # ------------------------------------------------------------------ markers
    def _detect(self, gray: np.ndarray) -> dict[int, np.ndarray]:
        corners, ids, _ = self._detector.detectMarkers(gray)
        found: dict[int, np.ndarray] = {}
        if ids is not None:
            for quad, mid in zip(corners, ids.ravel(), strict=True):
                if int(mid) in MARKER_IDS and int(mid) not in found:
                    found[int(mid)] = quad.reshape(4, 2)
        return found

    def _locate(self, frame: np.ndarray) -> Reading | None:
        """Find the board from whatever markers show; None when it was found."""
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        markers = self._detect(gray)
        if len(markers) < 2:
            hidden = sorted(set(MARKER_IDS) - set(markers))
            self._homography = None
            return Reading(None, hand=False, markers_found=len(markers),
                           problem=f"board not found: markers {hidden} not visible (blur, or covered?)")
        ids = sorted(markers)
        src = np.concatenate([markers[i] for i in ids]).astype(np.float32)
        if self.lens is not None:
            src = self.lens.undistort_points(src)
        dst = np.concatenate([self._targets[i] for i in ids]) * self.px_per_mm
        homography, inliers = cv2.findHomography(src, dst, cv2.RANSAC, 3.0 * self.px_per_mm)
        if homography is None or inliers is None or inliers.sum() < 8:
            self._homography = None
            return Reading(None, markers_found=len(markers), problem="markers do not form a board")
        self._set_homography(homography, frame.shape)
        self._last = markers
        return None

    def _set_homography(self, homography: np.ndarray, shape: tuple[int, ...]) -> None:
        """Sampling maps for this view, computed once: board mm -> (distorted) frame px."""
        self._homography = homography
        self.frame_size = (shape[1], shape[0])
        w, h = self._small_size
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        pts = np.stack([(xs + 0.5) / SCALE, (ys + 0.5) / SCALE], -1).reshape(-1, 2) * self.px_per_mm
        frame_pts = self._canvas_to_frame(pts).reshape(h, w, 2)
        self._maps = cv2.convertMaps(frame_pts[..., 0].copy(), frame_pts[..., 1].copy(), cv2.CV_16SC2)
        self._marker_checks = self._build_marker_checks()
        self._gain = None
        self._tone = None
        self._last_reading = None
        self._last_cells = None
        self._pip_cache = {}
        self._blob_cache = {}
        self._marker_sharpness = []
        self._kept = None

    def _canvas_to_frame(self, pts: np.ndarray) -> np.ndarray:
        """Canvas px (at ``px_per_mm``) to frame px, through the lens when there is one."""
        assert self._homography is not None
        inverse = np.linalg.inv(self._homography)
        undistorted = cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float32), inverse)
        if self.lens is not None:
            return self.lens.distort_points(undistorted.reshape(-1, 2))
        return undistorted.reshape(-1, 2)

    def board_to_frame(self, x_mm: np.ndarray, y_mm: np.ndarray) -> np.ndarray:
        """Board millimetres (the layout's coordinates) to frame pixels, for drawing."""
        pts = np.stack([np.asarray(x_mm, np.float32) + MARGIN_MM,
                        np.asarray(y_mm, np.float32) + MARGIN_MM], -1).reshape(-1, 2)
        return self._canvas_to_frame(pts * self.px_per_mm)

    def _build_marker_checks(self) -> list[tuple[slice, slice, np.ndarray]]:
        """Each marker's black/white cells where the sampled board should show them."""
        dictionary = aruco_dictionary()
        out = []
        for marker_id, corners in self._targets.items():
            x0, y0 = (corners[0] * SCALE).round().astype(int)
            size = int(round((corners[1][0] - corners[0][0]) * SCALE))
            bits = cv2.aruco.generateImageMarker(dictionary, marker_id, size) > 127
            pad = max(2, size // 10)  # judge cell centres only: edges blur
            out.append((slice(y0 + pad, y0 + size - pad), slice(x0 + pad, x0 + size - pad),
                        bits[pad:size - pad, pad:size - pad]))
        return out

    def _still_fits(self, small: np.ndarray) -> bool:
        """Do at least two markers still sit where the homography puts them, and none elsewhere?"""
        gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        fits = 0
        for rows, cols, bits in self._marker_checks:
            patch = gray[rows, cols]
            lo, hi = float(patch.min()), float(patch.max())
            if hi - lo < 40:
                continue  # covered (a hand, a shadow): says nothing either way
            wrong = np.mean((patch > (lo + hi) / 2) != bits)
            if wrong > 0.2:
                if wrong > 0.35:
                    return False  # ink where the marker's white should be: the board moved
                continue
            fits += 1
        return fits >= 2

    # ------------------------------------------------------------------ reading
    def read(self, frame: np.ndarray | None) -> Reading:
        """Read one BGR frame; a garbled, empty, dark or boardless frame is a Reading with a problem."""
        if frame is None or not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 \
                or frame.shape[0] < 32 or frame.shape[1] < 32:
            return Reading(None, problem="not a colour camera frame")
        if frame.dtype != np.uint8:
            return Reading(None, problem=f"frame has pixel type {frame.dtype}, expected uint8")
        if self._maps is not None and self.frame_size == (frame.shape[1], frame.shape[0]):
            small = cv2.remap(frame, *self._maps, cv2.INTER_LINEAR)
            cells = cv2.pyrDown(cv2.pyrDown(small))  # 4 mm cells, sensor noise averaged out
            if self._last_reading is not None and self._last_cells is not None \
                    and int(cv2.absdiff(cells, self._last_cells).max()) <= STILL_TOLERANCE:
                return self._last_reading  # nothing on the table moved since the last read
            region = self._changed_region(cells)
            # the markers and the margin lie outside a change inside the board: as they were
            if (region is not None and self._within_board(region)) or self._still_fits(small):
                return self._remember(self._read_small(small, frame, region, cells), cells)
        problem = self._exposure_problem(frame)
        if problem:
            return Reading(None, problem=problem)
        missing = self._locate(frame)
        if missing is not None:
            self._maps = None
            return missing
        assert self._maps is not None
        small = cv2.remap(frame, *self._maps, cv2.INTER_LINEAR)
        cells = cv2.pyrDown(cv2.pyrDown(small))  # 4 mm cells, sensor noise averaged out
        return self._remember(self._read_small(small, frame, None, cells), cells)

    def _remember(self, reading: Reading, cells: np.ndarray) -> Reading:
        self._last_reading, self._last_cells = reading, cells
        return reading

    def _exposure_problem(self, frame: np.ndarray) -> str:
        """A frame too dark or too bright to find anything in, said plainly."""
        sample = frame[::16, ::16]
        luma = cv2.cvtColor(sample, cv2.COLOR_BGR2GRAY)
        if np.percentile(luma, 95) < 45:
            return "too dark to read: turn a light on over the table"
        if np.mean(luma >= 250) > 0.6:
            return "too bright to read: the picture is washed out (lamp in view, or exposure)"
        return ""

    def sharpness(self, small: np.ndarray) -> tuple[float, float]:
        """How sharp the markers' edges are in their most blurred direction (about 3.3 for a
        sharp frame, 1.5-2.2 under a sigma-2 blur, below 1.4 when the camera shook), and how
        much sharper its sharpest direction is (near 1 for focus blur, more for a shake)."""
        values = []
        seen: list[tuple[np.ndarray, tuple[float, float] | None]] = []
        for m, (rows, cols, _bits) in enumerate(self._marker_checks):
            bgr = small[max(0, rows.start - 3):rows.stop + 3, max(0, cols.start - 3):cols.stop + 3]
            last = self._marker_sharpness[m] if m < len(self._marker_sharpness) else None
            if last is not None and last[0].shape == bgr.shape and _alike(last[0], bgr, 40, 4.0):
                seen.append(last)  # the marker as it was: as sharp as it was
                if last[1] is not None:
                    values.append(last[1])
                continue
            value = self._edge_sharpness(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).astype(np.float32))
            seen.append((bgr.copy(), value))
            if value is not None:
                values.append(value)
        self._marker_sharpness = seen
        if not values:
            return 0.0, 1.0
        sharp, skew = np.median(np.array(values), axis=0)
        return float(sharp), float(skew)

    @staticmethod
    def _edge_sharpness(patch: np.ndarray) -> tuple[float, float] | None:
        """One marker's sharpness and skew (see ``sharpness``); None when it is covered."""
        flat = patch.ravel()
        n = len(flat)
        ends = np.partition(flat, (n // 20, n - n // 20))
        lo, hi = ends[n // 20], ends[n - n // 20]
        if hi - lo < 40:
            return None  # covered
        gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3).ravel()
        gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3).ravel()
        responses = np.abs(_COS[:, None] * gx[None, :] + _SIN[:, None] * gy[None, :])
        k = n - max(1, n // 50)
        per_angle = np.partition(responses, k, axis=1)[:, k]
        low = float(per_angle.min())
        return low / (hi - lo), float(per_angle.max()) / max(low, 1e-3)

    def _changed_region(self, cells: np.ndarray) -> tuple[slice, slice] | None:
        """The rows and columns of the board (1 px/mm) that hold every 4 mm cell changed since
        the last board read whole and clear (a hand that came and went is no change), widened
        to the whole places it touches: the rest is read as it was.  None when much of the
        board changed, or there is no such board (read it all)."""
        if self._kept is None or self._kept.cells.shape != cells.shape:
            return None
        step = STILL_TOLERANCE // 2
        changed = 255 - cv2.inRange(cv2.absdiff(cells, self._kept.cells), (0, 0, 0), (step, step, step))
        count = cv2.countNonZero(changed)
        if not count or count > 0.3 * changed.size:
            return None
        x, y, w, h = cv2.boundingRect(changed)
        pad = 8  # a piece's rim and shadow reach past the cells its body changed
        y0, y1 = max(0, 4 * y - pad), min(self._spot_map.shape[0], 4 * (y + h) + pad)
        x0, x1 = max(0, 4 * x - pad), min(self._spot_map.shape[1], 4 * (x + w) + pad)
        b = self._spot_boxes
        for _ in range(2):  # whole places: a piece is read with all of its place
            boxes = b[(b[:, 0] < y1) & (b[:, 2] > y0) & (b[:, 1] < x1) & (b[:, 3] > x0)]
            if not len(boxes):
                break
            y0, x0 = min(y0, int(boxes[:, 0].min())), min(x0, int(boxes[:, 1].min()))
            y1, x1 = max(y1, int(boxes[:, 2].max())), max(x1, int(boxes[:, 3].max()))
        return slice(y0, y1), slice(x0, x1)

    def _light_sample(self) -> np.ndarray:
        assert self._gain is not None
        return self._gain[::16, ::16].copy()

    def _same_light_as_kept(self) -> bool:
        """Is the light just fitted the one the kept board was flattened with (within 1 %
        and 2 levels)?  Light that drifts a little at each fit is caught when it adds up."""
        if self._kept is None or self._gain is None:
            return False
        gain, tone = self._kept.gain, self._kept.tone
        if tone is None or self._tone is None or gain.shape != self._gain[::16, ::16].shape:
            return False
        drift = np.abs(self._light_sample() - gain) / np.maximum(gain, 1e-3)
        return float(drift.max()) < 0.01 and int(cv2.absdiff(tone, self._tone).max()) <= 2

    def _within_board(self, region: tuple[slice, slice] | None) -> bool:
        """Does a region lie inside the board, clear of the margin and its markers?"""
        if region is None:
            return False
        rows, cols = region
        m = int(round(MARGIN_MM * SCALE))
        return rows.start >= m and cols.start >= m and rows.stop <= m + int(self.layout.height * SCALE) \
            and cols.stop <= m + int(self.layout.width * SCALE)

    def _read_small(self, small: np.ndarray, frame: np.ndarray,
                    region: tuple[slice, slice] | None = None, cells: np.ndarray | None = None) -> Reading:
        kept = self._kept
        sharp, skew = self.sharpness(small)
        if sharp < SHARPNESS_MIN or skew > SHAKE_SKEW_MAX:
            return Reading(None, markers_found=len(MARKER_IDS),
                           problem="too blurred to read: the camera or the table shook")
        self._frames_since_fit += 1
        ys, xs = self._margin_samples
        margin = small[ys[::4], xs[::4]].astype(np.float32)
        # light changes slowly (fitted again every 8 frames), but a lamp switched on or a
        # curtain drawn changes it at once (the margin changes: no change inside the board)
        sudden = not self._within_board(region) and self._light_changed(margin)
        if self._gain is None or self._frames_since_fit >= 8 or sudden:
            problem = self._fit_light(small)
            if problem:
                self._gain = None
                return Reading(None, markers_found=len(MARKER_IDS), problem=problem)
            self._frames_since_fit = 0
            self._margin_at_fit = margin
            if not self._same_light_as_kept():
                kept = self._kept = None  # the light changed: the whole board is flattened again
        part = self._read_part(small, region, kept) if region is not None and kept is not None else None
        if part is not None:
            flat, labels, as_empty = part
        else:
            flat = self._unglare(self._flatten(small))
            labels = self._classify(flat)
            # what the empty board does not explain: an unknown colour, or a surface colour
            # where the empty board shows another one
            as_empty = cv2.inRange(flat, self._ref_lo, self._ref_hi) > 0
        self._flat = flat
        n_pieces = len(self._piece_names)
        is_piece = labels < n_pieces
        unexplained = (labels == UNKNOWN) | (~is_piece & ~as_empty)
        if self._washed_out is not None:  # clipped by a reflection and not the empty board
            self._washed_out &= ~as_empty
            unexplained |= self._washed_out
            is_piece &= ~self._washed_out
        if (part is None or not self._within_board(region)) and self._crosses_margin(small):
            return Reading(None, hand=True, markers_found=len(MARKER_IDS),
                           problem="a hand is over the board")
        unexplained[self._outside] = False
        is_piece[self._outside] = False
        lit = self._lighter_than_empty(flat, region if part is not None else None)
        blobs = None
        if part is not None and region is not None:  # a window round the region; wider; the board
            blobs = self._blobs_in(is_piece, region, kept) or self._blobs_in(is_piece, region, kept, 60)
        if blobs is None:
            blobs = self._blobs_in(is_piece, None, None)
        n, components, stats, centres, near_pieces, carried = blobs
        pieces: dict[str, list[Piece]] = {}
        doubtful: dict[str, str] = {}
        confidence: dict[str, float] = {}
        placed: list[tuple[str, Piece, float, float, float]] = []
        pip_cache: dict[tuple, tuple[np.ndarray, tuple[int, bool]]] = {}
        odd = np.zeros(labels.shape, np.uint8)  # pixels of blobs that are no piece
        explained = np.zeros(labels.shape, bool)
        # a blob whose pixels (and the ring its glare check looks at) are as they were in the
        # last frame is read as it was then: only what changed on the table is read again
        reuse = self._glare is None and self._washed_out is None and not self.keep_masks
        blob_cache: dict[tuple, tuple[np.ndarray, _Blob, int]] = dict(carried)
        for _patch, blob, _area in carried.values():
            self._tell(blob, odd, explained, doubtful, pieces, placed, confidence)
        for k in range(1, n):
            x, y, w, h, area = (int(v) for v in stats[k])
            if area < self._smallest_px * 0.3:
                continue
            key = (x, y, w, h)
            hit = self._same_blob(key, area, small) if reuse else None
            if hit is not None:
                key, blob = hit[0], hit[1][1]
                blob_cache[key] = hit[1]
            else:
                patch = small[max(0, y - 8):y + h + 8, max(0, x - 8):x + w + 8]
                blob = self._read_blob(k, stats, centres, components, labels, lit, near_pieces,
                                       small, frame, pip_cache)
                if reuse:
                    blob_cache[key] = (patch.copy(), blob, area)
            self._tell(blob, odd, explained, doubtful, pieces, placed, confidence)
        self._blob_cache = blob_cache
        self._pip_cache = pip_cache
        unexplained &= ~explained
        unexplained |= odd > 0
        verdict = self._judge_unexplained(unexplained, flat, doubtful)
        if verdict is not None:
            return verdict
        if self._glare is None and self._washed_out is None and cells is not None:
            self._kept = _Kept(cells, flat, labels, as_empty, blob_cache, self._light_sample(),
                               None if self._tone is None else self._tone.copy())
        for spot_id, why in list(doubtful.items()):
            # whatever hides a place (a hand's edge, its shadow, a reflection's rim) reaches
            # past what was seen of it: the places beside it are not vouched for either (a
            # piece's own unclear marks hide nothing of its neighbours)
            if why in HIDING:
                for near in self._beside[spot_id]:
                    doubtful.setdefault(near, f"{BESIDE} {self.spot_label(spot_id)}, {why}")
        for spot_id in self._spot_ids:
            confidence.setdefault(spot_id, 0.0 if spot_id in doubtful else 1.0)
        for spot_id in doubtful:
            confidence[spot_id] = min(confidence.get(spot_id, 0.0), 0.3)
            pieces.pop(spot_id, None)
        return Reading(make_view(pieces), markers_found=len(MARKER_IDS), doubtful=doubtful,
                       confidence=confidence, pieces_at=placed)

    def _lighter_than_empty(self, flat: np.ndarray, region: tuple[slice, slice] | None) -> np.ndarray:
        """Where the board is lighter than the empty board (a reflection's halo): over the
        whole board, or as far round a changed region as its blobs' rings can reach."""
        if region is None:
            return cv2.inRange(flat, self._ref_lit, self._white)
        rows, cols = region
        reach = 72  # the wider window round the region (60) and a ring (7), and a pixel or two
        window = (slice(max(0, rows.start - reach), rows.stop + reach),
                  slice(max(0, cols.start - reach), cols.stop + reach))
        lit = np.zeros(flat.shape[:2], np.uint8)
        lit[window] = cv2.inRange(flat[window], self._ref_lit[window], self._white[window])
        return lit

    def _blobs_in(self, is_piece: np.ndarray, region: tuple[slice, slice] | None,
                  kept: _Kept | None, pad: int = 12) -> tuple | None:
        """Blobs of piece colours: over the whole board, or only those that reach into a
        changed region, with the kept board's blobs clear of it carried over as they were
        read.  None when a blob runs past the window around the region (read it all)."""
        h_all, w_all = is_piece.shape
        if region is None or kept is None:
            rows, cols = slice(0, h_all), slice(0, w_all)
        else:
            rows, cols = region
        # a window wider than the region: closing, opening and the ring a glare check looks
        # at see the region's neighbours as they are
        r0, r1 = max(0, rows.start - pad), min(h_all, rows.stop + pad)
        c0, c1 = max(0, cols.start - pad), min(w_all, cols.stop + pad)
        mask = cv2.morphologyEx(is_piece[r0:r1, c0:c1].astype(np.uint8), cv2.MORPH_CLOSE, _SQUARE3)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _SQUARE3)
        n, local, stats, centres = _components(mask)
        near_pieces = np.zeros(is_piece.shape, np.uint8)
        near_pieces[r0:r1, c0:c1] = cv2.dilate(mask, _SQUARE5)
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
        y0, y1, x0, x1 = _grown_over((rows.start, rows.stop, cols.start, cols.stop),
                                     [tuple(int(v) for v in s[:4]) for s in stats[1:]] + list(kept.blobs))
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
        local[~np.isin(local, np.flatnonzero(reaches))] = 0
        components = np.zeros(is_piece.shape, np.int32)
        components[r0:r1, c0:c1] = local
        stats[~reaches, 4] = 0  # left out of this frame's reading
        for (bx, by, bw, bh), entry in kept.blobs.items():
            if not (by < rows.stop and by + bh > rows.start and bx < cols.stop and bx + bw > cols.start):
                carried[(bx, by, bw, bh)] = entry
        return n, components, stats, centres, near_pieces, carried

    @staticmethod
    def _tell(blob: _Blob, odd: np.ndarray, explained: np.ndarray, doubtful: dict[str, str],
              pieces: dict[str, list[Piece]], placed: list, confidence: dict[str, float]) -> None:
        """Add what one blob told to the frame's reading."""
        for (oy, ox), part in blob.odd:
            odd[oy:oy + part.shape[0], ox:ox + part.shape[1]] |= part
        for y0, y1, x0, x1 in blob.explained:
            explained[y0:y1, x0:x1] = True
        for spot, why in blob.doubts:
            doubtful.setdefault(spot, why)
        for spot, piece, x_mm, y_mm, conf in blob.found:
            pieces.setdefault(spot, []).append(piece)
            placed.append((spot, piece, x_mm, y_mm, conf))
            confidence[spot] = min(confidence.get(spot, 1.0), conf)

    def _same_blob(self, key: tuple[int, int, int, int], area: int,
                   small: np.ndarray) -> tuple[tuple, tuple[np.ndarray, _Blob, int]] | None:
        """A blob of the last frame in the same box (give or take a pixel of rim as the light
        is refitted) whose pixels, where it stood, are as they were."""
        x, y, w, h = key
        for dx in (0, -1, 1):
            for dy in (0, -1, 1):
                for dw in (0, -1, 1):
                    for dh in (0, -1, 1):
                        old = (x + dx, y + dy, w + dw, h + dh)
                        hit = self._blob_cache.get(old)
                        if hit is None or abs(hit[2] - area) > max(6, 0.04 * area):
                            continue
                        ox, oy, ow, oh = old
                        patch = small[max(0, oy - 8):oy + oh + 8, max(0, ox - 8):ox + ow + 8]
                        if hit[0].shape != patch.shape:
                            continue
                        if _alike(hit[0], patch, 2 * STILL_TOLERANCE, STILL_TOLERANCE / 2):
                            return old, hit
                        return None  # the same blob, changed: read it again
        return None

    def _read_blob(self, k: int, stats: np.ndarray, centres: np.ndarray, components: np.ndarray,
                   labels: np.ndarray, lit: np.ndarray, near_pieces: np.ndarray, small: np.ndarray,
                   frame: np.ndarray, pip_cache: dict) -> _Blob:
        """One blob of piece colours: the pieces it holds, or the doubts it raises."""
        x, y, w, h, _area = (int(v) for v in stats[k])
        n_pieces = len(self._piece_names)
        out = _Blob()
        blob = (components[y:y + h, x:x + w] == k).astype(np.uint8)
        core = cv2.erode(blob, _SQUARE5, borderType=cv2.BORDER_CONSTANT, borderValue=0)
        # colours voted by the blob's core: a blurred rim mixes the piece with the board
        inside = labels[y:y + h, x:x + w][(core if core.any() else blob) > 0]
        votes = np.bincount(inside, minlength=256)[:n_pieces]
        order = np.argsort(votes)[::-1]
        purity = votes[order[0]] / max(1, len(inside))
        if votes[order[1]] > 0.25 * votes[order[0]]:
            box = (slice(y, y + h), slice(x, x + w))
            if self._marks_of_one_piece(labels[box], blob, int(order[0]), small[box]):
                purity = votes.sum() / max(1, len(inside))  # its marks are its own
                blobs = [(int(order[0]), centres[k], stats[k], purity)]
            else:
                blobs = self._split_by_colour(labels[y:y + h, x:x + w], x, y, order[:3], votes)
        else:
            blobs = [(int(order[0]), centres[k], stats[k], purity)]
        for index, (cx, cy), (bx, by, bw, bh, barea), purity in blobs:
            spot = self._spot_at(cx / SCALE - MARGIN_MM, cy / SCALE - MARGIN_MM)
            size_mm = barea / (SCALE * SCALE)
            if spot is None or size_mm > self._largest_piece:
                if size_mm >= self._smallest_px * 0.6:
                    part = components[by:by + bh, bx:bx + bw] == k
                    out.odd.append(((by, bx), part.astype(np.uint8)))
                continue
            lo, hi = self._min_area[spot], self._max_area[spot]
            if size_mm < 0.5 * lo:
                continue  # a speck of colour: not a piece
            # a piece explains its own box: its pips and its anti-aliased rim
            out.explained.append((max(0, by - 4), by + bh + 4, max(0, bx - 4), bx + bw + 4))
            if size_mm < lo or size_mm > hi:
                out.doubts.append((spot, "partly hidden?" if size_mm < lo else "pieces touching?"))
                if size_mm > hi:  # it may reach over other places: they are not seen either
                    out.odd.append(((by, bx), (components[by:by + bh, bx:bx + bw] == k).astype(np.uint8)))
                continue
            if self._lit_around(lit, near_pieces, bx, by, bw, bh) or (
                    self._glared(index, bx, by, bw, bh)
                    and not self._colour_holds(index, components[by:by + bh, bx:bx + bw] == k, bx, by)):
                out.doubts.append((spot, "glare?"))  # and the places its pixels reach
                out.odd.append(((by, bx), (components[by:by + bh, bx:bx + bw] == k).astype(np.uint8)))
                continue
            marks = self.layout.marks.get(self._piece_names[index])
            if marks == (0, 0):  # a plain token: its print or a mid-grey face is no mark
                pips, sure = 0, True
            else:
                pips, sure = self._cached_pips(small, frame, index, bx, by, bw, bh, pip_cache)
            if pips and self._glare_on(bx, by, bw, bh, faint=True) > GLARE_FAINT and any(
                    self._read_pips(frame, index, bx, by, bw, bh, scale)[0] != pips
                    for scale in GLARE_ERRORS):
                out.doubts.append((spot, "glare?"))  # a reflection's edge looks like a mark
                continue
            if self.keep_masks:
                self.masks.setdefault(spot, []).append((self._piece_names[index], self._last_mask))
            if marks is not None and not marks[0] <= pips <= marks[1]:
                sure = False  # no such piece shows that many marks: misread, not a new face
            conf = min(1.0, purity / 0.8) * (1.0 if sure else 0.4)
            if conf < 0.75:
                out.doubts.append((spot, "marks unclear: blur?" if not sure else "colour unclear"))
            out.found.append((spot, Piece(self._piece_names[index], pips), cx / SCALE - MARGIN_MM,
                              cy / SCALE - MARGIN_MM, conf))
        return out

    def _judge_unexplained(self, unexplained: np.ndarray, flat: np.ndarray,
                           doubtful: dict[str, str]) -> Reading | None:
        """A hand (no board at all), or the spots that something unexplained lies on."""
        mask = cv2.morphologyEx(unexplained.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        if not mask.any():
            return None
        n, components, stats, _ = _components(mask)
        for k in range(1, n):
            x, y, w, h, area = stats[k]
            if area < self._speck_px:
                continue
            region = components[y:y + h, x:x + w] == k
            pixels = flat[y:y + h, x:x + w][region]
            empty = self._reference[y:y + h, x:x + w][region]
            brighter = (pixels.astype(np.int16) - empty.astype(np.int16)).min(axis=1)
            washed = self._washed_out is not None and self._washed_out[y:y + h, x:x + w][region].mean() > 0.3
            if washed or float(np.mean(brighter > 12)) > 0.6:  # lighter than the empty board in every channel
                if self._board_under_glare(region, x, y, w, h):
                    continue  # the empty board, lifted evenly and smoothly by a reflection
                why = "glare?"
            elif area > self._hand_px or (area > 0.3 * self._hand_px and self._reaches_edge(x, y, w, h)):
                return Reading(None, hand=True, markers_found=len(MARKER_IDS),
                               problem="a hand is over the board")
            else:
                why = "something over it (a hand, a shadow)?"
            spots = np.unique(self._spot_map[y:y + h, x:x + w][region])
            for s in spots[spots >= 0]:
                doubtful.setdefault(self._spot_ids[int(s)], why)
        return None

    def _board_under_glare(self, region: np.ndarray, x: int, y: int, w: int, h: int) -> bool:
        """Is a patch lighter than the empty board the empty board itself under a reflection?
        A reflection adds the same light to every channel: each pixel must be the empty board
        lifted by one amount in all the channels it did not clip (and enough to clip the
        others), and that lift must run on smoothly into the board around the patch, as a
        reflection does and a piece's edge does not.  Where every channel clipped nothing is
        seen, so no such part may be wide enough to hide a piece."""
        if self._pre_glare is None or self._glare_faint is None:
            return False
        pad = 5
        y0, x0 = max(0, y - pad), max(0, x - pad)
        y1, x1 = min(self._spot_map.shape[0], y + h + pad), min(self._spot_map.shape[1], x + w + pad)
        cells = self._glare_faint[y0 // 2:(y1 + 1) // 2 + 1, x0 // 2:(x1 + 1) // 2 + 1]
        if not cells.size or float(cells.max()) < GLARE_MIN:
            return False  # no reflection measured here: something else is lighter
        patch = np.zeros((y1 - y0, x1 - x0), bool)
        patch[y - y0:y - y0 + h, x - x0:x - x0 + w] = region
        pre = self._pre_glare[y0:y1, x0:x1]
        ref = self._reference[y0:y1, x0:x1]
        blind = (pre >= 250).all(axis=2)
        if (blind & patch).any() and cv2.distanceTransform((blind & patch).astype(np.uint8), cv2.DIST_L2,
                                                           3).max() >= self._hidden_radius:
            return False  # a piece could lie wholly in what the reflection washed out
        level, even = _even_lift(pre, ref)
        seen = patch & ~blind
        n_seen = int(seen.sum())
        if not n_seen or float(level[seen].max()) < GLARE_MIN:
            return False
        if n_seen - int(even[seen].sum()) > 1 + 0.05 * n_seen:  # a pixel of sensor noise is no piece
            return False
        # the lift, here and on the board around, smoothed over what it is known on
        ring = ~patch & even & ~self._outside[y0:y1, x0:x1]
        known = (even & (patch | ring)).astype(np.float32)
        values = np.where(known > 0, level, 0).astype(np.float32)
        weight = np.maximum(cv2.GaussianBlur(known, (0, 0), 2.5), 1e-3)
        smooth = cv2.GaussianBlur(values, (0, 0), 2.5) / weight
        steady = np.abs(level - smooth) <= 8 + 0.1 * np.abs(smooth)
        judged = seen & even
        return int(ring.sum()) >= 12 and int((judged & ~steady).sum()) <= 1 + 0.05 * int(judged.sum())

    def _glare_on(self, bx: int, by: int, bw: int, bh: int, faint: bool = False) -> int:
        """The most reflection taken off a piece's box (or seen on it, with ``faint``)."""
        if self._glare is None:
            return 0
        cells = self._glare_faint if faint else self._glare
        g = cells[by // 2:(by + bh) // 2 + 1, bx // 2:(bx + bw) // 2 + 1]
        return int(g.max()) if g.size else 0

    def _glared(self, index: int, bx: int, by: int, bw: int, bh: int) -> bool:
        """Is a piece under more glare than can be taken off it, or light enough to be glare?"""
        most = self._glare_on(bx, by, bw, bh)
        return most > GLARE_DOUBT or (self._piece_names[index] in LIGHT_PIECES and most > GLARE_MIN)

    def _colour_holds(self, index: int, part: np.ndarray, bx: int, by: int) -> bool:
        """Is a piece under a reflection the same colour whether the reflection measured
        around it was half as strong, or stronger, under it?  Then the colour does not hang on
        the estimate (a reflection's core over a light board reads as a light piece only for
        one estimate)."""
        if self._glare is None or self._flat is None or self._pre_glare is None or not part.any():
            return False
        h, w = part.shape
        if self._piece_names[index] in LIGHT_PIECES:
            # a light piece and a light board under a reflection look alike: only a piece
            # whose colour is clearly no lift of the board's is one
            box = (slice(by, by + h), slice(bx, bx + w))
            _, even = _even_lift(self._pre_glare[box][part], self._reference[box][part])
            if float(np.mean(even)) > 0.1:
                return False
        g = self._glare[by // 2:(by + h) // 2 + 1, bx // 2:(bx + w) // 2 + 1]
        if not g.size:
            return False
        g = cv2.resize(g, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.int16)
        core = cv2.erode(part.astype(np.uint8), _SQUARE5, borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0
        washed = self._washed_out is not None and self._washed_out[by:by + h, bx:bx + w][core].any()
        if int(core.sum()) < 12 or washed:
            return False
        pixels = self._flat[by:by + h, bx:bx + w][core].astype(np.int16)
        lift = g[core][:, None]
        for scale in GLARE_ERRORS:  # the flat picture had the estimate (scale 1) taken off
            shifted = np.clip(pixels + np.round((1.0 - scale) * lift), 0, 255).astype(np.uint8)
            names = self._classify(shifted[None])[0]
            if float(np.mean(names == index)) < 0.7:
                return False
        return True

    def _lit_around(self, lit: np.ndarray, near_pieces: np.ndarray, bx: int, by: int, bw: int,
                    bh: int) -> bool:
        """Is the board around a piece lighter than the empty board (the halo of a glare)?"""
        y0, y1 = max(0, by - 7), min(lit.shape[0], by + bh + 7)
        x0, x1 = max(0, bx - 7), min(lit.shape[1], bx + bw + 7)
        ring = near_pieces[y0:y1, x0:x1] == 0  # 3-7 px out, clear of its rim and its neighbours
        ring[max(0, by - y0 - 3):by - y0 + bh + 3, max(0, bx - x0 - 3):bx - x0 + bw + 3] = False
        count = int(ring.sum())
        return count >= 12 and int(np.count_nonzero(lit[y0:y1, x0:x1][ring])) > 0.35 * count

    def _crosses_margin(self, small: np.ndarray) -> bool:
        """Something lies across the white margin (an arm reaching in from a seat): margin
        paper of another tint than the paper's, or much darker than the light there."""
        if self._paper is None:
            return False
        tint, level = self._paper
        ys, xs = self._margin_samples
        samples = small[ys, xs].astype(np.float32)
        luma = samples.mean(1)
        own = samples / np.maximum(samples.sum(1, keepdims=True), 1)
        odd = (np.abs(own - tint).max(1) > 0.07) | (luma < 0.6 * level)
        return int(odd.sum()) > max(20, 0.025 * len(odd))

    def _reaches_edge(self, x: int, y: int, w: int, h: int) -> bool:
        """Does a patch touch the board's edge (as an arm reaching in from a seat does)?"""
        m = int(round(MARGIN_MM * SCALE))
        x1 = m + int(self.layout.width * SCALE)
        y1 = m + int(self.layout.height * SCALE)
        return x <= m + 2 or y <= m + 2 or x + w >= x1 - 2 or y + h >= y1 - 2

    def _marks_of_one_piece(self, labels: np.ndarray, blob: np.ndarray, main: int,
                            picture: np.ndarray) -> bool:
        """Are a blob's other piece colours its main colour darkened (no channel lighter) and
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
        # the same hue in shadow: no channel lighter, a fifth darker at least
        return bool((marks <= body + 4).all() and marks.sum() <= 0.8 * body.sum())

    def _split_by_colour(self, labels: np.ndarray, x: int, y: int, indices: np.ndarray,
                         votes: np.ndarray) -> list:
        out = []
        for index in indices:
            if votes[index] == 0:
                continue
            part = cv2.morphologyEx((labels == index).astype(np.uint8), cv2.MORPH_OPEN,
                                    np.ones((3, 3), np.uint8))
            n, _, stats, centres = cv2.connectedComponentsWithStats(part, connectivity=8)
            for k in range(1, n):
                if stats[k, cv2.CC_STAT_AREA] >= self._smallest_px * 0.3:
                    bx, by, bw, bh, area = stats[k]
                    out.append((int(index), (centres[k][0] + x, centres[k][1] + y),
                                (bx + x, by + y, bw, bh, area), 1.0))
        return out

    # ------------------------------------------------------------------ light
    def _light_changed(self, margin: np.ndarray) -> bool:
        """Has the white margin's light moved since the fit (more than a hand on it explains)?"""
        before = self._margin_at_fit
        if before is None or before.shape != margin.shape:
            return True
        ratio = (margin.sum(1) + 1) / (before.sum(1) + 1)
        return abs(float(np.median(ratio)) - 1) > 0.04 or float(np.percentile(np.abs(ratio - 1), 75)) > 0.08

    def _fit_light(self, small: np.ndarray) -> str:
        """Light in two parts: its fall-off across the table, fitted to the margin's white
        paper (clipped pixels left out), then a tone curve per channel fitted to the board's
        own printed surfaces (a colour cast, a dim room's gamma)."""
        ys, xs = self._margin_samples
        samples = small[ys, xs].astype(np.float32)
        luma = samples.mean(1)
        if np.percentile(luma, 90) < 40:
            return "too dark to read: turn a light on over the table"
        # white paper: the margin's own tint (a hand or sleeve on it has another), not ink
        tint = samples / np.maximum(samples.sum(1, keepdims=True), 1)
        bright = luma > np.percentile(luma, 50)
        paper = np.median(tint[bright], axis=0)
        paperish = (np.abs(tint - paper).max(1) < 0.06) & (luma > 0.5 * np.percentile(luma, 90))
        # the light's shape from the channel least clipped on the paper
        unclipped = (samples < 250) & paperish[:, None]
        channel = int(np.argmax(unclipped.sum(0)))
        ok = unclipped[:, channel]
        if ok.sum() < 60:
            return "too bright to read: the white margin is washed out (lower the exposure)"
        xs_f, ys_f = xs[ok] / small.shape[1], ys[ok] / small.shape[0]
        basis = np.stack([np.ones_like(xs_f), xs_f, ys_f, xs_f * ys_f, xs_f ** 2, ys_f ** 2], 1)
        target = samples[ok, channel]
        keep = np.ones(len(target), bool)
        for _ in range(3):  # robust: refit without the worst (glare, a finger on the margin)
            bk = basis[keep]
            coeffs = np.linalg.solve(bk.T @ bk + 1e-6 * np.eye(6), bk.T @ target[keep])
            fitted = basis @ coeffs
            err = np.abs(target - fitted) / np.maximum(fitted, 1)
            keep = err < max(0.04, float(np.percentile(err, 75)))
        level = float(np.median(fitted))
        self._paper = (paper, basis_all(xs / small.shape[1], ys / small.shape[0]) @ coeffs)
        if level < 35:
            return "too dark to read: turn a light on over the table"
        gy, gx = np.mgrid[0:1:24j, 0:1:32j]
        grid = np.stack([np.ones_like(gx), gx, gy, gx * gy, gx ** 2, gy ** 2], -1) @ coeffs
        shape = cv2.resize(grid.astype(np.float32), (small.shape[1], small.shape[0]))
        gain = level / np.clip(shape, 0.2 * level, None)
        self._gain = cv2.merge([gain, gain, gain])
        # the tone curve: each printed surface's flattened colour back to its calibrated colour
        flat = np.clip(small * self._gain, 0, 255)
        obs, ref = [], []
        for ay, ax in self._anchors.values():
            obs.append(np.median(flat[ay, ax], axis=0))
            ref.append(np.median(self._reference[ay, ax].astype(np.float32), axis=0))
        white = np.median(flat[ys[ok], xs[ok]], axis=0)
        white_ref = np.median(self._reference[ys, xs].astype(np.float32), axis=0)
        obs_a, ref_a = np.array(obs), np.array(ref)
        lut = np.zeros((256, 3), np.uint8)
        levels = np.arange(256, dtype=np.float32)
        for c in range(3):
            o, r = list(obs_a[:, c]), list(ref_a[:, c])
            wts = [1.0] * len(o)
            if white[c] < 248:  # the paper's white, where the channel is not clipped on it
                o.append(white[c])
                r.append(white_ref[c])
                wts.append(3.0)
            if len(o) < 2:
                return "cannot judge the light: the board's printed colours are not visible"
            lo = np.log(np.clip(np.array(o), 4, 255) / 255.0)
            lr = np.log(np.clip(np.array(r), 4, 255) / 255.0)
            g, log_a = np.polyfit(lo, lr, 1, w=np.array(wts))
            g = float(np.clip(g, 0.4, 3.0))
            curve = 255.0 * np.exp(log_a) * (np.maximum(levels, 1) / 255.0) ** g
            lut[:, c] = np.clip(curve, 0, 255).astype(np.uint8)
        self._tone = lut.reshape(256, 1, 3)
        self._tone_channels = [np.ascontiguousarray(lut[:, c]) for c in range(3)]
        return ""

    def _unglare(self, flat: np.ndarray) -> np.ndarray:
        """Take a lamp's reflections off: glare adds the same light to every channel, so
        where the board is lighter than the empty board by about as much in each channel, that
        much is glare.  It is measured on the board around the pieces (2 mm cells), spread
        smoothly under them, and subtracted.  What stays lighter (a clipped core) is still
        judged as glare by what follows.  Only the part of the board that is lighter at all
        is worked on, so a frame without glare costs two cheap passes."""
        self._glare = self._glare_faint = None
        self._washed_out = None
        self._pre_glare = flat
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
        if n_lighter < 6 or n_lighter > 0.25 * self._inside_count:
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
        low = np.where(clipped, 255, d).min(axis=2)
        high = np.where(clipped, -255, d).max(axis=2)
        reaches = (~clipped | (ref + low[..., None] >= 240)).all(axis=2)
        pure = (low > 12) & (high - low <= 6 + 0.15 * high) & (clipped.sum(axis=2) <= 1) & reaches & inside
        if pure.any():  # a light piece (a white die under a cool lamp) is no reflection
            pure &= self._classify(half8[y0:y1, x0:x1]) >= len(self._piece_names)
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
        self._glare_faint = faint  # all of it, for the marks: a faint reflection still makes one
        # a reflection is one where it is strong somewhere; its faint rim is taken off with it
        strong = cv2.dilate((est >= GLARE_MIN).astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
        est = np.where(strong & (est >= 4), est, 0)
        if not est.any():
            return flat
        glare = np.zeros(half8.shape[:2], np.uint8)
        glare[y0:y1, x0:x1] = np.clip(est, 0, 255).astype(np.uint8)
        self._glare = glare
        full = cv2.resize(glare, (flat.shape[1], flat.shape[0]), interpolation=cv2.INTER_LINEAR)
        # where the reflection clipped a channel, the colour under it is lost
        rows, cols = slice(2 * y0, 2 * y1), slice(2 * x0, 2 * x1)
        self._washed_out = np.zeros(flat.shape[:2], bool)
        self._washed_out[rows, cols] = (flat[rows, cols].max(axis=2) >= 250) & (full[rows, cols] > GLARE_MIN)
        return cv2.subtract(flat, cv2.merge([full, full, full]))

    def _read_part(self, small: np.ndarray, region: tuple[slice, slice],
                   kept: _Kept) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The last clear board's flattened picture, colours and empty-board match, with only
        the changed region read again (on copies: this frame may yet show a hand); None when
        a reflection may lie in it (read it all)."""
        rows, cols = region
        part = self._flatten_light(small[rows, cols], self._gain[rows, cols])
        names = self._classify(part)
        lighter = cv2.inRange(part, self._ref_lit[rows, cols], self._white[rows, cols])
        lighter[(names < len(self._piece_names)) | self._outside[rows, cols]] = 0
        if cv2.countNonZero(cv2.morphologyEx(lighter, cv2.MORPH_OPEN, _SQUARE5)) >= 24:
            return None
        self._glare = self._glare_faint = self._pre_glare = self._washed_out = None
        flat, labels, as_empty = kept.flat.copy(), kept.labels.copy(), kept.as_empty.copy()
        flat[rows, cols] = part
        labels[rows, cols] = names
        as_empty[rows, cols] = cv2.inRange(part, self._ref_lo[rows, cols], self._ref_hi[rows, cols]) > 0
        return flat, labels, as_empty

    def _flatten(self, img: np.ndarray) -> np.ndarray:
        if self._gain is None or self._gain.shape[:2] != img.shape[:2]:
            return img
        return self._flatten_light(img, self._gain)

    def _flatten_light(self, img: np.ndarray, gain: np.ndarray | tuple[float, ...]) -> np.ndarray:
        """The light's gain (per pixel, or one for a small crop) and the tone curve taken off."""
        flat = cv2.multiply(img, gain, dtype=cv2.CV_8U)
        if self._tone is not None:  # a channel at a time: cv2.LUT is slower with three at once
            channels = zip(cv2.split(flat), self._tone_channels, strict=True)
            flat = cv2.merge([cv2.LUT(c, t) for c, t in channels])
        return flat

    # ------------------------------------------------------------------ pips
    def _cached_pips(self, small: np.ndarray, frame: np.ndarray, index: int, bx: int, by: int, bw: int,
                     bh: int, fresh: dict) -> tuple[int, bool]:
        """Pips again only for a piece that looks different from the last frame's."""
        key = (index, bx // 3, by // 3, bw // 3, bh // 3)
        patch = small[by:by + bh, bx:bx + bw]
        cached = self._pip_cache.get(key)
        if cached is not None and cached[0].shape == patch.shape and not self.keep_masks \
                and int(cv2.absdiff(cached[0], patch).max()) <= 3 * STILL_TOLERANCE \
                and float(cv2.absdiff(cached[0], patch).mean()) <= STILL_TOLERANCE / 2:
            fresh[key] = cached
            return cached[1]
        result = self._read_pips(frame, index, bx, by, bw, bh)
        fresh[key] = (patch.copy(), result)
        return result

    def _read_pips(self, frame: np.ndarray, index: int, bx: int, by: int, bw: int,
                   bh: int, glare_scale: float = 1.0) -> tuple[int, bool]:
        """Pips on one piece, from a sharp crop sampled straight from the frame (with the
        reflection measured round it taken off ``glare_scale`` times)."""
        x0, y0 = bx / SCALE - 2, by / SCALE - 2
        x1, y1 = (bx + bw) / SCALE + 2, (by + bh) / SCALE + 2
        cw, ch = int((x1 - x0) * CROP_SCALE), int((y1 - y0) * CROP_SCALE)
        if self.lens is None:  # crop px -> canvas px -> frame px is one homography
            k = self.px_per_mm / CROP_SCALE
            to_canvas = np.array([[k, 0, (x0 + 0.5 / CROP_SCALE) * self.px_per_mm],
                                  [0, k, (y0 + 0.5 / CROP_SCALE) * self.px_per_mm], [0, 0, 1]])
            assert self._homography is not None
            to_frame = np.linalg.inv(self._homography) @ to_canvas
            crop = cv2.warpPerspective(frame, to_frame, (cw, ch),
                                       flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        else:  # through the lens, point by point
            ys, xs = np.mgrid[0:ch, 0:cw].astype(np.float32)
            pts = np.stack([x0 + (xs + 0.5) / CROP_SCALE, y0 + (ys + 0.5) / CROP_SCALE], -1).reshape(-1, 2)
            frame_pts = self._canvas_to_frame(pts * self.px_per_mm).reshape(ch, cw, 2)
            crop = cv2.remap(frame, frame_pts[..., 0], frame_pts[..., 1], cv2.INTER_LINEAR)
        gy = min(int(by + bh / 2), self._gain.shape[0] - 1) if self._gain is not None else 0
        gx = min(int(bx + bw / 2), self._gain.shape[1] - 1) if self._gain is not None else 0
        if self._gain is not None:
            crop = self._flatten_light(crop, tuple(float(v) for v in self._gain[gy, gx]) + (0.0,))
        cells = self._glare if glare_scale == 1.0 else self._glare_faint
        if cells is not None:  # the same glare taken off as on the board sampled
            g = cells[max(0, (by - 2) // 2):(by + bh + 3) // 2 + 1,
                      max(0, (bx - 2) // 2):(bx + bw + 3) // 2 + 1]
            if g.size and float(g.max()) > 0:
                g = cv2.resize(g, (cw, ch), interpolation=cv2.INTER_LINEAR)
                if glare_scale != 1.0:
                    g = np.clip(np.asarray(g, np.float32) * glare_scale, 0, 255).astype(np.uint8)
                crop = cv2.subtract(crop, cv2.merge([g, g, g]), dtype=cv2.CV_8U)
        mask = (self._classify(crop) == index).astype(np.uint8)
        if self.keep_masks:
            self._last_mask = mask
        if self.faces is not None:
            return self.faces.classify(mask), True
        return count_pips(mask, cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY))

    # ------------------------------------------------------------------ helpers
    def _build_lut(self) -> np.ndarray:
        """Nearest calibrated colour for every BGR value at 6 bits a channel, computed once;
        UNKNOWN where no calibrated colour is near."""
        levels = (np.arange(64, dtype=np.uint8) << 2) + 2
        b, g, r = np.meshgrid(levels, levels, levels, indexing="ij")
        cube = np.stack([b, g, r], -1).reshape(-1, 1, 3)
        lab = cv2.cvtColor(cube, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
        lab *= self._weights
        centroids = self._centroids * self._weights
        d = (lab * lab).sum(1, keepdims=True) - 2 * lab @ centroids.T + (centroids**2).sum(1)
        best = d.argmin(1)
        far = d[np.arange(len(d)), best] > 30.0 ** 2
        out = best.astype(np.uint8)
        out[far] = UNKNOWN
        return out

    def _classify(self, img: np.ndarray) -> np.ndarray:
        q = img >> 2  # 6 bits a channel, one index into the table (in place: half the time)
        index = q[..., 0].astype(np.int32)
        index <<= 6
        index |= q[..., 1]
        index <<= 6
        index |= q[..., 2]
        return self._lut.take(index)

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
        # the widest a washed-out patch may be and still show part of any piece lying in it
        smallest_radius = np.sqrt(min(self._min_area.values(), default=0.0) / (0.35 * np.pi))
        self._hidden_radius = 0.6 * smallest_radius * SCALE
        largest_spot = max((s.w * s.h for s in self.layout.spots), default=1.0)
        self._hand_px = max(2.0 * largest_spot, 2500.0) * SCALE * SCALE
        self._outside = np.ones((h, w), bool)
        m = int(round(MARGIN_MM * SCALE))
        self._outside[m:m + int(self.layout.height * SCALE), m:m + int(self.layout.width * SCALE)] = False
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

    def spot_label(self, spot_id: str) -> str:
        """The spot as the game names it (its printed label, else its id)."""
        try:
            spot = self.layout.spot(spot_id)
        except KeyError:
            return spot_id
        return spot.label or spot.id

    def sampled(self, frame: np.ndarray) -> np.ndarray | None:
        """The board as sampled top-down (1 px/mm), light not flattened; None when not located."""
        if self._maps is None:
            return None
        return cv2.remap(frame, *self._maps, cv2.INTER_LINEAR)

    @property
    def spot_index_map(self) -> np.ndarray:
        """Per top-down pixel, the index of the spot there (-1: none)."""
        return self._spot_map

    def topdown(self, frame: np.ndarray) -> np.ndarray | None:
        """The board as the reader samples it, light flattened (for calibration and checks)."""
        if self._maps is None:
            return None
        return self._flatten(cv2.remap(frame, *self._maps, cv2.INTER_LINEAR))

    def describe(self) -> dict[str, Any]:
        return {"located": self._maps is not None, "lens": self.lens is not None}


def _even_lift(pre: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per pixel, how much lighter than the empty board it is (the mean over the channels
    not clipped) and whether that is one lift in every channel, as a reflection adds, and
    enough to clip the channels it clipped.  A pixel clipped in every channel is never even."""
    pre32, ref32 = pre.astype(np.float32), ref.astype(np.float32)
    clipped = pre >= 250
    lift = np.where(clipped, np.nan, pre32 - ref32)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-clipped pixels: NaN, handled below
        level = np.nanmean(lift, axis=-1)
        spread = np.nanmax(lift, axis=-1) - np.nanmin(lift, axis=-1)
    blind = clipped.all(axis=-1)
    level = np.where(blind, 0.0, level)
    spread = np.where(blind, np.inf, spread)
    reaches = (~clipped | (ref32 + level[..., None] >= 240)).all(axis=-1)
    even = ~blind & (spread <= 10 + 0.15 * np.abs(level)) & reaches & (level >= -6)
    return level, even


def _grown_over(region: tuple[int, int, int, int], boxes: list[tuple[int, int, int, int]],
                reach: int = 3) -> tuple[int, int, int, int]:
    """``region`` (rows y0..y1, columns x0..x1) grown until every box (x, y, w, h) within
    ``reach`` pixels of it lies inside it: the rest stay ``reach`` or more away."""
    y0, y1, x0, x1 = region
    grown = True
    while grown:  # each pass takes in at least one more box, so at most len(boxes) passes
        grown = False
        for bx, by, bw, bh in boxes:
            near = by < y1 + reach and by + bh > y0 - reach and bx < x1 + reach and bx + bw > x0 - reach
            if near and (by < y0 or by + bh > y1 or bx < x0 or bx + bw > x1):
                y0, y1, x0, x1 = min(y0, by), max(y1, by + bh), min(x0, bx), max(x1, bx + bw)
                grown = True
    return y0, y1, x0, x1


def _components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """8-connected components with their boxes and centres, by Grana's block-based scan
    (half the time of OpenCV's default with statistics on a board's worth of pieces)."""
    return cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_BBDT)


def _median_where(gray: np.ndarray, mask: np.ndarray) -> float:
    """The median grey level under a mask, from its histogram (a sort of every pixel costs
    more than the rest of a piece's marks)."""
    hist = cv2.calcHist([gray], [0], mask, [256], [0, 256]).ravel()
    cumulative = np.cumsum(hist)
    return float(np.searchsorted(cumulative, cumulative[-1] / 2))


def _alike(before: np.ndarray, now: np.ndarray, most: float, mean: float) -> bool:
    """Are two patches the same but for sensor noise (no pixel off by more than ``most``,
    ``mean`` on average)?  A blur, a moved piece or a finger is far more."""
    diff = cv2.absdiff(before, now)
    return bool(diff.max() <= most and diff.mean() <= mean)


def basis_all(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """The quadratic light model's terms at relative positions."""
    return np.stack([np.ones_like(xs), xs, ys, xs * ys, xs ** 2, ys ** 2], 1)


def count_pips(mask: np.ndarray, gray: np.ndarray | None = None) -> tuple[int, bool]:
    """Pips on a piece, and whether the count is clear.

    With the crop's brightness, a pip is a peak of contrast against the body's own
    brightness: a blurred pip keeps part of its contrast and its centre, even when
    blur has run it into its neighbour.  Unclear: a peak too faint to be sure of,
    either way.  Without it (die faces), marks are the holes in the colour mask.
    """
    if mask.size == 0:
        return 0, False
    closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return 0, False
    body = max(contours, key=cv2.contourArea)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, [cv2.convexHull(body)], -1, 1, -1)
    body_area = float(cv2.contourArea(body))
    hull_area = float(np.count_nonzero(filled))
    if gray is not None and np.count_nonzero(mask & filled) < 0.6 * hull_area:
        return 0, False  # the piece's own colour covers too little of it to judge its marks
    rim = max(1, int(round(0.07 * np.sqrt(body_area))))
    filled = cv2.erode(filled, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8),
                       borderType=cv2.BORDER_CONSTANT, borderValue=0)
    if gray is None or not mask.any():
        holes = cv2.morphologyEx((filled & (1 - mask)).astype(np.uint8), cv2.MORPH_OPEN,
                                 np.ones((2, 2), np.uint8))
        n, _, stats, _ = cv2.connectedComponentsWithStats(holes, connectivity=8)
        min_area = max(3.0, 0.004 * body_area)
        return int(sum(1 for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= min_area)), True
    level = _median_where(gray, mask)
    pip = 20.0 if level > 128 else 235.0
    contrast = np.abs(gray.astype(np.float32) - level) / max(abs(pip - level), 30.0)
    radius = 0.53 * np.sqrt(body_area)  # the piece's half-width, in crop pixels
    contrast = cv2.GaussianBlur(contrast, (0, 0), max(0.8, 0.07 * radius))
    contrast[filled == 0] = 0
    window = max(3, int(0.3 * radius) | 1)
    peaks = (contrast >= cv2.dilate(contrast, np.ones((window, window), np.uint8))) & (contrast > 0.12)
    n, _, _, centres = _components(peaks.astype(np.uint8))
    values = np.array([contrast[int(round(cy)), int(round(cx))] for cx, cy in centres[1:]], np.float32)
    strong = values >= 0.30
    faint = (values >= 0.15) & ~strong
    count = int(strong.sum())
    return count, bool(not faint.any() and count <= 9)


def annotate(frame: np.ndarray, reader: BoardReader, reading: Reading,
             tracked: BoardView | None = None) -> np.ndarray:
    """The frame with what was read drawn over it: agreeing pieces green, pieces that differ
    from the tracked board red, doubtful spots orange, with the reason."""
    out = frame.copy()
    if reader._homography is None:
        cv2.putText(out, reading.problem or "board not found", (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0,
                    (0, 0, 255), 2, cv2.LINE_AA)
        return out
    for spot in reader.layout.spots:
        xs = np.array([spot.x, spot.x + spot.w, spot.x + spot.w, spot.x])
        ys = np.array([spot.y, spot.y, spot.y + spot.h, spot.y + spot.h])
        quad = reader.board_to_frame(xs, ys).astype(np.int32)
        seen = reading.view.get(spot.id, ()) if reading.view is not None else ()
        colour = (80, 80, 80)
        if spot.id in reading.doubtful:
            colour = (0, 140, 255)
        elif tracked is not None and tracked.get(spot.id, ()) != seen:
            colour = (0, 0, 255)
        elif seen:
            colour = (0, 200, 0)
        cv2.polylines(out, [quad], True, colour, 2 if colour != (80, 80, 80) else 1, cv2.LINE_AA)
        if spot.id in reading.doubtful:
            x, y = quad[0]
            text = f"{reader.spot_label(spot.id)}: {reading.doubtful[spot.id]}"
            cv2.putText(out, text, (int(x), int(y) - 4), cv2.FONT_HERSHEY_PLAIN, 1.0, colour, 1, cv2.LINE_AA)
    for spot_id, piece, x_mm, y_mm, _conf in reading.pieces_at:
        (px, py), = reader.board_to_frame(np.array([x_mm]), np.array([y_mm]))
        wrong = tracked is not None and tracked.get(spot_id, ()) != (reading.view or {}).get(spot_id, ())
        colour = (0, 0, 255) if wrong else (0, 200, 0)
        cv2.circle(out, (int(px), int(py)), 5, colour, -1, cv2.LINE_AA)
        text = piece.colour + (f" {piece.pips}" if piece.pips else "")
        cv2.putText(out, text, (int(px) + 6, int(py) + 4), cv2.FONT_HERSHEY_PLAIN, 0.9, colour, 1,
                    cv2.LINE_AA)
    if reading.view is None:
        cv2.putText(out, reading.problem, (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 255), 2,
                    cv2.LINE_AA)
    return out


Annotator = Callable[[np.ndarray, BoardReader, Reading, BoardView | None], np.ndarray]
