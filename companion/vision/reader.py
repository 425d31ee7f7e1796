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
next frame needs: the board as last read clear, to read only what changed since.  The
empty board it compares with (``empty_board.py``), the colours (``classifying.py``) and the
places' map (``board_map.py``) are rooms of their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.games.base import Layout, Piece, make_view
from companion.vision.arms import Arms
from companion.vision.blobs import BLOB_PAD, BLOB_PAD_WIDE, HIDDEN, MARKS_UNCLEAR, Blobs, _Blob, _Kept
from companion.vision.board_map import BoardMap
from companion.vision.board_print import board_print
from companion.vision.classifying import Classifying
from companion.vision.colour_profile import ColourProfile
from companion.vision.empty_board import EmptyBoard
from companion.vision.faces import FaceTemplates
from companion.vision.geometry import (
    MARGIN_MM,
    MARKER_IDS,
    aruco_dictionary,
    canvas_size_mm,
    marker_corners_mm,
)
from companion.vision.lamp_spot import told_as_glare
from companion.vision.lens import Lens
from companion.vision.light import Light
from companion.vision.locating import Locating
from companion.vision.pale_rims import PALE_RIM, PaleRims
from companion.vision.pose import CameraPose
from companion.vision.reading import (
    BESIDE,
    BESIDE_MM,
    HIDING,
    MARKS_PX_PER_MM,
    SCALE,
    STILL_TOLERANCE,
    UNDER_A_HAND,
    UNKNOWN,
    Reading,
    clear_outside,
)
from companion.vision.sampling import Sampler
from companion.vision.standing import COLUMN_UNCLEAR, Standing

SHARPNESS_MIN = 1.35  # see BoardReader.sharpness
IN_FOCUS = 2.6  # sharper than this: a mark's edge is a pixel or two wide, no blurred halo
SHAKE_SKEW_MAX = 1.28  # focus blur is the same every way (1.16-1.22); a shake is not (1.3+)
# below this a die's pips (2.5-3 mm across) are a pixel or little more.  Measured on the flat
# camera's boards of every game scaled down (stop 64's closing note): every die read right or
# doubted down to 0.38 px a mm, Baron Voodoo's first misread at 0.37; the physically based
# frames from the side (0.54-0.60) none misread.  A 640x480 camera sees every board at 0.59-0.84
MIN_FRAME_PX_PER_MM = 0.5
REFIT_EVERY = 8  # frames read between two fits of the light
STILL_FRAMES_KEPT = 6  # read-only frames kept as found still (three noise fields, twice)
PIPS_KEPT_PER_PLACE = 4  # pieces' marks kept read, at most, per place of the board (``_pip_cache``)


