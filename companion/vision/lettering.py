"""Text on the board print and the camera overlay, without OpenCV's font engine at run time.

OpenCV 5 draws even its Hershey fonts through a font engine that keeps about 9 MB resident
from the first ``cv2.putText`` on: 6 % of the service's memory budget on a Pi (issue 38), for
a few four-letter labels.  So the letters are drawn once, by ``cv2.putText`` itself, into
``data/lettering.npz`` (``python -m companion.vision.lettering`` writes it again: run it
with the OpenCV release the file names, ``drawn_by``, or every label's look changes), and
pasted from there: the board's labels as whole strings, exactly as ``putText`` draws them
(the sheet, the reader's empty board and the simulated camera all draw them so), anything
else a letter at a time (the overlay's words, a label a board map brings that the file
lacks; the spacing then differs from ``putText``'s by a pixel here and there).
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

import numpy as np

ATLAS = Path(__file__).with_name("data") / "lettering.npz"
# a style: (OpenCV font, scale, thickness), as the drawing code used to pass them
STYLES: dict[str, tuple[int, float, int]] = {
    "label": (1, 0.6, 1),  # FONT_HERSHEY_PLAIN: the board print's place labels
    "mark": (1, 1.0, 1),  # the overlay's doubts
    "mark_small": (1, 0.9, 1),  # the overlay's pieces
    "banner": (0, 1.0, 2),  # FONT_HERSHEY_SIMPLEX: the overlay's problem line
}
LETTERS = "".join(chr(c) for c in range(32, 127))
LABEL_CHARS = 4  # the most of a place's name the board print shows in its corner
PAD = 8  # room round a glyph for its strokes' ends and anti-aliasing


class Glyph:
    """Coverage (0-255) of a string or letter drawn at the origin, where its box starts
    relative to the origin, and how far the pen moves."""

    __slots__ = ("coverage", "dx", "dy", "advance")

    def __init__(self, coverage: np.ndarray, dx: int, dy: int, advance: int) -> None:
        self.coverage, self.dx, self.dy, self.advance = coverage, dx, dy, advance


@cache
def _atlas() -> dict[tuple[str, str], Glyph]:
    with np.load(ATLAS, allow_pickle=False) as data:
        keys = [tuple(k.split("\x1f", 1)) for k in data["keys"]]
        boxes, flat = data["boxes"], data["pixels"]
    glyphs: dict[tuple[str, str], Glyph] = {}
    at = 0
    for (style, text), (dx, dy, w, h, advance) in zip(keys, boxes, strict=True):
        glyphs[(style, text)] = Glyph(flat[at:at + w * h].reshape(h, w), int(dx), int(dy), int(advance))
        at += w * h
    return glyphs


def draw_text(img: np.ndarray, text: str, origin: tuple[int, int], style: str,
              colour: tuple[int, int, int]) -> None:
    """Draw ``text`` with its baseline's left end at ``origin``, as ``cv2.putText`` with the
    style's font and ``LINE_AA`` would (whole known strings exactly)."""
    glyphs = _atlas()
    whole = glyphs.get((style, text))
    x, y = origin
    if whole is not None:
        _paste(img, whole, x, y, colour)
        return
    for letter in text:
        glyph = glyphs.get((style, letter)) or glyphs[(style, "?")]
        _paste(img, glyph, x, y, colour)
        x += glyph.advance


def _paste(img: np.ndarray, glyph: Glyph, x: int, y: int, colour: tuple[int, int, int]) -> None:
    """Blend the colour in by the glyph's coverage, clipped to the picture."""
    h, w = glyph.coverage.shape
    x0, y0 = x + glyph.dx, y + glyph.dy
    cx0, cy0 = max(0, -x0), max(0, -y0)
    cx1, cy1 = min(w, img.shape[1] - x0), min(h, img.shape[0] - y0)
    if cx1 <= cx0 or cy1 <= cy0:
        return
    alpha = glyph.coverage[cy0:cy1, cx0:cx1, None].astype(np.float32) / 255.0
    region = img[y0 + cy0:y0 + cy1, x0 + cx0:x0 + cx1]  # a colour picture's
    paint = np.asarray(colour, np.float32)
    region[...] = np.clip(region + (paint - region) * alpha + 0.5, 0, 255).astype(img.dtype)


# --------------------------------------------------------------------------- making the file
def render(text: str, style: str) -> Glyph:
    """``text`` as ``cv2.putText`` draws it: white on black, cropped to its strokes."""
    import cv2

    font, scale, thickness = STYLES[style]
    (w, h), base = cv2.getTextSize(text, font, scale, thickness)
    canvas = np.zeros((h + base + 2 * PAD, w + 2 * PAD), np.uint8)
    origin = (PAD, PAD + h)
    cv2.putText(canvas, text, origin, font, scale, 255, thickness, cv2.LINE_AA)
    ys, xs = np.nonzero(canvas)
    if len(xs) == 0:  # a space: nothing to paste, only the pen's move
        return Glyph(np.zeros((0, 0), np.uint8), 0, 0, w)
    crop = canvas[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    return Glyph(crop, int(xs.min()) - origin[0], int(ys.min()) - origin[1], w)


def board_labels() -> set[str]:
    """Every place label the five games' boards print, as ``board_print`` cuts them."""
    from companion.games import load_game

    found: set[str] = set()
    for name in ("baron_voodoo", "jivecat", "king_of_clubs", "swing_state", "times_square"):
        game = load_game(name)
        for variant in game.variants:
            for players in range(1, 9):
                try:
                    state = game.setup(players, variant, 0)
                except ValueError:
                    continue
                found |= {spot.label[:LABEL_CHARS] for spot in game.layout(state).spots if spot.label}
    return found


def drawn_by(path: Path = ATLAS) -> str:
    """The OpenCV release whose ``putText`` drew the file.  Its glyphs are the project's from
    then on: the board print, the reader's empty board and the committed 3D frames' texture
    all come from them, so a new OpenCV that draws Hershey's letters otherwise (5.1 draws
    them a pixel or two wider) changes nothing until the file is written again."""
    with np.load(path, allow_pickle=False) as data:
        return str(data["opencv"]) if "opencv" in data else "unknown"


def make_atlas(path: Path = ATLAS) -> int:
    """Write the letters of every style and the board labels as whole strings; their count."""
    import cv2

    entries = [(style, letter) for style in STYLES for letter in LETTERS]
    entries += [("label", text) for text in sorted(board_labels()) if len(text) > 1]
    glyphs = [render(text, style) for style, text in entries]
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        path, opencv=np.array(cv2.__version__), keys=np.array([f"{s}\x1f{t}" for s, t in entries]),
        boxes=np.array([(g.dx, g.dy, g.coverage.shape[1], g.coverage.shape[0], g.advance) for g in glyphs],
                       np.int32).reshape(-1, 5),
        pixels=np.concatenate([g.coverage.ravel() for g in glyphs]))
    return len(entries)


if __name__ == "__main__":
    print(f"{make_atlas()} strings written to {ATLAS}", file=sys.stderr)
