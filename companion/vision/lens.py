"""The camera's lens, as ``companion calibrate camera`` measured it.

Only points are undistorted (the markers' corners) and distorted back (the
reader's sampling map, computed once per homography): no frame is ever
remapped whole for the lens.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np


@dataclass(frozen=True)
class Lens:
    matrix: np.ndarray  # 3x3 camera matrix
    distortion: np.ndarray  # k1, k2, p1, p2[, k3...] as OpenCV orders them

    @classmethod
    def load(cls, source: str | Path | dict[str, Any]) -> Lens:
        """From the JSON ``calibrate camera`` writes (a path or its parsed dict)."""
        data = source if isinstance(source, dict) else json.loads(Path(source).read_text())
        try:
            matrix = np.array(data["matrix"], np.float64).reshape(3, 3)
            dist = np.array(data["distortion"], np.float64).ravel()
        except (KeyError, ValueError, TypeError) as err:
            raise ValueError(f"not a lens profile from 'calibrate camera': {err}") from err
        if matrix[0, 0] <= 0 or matrix[1, 1] <= 0 or len(dist) < 4:
            raise ValueError("not a lens profile: focal lengths must be positive, 4+ distortion terms")
        return cls(matrix, dist)

    def undistort_points(self, pts: np.ndarray) -> np.ndarray:
        """Frame pixels -> where an ideal (pinhole) lens would have put them, in pixels."""
        out = cv2.undistortPoints(np.asarray(pts, np.float64).reshape(-1, 1, 2), self.matrix,
                                  self.distortion, P=self.matrix)
        return out.reshape(-1, 2).astype(np.float32)

    def distort_points(self, pts: np.ndarray) -> np.ndarray:
        """Ideal pinhole pixels -> where this lens shows them in the frame."""
        p = np.asarray(pts, np.float64).reshape(-1, 2)
        fx, fy = self.matrix[0, 0], self.matrix[1, 1]
        cx, cy = self.matrix[0, 2], self.matrix[1, 2]
        rays = np.stack([(p[:, 0] - cx) / fx, (p[:, 1] - cy) / fy, np.ones(len(p))], 1)
        out, _ = cv2.projectPoints(rays, np.zeros(3), np.zeros(3), self.matrix, self.distortion)
        return out.reshape(-1, 2).astype(np.float32)
