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
        """Ideal pinhole pixels -> where this lens shows them in the frame.

        OpenCV's own model, written out for up to 12 terms (radial, tangential, rational,
        thin prism): its ``projectPoints`` always works out the Jacobian too from Python, ten
        times the cost, for the reader's sampling map of about 700,000 points a homography.
        The tilted sensor's 14 terms go through ``projectPoints``."""
        p = np.asarray(pts, np.float64).reshape(-1, 2)
        fx, fy = self.matrix[0, 0], self.matrix[1, 1]
        cx, cy = self.matrix[0, 2], self.matrix[1, 2]
        x, y = (p[:, 0] - cx) / fx, (p[:, 1] - cy) / fy
        if len(self.distortion) > 12:
            rays = np.stack([x, y, np.ones(len(p))], 1)
            out, _ = cv2.projectPoints(rays, np.zeros(3), np.zeros(3), self.matrix, self.distortion)
            return out.reshape(-1, 2).astype(np.float32)
        k1, k2, p1, p2, k3, k4, k5, k6, s1, s2, s3, s4 = np.r_[self.distortion, np.zeros(12)][:12]
        r2 = x * x + y * y
        r4 = r2 * r2
        radial = (1 + r2 * (k1 + r2 * (k2 + r2 * k3))) / (1 + r2 * (k4 + r2 * (k5 + r2 * k6)))
        xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x) + s1 * r2 + s2 * r4
        yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y + s3 * r2 + s4 * r4
        return np.stack([xd * fx + cx, yd * fy + cy], 1).astype(np.float32)
