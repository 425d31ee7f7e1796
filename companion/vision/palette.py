"""Named colours of the pieces and the print: the games' nominal colours.

Games name piece colours from this list.  A real table's colours are learnt in
calibration (``calibration/``) and replace these BGR values in the profile; the
names stay.  The board itself is drawn in ``board`` and spot fills in the
``*_fill`` tones, chosen so that no piece colour is near them.
"""

from __future__ import annotations

import numpy as np

PIECE_COLOURS: dict[str, tuple[int, int, int]] = {
    # name: (B, G, R)
    "red": (40, 40, 215),
    "orange": (20, 140, 250),
    "yellow": (30, 225, 240),
    "green": (60, 170, 40),
    "cyan": (220, 210, 40),
    "blue": (200, 90, 20),
    "purple": (150, 40, 140),
    "pink": (190, 120, 250),
    "brown": (30, 70, 120),
    "black": (25, 25, 25),
    "white": (245, 245, 245),
    "grey": (140, 140, 140),
}

SURFACE_COLOURS: dict[str, tuple[int, int, int]] = {
    "board": (120, 160, 185),  # tan cardboard
    "light_fill": (175, 205, 220),
    "dark_fill": (80, 105, 125),
}

PIP_ON_LIGHT = (20, 20, 20)
PIP_ON_DARK = (235, 235, 235)

DARK_PIECES = {"black", "blue", "purple", "brown", "red", "green"}
WHITE = {"white"}  # pieces a camera may clip white under a bright lamp, highlight or not

SKIN_BGR = (120, 160, 215)  # a hand, until calibration learns this table's players


def bgr(name: str) -> tuple[int, int, int]:
    """The BGR paint of a piece or surface colour name."""
    if name in PIECE_COLOURS:
        return PIECE_COLOURS[name]
    if name in SURFACE_COLOURS:
        return SURFACE_COLOURS[name]
    raise KeyError(f"unknown colour {name!r}")


SHADOW_HUE_PTP = 40.0  # a piece colour whose channels lie this near each other has no hue ...
SHADOW_LEVEL = 100.0  # ... and one this dark too is a shadow's colour (black)


def shadow_colours(names: list[str], bgr: np.ndarray) -> set[str]:
    """The pieces' colours (``names``, their ``bgr``) a shadow on the board may take: dark, and
    of no hue."""
    return {name for name, colour in zip(names, bgr, strict=True)
            if float(np.ptp(colour)) < SHADOW_HUE_PTP and float(colour.mean()) < SHADOW_LEVEL}
