"""Frames in, board snapshots out, every position with a confidence.

The board is found by its ArUco markers (any two fix it) and a homography,
tracked between frames: the markers are looked for again only when the board
stops fitting where they were.  A lens profile from ``calibrate camera`` is
folded into a sampling map computed once per homography, so no frame is
ever undistorted whole.  The board is sampled top-down at 1 px/mm; the room's
light is taken off it (``light.py``), then a lamp's reflections (``glare.py``).

Each pixel then gets the nearest calibrated colour, or none when it is far from
all of them.  Pieces are blobs of a piece colour placed by their centre.  What
neither a piece nor the empty board explains (the board as learnt when empty)
is a hand, an arm, a sleeve, a shadow or glare, whatever its colour: a large
patch of it is a hand over the board (no board at all), a small one makes the
spots under it doubtful, with the likely reason.  A doubtful position is never
guessed: the stabiliser commits nothing while one is doubtful.  Marks on a piece
are counted on a sharp crop of it (``pips.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.games.base import BoardView, Layout, Piece, make_view
from companion.vision.colour_profile import ColourProfile
from companion.vision.faces import FaceTemplates
from companion.vision.geometry import (
    MARGIN_MM,
    MARKER_IDS,
    aruco_dictionary,
    canvas_size_mm,
    marker_corners_mm,
)
from companion.vision.glare import (
    GLARE_ERRORS,
    GLARE_FAINT,
    GLARE_MIN,
    LIGHT_PIECES,
    Glare,
    even_lift,
    lit_around,
)
from companion.vision.lens import Lens
from companion.vision.light import Light
from companion.vision.palette import PIP_ON_LIGHT
from companion.vision.pips import channel_medians, connected_components, count_pips, lit_like_a_mark, outline
from companion.vision.render import piece_slots, render_topdown
from companion.vision.sampling import Sampler

HAND = "hand"
UNKNOWN = 255  # the label of a pixel near no calibrated colour
SCALE = 1.0  # px per mm of the board sampled for colours
CROP_SCALE = 4.0  # px per mm of the crops pips are counted on, at most:
CROP_PIECE_PX = 80  # a bigger piece's crop is sampled to about this many px across
SHARPNESS_MIN = 1.35  # see BoardReader.sharpness
IN_FOCUS = 2.6  # sharper than this: a mark's edge is a pixel or two wide, no blurred halo
SHAKE_SKEW_MAX = 1.28  # focus blur is the same every way (1.16-1.22); a shake is not (1.3+)
_SQUARE3 = np.ones((3, 3), np.uint8)
_SQUARE5 = np.ones((5, 5), np.uint8)
_ANGLES = np.deg2rad(np.arange(0, 180, 30))
_COS, _SIN = np.cos(_ANGLES).astype(np.float32), np.sin(_ANGLES).astype(np.float32)
REFIT_EVERY = 8  # frames read between two fits of the light
BLOB_PAD = 30  # blobs round a change are looked for this far round it (px of the board) ...
BLOB_PAD_WIDE = 60  # ... or this far, when a blob runs past that
# a frame whose 4 mm cells all match the last one read within this is read the same
STILL_TOLERANCE = 16
HIDDEN_SHARE = 0.85  # a disc this share of a place's smallest piece, unseen, may hide one
BESIDE_MM = 4  # places this close (beyond their rims) to a hidden one are doubtful too
BESIDE = "next to"  # how a place doubted for its neighbour's sake says so
UNDER_A_HAND = "under a hand or arm"
HIDING = {"glare?", "something over it (a hand, a shadow)?", "partly hidden?", "pieces touching?"}
ANCHOR_SEEN_PX = 30  # a printed surface with this many pixels clear of an arm still anchors the light
ARM_JOIN_MM = 8  # what lies this close to an arm is the arm (a palm of the board's colour
# leaves only the board's printed lines it covers unexplained, a cell apart)
ARM_SHADOW_MM = 25  # an arm's shadow and its edge reach this far past what is seen of it ...
ARM_LIGHT_MM = 45  # ... and its faint outskirts, that bias a fit of the light, this far
HAND_MAX_SHARE = 0.5  # an arm over more of the board than this: no board is read at all
EMPTY_TOLERANCE = 24  # how far (per channel, of 255) the board may stray from the empty board


@dataclass
class Reading:
    """One frame's verdict: a board (with the positions it is unsure of), or why there is none.

    ``view`` holds every position read confidently; ``doubtful`` names the spots
    that could not be read, with the likely reason ("glare?").  ``confidence``
    gives each spot read (pieces or empty) a value in [0, 1].
    """

    view: BoardView | None
    hand: bool = False  # a hand or arm is over the board (the places under it are doubtful)
    markers_found: int = 0
    problem: str = ""
    doubtful: dict[str, str] = field(default_factory=dict)
    confidence: dict[str, float] = field(default_factory=dict)
    pieces_at: list[tuple[str, Piece, float, float, float]] = field(default_factory=list)

    @property
    def usable(self) -> bool:
        """A whole board, every position confident, no hand over it."""
        return self.view is not None and not self.doubtful and not self.hand


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
    boxes: np.ndarray = field(init=False)  # the blobs' boxes (x, y, w, h), one a row

    def __post_init__(self) -> None:
        self.boxes = np.array(list(self.blobs), np.int64).reshape(-1, 4)


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
        self._to_frame = np.eye(3)  # its inverse
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
        lab = np.clip(self._centroids[:len(names)], 0, 255).astype(np.uint8).reshape(-1, 1, 3)
        self._piece_bgr = cv2.cvtColor(lab, cv2.COLOR_LAB2BGR).reshape(-1, 3).astype(np.float32)
        self._weights = np.array([0.5, 1.0, 1.0], np.float32)  # lightness counts for less
        self._lut = self._build_lut()
        self._build_spots()
        self._build_reference(render_topdown(self.layout, {}, SCALE))
        self.empty_board: np.ndarray | None = None  # learnt from a photo; None: the drawn layout
        self._sampler: Sampler | None = None  # the located board's sampling maps
        self._partial = False  # this frame's board is sampled again only round a change
        self._part_undo: tuple | None = None  # what the kept board held where this frame wrote
        self._last_reading: Reading | None = None
        self._last_cells: np.ndarray | None = None
        self._pip_cache: dict[tuple, tuple[np.ndarray, tuple[int, bool]]] = {}
        self._blob_cache: dict[tuple, tuple[np.ndarray, _Blob, int]] = {}
        self._blob_corners: dict[tuple[int, int], list[tuple]] = {}  # the cache's boxes by corner
        self._marker_sharpness: list[tuple[np.ndarray, tuple[float, float] | None]] = []
        self._in_focus = True  # the last frame read was sharp (see ``sharpness``)
        self._kept: _Kept | None = None
        self.light = Light()  # the room's light, fitted to the margin and the board's print
        self._flat: np.ndarray | None = None  # this frame's board, light and reflections taken off
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
        self.glare = Glare(top, self._outside, self._classify, self._piece_names, self._hidden_radius)
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
        self._to_frame = np.linalg.inv(homography)  # canvas px -> undistorted frame px
        self.frame_size = (shape[1], shape[0])
        w, h = self._small_size
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        pts = np.stack([(xs + 0.5) / SCALE, (ys + 0.5) / SCALE], -1).reshape(-1, 2) * self.px_per_mm
        frame_pts = self._canvas_to_frame(pts).reshape(h, w, 2)
        self._marker_checks = self._build_marker_checks()
        watched = [(slice(rows.start - 3, rows.stop + 3), slice(cols.start - 3, cols.stop + 3))
                   for rows, cols, _bits in self._marker_checks]  # as ``sharpness`` looks at them
        self._sampler = Sampler(frame_pts, shape, watched, self._margin_samples)
        self.light.gain = None
        self.light.tone = None
        self._last_reading = None
        self._last_cells = None
        self._pip_cache = {}
        self._set_blob_cache({})
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
        if self._sampler is not None and self.frame_size == (frame.shape[1], frame.shape[0]):
            cells = self._sampler.cells(frame)  # 4 mm cells, sensor noise averaged out
            if self._last_reading is not None and self._last_cells is not None \
                    and int(cv2.absdiff(cells, self._last_cells).max()) <= STILL_TOLERANCE:
                return self._last_reading  # nothing on the table moved since the last read
            region = self._changed_region(cells)
            if region is not None:
                small = self._sample_around(frame, region)
            else:
                self._partial = False
                small = self._sampler.whole(frame)
            # the markers and the margin lie outside a change inside the board: as they were
            if (region is not None and self._within_board(region)) or self._still_fits(small):
                return self._remember(self._read_small(small, frame, region, cells), cells)
        problem = self._exposure_problem(frame)
        if problem:
            return Reading(None, problem=problem)
        missing = self._locate(frame)
        if missing is not None:
            self._sampler = None
            return missing
        assert self._sampler is not None
        self._partial = False
        small = self._sampler.whole(frame)
        cells = self._sampler.cells(frame)
        return self._remember(self._read_small(small, frame, None, cells), cells)

    def _sample_around(self, frame: np.ndarray, region: tuple[slice, slice]) -> np.ndarray:
        """The board for a change in part of it: sampled again in the changed region, at the
        markers and at the margin's samples (and, once they are found, round the blobs that
        reach into it: ``_sample_blobs``); the rest as last sampled.  The whole board when
        the light is due to be fitted again (the fit looks at all of it) or no board was kept
        to read the rest from."""
        assert self._sampler is not None
        sampler = self._sampler
        if sampler.small is None or self._kept is None or self.light.gain is None or self.keep_masks \
                or self.light.frames_since_fit + 1 >= REFIT_EVERY:
            self._partial = False
            return sampler.whole(frame)
        self._partial = True
        sampler.window(frame, *region)
        sampler.watch(frame)
        return sampler.small

    def _sample_blobs(self, frame: np.ndarray, stats: np.ndarray) -> None:
        """Sample again round the blobs this frame reads (those with an area left in
        ``stats``): their pixels, and the patches their last frame is compared on (8 px round
        a blob, give or take a pixel)."""
        read = np.flatnonzero(stats[1:, cv2.CC_STAT_AREA] > 0) + 1
        if not self._partial or not len(read):
            return
        assert self._sampler is not None
        x, y = stats[read, 0], stats[read, 1]
        x1, y1 = x + stats[read, 2], y + stats[read, 3]
        reach = 9
        self._sampler.window(frame, slice(int(y.min()) - reach, int(y1.max()) + reach),
                             slice(int(x.min()) - reach, int(x1.max()) + reach))

    def _sample_whole(self, frame: np.ndarray, small: np.ndarray) -> np.ndarray:
        """The whole board, for a frame sampled only round its change that must be read whole."""
        if not self._partial:
            return small
        assert self._sampler is not None
        self._partial = False
        return self._sampler.whole(frame)

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

    def _same_light_as_kept(self) -> bool:
        """Is the light just fitted the one the kept board was flattened with?"""
        return self._kept is not None and self.light.same_as(self._kept.gain, self._kept.tone)

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
        self._in_focus = sharp >= IN_FOCUS
        if sharp < SHARPNESS_MIN or skew > SHAKE_SKEW_MAX:
            return Reading(None, markers_found=len(MARKER_IDS),
                           problem="too blurred to read: the camera or the table shook")
        self.light.frames_since_fit += 1
        ys, xs = self._margin_samples
        margin = small[ys[::4], xs[::4]].astype(np.float32)
        # light changes slowly (fitted again every 8 frames), but a lamp switched on or a
        # curtain drawn changes it at once (the margin changes: no change inside the board)
        sudden = not self._within_board(region) and self.light.changed(margin)
        fitted = self.light.gain is None or self.light.frames_since_fit >= REFIT_EVERY or sudden
        if fitted:
            small = self._sample_whole(frame, small)  # the fit looks at the whole board
            problem = self._fit_light(small, margin)
            if problem:
                return Reading(None, markers_found=len(MARKER_IDS), problem=problem)
            if not self._same_light_as_kept():
                kept = self._kept = None  # the light changed: the whole board is flattened again
        self._part_undo = None
        # an arm reaching in from a seat lies across the margin: the board is read whole
        # round it (what it covers is named, never guessed), and not kept to read changes from
        arm = (region is None or not self._within_board(region)) and self._crosses_margin(small)
        part = self._read_part(small, region, kept) \
            if region is not None and kept is not None and not arm else None
        if part is None:
            small = self._sample_whole(frame, small)
        flat, labels, as_empty = part if part is not None else self._flatten_whole(small)
        if fitted and part is None:
            # the light was just fitted with an arm and its shadow over the board (a light
            # sleeve passes for the margin's paper): fitted again on the paper and the printed
            # surfaces clear of them
            away = self._arm_over(labels, as_empty)
            if away is not None:
                if all(self._fit_light(small, margin, zone) for zone in away):
                    if arm:  # the arm hides what the light is judged by
                        return Reading(None, hand=True, markers_found=len(MARKER_IDS),
                                       problem="a hand is over the board")
                    self._fit_light(small, margin)  # no arm across the margin: the first fit stands
                flat, labels, as_empty = self._flatten_whole(small)
        self._flat = flat
        n_pieces = len(self._piece_names)
        is_piece = labels < n_pieces
        unexplained = (labels == UNKNOWN) | (~is_piece & ~as_empty)
        if self.glare.washed_out is not None:  # clipped by a reflection and not the empty board
            self.glare.washed_out &= ~as_empty
            unexplained |= self.glare.washed_out
            is_piece &= ~self.glare.washed_out
        _clear_outside(unexplained, self._board_rect)
        _clear_outside(is_piece, self._board_rect)
        lit = self._lighter_than_empty(flat, region if part is not None else None)
        strange = unexplained.copy()  # neither the empty board nor a piece's colour
        blobs = None
        if part is not None and region is not None:  # a window round the region; wider; the board
            blobs = self._blobs_in(is_piece, region, kept, BLOB_PAD) \
                or self._blobs_in(is_piece, region, kept, BLOB_PAD_WIDE)
        if blobs is None:
            small = self._sample_whole(frame, small)
            blobs = self._blobs_in(is_piece, None, None)
        n, components, stats, centres, near_pieces, carried = blobs
        self._sample_blobs(frame, stats)
        pieces: dict[str, list[Piece]] = {}
        doubtful: dict[str, str] = {}
        confidence: dict[str, float] = {}
        placed: list[tuple[str, Piece, float, float, float]] = []
        pip_cache: dict[tuple, tuple[np.ndarray, tuple[int, bool]]] = {}
        odd = np.zeros(labels.shape, np.uint8)  # pixels of blobs that are no piece
        explained = np.zeros(labels.shape, bool)
        # a blob whose pixels (and the ring its glare check looks at) are as they were in the
        # last frame is read as it was then: only what changed on the table is read again
        reuse = self.glare.cells is None and self.glare.washed_out is None and not self.keep_masks
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
                blob = self._read_blob(k, stats, centres, components, labels, (lit, strange), near_pieces,
                                       small, frame, pip_cache)
                if reuse:
                    blob_cache[key] = (patch.copy(), blob, area)
            self._tell(blob, odd, explained, doubtful, pieces, placed, confidence)
        self._set_blob_cache(blob_cache)
        self._pip_cache = pip_cache
        unexplained &= ~explained
        unexplained |= odd > 0
        verdict, near_arm = self._judge_unexplained(unexplained, flat, doubtful, components)
        if verdict is not None or near_arm is not None:
            self._undo_part()
        if verdict is not None:
            return verdict
        hand = near_arm is not None or arm
        if self.glare.cells is None and self.glare.washed_out is None and cells is not None and not hand:
            self._kept = _Kept(cells, flat, labels, as_empty, blob_cache, self.light.sample(),
                               None if self.light.tone is None else self.light.tone.copy())
        for spot_id, why in list(doubtful.items()):
            # whatever hides a place (a hand's edge, its shadow, a reflection's rim) reaches
            # past what was seen of it: the places beside it are not vouched for either (a
            # piece's own unclear marks hide nothing of its neighbours; an arm's edge is seen,
            # and near it the arm is what made a place doubtful)
            if why in HIDING and (near_arm is None or spot_id not in near_arm):
                for near in self._beside[spot_id]:
                    if why != "glare?" or self._reflection_reaches(near):
                        doubtful.setdefault(near, f"{BESIDE} {self.spot_label(spot_id)}, {why}")
        for spot_id in self._spot_ids:
            confidence.setdefault(spot_id, 0.0 if spot_id in doubtful else 1.0)
        for spot_id in doubtful:
            confidence[spot_id] = min(confidence.get(spot_id, 0.0), 0.3)
            pieces.pop(spot_id, None)
        return Reading(make_view(pieces), hand=hand, markers_found=len(MARKER_IDS), doubtful=doubtful,
                       confidence=confidence, pieces_at=placed)

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
        self.light.frames_since_fit = 0
        self.light.margin_at_fit = margin
        return ""

    def _flatten_whole(self, small: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The whole board flattened, its colours, and where it matches the empty board."""
        flat = self.glare.take_off(self.light.flatten(small), small, self.light.as_seen)
        # what the empty board does not explain: an unknown colour, or a surface colour
        # where the empty board shows another one
        return flat, self._classify(flat), cv2.inRange(flat, self._ref_lo, self._ref_hi) > 0

    def _arm_over(self, labels: np.ndarray, as_empty: np.ndarray) -> tuple[np.ndarray, ...] | None:
        """Where an arm reaching in lies, with room for its shadow: the big patches the empty
        board and the pieces' colours do not explain, as first seen, their hull (a light
        sleeve's middle passes for paper or a piece) grown by ``ARM_LIGHT_MM``; for when that
        leaves too little to judge the light by, the hull and then the patches themselves
        grown by ``ARM_SHADOW_MM``."""
        unexplained = (labels == UNKNOWN) | ((labels >= len(self._piece_names)) & ~as_empty)
        unexplained = unexplained.astype(np.uint8)
        _clear_outside(unexplained, self._board_rect)  # a cast may leave the margin's white unexplained
        n, components, stats, _ = connected_components(unexplained)
        big = [k for k in range(1, n) if stats[k, 4] > self._hand_px
               or (stats[k, 4] > 0.3 * self._hand_px and self._reaches_edge(*(int(v) for v in stats[k, :4])))]
        if not big:
            return None
        arm = np.isin(components, big).astype(np.uint8)
        hull = _filled_hull(arm).astype(np.uint8)
        return (cv2.dilate(hull, self._arm_light_disc), cv2.dilate(hull, self._arm_shadow_disc),
                cv2.dilate(arm, self._arm_shadow_disc))

    def _reflection_reaches(self, spot_id: str) -> bool:
        """Does a reflection measured on the board reach a place (its rim too), faintly or
        more?  Without a measure of it (a patch too bright to measure), say it may."""
        if self.glare.cells is None:
            return True
        y0, x0, y1, x1 = (int(v) for v in self._spot_boxes[self._spot_index[spot_id]])
        return self.glare.on(x0, y0, x1 - x0, y1 - y0, faint=True) >= GLARE_FAINT

    def _lighter_than_empty(self, flat: np.ndarray, region: tuple[slice, slice] | None) -> np.ndarray:
        """Where the board is lighter than the empty board (a reflection's halo): over the
        whole board, or as far round a changed region as its blobs' rings can reach."""
        if region is None:
            return cv2.inRange(flat, self._ref_lit, self._white)
        rows, cols = region
        reach = BLOB_PAD_WIDE + 12  # the wider window round the region, a ring (7), a pixel or two
        window = (slice(max(0, rows.start - reach), rows.stop + reach),
                  slice(max(0, cols.start - reach), cols.stop + reach))
        lit = np.zeros(flat.shape[:2], np.uint8)
        lit[window] = cv2.inRange(flat[window], self._ref_lit[window], self._white[window])
        return lit

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
        # a window wider than the region: closing, opening and the ring a glare check looks
        # at see the region's neighbours as they are
        r0, r1 = max(0, rows.start - pad), min(h_all, rows.stop + pad)
        c0, c1 = max(0, cols.start - pad), min(w_all, cols.stop + pad)
        mask = cv2.morphologyEx(is_piece[r0:r1, c0:c1].astype(np.uint8), cv2.MORPH_CLOSE, _SQUARE3)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _SQUARE3)
        n, local, stats, centres = connected_components(mask)
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
        for dx in (0, -1, 1):
            for dy in (0, -1, 1):
                # the last frame's boxes with this corner, the same size first, then a pixel less, more
                near = [old for old in self._blob_corners.get((x + dx, y + dy), ())
                        if abs(old[2] - w) <= 1 and abs(old[3] - h) <= 1]
                for old in sorted(near, key=lambda b: (_NEAREST[b[2] - w], _NEAREST[b[3] - h])):
                    hit = self._blob_cache[old]
                    if abs(hit[2] - area) > max(6, 0.04 * area):
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
                   labels: np.ndarray, around: tuple[np.ndarray, np.ndarray], near_pieces: np.ndarray,
                   small: np.ndarray, frame: np.ndarray, pip_cache: dict) -> _Blob:
        """One blob of piece colours: the pieces it holds, or the doubts it raises.  ``around``:
        where the board is lighter than the empty board, and where it shows neither the empty
        board nor a piece."""
        lit, strange = around
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
            elif self.glare.one_piece_lifted(labels[box], blob > 0, int(order[0]), int(order[1]), box,
                                             self.glare.on(x, y, w, h, faint=True) > GLARE_FAINT, self._flat):
                # one piece with a reflection over part of it, not two pieces
                spot = self._spot_at(centres[k][0] / SCALE - MARGIN_MM, centres[k][1] / SCALE - MARGIN_MM)
                if spot is not None:
                    out.doubts.append((spot, "glare?"))
                out.odd.append(((y, x), blob))
                return out
            else:
                blobs = self._split_by_colour(labels[y:y + h, x:x + w], blob > 0, x, y, order[:3], votes)
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
            own = components[by:by + bh, bx:bx + bw] == k
            if lit_around(lit, near_pieces, bx, by, bw, bh) or (
                    # a light piece ringed by colours that are nothing (a lit piece's glow round
                    # its reflection's white core), or that is another piece lit evenly
                    self._piece_names[index] in LIGHT_PIECES and (
                        lit_around(strange, near_pieces, bx, by, bw, bh)
                        or self._another_lit(index, own, bx, by)
                        # a white core read as a die: its "pips" are the lit piece round it
                        or (self.layout.marks.get(self._piece_names[index], (0, 0))[1] > 0
                            and self._another_lit(index, self._holes(own, labels[by:by + bh, bx:bx + bw],
                                                                     index), bx, by)))) or (
                    self.glare.too_strong_on(index, bx, by, bw, bh)
                    and not self.glare.colour_holds(index, own, bx, by, self._flat)):
                out.doubts.append((spot, "glare?"))  # and the places its pixels reach
                out.odd.append(((by, bx), own.astype(np.uint8)))
                continue
            marks = self.layout.marks.get(self._piece_names[index])
            if marks == (0, 0):  # a plain token: its print or a mid-grey face is no mark
                pips, sure, reflected = 0, True, False
            else:
                pips, sure, reflected = self._cached_pips(small, frame, index, bx, by, bw, bh, pip_cache)
            if reflected:
                out.doubts.append((spot, "glare?"))  # a lamp's reflection passes for a light mark
                continue
            if pips and self.glare.on(bx, by, bw, bh, faint=True) > GLARE_FAINT and any(
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

    def _judge_unexplained(self, unexplained: np.ndarray, flat: np.ndarray, doubtful: dict[str, str],
                           blobs: np.ndarray) -> tuple[Reading | None, set[str] | None]:
        """The spots that something unexplained lies on, and, when a hand or arm is over the
        board (its places are doubtful: ``_under_hand``), the places within its shadow's
        reach; no board at all when it covers most of it.  ``blobs`` labels the blobs of
        piece colours."""
        mask = cv2.morphologyEx(unexplained.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        if not mask.any():
            return None, None
        n, components, stats, _ = connected_components(mask)
        whys: dict[int, str] = {}
        hand: list[int] = []
        for k in range(1, n):
            x, y, w, h, area = stats[k]
            if area < self._speck_px:
                continue
            region = components[y:y + h, x:x + w] == k
            pixels = flat[y:y + h, x:x + w][region]
            empty = self._reference[y:y + h, x:x + w][region]
            brighter = (pixels.astype(np.int16) - empty.astype(np.int16)).min(axis=1)
            washed_out = self.glare.washed_out
            washed = washed_out is not None and washed_out[y:y + h, x:x + w][region].mean() > 0.3
            lighter = float(np.mean(brighter > 12)) > 0.6  # than the empty board, in every channel
            reaching = area > 0.3 * self._hand_px and self._reaches_edge(x, y, w, h)
            if (washed or lighter) and not (reaching and not washed):
                if self.glare.board_under(region, x, y, w, h):
                    continue  # the empty board, lifted evenly and smoothly by a reflection
                whys[k] = "glare?"
            elif area > self._hand_px or reaching:  # an arm reaching in (a light sleeve, unclipped)
                hand.append(k)
            else:
                whys[k] = "something over it (a hand, a shadow)?"
        over = None
        if hand:
            if int(stats[hand, cv2.CC_STAT_AREA].sum()) > HAND_MAX_SHARE * self._board_area:
                return Reading(None, hand=True, markers_found=len(MARKER_IDS),
                               problem="a hand is over the board"), set()
            # what touches the arm is the arm: a light sleeve, its shadow cut off by a piece,
            # the pieces of a hand's rim round a palm of the board's colour.  The arm's outline
            # is drawn round the solid parts (a dense speckle it touches is not the arm)
            solid = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _SQUARE5) > 0
            for _ in range(8):
                over = _filled_hull(np.isin(components, hand) & solid)
                held = np.unique(blobs[cv2.dilate(over.astype(np.uint8), self._beside_disc) > 0])
                held = held[held > 0]
                if len(held):
                    over |= np.isin(blobs, held)
                over = cv2.dilate(over.astype(np.uint8), self._arm_join_disc)
                touching = set(np.unique(components[over > 0]).tolist())
                joined = [k for k in whys if k in touching]
                if not joined:
                    break
                for k in joined:
                    hand.append(k)
                    del whys[k]
        for k, why in whys.items():
            x, y, w, h, _ = stats[k]
            spots = np.unique(self._spot_map[y:y + h, x:x + w][components[y:y + h, x:x + w] == k])
            for s in spots[spots >= 0]:
                doubtful.setdefault(self._spot_ids[int(s)], why)
        if not hand:
            return None, None
        outline = _filled_outline(np.isin(components, hand) & solid, self._arm_shadow_disc)
        self._under_hand(outline, blobs, doubtful)
        # within an arm's shadow, what else is doubted is the arm's doing (its shadow, the
        # light beside it), not a reflection whose rim reaches past what was seen of it
        zone = cv2.dilate(outline.astype(np.uint8), self._arm_shadow_disc)
        near = np.unique(self._spot_map[zone > 0])
        return None, {self._spot_ids[int(s)] for s in near[near >= 0]}

    def _under_hand(self, hand: np.ndarray, blobs: np.ndarray, doubtful: dict[str, str]) -> None:
        """Doubt every place a hand or arm (``hand``: its outline, filled) lies on, or reaches
        within a few mm of, with the
        blobs of piece colours that touch it (a sleeve or skin of a piece's colour, a piece
        half under a finger): what is under a hand is asked for, never guessed.  The arm's
        edge is seen, so its neighbours are not doubted for its sake (as a reflection's are)."""
        grown = cv2.dilate(hand.astype(np.uint8), self._beside_disc)
        touching = np.unique(blobs[grown > 0])
        touching = touching[touching > 0]
        over = grown > 0
        if len(touching):
            over |= np.isin(blobs, touching)
        spots = np.unique(self._spot_map[over])
        for s in spots[spots >= 0]:
            doubtful[self._spot_ids[int(s)]] = UNDER_A_HAND

    def _crosses_margin(self, small: np.ndarray) -> bool:
        """Something lies across the white margin (an arm reaching in from a seat): margin
        paper of another tint than the paper's, or much darker than the light there."""
        if self.light.paper is None:
            return False
        tint, level = self.light.paper
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

    def _another_lit(self, index: int, part: np.ndarray, bx: int, by: int) -> bool:
        """Is a light piece as seen a darker piece's colour lifted evenly in every channel, as a
        lamp's reflection lifts it (an orange die under one reads yellow)?  A piece without
        colour lifted is another one without colour (black, grey and white are each other
        lifted), and a colour clipped in a channel is many colours lifted, so those are taken
        for a reflection only where one was seen."""
        picture = self.glare.pre if self.glare.pre is not None else self._flat
        if picture is None or not part.any():
            return False
        box = (slice(by, by + part.shape[0]), slice(bx, bx + part.shape[1]))
        seen = channel_medians(picture[box], part.astype(np.uint8))
        measured = self.glare.on(bx, by, part.shape[1], part.shape[0], faint=True) > GLARE_FAINT
        # a white piece the lamp lifts to the clipping point is any light colour lifted: only
        # a colour seen whole (no channel clipped) is judged without a reflection seen round it
        whole = bool((seen < 250).all())
        colours = self._piece_bgr
        darker = (np.arange(len(colours)) != index) & (colours.sum(axis=1) < seen.sum())
        if not measured:
            neutral = (np.ptp(colours, axis=1) < 40) & (float(np.ptp(seen)) < 40)
            darker &= (~neutral) if whole else False
        if not darker.any():
            return False
        level, even = even_lift(np.broadcast_to(seen, colours.shape)[darker][None], colours[darker][None])
        return bool((even[0] & (level[0] > GLARE_MIN)).any())

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

    def _split_by_colour(self, labels: np.ndarray, blob: np.ndarray, x: int, y: int, indices: np.ndarray,
                         votes: np.ndarray) -> list:
        """A blob of two or more colours, as one piece per colour patch: only the blob's own
        pixels (its box may hold other pieces, as an arm's sleeve of a piece's colour does)."""
        out = []
        for index in indices:
            if votes[index] == 0:
                continue
            part = cv2.morphologyEx(((labels == index) & blob).astype(np.uint8), cv2.MORPH_OPEN,
                                    np.ones((3, 3), np.uint8))
            n, _, stats, centres = cv2.connectedComponentsWithStats(part, connectivity=8)
            for k in range(1, n):
                if stats[k, cv2.CC_STAT_AREA] >= self._smallest_px * 0.3:
                    bx, by, bw, bh, area = stats[k]
                    out.append((int(index), (centres[k][0] + x, centres[k][1] + y),
                                (bx + x, by + y, bw, bh, area), 1.0))
        return out

    # ------------------------------------------------------------------ light
    def _read_part(self, small: np.ndarray, region: tuple[slice, slice],
                   kept: _Kept) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The last clear board's flattened picture, colours and empty-board match, with only
        the changed region read again; None when a reflection may lie in it (read it all).
        Written over the kept board's own (this frame's board is kept in its turn), with what
        the region held put aside: a frame that shows a hand puts it back (``_undo_part``)."""
        rows, cols = region
        part = self.light.flatten_with(small[rows, cols], self.light.gain[rows, cols])
        names = self._classify(part)
        lighter = cv2.inRange(part, self._ref_lit[rows, cols], self._white[rows, cols])
        lighter[(names < len(self._piece_names)) | self._outside[rows, cols]] = 0
        if cv2.countNonZero(cv2.morphologyEx(lighter, cv2.MORPH_OPEN, _SQUARE5)) >= 24:
            return None
        self.glare.clear()
        flat, labels, as_empty = kept.flat, kept.labels, kept.as_empty
        self._part_undo = (rows, cols, flat[rows, cols].copy(), labels[rows, cols].copy(),
                           as_empty[rows, cols].copy())
        flat[rows, cols] = part
        labels[rows, cols] = names
        as_empty[rows, cols] = cv2.inRange(part, self._ref_lo[rows, cols], self._ref_hi[rows, cols]) > 0
        return flat, labels, as_empty

    def _undo_part(self) -> None:
        """Put back in the kept board what the changed region held before this frame."""
        if self._part_undo is not None and self._kept is not None:
            rows, cols, flat, labels, as_empty = self._part_undo
            self._kept.flat[rows, cols] = flat
            self._kept.labels[rows, cols] = labels
            self._kept.as_empty[rows, cols] = as_empty
        self._part_undo = None

    # ------------------------------------------------------------------ pips
    def _cached_pips(self, small: np.ndarray, frame: np.ndarray, index: int, bx: int, by: int, bw: int,
                     bh: int, fresh: dict) -> tuple[int, bool, bool]:
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
                   bh: int, glare_scale: float = 1.0) -> tuple[int, bool, bool]:
        """Pips on one piece, from a sharp crop sampled straight from the frame (with the
        reflection measured round it taken off ``glare_scale`` times), whether the count is
        clear, and whether a light spot on it is a lamp's reflection rather than a mark."""
        x0, y0 = bx / SCALE - 2, by / SCALE - 2
        x1, y1 = (bx + bw) / SCALE + 2, (by + bh) / SCALE + 2
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
        mask = (self._classify(crop) == index).astype(np.uint8)
        if self.keep_masks:
            self._last_mask = mask
        # (the re-reads with the reflection scaled ask only the count)
        face = outline(mask)
        gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        reflected = glare_scale == 1.0 and lit_like_a_mark(crop, mask, self._in_focus, face, gray)
        if self.faces is not None:
            return self.faces.classify(mask), True, reflected
        return (*count_pips(mask, gray, face), reflected)

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
        self._hidden_radius = np.full((h, w), np.inf, np.float32)
        for i, spot in enumerate(self.layout.spots):
            radius = np.sqrt(self._min_area[spot.id] / (0.35 * np.pi))
            here = self._spot_map == i
            self._hidden_radius[here] = np.minimum(self._hidden_radius[here], HIDDEN_SHARE * radius * SCALE)
        largest_spot = max((s.w * s.h for s in self.layout.spots), default=1.0)
        self._hand_px = max(2.0 * largest_spot, 2500.0) * SCALE * SCALE
        self._outside = np.ones((h, w), bool)
        m = int(round(MARGIN_MM * SCALE))
        self._board_rect = (slice(m, m + int(self.layout.height * SCALE)),
                            slice(m, m + int(self.layout.width * SCALE)))
        self._outside[self._board_rect] = False
        self._board_area = self.layout.width * self.layout.height * SCALE * SCALE
        reach = 2 * int(round(BESIDE_MM * SCALE)) + 1
        self._beside_disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach))
        reach = 2 * int(round(ARM_JOIN_MM * SCALE)) + 1
        self._arm_join_disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach))
        reach = 2 * int(round(ARM_SHADOW_MM * SCALE)) + 1
        self._arm_shadow_disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach))
        reach = 2 * int(round(ARM_LIGHT_MM * SCALE)) + 1
        self._arm_light_disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach))
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
        if self._sampler is None:
            return None
        return self._sampler.sample(frame)

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

    def topdown(self, frame: np.ndarray) -> np.ndarray | None:
        """The board as the reader samples it, light flattened (for calibration and checks)."""
        if self._sampler is None:
            return None
        return self.light.flatten(self._sampler.sample(frame))

    @property
    def located(self) -> bool:
        """Is the board found in the frames (its markers fix where it lies)?"""
        return self._homography is not None

    def describe(self) -> dict[str, Any]:
        return {"located": self._sampler is not None, "lens": self.lens is not None}


