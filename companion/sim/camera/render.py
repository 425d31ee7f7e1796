"""The synthetic camera: draws any game's board and pieces as a camera would see it.

Used by the simulated table, the tests and the benchmark.  A top-down picture
of the board (spots, pieces with pips, ArUco markers in the margin) is warped
into a camera frame with perspective, uneven light, sensor noise and, when
asked, an arm reaching over the table.
"""

from __future__ import annotations

import math
import random
import threading
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from companion.games.base import BoardView, Layout, Piece
from companion.vision.board_print import board_print, piece_slots
from companion.vision.geometry import MARGIN_MM, canvas_size_mm
from companion.vision.palette import (
    DARK_PIECES,
    PIECE_COLOURS,
    PIP_ON_DARK,
    PIP_ON_LIGHT,
    SKIN_BGR,
    SURFACE_COLOURS,
    bgr,
)

FRAME_W, FRAME_H = 1280, 720
TABLE_BGR = (60, 80, 95)
HAND_R = 60  # the reaching hand's radius in the frame, pixels
ARM_BAND = 24  # rows of the frame an arm drawn over it is finished by at once


PIP_LAYOUT = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
    7: [(-1, -1), (1, -1), (-1, 0), (0, 0), (1, 0), (-1, 1), (1, 1)],
    8: [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)],
    9: [(-1, -1), (0, -1), (1, -1), (-1, 0), (0, 0), (1, 0), (-1, 1), (0, 1), (1, 1)],
}
MAX_PIPS = max(PIP_LAYOUT)


Paints = dict[str, tuple[int, int, int]]  # see companion.vision.board_print


def varied_paints(seed: int) -> Paints:
    """Another copy of the game: every piece's plastic and the board's print a little off the
    renderer's paints (print runs, sun, wear), drawn from ``seed``.  A reader that knows only
    the paints must be calibrated on photos of this table to read it."""
    rng = random.Random(f"paints:{seed}")
    out: Paints = {}
    for name, colour in {**PIECE_COLOURS, **SURFACE_COLOURS}.items():
        spread = 5 if name in SURFACE_COLOURS else 8
        b, g, r = (min(255, max(0, c + rng.randint(-spread, spread))) for c in colour)
        out[name] = (b, g, r)
    return out


def lamp_cast(seed: int) -> tuple[float, float, float]:
    """The table lamp's colour as channel gains (B, G, R): warm or cool by up to 4 %."""
    rng = random.Random(f"lamp:{seed}")
    warmth = rng.uniform(-0.04, 0.04)
    return (1.0 - warmth, 1.0 + rng.uniform(-0.01, 0.01), 1.0 + warmth)


def draw_piece(img: np.ndarray, piece: Piece, cx: float, cy: float, r: float, shape: str,
               paints: Paints | None = None) -> None:
    colour = paints[piece.colour] if paints and piece.colour in paints else bgr(piece.colour)
    centre = (int(round(cx)), int(round(cy)))
    rad = max(2, int(round(r)))
    if shape == "square":
        cv2.rectangle(img, (centre[0] - rad, centre[1] - rad), (centre[0] + rad, centre[1] + rad),
                      colour, -1, cv2.LINE_AA)
    else:
        cv2.circle(img, centre, rad, colour, -1, cv2.LINE_AA)
    if piece.pips:
        pip_colour = PIP_ON_DARK if piece.colour in DARK_PIECES else PIP_ON_LIGHT
        step = r * 0.45
        pip_r = max(1, int(round(r * 0.13)))
        for dx, dy in PIP_LAYOUT.get(piece.pips, PIP_LAYOUT[6]):
            cv2.circle(img, (int(round(cx + dx * step)), int(round(cy + dy * step))), pip_r,
                       pip_colour, -1, cv2.LINE_AA)


