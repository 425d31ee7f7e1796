"""Crafted contrast maps of a die's face for the pip tests: a mark as the camera's blur leaves it."""

from __future__ import annotations

import cv2
import numpy as np


def blurred_peaks(peaks: dict[tuple[int, int], float], size: int) -> np.ndarray:
    """A ``size`` square map with a blurred disc of each height at each point (x, y)."""
    out = np.zeros((size, size), np.float32)
    for (x, y), height in peaks.items():
        spot = np.zeros_like(out)
        cv2.circle(spot, (x, y), 3, 1.0, -1)
        spot = cv2.GaussianBlur(spot, (0, 0), 1.5)
        out = np.maximum(out, spot / spot.max() * height)
    return out
