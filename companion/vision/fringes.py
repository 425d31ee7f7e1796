"""A cheap lens's colour fringes, measured on the markers and taken off the frame.

A cheap lens brings red and blue to focus at slightly different sizes (lateral chromatic
aberration): towards the frame's corners each channel is the scene magnified a little more
or less about the lens's centre, and every dark edge grows a red rim on one side and a blue
one on the other.  On a black Skull token at the frame's edge those rims are a red piece and
a blue piece touching it.  The markers are sharp in every channel: each marker's patch in
blue and in red matched against green's (OpenCV's ``phaseCorrelate``), the shifts growing with
the markers' distance from the centre give each channel's magnification against green, and
the frame's blue and red are resampled to green's (one ``warpAffine`` each).  Measured when the board
is located, on the frame as the reader then sees it (already corrected by what was measured
before, so a camera's scales are refined, never undone).
"""

from __future__ import annotations

import cv2
import numpy as np

FRINGE_PX = 0.35  # a channel this far off green at the farthest marker corner: fringes to take off
FEWEST_MARKERS = 4  # markers a channel's size is measured on, at least
PATCH_PAD = 6  # px of the board round a marker in the patch its channels are matched on


def channel_scales(frame: np.ndarray, markers: list[np.ndarray], centre: tuple[float, float]
                   ) -> tuple[float, float] | None:
    """Blue's and red's magnification against green about ``centre``, from the markers
    (each 4 x 2 corners, frame px, found on the grey): each marker's patch in blue and in red
    is found shifted against green's (``phaseCorrelate``, to a tenth of a pixel), and a
    channel magnified by ``s`` shifts a patch by ``(s - 1)`` times its offset from the centre.
    None when no channel is off green by ``FRINGE_PX`` at the farthest marker, or fewer than
    ``FEWEST_MARKERS`` markers to tell."""
    h, w = frame.shape[:2]
    middle = np.asarray(centre, np.float64)
    offsets, shifts = [], []
    for quad in markers:
        x0, y0 = np.floor(quad.min(axis=0)).astype(int) - PATCH_PAD
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + PATCH_PAD
        if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
            continue
        patch = frame[y0:y1, x0:x1].astype(np.float32)
        window = cv2.createHanningWindow((x1 - x0, y1 - y0), cv2.CV_32F)
        shifts.append([cv2.phaseCorrelate(patch[:, :, 1], patch[:, :, c], window)[0] for c in (0, 2)])
        offsets.append(quad.mean(axis=0) - middle)
    if len(offsets) < FEWEST_MARKERS:
        return None
    away = np.asarray(offsets, np.float64)
    moved = np.asarray(shifts, np.float64)  # markers x (blue, red) x (dx, dy)
    reach = float(np.linalg.norm(away, axis=1).max())
    spread = float(np.sum(away * away))
    if reach <= 0 or spread <= 0:
        return None
    scales = [1.0 + float(np.sum(moved[:, k] * away)) / spread for k in (0, 1)]
    if max(abs(s - 1.0) for s in scales) * reach < FRINGE_PX:
        return None
    return scales[0], scales[1]


class Fringes:
    """Blue and red resampled to green's size about the lens's centre: a magnification about a
    point is an affine map, so each channel is one ``warpAffine`` (no maps held; 2.7 ms a
    1280x720 frame here, against 4.1 ms for ``remap`` with maps made once)."""

    def __init__(self, scales: tuple[float, float], centre: tuple[float, float],
                 size: tuple[int, int]) -> None:
        self.scales, self.centre, self.size = scales, centre, size
        cx, cy = centre
        # where each channel's pixel shows what green shows at (x, y): the centre plus s times the offset
        self._back = [np.array([[s, 0.0, (1.0 - s) * cx], [0.0, s, (1.0 - s) * cy]], np.float64)
                      for s in scales]

    def off(self, frame: np.ndarray) -> np.ndarray:
        """The frame with its blue and red where green has them (a new array)."""
        blue, green, red = cv2.split(frame)
        blue, red = (cv2.warpAffine(channel, back, self.size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                    borderMode=cv2.BORDER_REPLICATE)
                     for channel, back in zip((blue, red), self._back, strict=True))
        return cv2.merge((blue, green, red))

    def refined(self, residual: tuple[float, float]) -> Fringes:
        """These fringes with what was still measured on a frame they were taken off."""
        return Fringes((self.scales[0] * residual[0], self.scales[1] * residual[1]), self.centre, self.size)


def measured(frame: np.ndarray, markers: list[np.ndarray], known: Fringes | None,
             axis: tuple[float, float] | None = None) -> Fringes | None:
    """The fringes to take off this camera's frames: ``known`` refined by what ``frame`` (read
    through ``known`` already) still shows, or first measured; ``known`` when nothing shows.
    They grow from the lens's axis: ``axis``, its principal point when ``calibrate camera``
    measured the lens, else the frame's centre."""
    h, w = frame.shape[:2]
    centre = known.centre if known is not None else axis or (w / 2.0, h / 2.0)
    residual = channel_scales(frame, markers, centre)
    if residual is None:
        return known
    return known.refined(residual) if known is not None and known.size == (w, h) \
        else Fringes(residual, centre, (w, h))