def render_topdown(layout: Layout, view: BoardView, px_per_mm: float = 2.0,
                   paints: Paints | None = None, printed: np.ndarray | None = None) -> np.ndarray:
    """The board as printed, seen straight from above, with markers and pieces (in
    ``paints`` where given, else the renderer's own); ``printed``: that board's print, drawn
    once by its caller (it is the same under every view), drawn on a copy."""
    img = printed.copy() if printed is not None else board_print(layout, px_per_mm, paints)
    for spot_id, pieces in view.items():
        spot = layout.spot(spot_id)
        x0, y0 = (spot.x + MARGIN_MM) * px_per_mm, (spot.y + MARGIN_MM) * px_per_mm
        for piece, (cx, cy, r) in zip(pieces, piece_slots(len(pieces), spot.w, spot.h), strict=True):
            draw_piece(img, piece, x0 + cx * px_per_mm, y0 + cy * px_per_mm, r * px_per_mm,
                       layout.shapes.get(piece.colour, "disc"), paints)
    return img


@dataclass
class CameraPose:
    """Where the board's canvas corners land in the frame (TL, TR, BR, BL), in pixels."""

    corners: np.ndarray

    @classmethod
    def random(cls, layout: Layout, seed: int = 0) -> CameraPose:
        rng = random.Random(seed)
        total_w, total_h = canvas_size_mm(layout)
        scale = min((FRAME_W - 160) / total_w, (FRAME_H - 80) / total_h)
        w, h = total_w * scale, total_h * scale
        x0, y0 = (FRAME_W - w) / 2, (FRAME_H - h) / 2
        tilt = rng.uniform(0.02, 0.06) * w  # far edge narrower: the camera looks down at an angle
        jitter = [rng.uniform(-12, 12) for _ in range(8)]
        pts = [
            (x0 + tilt + jitter[0], y0 + jitter[1]),
            (x0 + w - tilt + jitter[2], y0 + jitter[3]),
            (x0 + w + jitter[4], y0 + h + jitter[5]),
            (x0 + jitter[6], y0 + h + jitter[7]),
        ]
        return cls(np.array(pts, np.float32))


