"""A standing figure's cast shadow, taken for a black piece joined to it: taken off its blob.

A lamp casts every figure's shadow off its foot, away from the lamp: on one frame every
figure's shadow points the same way, reaches about as far (the figures are about as tall, the
lamp as high) and leaves the board the same share of its light (the light the lamp adds is
what the shadow lacks, whatever the print under it).  Right by the foot a shadow is dark
enough to be classed as black (a quarter to a half of the board's light), one of many games'
piece colours: it joins the figure's blob and widens it, so the figure is no longer shaped as
one (``slant.leaning_figure``) and its place is asked "pieces touching?", or the shadow is read
as a black piece of its own.

The frame's shadows are learned from the figures whose blob is shaped as one figure
(``frame_shadow``): the dimmed board joined to each, its way from the foot, its reach and its
share of the light.  A dark part of a figure's blob is its shadow (``shadow_tail``) only when
it lies that way off the foot, reaches no further than those shadows do, is no wider than the
figure, and is dimmed as they are.  A black piece against a figure on the lamp's side, off
the shadow's line, past its reach or darker than the board in shade is no shadow: it stays.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.die_sides import PIECE_RIM_PX
from companion.vision.palette import shadow_colours
from companion.vision.reading import SCALE, SQUARE5, per_layout
from companion.vision.slant import leaning_figure
from companion.vision.standing import NEUTRAL_PTP

SHADOW_DIMMEST = 0.1  # a shadow leaves the board more than this share of its light (a black piece less) ...
SHADOW_FAINTEST = 0.75  # ... and less than this (a figure's shadow by its foot: 0.26-0.5 on the tune frames)
SHADOW_SEEN_MM = 30.0  # a figure's shadow is measured this far off its foot (a 50 mm figure's, lamp 60 up)
SHADOW_LEAST_PX = 12  # a shadow measured has at least this many pixels (a 13 px pawn's on Swing State: 27)
SHADOW_POINTS = 0.5  # ... and points one way: its pixels' mean offset this share of their mean distance
FIGURES_AGREEING = 2  # the frame's shadows are learned from at least this many figures ...
WAY_AGREES = np.cos(np.radians(35.0))  # ... pointing within this of their mean way (a near lamp fans them)
TAIL_ASIDE = np.cos(np.radians(40.0))  # a tail's centre lies this near the frame's shadow way from the foot
REACH_SLACK_PX = 3.0  # a tail reaches no further than the longest shadow measured, but for blur
SHARE_SLACK = 0.12  # a tail leaves the board the frame's shadows' share of its light, within this
SPECK_SHARE = 0.5  # a figure's part under this share of the least piece is a speck (``Blobs._speck``)
WIDER_SLACK_PX = 2.0  # a tail is no wider across its way than the figure, but for a pixel of rim each way


@dataclass(frozen=True)
class Shadow:
    """A figure's shadow as measured off its foot (sampled px): its pixels' mean offset, how
    far its furthest reach along that way, and its median share of the board's light."""

    way: tuple[float, float]
    points: float
    reach: float
    share: float


@dataclass(frozen=True)
class FrameShadow:
    """The way the frame's figures' shadows point (a unit vector, sampled px), their longest
    reach off a foot and their median share of the board's light."""

    way: tuple[float, float]
    reach: float
    share: float


