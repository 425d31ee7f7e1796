"""The room's light over the board, as the reader takes it off every frame.

Light in two parts: its fall-off across the table, fitted to the white margin's
paper (clipped pixels left out), and a tone curve per channel fitted to the board's
own printed surfaces, so warm, cool, dim and uneven light all come back to the
calibrated colours.  A surface an arm or its shadow covers much of is left out of the
curve, not averaged into it.  Fitted again every few frames and whenever the margin's
light jumps (a lamp switched on); a lamp's reflections are ``glare``'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.vision.channels import channel_max, channel_sum
from companion.vision.glare import smooth_fit

CLIPPED = 250  # a channel at this level or more is clipped by the camera: it was at least that
_LEVELS = np.repeat(np.arange(256, dtype=np.uint8)[:, None, None], 3, axis=2)  # every level, each channel
TOO_BRIGHT = "too bright to read: the white margin is washed out (lower the exposure)"
SHAPE_FROM_PAPER = 0.5  # fewer of the paper's samples than this share unclipped: the surfaces help
TONE_AGREE = 20  # levels: a surface's pixel the tone curve takes this close to its colour agrees
ANCHOR_MISSED = 12  # levels: a surface the curve through them all misses by more is covered
ANCHOR_AGREE_PX = 30  # a surface with this many agreeing pixels still anchors the curve
# what the margin's fit leaves of a lamp's pool of light (or a print's broad sheen) inside the
# board, measured on the print where no piece can stand, in cells of this many px (mm) ...
POOL_CELL = 16
POOL_STEP = 1  # ... every this many pixels of it, along and across, measured
POOL_SEEN = 0.15  # ... a cell with this share of its pixels measured counts
POOL_BAND = (0.78, 1.45)  # the print seen within this share of the empty board's, every channel
POOL_APART = 0.1  # a cell this far (log share) off its neighbourhood is something else's
POOL_SPREAD = 2.0  # cells: how far the measure spreads, fading to none far from any cell
POOL_MIN_CELLS = 30  # fewer cells measured: too little print seen to judge the light inside
POOL_SLACK = 0.05  # log share: a print lit this little past the fit is left as it is (the rest taken off)
POOL_DARK_SLACK = 0.08  # log share: a print lit this little less than the fit is left as it is ...
POOL_DARK_SPREAD = 2 * POOL_SPREAD  # ... the rest measured over this many cells round ...
POOL_DARK_SMOOTH = (0.03, 0.9)  # ... and taken off when this share of its cells lie this near that
POOL_LEAST = 0.03  # ... and a pool fainter than that everywhere is not worth flattening again for


@dataclass
class Light:
    """The light last fitted: its gain per pixel of the sampled board and its tone curve."""

    gain: np.ndarray | None = None  # per pixel of the board sampled (1 px/mm), three channels
    tone: np.ndarray | None = None  # a 256-level curve per channel
    paper: tuple[np.ndarray, np.ndarray] | None = None  # the margin's tint, and the light per sample
    margin_at_fit: np.ndarray | None = None  # the margin as it was at the fit
    frames_since_fit: int = 0
    round_arm: bool = False  # fitted clear of an arm over the board: fitted again at the next frame
    clipped_floor: np.ndarray | None = None  # per channel, the least a clipped pixel flattens to
    _tone_channels: list[np.ndarray] = field(default_factory=list)
    _curves: np.ndarray | None = None  # the tone curve's scale and power per channel
    # the pool last measured (``refine``): the fit's gain sample it was measured under, and its
    # share of the gain (None: no pool); a fit of the same light takes it again unmeasured
    _pool_under: np.ndarray | None = None
    _pool_share: np.ndarray | None = None

    def changed(self, margin: np.ndarray) -> bool:
        """Has the white margin's light moved since the fit (more than a hand on it explains)?"""
        before = self.margin_at_fit
        if before is None or before.shape != margin.shape:
            return True
        ratio = (channel_sum(margin) + 1) / (channel_sum(before) + 1)
        return abs(float(np.median(ratio)) - 1) > 0.04 or float(np.percentile(np.abs(ratio - 1), 75)) > 0.08

    def fit(self, small: np.ndarray, margin_samples: tuple[np.ndarray, np.ndarray],
            anchors: dict[str, tuple[np.ndarray, np.ndarray]], reference: np.ndarray,
            use: np.ndarray | None = None) -> str:
        """Light in two parts: its fall-off across the table, fitted to the margin's white
        paper (clipped pixels left out), then a tone curve per channel fitted to the board's
        own printed surfaces (a colour cast, a dim room's gamma).  ``reference`` is the empty
        board as calibrated, ``anchors`` its printed surfaces' pixels, ``margin_samples`` the
        white margin's, of which only those in ``use`` (all without it) are fitted to (not
        those under an arm).  A reason the light cannot be judged, or ""."""
        ys, xs = margin_samples
        samples = small[ys, xs].astype(np.float32)
        total = channel_sum(samples)  # (the mean, sum channel by channel: ``channel_sum``)
        luma = total / 3
        if np.percentile(luma, 90) < 40:
            return "too dark to read: turn a light on over the table"
        # white paper: the margin's own tint (a hand or sleeve on it has another), not ink
        tint = samples / np.maximum(total, 1)[:, None]
        bright = luma > np.percentile(luma, 50)
        if not bright.any():  # more than half the paper clipped white: no light to fit to
            return TOO_BRIGHT
        paper = np.median(tint[bright], axis=0)
        paperish = (channel_max(np.abs(tint - paper)) < 0.06) & (luma > 0.5 * np.percentile(luma, 90))
        # the light's shape from the channel least clipped on the paper
        unclipped = (samples < 250) & paperish[:, None]
        if use is not None:
            unclipped &= use[:, None]
        channel = int(np.argmax(unclipped.sum(0)))
        ok = unclipped[:, channel]
        if ok.sum() < 60:
            return TOO_BRIGHT
        xs_f, ys_f = xs[ok] / small.shape[1], ys[ok] / small.shape[0]
        basis = basis_all(xs_f, ys_f)
        target = samples[ok, channel]
        coeffs, keep = robust_quadratic(basis, target)  # without glare, a finger on the margin
        fitted = basis @ coeffs
        if ok.sum() < SHAPE_FROM_PAPER * paperish.sum():
            # the paper clipped white under the lamp: the light's shape there is taken from the
            # printed surfaces too, each at its own brightness relative to the paper's fit
            coeffs = self._shape_with_surfaces(small, anchors, channel, basis, target[keep], coeffs, keep)
            fitted = basis @ coeffs
        level = float(np.median(fitted))
        self.paper = (paper, basis_all(xs / small.shape[1], ys / small.shape[0]) @ coeffs)
        if level < 35:
            return "too dark to read: turn a light on over the table"
        gy, gx = np.mgrid[0:1:24j, 0:1:32j]
        grid = np.stack([np.ones_like(gx), gx, gy, gx * gy, gx ** 2, gy ** 2], -1) @ coeffs
        shape = cv2.resize(grid.astype(np.float32), (small.shape[1], small.shape[0]))
        gain = level / np.clip(shape, 0.2 * level, None)
        self.gain = cv2.merge([gain, gain, gain])
        # the tone curve: each printed surface's flattened colour back to its calibrated colour
        def flat(at_y: np.ndarray, at_x: np.ndarray) -> np.ndarray:
            """Flattened where the fit looks (a whole flattened frame would cost a Pi 15 MB)."""
            return np.clip(small[at_y, at_x] * gain[at_y, at_x, None], 0, 255)

        pixels = [(flat(ay, ax), reference[ay, ax].astype(np.float32)) for ay, ax in anchors.values()]
        white = np.median(flat(ys[ok], xs[ok]), axis=0)
        white_ref = np.median(reference[ys, xs].astype(np.float32), axis=0)
        found = robust_tone(pixels, white, white_ref)
        if found is None:
            return "cannot judge the light: the board's printed colours are not visible"
        lut, curves = found
        self.tone = lut.reshape(256, 1, 3)
        self._curves = np.array(curves, np.float32)
        self._tone_channels = [np.ascontiguousarray(lut[:, c]) for c in range(3)]
        # what a channel the camera clipped flattens to, at least, where the gain is lowest
        at_least = self.flatten_with(np.full((1, 1, 3), CLIPPED, np.uint8), (float(gain.min()),) * 3 + (0.0,))
        self.clipped_floor = at_least.reshape(3)
        return ""

    @staticmethod
    def _shape_with_surfaces(small: np.ndarray, anchors: dict[str, tuple[np.ndarray, np.ndarray]],
                             channel: int, basis: np.ndarray, target: np.ndarray, coeffs: np.ndarray,
                             keep: np.ndarray) -> np.ndarray:
        """The light's shape fitted to the paper's unclipped samples and to every printed
        surface's unclipped pixels, each surface scaled by its median ratio to the paper's fit."""
        rows, values = [basis[keep]], [target]
        h, w = small.shape[:2]
        for ay, ax in anchors.values():
            seen = small[ay, ax, channel].astype(np.float32)
            good = (small[ay, ax] < 250).all(axis=1) & (seen > 20)
            if good.sum() < 30:
                continue
            b = basis_all(ax[good] / w, ay[good] / h)
            ratio = float(np.median(seen[good] / np.maximum(b @ coeffs, 1)))
            if ratio <= 0.1:
                continue
            rows.append(b)
            values.append(seen[good] / ratio)
        return robust_quadratic(np.concatenate(rows), np.concatenate(values))[0]  # without what lies on them

    def refine(self, flat: np.ndarray, reference: np.ndarray, inside: np.ndarray,
               measure: np.ndarray) -> bool:
        """Take off what the margin's fit leaves of the light inside the board: a lamp low or
        near the table lights a pool the ring of paper round the board cannot show, and a silk
        print's broad sheen lifts the print the same way.  Measured on the flattened board
        (``flat``) against the empty one where ``measure`` (no piece can stand there, nothing
        over it), per channel, smoothly (``pool_field``); the gain changes within ``inside``
        only.  A fit of the light the pool was last measured under takes the same pool again,
        unmeasured (a room's lamps do not move between two fits).  Did the gain change?"""
        if self.gain is None or self._curves is None or self._pool_known():
            return False  # (a pool known for this light is on the gain since the fit: ``take_known_pool``)
        self._pool_under, self._pool_share = self.sample(), self._pool(flat, reference, inside, measure)
        if self._pool_share is None:
            return False
        self.gain = (self.gain * self._pool_share).astype(np.float32)
        self._set_clipped_floor()
        return True

    def untake_pool(self) -> None:
        """Put back the light as fitted, before ``refine`` took the pool it measured off (a pool
        measured round something it does not explain is no pool); no pool is known for it."""
        if self._pool_share is not None and self.gain is not None:
            self.gain = (self.gain / np.maximum(self._pool_share, 1e-6)).astype(np.float32)
            self._set_clipped_floor()
        self._pool_under = self._pool_share = None

    def forget_no_pool(self) -> None:
        """Forget that no pool was found under this light, so that the next ``refine`` measures
        again (on more of the board): a measure that found none was taken as known for the light,
        and a second measure on the places was never made (Swing State's track, lit past the
        margin's fit, stayed a hand over the board)."""
        if self._pool_share is None:
            self._pool_under = None

    def _pool_known(self) -> bool:
        """Was the pool (or none) measured under the light just fitted (within 1 %)?"""
        before = self._pool_under
        if before is None or self.gain is None or before.shape != self.gain[::16, ::16].shape:
            return False
        if self._pool_share is not None and self._pool_share.shape != self.gain.shape:
            return False
        under = self.sample()
        return float((np.abs(under - before) / np.maximum(before, 1e-3)).max()) < 0.01

    def take_known_pool(self) -> None:
        """Right after a fit: the pool measured under this light before, taken off again (the
        board kept from a frame before is then flattened with the same light as this one)."""
        if self._pool_share is not None and self._pool_known():
            self.gain = (self.gain * self._pool_share).astype(np.float32)
            self._set_clipped_floor()

    def _set_clipped_floor(self) -> None:
        assert self.gain is not None
        at_least = self.flatten_with(np.full((1, 1, 3), CLIPPED, np.uint8),
                                     tuple(float(v) for v in self.gain.reshape(-1, 3).min(0)) + (0.0,))
        self.clipped_floor = at_least.reshape(3)

    def _pool(self, flat: np.ndarray, reference: np.ndarray, inside: np.ndarray,
              measure: np.ndarray) -> np.ndarray | None:
        """The share of the gain that takes a pool of light off (``pool_field``), or None."""
        found = pool_field(flat, reference, measure)
        if found is None or self._curves is None:
            return None
        h, w = flat.shape[:2]
        rows, cols = found.shape[0] * POOL_CELL, found.shape[1] * POOL_CELL
        power = self._curves[:, 1].reshape(1, 1, 3)
        share = np.ones((h, w, 3), np.float32)
        # the flattened share s of the print is the gain's share s ** (1 / power) through the tone curve
        share[:rows, :cols] = np.exp(-cv2.resize(found, (cols, rows), interpolation=cv2.INTER_LINEAR) / power)
        share[~inside] = 1.0
        return share

    def as_seen(self, board: np.ndarray, rows: slice, cols: slice) -> np.ndarray:
        """A window of a flattened board (the empty board) as this light shows it to the
        camera: the tone curve and the gain put back, in floats.  A reflection adds the same
        light to every channel of what the camera sees, not of the flattened picture, whose
        tone curve bends it differently per channel; and the camera's own clipping is
        judged where it happened, not where the gain lifted a pixel past white."""
        out = board.astype(np.float32)
        if self._curves is not None and self.tone is not None:
            scale, power = self._curves[:, 0], self._curves[:, 1]
            out = 255.0 * (np.maximum(out, 1.0) / (255.0 * scale)) ** (1.0 / power)
        if self.gain is not None and self.gain[rows, cols].shape[:2] == board.shape[:2]:
            out = out / np.maximum(self.gain[rows, cols], 1e-3)
        return out

    def sample(self) -> np.ndarray:
        """A sparse sample of the gain, to tell later whether the light moved."""
        assert self.gain is not None
        return self.gain[::16, ::16].copy()

    def same_as(self, gain_sample: np.ndarray, tone: np.ndarray | None) -> bool:
        """Is this light the one a board was flattened with (its gain sample and tone curve,
        within 1 % and 2 levels)?  Light that drifts a little at each fit is caught when it
        adds up."""
        if self.gain is None or tone is None or self.tone is None \
                or gain_sample.shape != self.gain[::16, ::16].shape:
            return False
        drift = np.abs(self.sample() - gain_sample) / np.maximum(gain_sample, 1e-3)
        return float(drift.max()) < 0.01 and int(cv2.absdiff(tone, self.tone).max()) <= 2

    def flatten(self, img: np.ndarray) -> np.ndarray:
        """The sampled board with the light taken off (as it is, before any fit)."""
        if self.gain is None or self.gain.shape[:2] != img.shape[:2]:
            return img
        return self.flatten_with(img, self.gain)

    def flatten_with(self, img: np.ndarray, gain: np.ndarray | tuple[float, ...]) -> np.ndarray:
        """The light's gain (per pixel, or one for a small crop) and the tone curve taken off."""
        if isinstance(gain, tuple) and img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3 \
                and img.shape[0] * img.shape[1] > len(_LEVELS):
            # one gain a channel: each level of each channel flattens to one level, so the crop
            # is looked up in its 256 levels flattened the same way (OpenCV's multiply by a
            # scalar costs a die's crop a quarter of a millisecond: ten times a lookup)
            return cv2.LUT(img, self.flatten_with(_LEVELS, gain))
        flat = cv2.multiply(img, gain, dtype=cv2.CV_8U)
        if self.tone is not None and flat.ndim == 3 and flat.shape[2] == 3 and self.tone.dtype == np.uint8:
            # each channel through its own curve in one lookup (half the cost of a split, three
            # lookups and a merge on a changed region, with this OpenCV)
            flat = cv2.LUT(flat, self.tone)
        elif self.tone is not None:
            channels = zip(cv2.split(flat), self._tone_channels, strict=True)
            flat = cv2.merge([cv2.LUT(c, t) for c, t in channels])
        return flat


