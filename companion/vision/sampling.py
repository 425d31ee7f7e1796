"""Sampling the board top-down from a camera frame: the whole board at 1 px/mm, the 4 mm
cells that tell whether anything on the table moved, and only the windows a change needs.

Sampling the whole board is the dearest step of reading a frame in which a piece moved
(2-3 ms of a 1280x720 frame on one core for the bigger boards), and a move touches a few
places.  So every frame's cells come from the frame at half size (a 2x2 area average, then
one pyramid step: the sensor noise is averaged as much as by two pyramid steps over the
whole board), and the board itself is sampled again only where a change, a marker or the
margin is.  Elsewhere it holds what it held, which the cells say is as it was.  The same
fixed-point maps sample a window and the whole board, so a window holds exactly the
pixels a whole sampling would.
"""

from __future__ import annotations

import copy

import cv2
import numpy as np

_WATCH_ROW = 4096  # the watched pixels' maps are rows this long (OpenCV remaps fewer than 32767 a row)


class Sampler:
    """One view of the board (a homography, and the lens if there is one) as sampling maps,
    computed once, and the board as last sampled (``small``)."""

    def __init__(self, frame_pts: np.ndarray, frame_shape: tuple[int, ...],
                 watched: list[tuple[slice, slice]], points: tuple[np.ndarray, np.ndarray]) -> None:
        """``frame_pts``: per board pixel (1 px/mm, rows x cols x 2), where its centre lies in
        the frame, in frame pixels.  ``watched`` (windows: the markers) and ``points`` (rows
        and columns: the margin's samples) are sampled again in every frame (``watch``)."""
        h, w = frame_pts.shape[:2]
        self.maps = cv2.convertMaps(np.ascontiguousarray(frame_pts[..., 0]),
                                    np.ascontiguousarray(frame_pts[..., 1]), cv2.CV_16SC2)
        self.small: np.ndarray | None = None
        # the window of ``small`` sampled from the frame being read (rows, columns), and that frame:
        # a window asked for again within it (the blobs round a change) is not sampled twice
        self._fresh: tuple[slice, slice] | None = None
        self._fresh_frame: np.ndarray | None = None
        # the watched windows' pixels and the points, sampled in one pass: their rows and columns,
        # and their maps as a picture _WATCH_ROW wide (the last one repeated to fill it)
        windows = [(rows, cols) for rows, cols in (self._clip(r, c) for r, c in watched)
                   if rows.stop > rows.start and cols.stop > cols.start]
        at = [np.mgrid[rows, cols].reshape(2, -1) for rows, cols in windows]
        # where each window's pixels start in the pass's output: put back as a block, not pixel by
        # pixel (a scatter of every watched pixel cost three times the pass)
        starts = np.cumsum([0] + [a.shape[1] for a in at])
        self._watch_windows = [(rows, cols, int(start))
                               for (rows, cols), start in zip(windows, starts[:-1], strict=True)]
        self._watch_points = int(starts[-1])  # the points' samples follow the windows'
        at_y, at_x = np.concatenate([a[0] for a in at] + [np.asarray(points[0])]).astype(np.intp), \
            np.concatenate([a[1] for a in at] + [np.asarray(points[1])]).astype(np.intp)
        if not len(at_y):
            raise ValueError("a board to watch needs its margin's samples: none were given")
        padded_to = -len(at_y) % _WATCH_ROW
        fill_y, fill_x = np.pad(at_y, (0, padded_to), mode="edge"), np.pad(at_x, (0, padded_to), mode="edge")
        m1, m2 = self.maps
        self._watched = (at_y, at_x, m1[fill_y, fill_x].reshape(-1, _WATCH_ROW, 2).copy(),
                         m2[fill_y, fill_x].reshape(-1, _WATCH_ROW).copy())
        # the 2 mm cells' centres: each the mean of its 2x2 board pixels (the last row and
        # column repeated on a board of odd size, as a pyramid step does)
        padded = np.pad(frame_pts, ((0, h % 2), (0, w % 2), (0, 0)), mode="edge")
        centres = padded.reshape((h + 1) // 2, 2, (w + 1) // 2, 2, 2).mean(axis=(1, 3))
        fh, fw = frame_shape[:2]
        # the half-size frame is made of the part of the frame the board lies in (even sides)
        x0 = max(0, int(np.floor(centres[..., 0].min())) - 2) & ~1
        y0 = max(0, int(np.floor(centres[..., 1].min())) - 2) & ~1
        x1 = min(fw, int(np.ceil(centres[..., 0].max())) + 4)
        y1 = min(fh, int(np.ceil(centres[..., 1].max())) + 4)
        x1 -= (x1 - x0) % 2
        y1 -= (y1 - y0) % 2
        self._box = (slice(y0, max(y0 + 2, y1)), slice(x0, max(x0 + 2, x1)))
        half = (centres - np.array([x0, y0], np.float32) + 0.5) / 2 - 0.5  # half-frame px
        self._cell_maps = cv2.convertMaps(np.ascontiguousarray(half[..., 0], np.float32),
                                          np.ascontiguousarray(half[..., 1], np.float32), cv2.CV_16SC2)

    def fresh(self) -> Sampler:
        """This view's sampler with nothing sampled yet, its maps (never written) shared."""
        other = copy.copy(self)
        other.small = None
        other._fresh = other._fresh_frame = None
        return other

    def cells(self, frame: np.ndarray) -> np.ndarray:
        """The board in 4 mm cells, noise averaged out: what the stillness and the changed
        region are judged on."""
        self._fresh = self._fresh_frame = None  # a new frame: nothing of it sampled yet
        part = frame[self._box]
        half = cv2.resize(part, (part.shape[1] // 2, part.shape[0] // 2), interpolation=cv2.INTER_AREA)
        return cv2.pyrDown(cv2.remap(half, *self._cell_maps, cv2.INTER_LINEAR))

    def sample(self, frame: np.ndarray) -> np.ndarray:
        """The whole board sampled from a frame, leaving ``small`` as it is."""
        return cv2.remap(frame, *self.maps, cv2.INTER_LINEAR)

    def whole(self, frame: np.ndarray) -> np.ndarray:
        """The whole board sampled from this frame (and kept as ``small``)."""
        self.small = self.sample(frame)
        self._fresh = self._fresh_frame = None  # only a window is held as sampled from this frame
        return self.small

    def _clip(self, rows: slice, cols: slice) -> tuple[slice, slice]:
        h, w = self.maps[1].shape
        return (slice(max(0, rows.start), min(h, rows.stop)), slice(max(0, cols.start), min(w, cols.stop)))

    def window(self, frame: np.ndarray, rows: slice, cols: slice) -> None:
        """Sample one window of ``small`` again from this frame (what of it was sampled from
        this frame already, since its cells were taken, is as it would be sampled again)."""
        assert self.small is not None
        rows, cols = self._clip(rows, cols)
        if rows.stop <= rows.start or cols.stop <= cols.start:
            return
        fresh = self._fresh if self._fresh_frame is frame else None
        for part_rows, part_cols in _outside_of(rows, cols, fresh):
            self._remap_into(frame, part_rows, part_cols)
        if fresh is None or _area(rows, cols) > _area(*fresh):
            self._fresh, self._fresh_frame = (rows, cols), frame

    def _remap_into(self, frame: np.ndarray, rows: slice, cols: slice) -> None:
        assert self.small is not None
        m1, m2 = self.maps
        self.small[rows, cols] = cv2.remap(frame, m1[rows, cols], m2[rows, cols], cv2.INTER_LINEAR)

    def watch(self, frame: np.ndarray) -> None:
        """Sample the watched windows and points of ``small`` again from this frame."""
        assert self.small is not None
        ys, xs, m1, m2 = self._watched
        seen = cv2.remap(frame, m1, m2, cv2.INTER_LINEAR).reshape(-1, 3)
        for rows, cols, start in self._watch_windows:
            h, w = rows.stop - rows.start, cols.stop - cols.start
            self.small[rows, cols] = seen[start:start + h * w].reshape(h, w, 3)
        first = self._watch_points
        self.small[ys[first:], xs[first:]] = seen[first:len(ys)]


def _area(rows: slice, cols: slice) -> int:
    return (rows.stop - rows.start) * (cols.stop - cols.start)


def _outside_of(rows: slice, cols: slice, done: tuple[slice, slice] | None) -> list[tuple[slice, slice]]:
    """A window less what of it another window (``done``) holds: up to four strips."""
    if done is None:
        return [(rows, cols)]
    top, bottom = max(rows.start, done[0].start), min(rows.stop, done[0].stop)
    left, right = max(cols.start, done[1].start), min(cols.stop, done[1].stop)
    if top >= bottom or left >= right:
        return [(rows, cols)]
    strips = [(slice(rows.start, top), cols), (slice(bottom, rows.stop), cols),
              (slice(top, bottom), slice(cols.start, left)), (slice(top, bottom), slice(right, cols.stop))]
    return [(r, c) for r, c in strips if r.stop > r.start and c.stop > c.start]