def _filled_hull(mask: np.ndarray) -> np.ndarray:
    """A mask's convex hull, filled: an arm and hand are one convex shape, though a palm
    of the board's colour leaves only its darker rim unexplained."""
    contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros(mask.shape, np.uint8)
    if contours:
        cv2.fillConvexPoly(filled, cv2.convexHull(np.concatenate(contours)), 1)
    return filled > 0


def _filled_outline(mask: np.ndarray, disc: np.ndarray) -> np.ndarray:
    """A mask closed over gaps narrower than ``disc`` and with its holes filled: an arm and
    hand with the palm a rim leaves unexplained (its middle is of the board's colour), not
    the hull's slivers beside an arm that meets something on its way."""
    closed = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, disc)
    contours, _ = cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(closed, contours, -1, 1, cv2.FILLED)
    return closed > 0


def _clear_outside(mask: np.ndarray, inside: tuple[slice, slice]) -> None:
    """Clear a mask of the board outside a rectangle (the same as indexing it with the
    rectangle's complement, in four slices rather than a pass over every pixel)."""
    rows, cols = inside
    mask[:rows.start] = False
    mask[rows.stop:] = False
    mask[:, :cols.start] = False
    mask[:, cols.stop:] = False


_NEAREST = {0: 0, -1: 1, 1: 2}  # a box's side the same, a pixel shorter, a pixel longer


def _grown_over(region: tuple[int, int, int, int], boxes: np.ndarray,
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


def _alike(before: np.ndarray, now: np.ndarray, most: float, mean: float) -> bool:
    """Are two patches the same but for sensor noise (no pixel off by more than ``most``,
    ``mean`` on average)?  A blur, a moved piece or a finger is far more."""
    return bool(cv2.norm(before, now, cv2.NORM_INF) <= most
                and cv2.norm(before, now, cv2.NORM_L1) <= mean * before.size)
