"""Finding the board in a frame and keeping it: its ArUco markers (any two fix it), the
homography they give (a lens profile folded in), whether the board still lies where they
were, and how sharp their edges are (focus blur against a shaken camera).

A part of ``BoardReader`` (``reader.py``): the methods here use its state.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from companion.vision import fringes
from companion.vision.geometry import MARGIN_MM, MARKER_IDS, aruco_dictionary
from companion.vision.pose import CameraPose
from companion.vision.reading import SCALE, Reading, alike
from companion.vision.sampling import Sampler

VIEWS_KEPT = 2  # the views (homographies) whose sampling maps are kept, the one in use among them
_ANGLES = np.deg2rad(np.arange(0, 180, 30))
_COS, _SIN = np.cos(_ANGLES).astype(np.float32), np.sin(_ANGLES).astype(np.float32)


class Locating:
    """Where the board lies in the frame, and how sharp it is."""

    _fringes: fringes.Fringes | None = None  # a cheap lens's colour fringes, measured on the markers

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
        # (and the markers in each channel apart: a cheap lens's colour fringes, ``fringes``)
        axis = None if self.lens is None else (float(self.lens.matrix[0, 2]), float(self.lens.matrix[1, 2]))
        self._fringes = fringes.measured(frame, [markers[i] for i in ids], self._fringes, axis)
        keep = inliers.ravel() > 0
        self.pose = CameraPose.solve(dst[keep] / self.px_per_mm, src[keep],
                                     None if self.lens is None else self.lens.matrix,
                                     (frame.shape[1], frame.shape[0]), np.linalg.inv(homography)
                                     @ np.diag([self.px_per_mm, self.px_per_mm, 1.0]))
        self._last = markers
        return None

    def _set_homography(self, homography: np.ndarray, shape: tuple[int, ...]) -> None:
        """Sampling maps for this view, computed once: board mm -> (distorted) frame px.  A
        view found again (the same markers seen the same: a hand off them again, a frame's
        noise as before) takes its maps from the last few views (a tenth of a second of a
        Pi's time each), with nothing of it sampled yet."""
        self._homography = homography
        self._to_frame = np.linalg.inv(homography)  # canvas px -> undistorted frame px
        self.frame_size = (shape[1], shape[0])
        key = (homography.tobytes(), tuple(shape), self._margin_samples[0].tobytes(),
               self._margin_samples[1].tobytes())
        views: dict[tuple, tuple[Any, float, Sampler]] = self.__dict__.setdefault("_views", {})
        view = views.get(key)
        if view is not None and view[0] is self.lens:
            self.frame_px_per_mm, self._sampler = view[1], view[2].fresh()
        else:
            self.frame_px_per_mm, self._sampler = self._view(shape)
            views.pop(key, None)
            views[key] = (self.lens, self.frame_px_per_mm, self._sampler.fresh())  # no picture held
            while len(views) > VIEWS_KEPT:
                del views[next(iter(views))]
        self.light.gain = None
        self.light.tone = None
        self._last_reading = None
        self._last_cells = None
        self._pip_cache = {}
        self._set_blob_cache({})
        self._marker_sharpness = []
        self._kept = None

    def _view(self, shape: tuple[int, ...]) -> tuple[float, Sampler]:
        """This homography's frame pixels a millimetre and sampling maps."""
        w, h = self._small_size
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        pts = np.stack([(xs + 0.5) / SCALE, (ys + 0.5) / SCALE], -1).reshape(-1, 2) * self.px_per_mm
        frame_pts = self._canvas_to_frame(pts).reshape(h, w, 2)
        # how many of the frame's pixels a millimetre of the board takes (its median, across)
        step = frame_pts[::8, 8::8] - frame_pts[::8, :-8:8]
        px_per_mm = float(np.median(np.linalg.norm(step, axis=-1))) * SCALE / 8
        if "_marker_checks" not in self.__dict__:  # where the markers lie on the board: never changes
            self._marker_checks = self._build_marker_checks()
        watched = [(slice(rows.start - 3, rows.stop + 3), slice(cols.start - 3, cols.stop + 3))
                   for rows, cols, _bits in self._marker_checks]  # as ``sharpness`` looks at them
        return px_per_mm, Sampler(frame_pts, shape, watched, self._margin_samples)

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
        """Do at least two markers still sit where the homography puts them, and none elsewhere?
        A marker with an arm's edge or a fingertip across part of it shows ink where its white
        should be, as a shifted one does; but a board or a camera that moved shifts every
        marker it shows.  So one such marker among three or more that fit is under a hand (the
        board is not searched for again at every frame of an arm's sweep: each search is
        OpenCV's marker search, and it starts the light, the board kept and the pieces' marks
        afresh); two, or one with fewer fitting, and the board moved."""
        fits = shifted = 0
        for rows, cols, bits in self._marker_checks:
            patch = cv2.cvtColor(small[rows, cols], cv2.COLOR_BGR2GRAY)  # the markers only, not the board
            lo, hi = float(patch.min()), float(patch.max())
            if hi - lo < 40:
                continue  # covered (a hand, a shadow): says nothing either way
            wrong = np.mean((patch > (lo + hi) / 2) != bits)
            if wrong > 0.2:
                if wrong > 0.35:  # ink where the marker's white should be
                    shifted += 1
                    if shifted > 1:
                        return False
                continue
            fits += 1
        return fits >= (3 if shifted else 2)

    def sharpness(self, small: np.ndarray) -> tuple[float, float]:
        """How sharp the markers' edges are in their most blurred direction (about 3.3 for a
        sharp frame, 1.5-2.2 under a sigma-2 blur, below 1.4 when the camera shook), and how
        much sharper its sharpest direction is (near 1 for focus blur, more for a shake)."""
        values = []
        seen: list[tuple[np.ndarray, tuple[float, float] | None]] = []
        for m, (rows, cols, _bits) in enumerate(self._marker_checks):
            bgr = small[max(0, rows.start - 3):rows.stop + 3, max(0, cols.start - 3):cols.stop + 3]
            last = self._marker_sharpness[m] if m < len(self._marker_sharpness) else None
            if last is not None and last[0].shape == bgr.shape and alike(last[0], bgr, 40, 4.0):
                seen.append(last)  # the marker as it was: as sharp as it was
                if last[1] is not None:
                    values.append(last[1])
                continue
            # the green channel: a cheap lens fringes red and blue outwards and inwards at the
            # markers' edges (colour fringes are not blur); green is the one it keeps in place
            value = self._edge_sharpness(bgr[..., 1].astype(np.float32))
            seen.append((bgr.copy(), value))
            if value is not None:
                values.append(value)
        self._marker_sharpness = seen
        if not values:
            return 0.0, 1.0
        return _median(sorted(v[0] for v in values)), _median(sorted(v[1] for v in values))

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


def _median(ordered: list[float]) -> float:
    """The median of a few values, sorted (numpy's costs a frame 0.1 ms for four markers)."""
    n = len(ordered)
    return float(ordered[n // 2]) if n % 2 else (float(ordered[n // 2 - 1]) + float(ordered[n // 2])) / 2
