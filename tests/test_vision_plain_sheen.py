"""A plain dark token in a lamp's sheen (stop 114).  Jivecat at 640x480: a red chip on a pale
square of a print a lamp's sheen lifts by about 20 levels past the light's fit, its ring lighter
than the empty board, was asked as "glare?" (and the places round it), as a light piece or a
die is there: a white core may pass for one, a die's marks may wash out.  A plain token of a
dark colour is neither; it is read when its colour holds with the ring's lift taken off it, once
and 1.6 times over (a black chip lifted passes for a dark blue one), and nothing of it clipped."""

from __future__ import annotations

import numpy as np
from committed_frames import read_right

from companion.vision.plain_sheen import plain_in_a_sheen

NAMES = ["red", "blue", "black", "yellow"]
CENTROIDS = np.array([[40, 40, 200], [120, 40, 20], [30, 30, 30], [30, 225, 240]], np.float32)
PRINT = (175, 205, 220)
BOX = (20, 20, 10, 10)  # x, y, w, h


def _classify(pixels: np.ndarray) -> np.ndarray:
    """The nearest colour's index, per pixel."""
    d = np.linalg.norm(pixels[..., None, :].astype(np.float32) - CENTROIDS, axis=-1)
    return d.argmin(axis=-1).astype(np.uint8)


def _seen(colour: tuple[int, int, int], lift: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The board as read (a 10 px token of ``colour`` on the print, the print round it lifted by
    ``lift``), the empty board, the frame (the same), and the pieces read (the token)."""
    empty = np.zeros((50, 50, 3), np.uint8)
    empty[:] = PRINT
    flat = np.clip(empty.astype(np.int16) + lift, 0, 255).astype(np.uint8)
    flat[20:30, 20:30] = colour
    pieces = np.zeros((50, 50), bool)
    pieces[20:30, 20:30] = True
    return flat, empty, flat.copy(), pieces


def _holds(name: str, marks: tuple[int, int], colour: tuple[int, int, int], lift: int = 20,
           camera: np.ndarray | None = None) -> bool:
    flat, empty, frame, pieces = _seen(colour, lift)
    own = np.ones((10, 10), bool)
    return plain_in_a_sheen(NAMES, marks, NAMES.index(name), own, BOX,
                            (flat, empty, frame if camera is None else camera), pieces, _classify)


def test_a_dark_chip_in_a_sheen_holds_its_colour() -> None:
    assert _holds("red", (0, 0), (60, 60, 215))
    assert _holds("blue", (0, 0), (150, 60, 40))


def test_a_light_piece_a_die_a_lifted_black_or_a_clipped_chip_is_left_in_doubt() -> None:
    assert not _holds("yellow", (0, 0), (40, 225, 240))  # a reflection's core may pass for it
    assert not _holds("red", (1, 6), (60, 60, 215))  # a die: its marks may wash out
    assert not _holds("blue", (0, 0), (90, 60, 50), lift=40)  # a black chip lifted by the sheen
    flat, _empty, frame, _pieces = _seen((60, 60, 215), 20)
    frame[24, 24] = (255, 255, 255)  # a reflection's core on it
    assert not _holds("red", (0, 0), (60, 60, 215), camera=frame)


def test_jivecats_chips_in_a_lamps_sheen_at_640x480_are_read() -> None:
    read_right("jivecat-t10-b13-vga", ("N18",))
    read_right("jivecat-t20-b14-vga", ("N03", "N08", "N09"))
