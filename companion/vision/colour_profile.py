"""The calibrated colours a board reader sorts pixels by, kept in the table's profile.

``calibrate colours`` writes one from photos of the real pieces and board; without
one, the nominal colours of the print stand in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.vision.palette import PIECE_COLOURS, SKIN_BGR, SURFACE_COLOURS

OUTLINE_BGR = (95, 125, 145)  # the drawn spots' outline, a surface of the board


def bgr_to_lab(colour: tuple[int, int, int]) -> np.ndarray:
    pixel = np.array([[colour]], np.uint8)
    return cv2.cvtColor(pixel, cv2.COLOR_BGR2LAB)[0, 0].astype(np.float32)


@dataclass
class ColourProfile:
    """Calibrated colours (Lab) by name: pieces, the board's surfaces, and skin.

    ``skin`` is kept for the files ``calibrate colours`` wrote; hands are found by
    what the empty board does not explain, not by a skin colour.
    """

    pieces: dict[str, list[float]]
    surfaces: dict[str, list[float]]
    skin: list[float]

    @classmethod
    def default(cls) -> ColourProfile:
        """The games' nominal colours; a real table's come from calibration."""
        return cls(
            {k: bgr_to_lab(v).tolist() for k, v in PIECE_COLOURS.items()},
            {k: bgr_to_lab(v).tolist() for k, v in SURFACE_COLOURS.items()}
            | {"outline": bgr_to_lab(OUTLINE_BGR).tolist()},
            bgr_to_lab(SKIN_BGR).tolist(),
        )

    @classmethod
    def load(cls, path: str | Path) -> ColourProfile:
        data = json.loads(Path(path).read_text())
        return cls(data["pieces"], data["surfaces"], data.get("skin", bgr_to_lab(SKIN_BGR).tolist()))

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(
            {"pieces": self.pieces, "surfaces": self.surfaces, "skin": self.skin}, indent=1))