@dataclass
class BoardReader(Locating, Arms, Blobs, Standing, EmptyBoard, Classifying, PaleRims, BoardMap):
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
        self._lit_part: tuple | None = None  # the region read again, lighter than empty (``_read_part``)
        self._last_reading: Reading | None = None
        self._last_cells: np.ndarray | None = None
        self._still_frames: list[np.ndarray] = []  # read-only frames found still against them
        self._pip_cache: dict[tuple, tuple[np.ndarray, tuple[int, bool]]] = {}
        self._marks_seen: dict[int, list[np.ndarray]] = {}  # this frame's dice marks' contrasts, per colour
        self._marks_last_seen: dict[int, list[np.ndarray]] = {}  # the last frame's that had any, per colour
        self._blob_cache: dict[tuple, tuple[np.ndarray, _Blob, int]] = {}
        self._blob_corners: dict[tuple[int, int], list[tuple]] = {}  # the cache's boxes by corner
        self._marker_sharpness: list[tuple[np.ndarray, tuple[float, float] | None]] = []
        self._in_focus = True  # the last frame read was sharp (see ``sharpness``)
        self._kept: _Kept | None = None
        self.light = Light()  # the room's light, fitted to the margin and the board's print
        self._flat: np.ndarray | None = None  # this frame's board, light and reflections taken off
        self.frame_size: tuple[int, int] | None = None
        self.frame_px_per_mm = 0.0  # the located board's frame pixels a millimetre
        self.pose: CameraPose | None = None  # where the camera stands (pieces read at their height)
        self.dice_stand = False  # the dice of the last board read whole showed their sides
        self._as_empty: np.ndarray | None = None  # this frame's pixels that show the empty board
        # the arm reaching in across the margin as seen, and where it crosses (its samples' middle)
        self._arm_seen: tuple[np.ndarray, tuple[float, float]] | None = None

    # ------------------------------------------------------------------ reading
    def read(self, frame: np.ndarray | None) -> Reading:
        """Read one BGR frame; a garbled, empty, dark or boardless frame is a Reading with a problem."""
        if frame is None or not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 \
                or frame.shape[0] < 32 or frame.shape[1] < 32:
            return Reading(None, problem="not a colour camera frame")
        if frame.dtype != np.uint8:
            return Reading(None, problem=f"frame has pixel type {frame.dtype}, expected uint8")
        raw, fringes = frame, self._fringes
        if fringes is not None and fringes.size == (frame.shape[1], frame.shape[0]):
            frame = fringes.off(frame)  # a cheap lens's colour fringes (``fringes``), taken off
        if self._sampler is not None and self.frame_size == (frame.shape[1], frame.shape[0]):
            if self._last_reading is not None and any(raw is seen for seen in self._still_frames):
                return self._last_reading  # this very frame, read-only, was found still before
            cells = self._sampler.cells(frame)  # 4 mm cells, sensor noise averaged out
            if self._last_reading is not None and self._last_cells is not None \
                    and int(cv2.absdiff(cells, self._last_cells).max()) <= STILL_TOLERANCE:
                self._seen_still(raw)
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
        if self._fringes is not fringes and self._fringes is not None:
            frame = self._fringes.off(raw)  # measured on this frame's markers: this frame too
        self._partial = False
        small = self._sampler.whole(frame)
        cells = self._sampler.cells(frame)
        return self._remember(self._read_small(small, frame, None, cells), cells)

    def arm_across_margin(self, frame: np.ndarray) -> bool:
        """A cheap look for the camera loop, which lets a frame stand as the last reading while
        an arm is over the board (``pipeline.ARM_FRAMES_SKIPPED``): do this frame's 4 mm cells
        in the margin differ from the last board read whole and clear, as where an arm still
        reaches in across it?  Once the margin is clear again the frame is read, so the board
        an arm left is read as soon as before.  A frame let stand counts for the light's
        schedule as one read does.  False when not known (no board kept, another frame size)."""
        kept = self._kept
        if kept is None or self._sampler is None or self.frame_size != (frame.shape[1], frame.shape[0]):
            return False
        cells = self._sampler.cells(frame)
        if cells.shape != kept.cells.shape:
            return False
        step = STILL_TOLERANCE // 2
        changed = 255 - cv2.inRange(cv2.absdiff(cells, kept.cells), (0, 0, 0), (step, step, step))
        inner = int(MARGIN_MM * SCALE) // 4 - 1  # the cells wholly in the margin lie outside these
        changed[inner:changed.shape[0] - inner, inner:changed.shape[1] - inner] = 0
        if not cv2.countNonZero(changed):
            return False
        self.light.frames_since_fit += 1
        return True

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
        """Sample again round the blobs this frame reads (an area left in ``stats``): their pixels,
        and the patches their last frame is compared on (8 px round a blob, give or take one)."""
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
        self._still_frames = []  # found still against the cells before these
        return reading

    def _seen_still(self, frame: np.ndarray) -> None:
        """Keep a read-only frame found still against the last cells: given again (a camera that hands
        out the frames it keeps, as the simulated table's does) it is known still without sampling
        it.  A frame that can be written to, or shows another array's pixels, may change: never kept."""
        if frame.flags.writeable or not frame.flags.owndata:
            return
        self._still_frames = [*self._still_frames[-(STILL_FRAMES_KEPT - 1):], frame]

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

    def _read_small(self, small: np.ndarray, frame: np.ndarray,
                    region: tuple[slice, slice] | None = None, cells: np.ndarray | None = None) -> Reading:
        kept = self._kept
        if self.frame_px_per_mm < MIN_FRAME_PX_PER_MM:
            seen, need = f"{self.frame_px_per_mm:.2f}", f"{MIN_FRAME_PX_PER_MM:.2f}"
            return Reading(None, markers_found=len(MARKER_IDS),
                           problem=f"too few pixels: the camera sees the board at {seen} px a mm, a die's "
                                   f"pips need {need}: move it closer or use a 720p camera")
        sharp, skew = self.sharpness(small)
        # a camera with fewer pixels a millimetre than the board is sampled at spreads every
        # edge over more of the sampled board's pixels: that is its size, not blur
        sharp /= min(1.0, self.frame_px_per_mm / SCALE)
        self._in_focus = sharp >= IN_FOCUS
        # (a shake blurs one way: a frame sharp as in focus even its most blurred way has none
        # that matters.  A camera with fewer pixels a millimetre draws the markers' edges in
        # steps that differ with their direction: 640x480, sharp, skews 1.30-1.32)
        if sharp < SHARPNESS_MIN or (skew > SHAKE_SKEW_MAX and not self._in_focus):
            return Reading(None, markers_found=len(MARKER_IDS),
                           problem="too blurred to read: the camera or the table shook")
        self.light.frames_since_fit += 1
        ys, xs = self._margin_samples
        margin = small[ys[::4], xs[::4]].astype(np.float32)
        # light changes slowly (fitted again every 8 frames), but a lamp switched on or a
        # curtain drawn changes it at once (the margin changes: no change inside the board)
        sudden = not self._within_board(region) and self.light.changed(margin)
        fitted = self.light.gain is None or self.light.frames_since_fit >= REFIT_EVERY or sudden
        # an arm reaching in from a seat lies across the margin: the board is read whole
        # round it (what it covers is named, never guessed), and not kept to read changes from
        crosses = region is None or not self._within_board(region)
        crossing = None
        if not fitted and self.light.round_arm:
            # a light fitted clear of an arm saw less of the board: fitted again once the arm
            # may be gone.  While it still lies across the margin the light fitted round it
            # stands till the next fit is due (a room's light does not change in a frame; a
            # fit round an arm is two fits and two flattenings of the whole board)
            crossing = self._margin_crossing(small) if crosses else None
            fitted = crossing is None
        if fitted:
            small = self._sample_whole(frame, small)  # the fit looks at the whole board
            problem = self._fit_light(small, margin)
            if problem:
                return Reading(None, markers_found=len(MARKER_IDS), problem=problem)
            if not self._same_light_as_kept():
                kept = self._kept = None  # the light changed: the whole board is flattened again
            crossing = self._margin_crossing(small) if crosses else None  # seen in the light just fitted
        elif crossing is None and crosses:
            crossing = self._margin_crossing(small)
        self._part_undo = None
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
                if crossing is None:
                    flat, labels, as_empty = self._pool_for_an_arm(small, flat, labels, as_empty)
            elif crossing is None and self._refine_light(flat):
                flat, labels, as_empty = self._flatten_whole(small, crossing)
        self._flat = flat
        self._arm_across = arm  # (an arm's hand between the print's lines: ``_sheen_lit_chips``)
        labels = self._piece_shades(flat, labels, as_empty, region if part is not None else None)
        self._as_empty = as_empty  # (where a column's sides would stand: ``_one_place_whatever_height``)
        n_pieces = len(self._piece_names)
        is_piece = labels < n_pieces
        # neither a piece's colour nor the empty board, or no colour at all (in place: a whole
        # board's pass each; and below, ``a & ~b`` as ``a > b``, one pass with no copy)
        unexplained = is_piece | as_empty
        np.logical_not(unexplained, out=unexplained)
        unexplained |= labels == UNKNOWN
        if self.glare.washed_out is not None:  # clipped by a reflection and not the empty board
            self.glare.washed_out &= ~as_empty
            unexplained |= self.glare.washed_out
            is_piece &= ~self.glare.washed_out
        clear_outside(unexplained, self._board_rect)
        clear_outside(is_piece, self._board_rect)
        strange = self._strange = unexplained.copy()  # neither the empty board nor a piece's colour
        blobs = None
        if part is not None and region is not None:  # a window round the region; wider; the board
            blobs = self._blobs_in(is_piece, region, kept, BLOB_PAD) \
                or self._blobs_in(is_piece, region, kept, BLOB_PAD_WIDE)
        if blobs is None:
            small = self._sample_whole(frame, small)
            blobs = self._blobs_in(is_piece, None, None)
        n, components, stats, centres, near_pieces, carried = blobs
        lit = self._lighter_than_empty(flat, stats, self._lit_part if part is not None else None)
        clear_outside(lit, self._board_rect)  # the margin's paper at white is no reflection's halo
        self._sample_blobs(frame, stats)
        pieces: dict[str, list[Piece]] = {}
        doubtful: dict[str, str] = {}
        whence: dict[str, list[tuple[int, int, int, int]]] = {}  # what made each place doubtful
        confidence: dict[str, float] = {}
        placed: list[tuple[str, Piece, float, float, float]] = []
        pip_cache: dict[tuple, tuple[np.ndarray, tuple[int, bool]]] = {}
        odd = np.zeros(labels.shape, np.uint8)  # pixels of blobs that are no piece
        explained = np.zeros(labels.shape, bool)
        # a blob whose pixels (and the ring its glare check looks at) are as they were in the
        # last frame is read as it was then: only what changed on the table is read again
        reuse = self.glare.cells is None and self.glare.washed_out is None and not self.keep_masks
        blob_cache: dict[tuple, tuple[np.ndarray, _Blob, int]] = dict(carried)
        if part is None:  # a whole board: do its dice show their sides? (a change is read as it was)
            self.dice_stand = self._dice_stand_up(n, stats, components, labels)
        read: list[tuple[int, tuple, _Blob]] = []
        self._marks_last_seen.update((i, marks) for i, marks in self._marks_seen.items() if marks)
        self._marks_seen = {}
        for k, (x, y, w, h, area) in enumerate(stats.tolist()[1:n], 1):
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
            read.append((k, key, blob))
        # a die's marks unclear for a column that might stand on a place nearer the camera's
        # nadir: read again knowing where other dice's tops were read (``_tops_read``).  The
        # next frame reuses it as first read (unclear: it knows nothing of its neighbours then),
        # never drops it: a blob left out of the kept board is neither read again nor carried
        # where the table has not changed, and its piece vanished (King of Clubs, cafe, passive
        # s14: a purple Dancer under two Moves was read as the two Moves alone and committed)
        # Read again too with its colour's marks' contrast raised to what most dice's show, as
        # this frame's other dice of that colour show theirs (``marks_gains``)
        kept = [blob for _patch, blob, _area in carried.values()]
        every = kept + [blob for _k, _key, blob in read]
        gains: dict[int, float] | None = None  # (measured only for a die still unclear)
        # A top read sure on a re-read rules out a column under the next die's top: read again
        # those whose places where tops were read grew, until none did (a row of dice from a
        # slant: each unclear until the one nearer the nadir is read; at most a round a blob);
        # so too a column of unclear height, and a die read as a column's top over a place another
        # die's top was read on, first or on a re-read (Baron Voodoo at 30 degrees: a purple die
        # read as a column on E2 came under E2's own die once that one's height, asked, was read)
        asked: dict[int, frozenset[str]] = {}
        for _round in range(len(read)):
            # (where two blobs read a piece at one place: none is read twice on most boards)
            tops = self._tops_by_place(every) if self._claimed_twice(every) else {}
            grew = False
            for i, (k, key, blob) in enumerate(read):
                if not (any(why.startswith((MARKS_UNCLEAR, COLUMN_UNCLEAR)) for _spot, why in blob.doubts)
                        or any(b is not blob for spot, *_ in blob.found for b in tops.get(spot, ()))):
                    continue
                topped = self._tops_read(every, blob)
                if asked.get(i) == topped:
                    continue  # read knowing as much already
                asked[i] = self._topped = topped
                read[i] = (k, key, self._read_blob(k, stats, centres, components, labels, (lit, strange),
                                                   near_pieces, small, frame, pip_cache))
                if any(why == MARKS_UNCLEAR for _spot, why in read[i][2].doubts) \
                        and (gains := self.marks_gains() if gains is None else gains):
                    self._marks_gains = gains
                    read[i] = (k, key, self._read_blob(k, stats, centres, components, labels, (lit, strange),
                                                       near_pieces, small, frame, pip_cache))
                    self._marks_gains = {}
                self._topped = frozenset()
                grew |= bool(set(self._tops_by_place([read[i][2]])) - set(self._tops_by_place([blob])))
                every = kept + [blob for _k, _key, blob in read]
            if not grew:
                break
        told = self._one_held_read(every[:len(carried)] + [blob for _k, _key, blob in read])
        for blob in told:
            self._tell(blob, odd, explained, doubtful, pieces, placed, confidence, whence)
        under_seen = self._under_seen(told)
        self._set_blob_cache(blob_cache)
        # a piece's marks depend on its own box (all ``_cached_pips`` compares), not on its
        # neighbours: those of pieces not read this frame (carried, or told again as their blob
        # was) are kept for the frame a change beside one has its blob read again.  Bounded: a
        # board's pieces several times over, then only this frame's
        kept_pips = {**self._pip_cache, **pip_cache}
        few = len(kept_pips) <= PIPS_KEPT_PER_PLACE * len(self._spot_ids)
        self._pip_cache = kept_pips if few else pip_cache
        np.greater(unexplained, explained, out=unexplained)
        # (a figure's longer shadow only with no arm across the margin: an arm's shadow by a
        # figure is the arm's, and what lies in it is no figure's shade to read through)
        tall = self._standing_round(labels, is_piece) if crossing is None else None
        shade = self._cast_shadows(flat, is_piece, unexplained, tall, lambda: self._dice_feet(told))
        np.greater(unexplained, shade, out=unexplained)  # light, not a doubt (but see below)
        if any(blob.odd for blob in told):
            unexplained |= odd > 0
        self._read_so_far = pieces  # (a figure's head off every place: ``_places_leaning_onto``)
        verdict, near_arm = self._judge_unexplained(unexplained, flat, doubtful, components, crossing,
                                                       whence, odd)
        if verdict is not None or near_arm is not None:
            self._undo_part()
        if verdict is not None:
            return verdict
        hand = near_arm is not None or arm
        if not hand:  # (a hand's or an arm's shadow is theirs: what it hides is asked as under them)
            self._doubt_cast_by_nothing(shade, components, stats, read, pieces, doubtful)
        for spot_id in self._shadow_coloured_near_arm(placed):
            doubtful.setdefault(spot_id, UNDER_A_HAND)
        for spot_id, why in self._figure_heads(placed, labels, doubtful).items():
            doubtful.setdefault(spot_id, why)
        for spot_id, why in self._figure_shades(placed, labels).items():
            doubtful.setdefault(spot_id, why)
        for spot_id, why in self._die_sides_apart(placed, pieces).items():
            doubtful.setdefault(spot_id, why)
        rims = [] if hand else self._pale_rims(pieces, doubtful, region if part is not None else None)
        doubtful.update((spot_id, PALE_RIM) for spot_id in rims)  # (a hand's shadow may ring a place)
        for spot_id, here in pieces.items():
            if not self._may_hold_all(spot_id, here):
                # more read than the rules ever put there: a neighbour's top or side, or a shade, among them
                doubtful.setdefault(spot_id, "more pieces than the place holds: a neighbour's?")
        for spot_id, piece, *_where in placed:
            if not self._may_hold(spot_id, piece.colour):
                # what the rules never put there is no piece of its own there: a shade or a
                # neighbour's side passing for one, or a piece out of place; never read
                doubtful.setdefault(spot_id, f"{piece.colour} where the game puts none: shade, or misplaced?")
        for spot_id, why in self._column_tops_over(placed, doubtful, whence, told).items():
            doubtful.setdefault(spot_id, why)  # (a place doubted for any of the above may hold a column)
        if self.glare.cells is None and self.glare.washed_out is None and cells is not None and not hand:
            self._kept = _Kept(cells, flat, labels, as_empty, blob_cache, self.light.sample(),
                               None if self.light.tone is None else self.light.tone.copy())
        for spot_id, why in list(doubtful.items()):
            # whatever hides a place (a hand's edge, its shadow, a reflection's rim) reaches
            # past what was seen of it, by a few millimetres: the places that near what made
            # it doubtful are not vouched for either (a piece's own unclear marks hide nothing
            # of its neighbours; an arm's edge is seen, and near it the arm is what made a
            # place doubtful).  With an arm over the board, the places beside the place: an
            # arm of the board's own colours shows only bits of the print it covers, and what
            # it hides between them is not seen.  A reflection, or a place under one, reaches
            # only the neighbours the reflection lifts too
            if why in HIDING and (near_arm is None or spot_id not in near_arm) \
                    and not (why == HIDDEN and spot_id in under_seen):
                measured = self.glare.cells is not None
                reflected = why == "glare?" or (measured and self._reflection_reaches(spot_id))
                for near in self._reached(None if hand else whence.get(spot_id), spot_id):
                    if not reflected or self._reflection_reaches(near):
                        doubtful.setdefault(near, f"{BESIDE} {self.spot_label(spot_id)}, {why}")
        if self.frame_px_per_mm < MARKS_PX_PER_MM:  # (a pip a pixel or two across: too small, not blurred)
            small = f"marks too small for the camera ({self.frame_px_per_mm:.2f} px a mm): move it closer?"
            doubtful.update({spot_id: small for spot_id, why in doubtful.items() if why == MARKS_UNCLEAR})
        for spot_id in self._spot_ids:
            confidence.setdefault(spot_id, 0.0 if spot_id in doubtful else 1.0)
        for spot_id in doubtful:
            confidence[spot_id] = min(confidence.get(spot_id, 0.0), 0.3)
            pieces.pop(spot_id, None)
        reading = Reading(make_view(pieces), hand=hand, markers_found=len(MARKER_IDS), doubtful=doubtful,
                          confidence=confidence, pieces_at=placed)
        return told_as_glare(reading, self.lamp_not_arm)  # (a lamp taken for an arm: ``lamp_spot``)

    def _reached(self, boxes: list[tuple[int, int, int, int]] | None, spot_id: str) -> list[str]:
        """The places other than ``spot_id`` within ``BESIDE_MM`` of what made it doubtful
        (boxes: rows y0..y1, columns x0..x1 of the sampled board); every place beside it when
        that is not known."""
        if not boxes:
            return self._beside[spot_id]
        r = int(round(BESIDE_MM * SCALE))
        found: set[int] = set()
        for y0, y1, x0, x1 in boxes:
            window = self._spot_map[max(0, y0 - r):y1 + r, max(0, x0 - r):x1 + r]
            found.update(int(i) for i in np.unique(window) if i >= 0)
        found.discard(self._spot_index[spot_id])
        return [self._spot_ids[i] for i in sorted(found)]

    def sampled(self, frame: np.ndarray) -> np.ndarray | None:
        """The board as sampled top-down (1 px/mm), light not flattened; None when not located."""
        if self._sampler is None:
            return None
        return self._sampler.sample(frame)

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