def light_share(flat: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Per pixel, the share of the empty board's light the board shows (channels summed)."""
    seen = flat.astype(np.float32).sum(axis=2)
    return seen / np.maximum(reference.astype(np.float32).sum(axis=2), 1.0)


def measure_shadow(share: np.ndarray, figure: np.ndarray, shade_ok: np.ndarray,
                   foot: tuple[float, float]) -> Shadow | None:
    """A figure's shadow in a window of the board (``share``: its light's share; ``figure``: the
    figure's own pixels; ``shade_ok``: pixels that may be shade, no piece colour with a hue):
    the dimmed board joined to the figure, past its blurred rim (a pixel or two all round it,
    the figure's colour and the board's mixed: no shadow's way).  None when too little of it,
    or not one way."""
    grown = cv2.dilate(figure.astype(np.uint8), SQUARE5) > 0  # (and its rim)
    dim = (share > SHADOW_DIMMEST) & (share < SHADOW_FAINTEST) & shade_ok & ~grown
    n, parts = cv2.connectedComponents((dim | grown).astype(np.uint8), connectivity=8)
    joined = np.unique(parts[grown])
    shade = np.isin(parts, joined[joined > 0]) & dim
    ys, xs = np.nonzero(shade)
    fx, fy = foot
    fx_d, fy_d = xs + 0.5 - fx, ys + 0.5 - fy
    near = np.hypot(fx_d, fy_d) <= SHADOW_SEEN_MM
    if int(near.sum()) < SHADOW_LEAST_PX:
        return None
    dx, dy = fx_d[near], fy_d[near]
    mx, my = float(dx.mean()), float(dy.mean())
    size = float(np.hypot(mx, my))
    points = size / max(float(np.hypot(dx, dy).mean()), 1e-6)
    if points < SHADOW_POINTS:
        return None
    ux, uy = mx / size, my / size
    reach = float((dx * ux + dy * uy).max())
    return Shadow((ux, uy), points, reach, float(np.median(share[ys[near], xs[near]])))


def frame_shadow(shadows: list[Shadow]) -> FrameShadow | None:
    """The frame's shadow way, reach and share from its figures' (``measure_shadow``): the
    most of them pointing within ``WAY_AGREES`` of one figure's, when they are at least
    ``FIGURES_AGREEING`` and more than half (a figure's shadow measured astray, by a dark piece
    against it, is outvoted; two lamps' shadows split them and none is learned)."""
    if len(shadows) < FIGURES_AGREEING:
        return None
    ways = np.array([s.way for s in shadows], np.float64)
    agree = ways @ ways.T >= WAY_AGREES
    kept = agree[int(np.argmax(agree.sum(axis=1)))]
    if int(kept.sum()) < FIGURES_AGREEING or 2 * int(kept.sum()) <= len(shadows):
        return None
    mean = ways[kept].sum(axis=0)
    mean /= max(float(np.hypot(*mean)), 1e-6)
    agreeing = [s for s, a in zip(shadows, kept, strict=True) if a]
    return FrameShadow((float(mean[0]), float(mean[1])), max(s.reach for s in agreeing),
                       float(np.median([s.share for s in agreeing])))


def shadow_tail(dark: np.ndarray, figure: np.ndarray, share: np.ndarray, foot: tuple[float, float],
                frame: FrameShadow) -> bool:
    """Is ``dark`` (a blob's pixels of a shadow's colour, in the blob's box; ``figure``: the
    figure's own; ``share``: the board's light's share there; ``foot``: the figure's foot in the
    box's pixels) the figure's shadow: off its foot the frame's shadows' way, no further than
    they reach, no wider than the figure, and dimmed as they are?"""
    ys, xs = np.nonzero(dark)
    fys, fxs = np.nonzero(figure)
    if not len(xs) or not len(fxs):
        return False
    ux, uy = frame.way
    fx, fy = foot
    dx, dy = xs + 0.5 - fx, ys + 0.5 - fy
    along, across = dx * ux + dy * uy, -dx * uy + dy * ux
    mx, my = float(dx.mean()), float(dy.mean())
    if mx * ux + my * uy < TAIL_ASIDE * float(np.hypot(mx, my)):
        return False  # not the shadow's way off the foot: the lamp's side, or aside
    if float(along.max()) > frame.reach + REACH_SLACK_PX:
        return False  # further than the frame's shadows reach: a piece
    f_across = -(fxs + 0.5 - fx) * uy + (fys + 0.5 - fy) * ux
    if float(np.ptp(across)) > float(np.ptp(f_across)) + 2 * WIDER_SLACK_PX:
        return False  # wider than the figure casting it
    return abs(float(np.median(share[ys, xs])) - frame.share) <= SHARE_SLACK


class FigureShadows:
    """A standing figure's shadow taken off its blob (a part of ``BoardReader``, ``reader.py``:
    the methods here use its state)."""

    _shadows_of: tuple[np.ndarray, list[tuple[int, Shadow]]] | None = None  # per frame's blobs

    def _shade_colours(self) -> tuple[np.ndarray, np.ndarray]:
        """Label tables (256 entries): a colour a shadow may take (``shadow_colours``); a
        standing figure's colour with a hue (no shadow passes for one).  Worked out once a layout."""
        def compute() -> tuple[np.ndarray, np.ndarray]:
            names, bgr = self._piece_names, self._piece_bgr
            dark = shadow_colours(names, bgr)
            shade, figure = np.zeros(256, bool), np.zeros(256, bool)
            for i, name in enumerate(names):
                shade[i] = name in dark
                figure[i] = self._stands_up(name) and float(np.ptp(bgr[i])) >= NEUTRAL_PTP
            return shade, figure
        return per_layout(self, "_shade_colours_known", compute)

    def _figure_in(self, own: np.ndarray, labels: np.ndarray, x: int, y: int
                   ) -> tuple[np.ndarray, tuple[float, float]] | None:
        """A blob's pixels of its most voted standing figure's colour with a hue and its foot
        (sampled px), when they are shaped as one figure (``slant.leaning_figure``) and no speck."""
        _shade, figure_colour = self._shade_colours()
        votes = np.bincount(labels[own], minlength=256)
        votes[~figure_colour] = 0
        if not votes.any():
            return None
        figure = own & (labels == int(np.argmax(votes)))
        if cv2.countNonZero(figure.view(np.uint8)) < SPECK_SHARE * self._smallest_px:
            return None  # a speck of its colour (a figure's head split off): no figure's foot
        leaning = leaning_figure(self.pose, figure, x, y, SCALE)
        return None if leaning is None else (figure, leaning.foot)

    def _frame_shadow(self, components: np.ndarray, stats: np.ndarray, labels: np.ndarray,
                      but: int) -> FrameShadow | None:
        """The frame's figures' shadows (``frame_shadow``), learned from every blob but ``but``
        holding one figure; measured once a frame's blobs."""
        if self._shadows_of is None or self._shadows_of[0] is not components:
            self._shadows_of = (components, self._figures_shadows(components, stats, labels))
        return frame_shadow([s for k, s in self._shadows_of[1] if k != but])

    def _figures_shadows(self, components: np.ndarray, stats: np.ndarray,
                         labels: np.ndarray) -> list[tuple[int, Shadow]]:
        """Each blob's figure's shadow (``measure_shadow``), by the blob's label."""
        shade, _figure = self._shade_colours()
        n_pieces = len(self._piece_names)
        reach = int(SHADOW_SEEN_MM * SCALE) + 1
        rows, cols = labels.shape
        out = []
        for k in np.flatnonzero(stats[1:, 4] >= self._smallest_px * 0.3) + 1:
            x, y, w, h = (int(v) for v in stats[k, :4])
            own = components[y:y + h, x:x + w] == k
            found = self._figure_in(own, labels[y:y + h, x:x + w], x, y)
            if found is None:
                continue
            figure, (fx, fy) = found
            y0, x0 = max(0, int(fy) - reach), max(0, int(fx) - reach)
            y1, x1 = min(rows, int(fy) + reach + 1), min(cols, int(fx) + reach + 1)
            window = labels[y0:y1, x0:x1]
            mine = np.zeros(window.shape, bool)
            fy_, fx_ = np.nonzero(figure)
            fy_, fx_ = fy_ + y - y0, fx_ + x - x0
            inside = (fy_ >= 0) & (fy_ < y1 - y0) & (fx_ >= 0) & (fx_ < x1 - x0)
            mine[fy_[inside], fx_[inside]] = True
            shadow = measure_shadow(light_share(self._flat[y0:y1, x0:x1], self._reference[y0:y1, x0:x1]),
                                    mine, (window >= n_pieces) | shade[window], (fx - x0, fy - y0))
            if shadow is not None:
                out.append((int(k), shadow))
        return out

    def _shadow_tail_off(self, k: int, stats: np.ndarray, centres: np.ndarray, components: np.ndarray,
                         labels: np.ndarray) -> list[tuple[int, int, int, int]]:
        """Blob ``k`` less its figure's shadow, where part of it is one (``shadow_tail``): its
        pixels left out of ``components``, its box, area and centre in ``stats`` and ``centres``
        taken again.  The box the whole blob lay in (rows, columns; a piece's rim round it), light
        as it was with the shadow in the blob (its blurred rim is the shadow's), or none."""
        if self.pose is None or per_layout(self, "_standing_lut", self._standing_lut) is None:
            return []
        shade, _figure = self._shade_colours()
        x, y, w, h = (int(v) for v in stats[k, :4])
        own = components[y:y + h, x:x + w] == k
        box_labels = labels[y:y + h, x:x + w]
        dark = own & shade[box_labels]
        if cv2.countNonZero(dark.view(np.uint8)) < SHADOW_LEAST_PX:
            return []
        found = self._figure_in(own, box_labels, x, y)
        if found is None:
            return []
        figure, (fx, fy) = found
        frame = self._frame_shadow(components, stats, labels, k)
        if frame is None:
            return []
        share = light_share(self._flat[y:y + h, x:x + w], self._reference[y:y + h, x:x + w])
        n, parts = cv2.connectedComponents(dark.view(np.uint8), connectivity=8)
        tail = np.zeros(own.shape, bool)
        for p in range(1, n):
            part = parts == p
            if shadow_tail(part, figure, share, (fx - x, fy - y), frame):
                tail |= part
        if not tail.any():
            return []
        ys, xs = np.nonzero(own & ~tail)  # (the figure's own pixels stay: never empty)
        components[y:y + h, x:x + w][tail] = 0
        stats[k] = (x + int(xs.min()), y + int(ys.min()), int(np.ptp(xs)) + 1, int(np.ptp(ys)) + 1, len(xs))
        centres[k] = (x + float(xs.mean()), y + float(ys.mean()))
        rim = PIECE_RIM_PX
        return [(max(0, y - rim), y + h + rim, max(0, x - rim), x + w + rim)]
