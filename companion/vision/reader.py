"""Frames in, board snapshots out, every position with a confidence.

The board is found by its ArUco markers (any two fix it) and a homography, tracked
between frames (``locating.py``).  A lens profile from ``calibrate camera`` is folded into
a sampling map computed once per homography, so no frame is ever undistorted whole
(``sampling.py``: the board top-down at 1 px/mm, sampled again only round a change).  The
room's light is taken off it (``light.py``), then a lamp's reflections (``glare.py``).

Each pixel then gets the nearest calibrated colour, or none when it is far from all of
them.  Pieces are blobs of a piece colour placed by their centre, their marks counted on a
sharp crop (``blobs.py``, ``pips.py``).  What neither a piece nor the empty board explains
(the board as learnt when empty) is a hand, an arm, a sleeve, a shadow or glare, whatever
its colour (``arms.py``): the board round an arm is read and the places under it named;
a small patch makes the places under it doubtful, with the likely reason.  A doubtful
position is never guessed, and the stabiliser commits nothing while one is doubtful or an
arm is over the board.  This file drives a frame through those parts and keeps what the
next frame needs: the board as last read clear, to read only what changed since.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.games.base import Layout, Piece, make_view
from companion.vision.arms import Arms
from companion.vision.blobs import BLOB_PAD, BLOB_PAD_WIDE, Blobs, _Blob, _Kept
from companion.vision.board_print import board_print, piece_slots
from companion.vision.colour_profile import ColourProfile
from companion.vision.faces import FaceTemplates
from companion.vision.geometry import (
    MARGIN_MM,
    MARKER_IDS,
    aruco_dictionary,
    canvas_size_mm,
    marker_corners_mm,
)
from companion.vision.glare import Glare
from companion.vision.lens import Lens
from companion.vision.light import CLIPPED, Light
from companion.vision.locating import Locating
from companion.vision.reading import (
    BESIDE,
    BESIDE_MM,
    HIDING,
    SCALE,
    SQUARE3,
    SQUARE5,
    STILL_TOLERANCE,
    UNKNOWN,
    Reading,
    clear_outside,
)
from companion.vision.sampling import Sampler

SHARPNESS_MIN = 1.35  # see BoardReader.sharpness
IN_FOCUS = 2.6  # sharper than this: a mark's edge is a pixel or two wide, no blurred halo
SHAKE_SKEW_MAX = 1.28  # focus blur is the same every way (1.16-1.22); a shake is not (1.3+)
REFIT_EVERY = 8  # frames read between two fits of the light
HIDDEN_SHARE = 0.85  # a disc this share of a place's smallest piece, unseen, may hide one
LOWER_BOUND_MATTERS = 240  # a clipped channel flattened below this may be a lighter colour's
EMPTY_TOLERANCE = 24  # how far (per channel, of 255) the board may stray from the empty board


@dataclass
class BoardReader(Locating, Arms, Blobs):
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
        lab = np.clip(self._centroids, 0, 255).astype(np.uint8).reshape(-1, 1, 3)
        self._centroid_bgr = cv2.cvtColor(lab, cv2.COLOR_LAB2BGR).reshape(-1, 3).astype(np.float32)
        self._piece_bgr = self._centroid_bgr[:len(names)]
        self._weights = np.array([0.5, 1.0, 1.0], np.float32)  # lightness counts for less
        self._lut = self._build_lut()
        self._build_spots()
        self._build_reference(board_print(self.layout, SCALE))
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
        # a light fitted clear of an arm saw less of the board: fitted again once it may be gone
        fitted = self.light.gain is None or self.light.frames_since_fit >= REFIT_EVERY or sudden \
            or self.light.round_arm
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
        crossing = self._margin_crossing(small) if region is None or not self._within_board(region) else None
        arm = crossing is not None
        part = self._read_part(small, region, kept) \
            if region is not None and kept is not None and not arm else None
        if part is None:
            small = self._sample_whole(frame, small)
        flat, labels, as_empty = part if part is not None else self._flatten_whole(small, crossing)
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
                flat, labels, as_empty = self._flatten_whole(small, crossing)
        self._flat = flat
        n_pieces = len(self._piece_names)
        is_piece = labels < n_pieces
        unexplained = (labels == UNKNOWN) | (~is_piece & ~as_empty)
        if self.glare.washed_out is not None:  # clipped by a reflection and not the empty board
            self.glare.washed_out &= ~as_empty
            unexplained |= self.glare.washed_out
            is_piece &= ~self.glare.washed_out
        clear_outside(unexplained, self._board_rect)
        clear_outside(is_piece, self._board_rect)
        lit = self._lighter_than_empty(flat, region if part is not None else None)
        clear_outside(lit, self._board_rect)  # the margin's paper at white is no reflection's halo
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
        verdict, near_arm = self._judge_unexplained(unexplained, flat, doubtful, components, crossing)
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
            # and near it the arm is what made a place doubtful).  A reflection, or a place
            # under one, reaches only the neighbours the reflection lifts too
            if why in HIDING and (near_arm is None or spot_id not in near_arm):
                measured = self.glare.cells is not None
                reflected = why == "glare?" or (measured and self._reflection_reaches(spot_id))
                for near in self._beside[spot_id]:
                    if not reflected or self._reflection_reaches(near):
                        doubtful.setdefault(near, f"{BESIDE} {self.spot_label(spot_id)}, {why}")
        for spot_id in self._spot_ids:
            confidence.setdefault(spot_id, 0.0 if spot_id in doubtful else 1.0)
        for spot_id in doubtful:
            confidence[spot_id] = min(confidence.get(spot_id, 0.0), 0.3)
            pieces.pop(spot_id, None)
        return Reading(make_view(pieces), hand=hand, markers_found=len(MARKER_IDS), doubtful=doubtful,
                       confidence=confidence, pieces_at=placed)

    def _flatten_whole(self, small: np.ndarray, crossing: np.ndarray | None = None
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The whole board flattened, its colours, and where it matches the empty board.
        ``crossing``: where an arm crosses the margin; a lift that reaches it is the arm (the
        palest skin over a tan board is lighter by about as much in every channel, as a
        reflection is), not a reflection to take off."""
        arm_entry = None if crossing is None else self._arm_entry(crossing)
        flat = self.glare.take_off(self.light.flatten(small), small, self.light.as_seen, arm_entry)
        # what the empty board does not explain: an unknown colour, or a surface colour
        # where the empty board shows another one
        return flat, self._classify_seen(flat, small), cv2.inRange(flat, self._ref_lo, self._ref_hi) > 0

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

    # ------------------------------------------------------------------ light
    def _read_part(self, small: np.ndarray, region: tuple[slice, slice],
                   kept: _Kept) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The last clear board's flattened picture, colours and empty-board match, with only
        the changed region read again; None when a reflection may lie in it (read it all).
        Written over the kept board's own (this frame's board is kept in its turn), with what
        the region held put aside: a frame that shows a hand puts it back (``_undo_part``)."""
        rows, cols = region
        part = self.light.flatten_with(small[rows, cols], self.light.gain[rows, cols])
        names = self._classify_seen(part, small[rows, cols])
        lighter = cv2.inRange(part, self._ref_lit[rows, cols], self._white[rows, cols])
        lighter[(names < len(self._piece_names)) | self._outside[rows, cols]] = 0
        if cv2.countNonZero(cv2.morphologyEx(lighter, cv2.MORPH_OPEN, SQUARE5)) >= 24:
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

    def _classify_seen(self, flat: np.ndarray, seen: np.ndarray) -> np.ndarray:
        """Labels of a flattened picture, where a channel the camera clipped (in ``seen``, the
        picture as sampled) counts as at least what it flattened to: a lamp of another colour
        clips one channel of a white face first, which flattens it below the face's own level
        (206 where it is 245), and the face then passed for a lighter print of the board
        (only a channel the light flattens below ``LOWER_BOUND_MATTERS`` is so judged).  A
        pixel beside a clipped one counts so too (sampling mixes the clipped values in: 236
        where the face's pips' rims showed 255).  A pixel so in every channel is left as it is
        (a reflection's rim: the glare check judges those)."""
        labels = self._classify(flat)
        floor = self.light.clipped_floor
        lowered = floor < LOWER_BOUND_MATTERS if floor is not None else np.zeros(3, bool)
        if not lowered.any():  # a clipped channel flattens to about white: nothing to raise
            return labels
        near = cv2.dilate(seen, SQUARE3)  # each channel's highest value round each pixel
        unclipped = cv2.inRange(near, (0, 0, 0), tuple(CLIPPED - 1 if low else 255 for low in lowered))
        if cv2.countNonZero(unclipped) == unclipped.size:
            return labels
        # only what is no piece's colour yet may be one (a lower bound lifts nothing else)
        open_ = cv2.compare(labels, len(self._piece_names), cv2.CMP_GE)
        open_ &= ~unclipped & ~cv2.inRange(near, (CLIPPED,) * 3, (255,) * 3)
        found_at = cv2.findNonZero(open_)
        if found_at is None:
            return labels
        xs, ys = found_at.reshape(-1, 2).T
        pixels = flat[ys, xs].astype(np.float32)[:, None, :]  # N x 1 x 3
        clipped = ((near[ys, xs] >= CLIPPED) & lowered)[:, None, :]
        # each colour judged with the clipped channels raised to it where it is lighter
        lifted = np.where(clipped, np.maximum(pixels, self._centroid_bgr[None]), pixels)
        k = len(self._centroid_bgr)
        lab = cv2.cvtColor(lifted.astype(np.uint8).reshape(-1, 1, 3), cv2.COLOR_BGR2LAB)
        lab = lab.reshape(-1, k, 3).astype(np.float32) * self._weights
        d = ((lab - self._centroids * self._weights) ** 2).sum(-1)
        best = d.argmin(1)
        found = np.where(d[np.arange(len(best)), best] > 30.0 ** 2, UNKNOWN, best).astype(np.uint8)
        labels[ys, xs] = found
        return labels

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