def robust_quadratic(basis: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The light's quadratic fitted three times over, each without the worst quarter of the
    samples the fit before missed: its coefficients, and the samples the last fit kept."""
    keep = np.ones(len(target), bool)
    for _ in range(3):
        bk = basis[keep]
        coeffs = np.linalg.solve(bk.T @ bk + 1e-6 * np.eye(6), bk.T @ target[keep])
        fitted = basis @ coeffs
        err = np.abs(target - fitted) / np.maximum(fitted, 1)
        keep = err < max(0.04, float(np.percentile(err, 75)))
    return coeffs, keep


def robust_tone(pixels: list[tuple[np.ndarray, np.ndarray]], white: np.ndarray, white_ref: np.ndarray
                ) -> tuple[np.ndarray, list[tuple[float, float]]] | None:
    """The tone curve from the printed surfaces' pixels (each surface's flattened pixels and
    their calibrated colours) and the paper's white.  The curve through every surface's
    median, when it takes each of them back to its colour; when one misses (an arm or its
    shadow covers much of a surface), of the curves through all and through all but one,
    the one most pixels agree with picks the pixels it is fitted to again.  None with too few."""
    obs = np.array([np.median(o, axis=0) for o, _ in pixels]).reshape(-1, 3)
    ref = np.array([np.median(r, axis=0) for _, r in pixels]).reshape(-1, 3)
    every = tone_curves(obs, ref, white, white_ref)
    if every is None or len(obs) < 3 or _missed_by(every[0], obs, ref).max() <= ANCHOR_MISSED:
        return every
    best, best_count = None, -1
    for subset in [np.ones(len(obs), bool)] + [np.arange(len(obs)) != k for k in range(len(obs))]:
        found = tone_curves(obs[subset], ref[subset], white, white_ref)
        if found is None:
            continue
        agree = [_agrees(found[0], o, r) for o, r in pixels]
        count = sum(int(a.sum()) for a in agree)
        if count > best_count:
            best, best_count = agree, count
    assert best is not None  # the curve through every surface was found
    kept = [k for k, a in enumerate(best) if a.sum() >= min(ANCHOR_AGREE_PX, len(a))]
    if not kept:
        return every
    obs = np.array([np.median(pixels[k][0][best[k]], axis=0) for k in kept])
    ref = np.array([np.median(pixels[k][1][best[k]], axis=0) for k in kept])
    return tone_curves(obs, ref, white, white_ref)


def _missed_by(lut: np.ndarray, obs: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """How far a tone curve takes each colour seen from its calibrated one (levels, worst channel)."""
    return np.abs(lut[np.clip(obs, 0, 255).astype(np.intp), [0, 1, 2]].astype(np.float32) - ref).max(1)


def _agrees(lut: np.ndarray, seen: np.ndarray, calibrated: np.ndarray) -> np.ndarray:
    """Which pixels a tone curve takes back to within ``TONE_AGREE`` of their calibrated colour."""
    return _missed_by(lut, seen, calibrated) <= TONE_AGREE


def tone_curves(obs: np.ndarray, ref: np.ndarray, white: np.ndarray, white_ref: np.ndarray
                ) -> tuple[np.ndarray, list[tuple[float, float]]] | None:
    """A power curve per channel taking the printed surfaces' flattened colours (``obs``)
    and the paper's white, where a channel is not clipped on it, back to their calibrated
    colours: a 256-level table and each channel's scale and power; None with too few."""
    lut = np.zeros((256, 3), np.uint8)
    curves: list[tuple[float, float]] = []
    levels = np.arange(256, dtype=np.float32)
    for c in range(3):
        o, r = list(obs[:, c]), list(ref[:, c])
        wts = [1.0] * len(o)
        if white[c] < 248:
            o.append(white[c])
            r.append(white_ref[c])
            wts.append(3.0)
        if len(o) < 2:
            return None
        lo = np.log(np.clip(np.array(o), 4, 255) / 255.0)
        lr = np.log(np.clip(np.array(r), 4, 255) / 255.0)
        g, log_a = np.polyfit(lo, lr, 1, w=np.array(wts))
        g = float(np.clip(g, 0.4, 3.0))
        curve = 255.0 * np.exp(log_a) * (np.maximum(levels, 1) / 255.0) ** g
        lut[:, c] = np.clip(curve, 0, 255).astype(np.uint8)
        curves.append((float(np.exp(log_a)), g))
    return lut, curves