class Camera:
    """A synthetic camera over one board: ``frame(view, hand=...)`` returns a BGR frame."""

    def __init__(self, layout: Layout, seed: int = 0, noise: float = 6.0, px_per_mm: float = 2.0,
                 paints: Paints | None = None, cast: tuple[float, float, float] | None = None):
        """``paints`` and ``cast`` (the lamp's channel gains) make another table of the same
        game; without them the renderer's own paints under a white lamp."""
        self.layout = layout
        self.paints = paints
        self.pose = CameraPose.random(layout, seed)
        self.noise = noise
        self.px_per_mm = px_per_mm
        total_w, total_h = canvas_size_mm(layout)
        src = np.array([[0, 0], [total_w, 0], [total_w, total_h], [0, total_h]], np.float32)
        self.homography = cv2.getPerspectiveTransform(src * px_per_mm, self.pose.corners)
        yy = np.arange(FRAME_H, dtype=np.float32)[:, None]  # a column and a row, not two frames
        xx = np.arange(FRAME_W, dtype=np.float32)[None, :]
        light_x = random.Random(seed).uniform(0.2, 0.8) * FRAME_W
        # uneven light: brighter under the lamp, falling off by a fifth at the far corner
        dist = np.sqrt((xx - light_x) ** 2 + (yy - FRAME_H * 0.3) ** 2) / math.hypot(FRAME_W, FRAME_H)
        light = (1.08 - 0.35 * dist)[..., None].astype(np.float32)
        if cast is not None:
            light = light * np.array(cast, np.float32)
        # a gain per channel and pixel: OpenCV multiplies a frame by it in a third of numpy's
        # time (a changed board is finished three times, once a noise field)
        self.light = np.ascontiguousarray(np.broadcast_to(light, (FRAME_H, FRAME_W, 3)))
        self.background = np.full((FRAME_H, FRAME_W, 3), TABLE_BGR, np.uint8)
        # a few sensor-noise fields drawn once and cycled: fresh noise every frame costs more
        # than the reader it is meant to test (``noise_fields``: kept for cameras of one seed)
        self._noise = list(noise_fields(seed, float(noise))) if noise else []
        self._count = 0
        # the board as drawn for the view last asked for, and its finished frames by noise
        # field: a still table (most frames) costs a copy, not a fresh light and noise pass,
        # and a frame with an arm over it a pass over the arm's part of the frame only
        self._cache: tuple[tuple, np.ndarray, dict[int, np.ndarray]] | None = None
        self._printed: np.ndarray | None = None  # the empty board's print, drawn at the first frame
        # and, for that board, the arm's part of the frame at the sweep last drawn, by noise
        # field: a hand resting on the table is drawn once, not at every frame
        self._arm_cache: tuple[float, dict[int, np.ndarray]] | None = None
        # what the frame last handed out to this thread was drawn from (the board, the noise
        # field, the arm's sweep): equal for two frames only when every pixel is (a fault layer
        # keeps its work by it; per thread, so a frame drawn elsewhere meanwhile never muddles it)
        self._drawn = threading.local()

    def pieces_in_frame(self, view: BoardView) -> list[tuple[str, float, float, float]]:
        """Where each piece of a board lies in the frame: its place, centre and radius, in
        pixels (the radius as wide as the piece looks across the board)."""
        out = []
        for spot_id, pieces in view.items():
            spot = self.layout.spot(spot_id)
            for cx, cy, r in piece_slots(len(pieces), spot.w, spot.h):
                x, y = spot.x + MARGIN_MM + cx, spot.y + MARGIN_MM + cy
                pts = np.array([[[x, y], [x + r, y]]], np.float32) * self.px_per_mm
                (centre, rim), = cv2.perspectiveTransform(pts, self.homography)
                out.append((spot_id, float(centre[0]), float(centre[1]), float(np.linalg.norm(rim - centre))))
        return out

    def frame(self, view: BoardView, hand: float | None = None, frozen: bool = False) -> np.ndarray:
        """One frame; ``hand`` in [0, 1] draws an arm reaching in at that point of its sweep.
        ``frozen``: the frame as kept, read-only, not a copy of it (a still table's frames are
        a few frames over and over: a copy of each cost more than telling it was seen before)."""
        key = tuple(sorted(view.items()))
        if self._cache is None or self._cache[0] != key:
            if self._printed is None:
                self._printed = board_print(self.layout, self.px_per_mm, self.paints)
            top = render_topdown(self.layout, view, self.px_per_mm, self.paints, self._printed)
            warped = cv2.warpPerspective(top, self.homography, (FRAME_W, FRAME_H),
                                         dst=self.background.copy(), borderMode=cv2.BORDER_TRANSPARENT)
            self._cache = (key, warped, {})
            self._arm_cache = None
        _, warped, finished = self._cache
        field = 0
        if self._noise:
            self._count += 1
            field = self._count % len(self._noise)
        if field not in finished:
            finished[field] = self._finish(warped, field)
        self._drawn.last = (key, field, hand)
        if hand is None:
            return _frozen(finished[field]) if frozen else finished[field].copy()
        # the arm covers part of the frame: that part is drawn, lit and noised again, the
        # rest is the still frame's (the same numbers, pixel for pixel, at a third of the cost)
        if self._arm_cache is None or self._arm_cache[0] != hand:
            self._arm_cache = (hand, {})
        parts = self._arm_cache[1]
        if field not in parts:
            parts[field] = _frozen(self._with_arm(warped, finished[field], hand, field))
        return parts[field] if frozen else parts[field].copy()

    def _with_arm(self, warped: np.ndarray, still: np.ndarray, hand: float, field: int) -> np.ndarray:
        """The still frame with the arm drawn, lit and noised over it.  Only the pixels the
        arm drew differ from the still frame's: those are finished again, a band of rows at a
        time in the box of what it changed there (the arm slants across its box; the pixels
        of a band's box it left as they were finish as the still frame's did)."""
        rows, cols = self._arm_box(hand)
        part = warped[rows, cols].copy()
        self._draw_arm(part, hand, offset=(cols.start, rows.start))
        changed = np.zeros(part.shape[:2], np.uint8)  # the arm drawn alone: every pixel it touched
        self._draw_arm(changed, hand, offset=(cols.start, rows.start))
        out = still.copy()
        for top in range(0, part.shape[0], ARM_BAND):
            x, y, w, h = cv2.boundingRect(changed[top:top + ARM_BAND])
            if not w:
                continue
            y += top
            box = (slice(rows.start + y, rows.start + y + h), slice(cols.start + x, cols.start + x + w))
            out[box] = self._finish(part[y:y + h, x:x + w], field, box)
        return out

    @property
    def drawn(self) -> tuple | None:
        """What the last frame this thread was handed was drawn from (see ``frame``)."""
        return getattr(self._drawn, "last", None)

    def _finish(self, drawn: np.ndarray, field: int,
                box: tuple[slice, slice] = (slice(None), slice(None))) -> np.ndarray:
        """The drawn table (or the ``box`` of it) under the lamp, with sensor noise ``field``."""
        lit = cv2.multiply(drawn, self.light[box], dtype=cv2.CV_32F)  # (numpy's float32 product)
        if self._noise:
            cv2.add(lit, self._noise[field][box], dst=lit)
        np.maximum(lit, 0, out=lit)
        np.minimum(lit, 255, out=lit)
        return lit.astype(np.uint8)  # (truncated, as numpy does: OpenCV's conversion rounds)

    @staticmethod
    def _arm(sweep: float) -> tuple[np.ndarray, tuple[int, int]]:
        """The arm reaching to a point that moves with ``sweep``: its outline and its hand's centre."""
        tip_x = int(FRAME_W * (0.2 + 0.6 * sweep))
        tip_y = int(FRAME_H * 0.35)
        base_x = int(FRAME_W * (0.45 + 0.2 * sweep))
        arm = np.array([[base_x - 90, FRAME_H], [base_x + 90, FRAME_H],
                        [tip_x + 45, tip_y], [tip_x - 45, tip_y]], np.int32)
        return arm, (tip_x, tip_y)

    def _arm_box(self, sweep: float) -> tuple[slice, slice]:
        """The rows and columns the arm can touch (its outline and hand, two pixels round for
        the anti-aliased edge)."""
        arm, (tip_x, tip_y) = self._arm(sweep)
        left = max(0, min(int(arm[:, 0].min()), tip_x - HAND_R) - 2)
        right = min(FRAME_W, max(int(arm[:, 0].max()), tip_x + HAND_R) + 3)
        top = max(0, tip_y - HAND_R - 2)
        return slice(top, FRAME_H), slice(left, right)

    def _draw_arm(self, frame: np.ndarray, sweep: float, offset: tuple[int, int] = (0, 0)) -> None:
        """An arm from the bottom edge reaching to a point that moves with ``sweep``, drawn on
        ``frame`` (a part of the frame whose top left corner is at ``offset``)."""
        arm, (tip_x, tip_y) = self._arm(sweep)
        dx, dy = offset
        colour = SKIN_BGR if frame.ndim == 3 else 255  # (a mask: where it draws)
        cv2.fillConvexPoly(frame, arm - np.array([dx, dy], np.int32), colour, cv2.LINE_AA)
        cv2.circle(frame, (tip_x - dx, tip_y - dy), HAND_R, colour, -1, cv2.LINE_AA)


@lru_cache(maxsize=6)
def noise_fields(seed: int, sd: float, count: int = 3, rows: int = 90) -> tuple[np.ndarray, ...]:
    """A camera's frames of sensor noise, drawn from its seed's generator, read-only.  Kept for
    the cameras made last: a benchmark or test makes cameras of a few seeds over and over
    (three a condition), and drawing a camera's fields took nine tenths of making it.  Each
    drawn a band of rows at a time: the same numbers as one draw, without a frame of float64
    (22 MB) on the way."""
    rng = np.random.default_rng(seed)
    fields = []
    for _ in range(count):
        field = np.empty((FRAME_H, FRAME_W, 3), np.float32)
        for top in range(0, FRAME_H, rows):
            band = field[top:top + rows]
            band[...] = rng.normal(0, sd, band.shape)
        fields.append(_frozen(field))
    return tuple(fields)


def _frozen(frame: np.ndarray) -> np.ndarray:
    """A kept frame made read-only: handed out as it is, nobody can draw on it."""
    frame.flags.writeable = False
    return frame
