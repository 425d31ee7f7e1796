"""Die faces and card marks learnt from the table's own pieces, for icons that are not pips.

Baron Voodoo's dice carry icons, not pips.  In calibration the user lays one die
showing each face on the spots the command names and photographs it; each
face's icon (what on the die is not the die's colour) is stored as a small
binary template.  The reader then names a die's face by the template it fits
best, trying the four quarter turns, since a die lands any way round.  Without
templates the reader counts pips (the synthetic dice and Swing State's d6).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

SIZE = 24
MIN_FIT = 0.55  # below this, the face is not one we know: read as 0 and let the tracker ask


def icon_mask(body_mask: np.ndarray) -> np.ndarray | None:
    """The icon: what lies inside the piece's outline but is not the piece's colour, at SIZE²."""
    contours, _ = cv2.findContours(body_mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    body = max(contours, key=cv2.contourArea)
    x, y, w, h = cv2.boundingRect(body)
    if w < 6 or h < 6:
        return None
    filled = np.zeros_like(body_mask)
    cv2.drawContours(filled, [cv2.convexHull(body)], -1, 1, -1)
    rim = max(1, int(round(0.06 * np.sqrt(cv2.contourArea(body)))))
    filled = cv2.erode(filled, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8),
                       borderType=cv2.BORDER_CONSTANT, borderValue=0)
    icon = (filled & (1 - body_mask))[y:y + h, x:x + w].astype(np.float32)
    return cv2.resize(icon, (SIZE, SIZE), interpolation=cv2.INTER_AREA)


def _fit(a: np.ndarray, b: np.ndarray) -> float:
    """Overlap of two soft masks (intersection over union); 1.0 for two blank faces."""
    union = np.maximum(a, b).sum()
    if union < 1e-6:
        return 1.0
    return float(np.minimum(a, b).sum() / union)


@dataclass
class FaceTemplates:
    """Face number -> icon template, learnt once per table."""

    templates: dict[int, np.ndarray] = field(default_factory=dict)

    def learn(self, face: int, body_mask: np.ndarray) -> None:
        icon = icon_mask(body_mask)
        if icon is None:
            raise ValueError(f"no piece found to learn face {face} from")
        self.templates[face] = icon

    def classify(self, body_mask: np.ndarray) -> int:
        """The best-fitting face number, or 0 when none fits well enough."""
        icon = icon_mask(body_mask)
        if icon is None or not self.templates:
            return 0
        best, best_fit = 0, MIN_FIT
        for face, template in self.templates.items():
            fit = max(_fit(np.rot90(icon, k), template) for k in range(4))
            if fit > best_fit:
                best, best_fit = face, fit
        return best

    def save(self, path: str | Path) -> None:
        data = {str(k): (v > 0.5).astype(int).tolist() for k, v in sorted(self.templates.items())}
        Path(path).write_text(json.dumps({"size": SIZE, "faces": data}))

    @classmethod
    def load(cls, path: str | Path) -> FaceTemplates:
        data = json.loads(Path(path).read_text())
        if data.get("size") != SIZE:
            raise ValueError(f"{path}: face templates of size {data.get('size')}, expected {SIZE}")
        return cls({int(k): np.array(v, np.float32) for k, v in data["faces"].items()})