def basis_all(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """The quadratic light model's terms at relative positions."""
    return np.stack([np.ones_like(xs), xs, ys, xs * ys, xs ** 2, ys ** 2], 1)


def _falling_off(cells: np.ndarray, weight: np.ndarray, field: np.ndarray) -> np.ndarray:
    """The part of a pool field (``pool_field``'s cells, their weights and the field spread
    from them) that is a lamp's light falling off: where the print is lit less than the fit
    past ``POOL_DARK_SLACK``, spread over ``POOL_DARK_SPREAD`` cells, when nearly all the cells
    lit less (``POOL_DARK_SMOOTH``) lie within a hair of a plane fitted as wide, as a gradient does
    and a shade's edge does not; zero elsewhere (and everywhere for a shade)."""
    darker = (field < -POOL_DARK_SLACK) & (weight[..., None] > 0)
    if not darker.any():
        return np.zeros_like(field)
    # (a plane round each cell, not a mean: a gradient's plane follows it to the board's edge)
    plane = np.stack([smooth_fit(cells[..., c], weight > 0, POOL_DARK_SPREAD) for c in range(3)], axis=-1)
    if float(np.mean(np.abs(cells - plane)[darker] < POOL_DARK_SMOOTH[0])) < POOL_DARK_SMOOTH[1]:
        return np.zeros_like(field)
    wide = cv2.GaussianBlur(cells * weight[..., None], (0, 0), POOL_DARK_SPREAD)
    wide /= np.maximum(cv2.GaussianBlur(weight, (0, 0), POOL_DARK_SPREAD), 0.3)[..., None]
    return np.minimum(np.maximum(field, wide) + POOL_DARK_SLACK, 0.0)


def pool_field(flat: np.ndarray, reference: np.ndarray, measure: np.ndarray) -> np.ndarray | None:
    """Per cell of ``POOL_CELL`` px and channel, the log share by which the flattened print
    (``flat``) is lit past the empty board (``reference``) where ``measure``, smoothed over the
    cells, less ``POOL_SLACK`` (less light only as a lamp's falling off: ``_falling_off``); None
    when too little is measured or nowhere ``POOL_LEAST`` is left.
    A pixel counts only within ``POOL_BAND`` of the empty board in every channel, and a cell
    off its neighbourhood by ``POOL_APART`` not at all (a piece leaning over, a shadow)."""
    gh, gw = flat.shape[0] // POOL_CELL, flat.shape[1] // POOL_CELL
    side = POOL_CELL // POOL_STEP  # samples along a cell's side: every POOL_STEP-th pixel
    rows, cols = gh * POOL_CELL, gw * POOL_CELL
    seen = flat[:rows:POOL_STEP, :cols:POOL_STEP].astype(np.float32)
    empty = reference[:rows:POOL_STEP, :cols:POOL_STEP].astype(np.float32)
    log_share = np.log(np.maximum(seen, 1.0) / np.maximum(empty, 1.0)).reshape(gh, side, gw, side, 3)
    # (channel by channel: numpy's reductions over a last axis of three cost four times as much)
    b, g, r = log_share[..., 0], log_share[..., 1], log_share[..., 2]
    low, high = np.minimum(np.minimum(b, g), r), np.maximum(np.maximum(b, g), r)
    dark = np.minimum(np.minimum(empty[..., 0], empty[..., 1]), empty[..., 2]) <= 40  # ink: too dark to tell
    clipped = np.maximum(np.maximum(seen[..., 0], seen[..., 1]), seen[..., 2]) >= CLIPPED
    ok = (measure[:rows:POOL_STEP, :cols:POOL_STEP] & ~dark & ~clipped).reshape(gh, side, gw, side) \
        & (low > np.log(POOL_BAND[0])) & (high < np.log(POOL_BAND[1]))
    for _ in range(2):  # each cell's mean, then without what strays from it (a piece's rim)
        okf = ok.astype(np.float32)
        count = okf.sum(axis=(1, 3))
        sums = (log_share * okf[..., None]).sum(axis=(1, 3))
        mean = (sums / np.maximum(count, 1.0)[..., None])[:, None, :, None, :]
        off = np.abs(log_share - mean)
        ok &= np.maximum(np.maximum(off[..., 0], off[..., 1]), off[..., 2]) < POOL_APART / 2
    weight = (count >= POOL_SEEN * side * side).astype(np.float32)
    if weight.sum() < POOL_MIN_CELLS:
        return None
    cells = sums / np.maximum(count, 1.0)[..., None]
    for _ in range(2):  # a cell off its neighbourhood is not the light
        near = cv2.GaussianBlur(cells * weight[..., None], (0, 0), POOL_SPREAD)
        near /= np.maximum(cv2.GaussianBlur(weight, (0, 0), POOL_SPREAD), 1e-3)[..., None]
        weight *= (np.abs(cells - near).max(axis=2) < POOL_APART).astype(np.float32)
    spread = cv2.GaussianBlur(cells * weight[..., None], (0, 0), 0.75 * POOL_SPREAD)
    field = spread / np.maximum(cv2.GaussianBlur(weight, (0, 0), 0.75 * POOL_SPREAD), 0.3)[..., None]
    # more light only past what the flattening tolerates anyway: the slight strays a piece's
    # rim leaves are no lamp's.  Less light is mostly the pieces' shade (light of its own,
    # judged as shade), or a figure's or a hand's, with an edge; a lamp's light falling off
    # over the board (a reading lamp at one side) is smooth: less light is taken for the
    # lamp's only where the cells lit less follow their wide surroundings smoothly
    # (``POOL_DARK_SMOOTH``), and past ``POOL_DARK_SLACK``
    field = np.maximum(field - POOL_SLACK, 0.0) + _falling_off(cells, weight, field)
    if float(np.abs(field).max()) < POOL_LEAST:
        return None
    return field.astype(np.float32)
