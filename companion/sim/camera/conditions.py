"""Real-world camera conditions, applied to rendered frames after the renderer is done.

The renderer draws a clean table; a real one has lamps of other colours, dim
rooms, glare, cheap lenses, blur, hands and sleeves, JPEG and tilted cameras.
Each condition here is our own model of one of those, with the range issue 10
names, applied to a finished BGR frame (or, for tilt and lens, to how the
frame is formed).  Everything is seeded: the same seed gives the same frame.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from companion.games.base import Layout
from companion.sim.camera.render import FRAME_H, FRAME_W, Camera, CameraPose
from companion.vision.geometry import canvas_size_mm

# six skin tones, lightest to darkest (BGR), after the Fitzpatrick scale's usual swatches
SKIN_TONES: tuple[tuple[int, int, int], ...] = (
    (196, 216, 245), (160, 190, 232), (120, 160, 215), (85, 125, 180), (60, 90, 140), (40, 55, 85),
)
SLEEVES: tuple[tuple[int, int, int] | None, ...] = (
    None, (90, 45, 30), (130, 130, 130), (40, 40, 170), (235, 235, 235), (30, 30, 30), (60, 120, 60),
)

# a lens like a cheap 720p USB camera's: about 70 degrees across, visible barrel distortion
LENS_FOCAL_PX = 900.0


def lens_profile(k1: float, k2: float = 0.0) -> dict[str, object]:
    """A lens in the form ``companion calibrate camera`` writes (matrix, distortion, size)."""
    matrix = [[LENS_FOCAL_PX, 0.0, FRAME_W / 2], [0.0, LENS_FOCAL_PX, FRAME_H / 2], [0.0, 0.0, 1.0]]
    return {"matrix": matrix, "distortion": [k1, k2, 0.0, 0.0, 0.0], "size": [FRAME_W, FRAME_H],
            "rms_px": 0.0, "photos_used": 0}


_DISTORT_MAPS: dict[tuple[float, float], tuple[np.ndarray, np.ndarray]] = {}


def distort(frame: np.ndarray, k1: float, k2: float = 0.0) -> np.ndarray:
    """What a lens with radial distortion ``k1, k2`` makes of an ideal pinhole picture."""
    key = (round(k1, 4), round(k2, 4))
    if key not in _DISTORT_MAPS:
        profile = lens_profile(*key)
        matrix = np.array(profile["matrix"], np.float64)
        dist = np.array(profile["distortion"], np.float64)
        ys, xs = np.mgrid[0:FRAME_H, 0:FRAME_W].astype(np.float32)
        pts = np.stack([xs.ravel(), ys.ravel()], 1).reshape(-1, 1, 2)
        # each distorted pixel shows the ideal picture at its undistorted position
        ideal = cv2.undistortPoints(pts, matrix, dist, P=matrix).reshape(FRAME_H, FRAME_W, 2)
        _DISTORT_MAPS[key] = cv2.convertMaps(ideal[..., 0].copy(), ideal[..., 1].copy(), cv2.CV_16SC2)
    map1, map2 = _DISTORT_MAPS[key]
    return cv2.remap(frame, map1, map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                     borderValue=(60, 80, 95))


def tilted_pose(layout: Layout, degrees: float, yaw: float, rng: np.random.Generator) -> CameraPose:
    """The board seen by a pinhole camera tilted ``degrees`` from looking straight down."""
    total_w, total_h = canvas_size_mm(layout)
    corners = np.array([[-total_w / 2, -total_h / 2, 0], [total_w / 2, -total_h / 2, 0],
                        [total_w / 2, total_h / 2, 0], [-total_w / 2, total_h / 2, 0]], np.float64)
    t, y = math.radians(degrees), math.radians(yaw)
    rot_x = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    rot_z = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    distance = 1.3 * max(total_w, total_h)
    cam = (rot_z @ rot_x @ corners.T).T + np.array([0, 0, distance])
    pts = cam[:, :2] / cam[:, 2:3]
    pts -= pts.mean(0)
    span = pts.max(0) - pts.min(0)
    scale = min((FRAME_W - 120) / span[0], (FRAME_H - 60) / span[1])
    centre = np.array([FRAME_W / 2 + rng.uniform(-20, 20), FRAME_H / 2 + rng.uniform(-10, 10)])
    return CameraPose((pts * scale + centre).astype(np.float32))


def camera_for(layout: Layout, seed: int, tilt: float = 0.0, yaw: float = 0.0,
               noise: float = 6.0) -> Camera:
    """The project's synthetic camera, with the pose of a tilted camera when ``tilt`` is set."""
    camera = Camera(layout, seed=seed, noise=noise)
    if tilt:
        camera.pose = tilted_pose(layout, tilt, yaw, np.random.default_rng(seed))
        total_w, total_h = canvas_size_mm(layout)
        src = np.array([[0, 0], [total_w, 0], [total_w, total_h], [0, total_h]], np.float32)
        camera.homography = cv2.getPerspectiveTransform(src * camera.px_per_mm, camera.pose.corners)
    return camera


# --------------------------------------------------------------------------- the conditions
def colour_cast(frame: np.ndarray, strength: float, warm: bool) -> np.ndarray:
    """A lamp of another colour: red up and blue down (warm) or the other way (cool)."""
    up, down = 1.0 + strength, 1.0 - strength
    gains = np.array([down, 1.0, up] if warm else [up, 1.0, down], np.float32)
    return np.clip(frame.astype(np.float32) * gains, 0, 255).astype(np.uint8)


def channel_gains(frame: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """Each channel of a frame scaled by its gain (B, G, R), clipped: a lamp's light changed.
    Through a look-up table (a 256-level table per channel, about a tenth of the cost of
    scaling the frame in floats, which matters at every frame of a game), pixel for pixel
    the same as ``clip(frame * gains)`` in float32."""
    return cv2.LUT(frame, gains_table(gains))


def gains_table(gains: np.ndarray) -> np.ndarray:
    """The look-up table ``channel_gains`` scales a frame's channels by (256 x 1 x 3)."""
    levels = np.arange(256, dtype=np.float32)[:, None] * np.asarray(gains, np.float32)[None, :]
    return np.clip(levels, 0, 255).astype(np.uint8).reshape(256, 1, 3)


def dim(frame: np.ndarray, gamma: float) -> np.ndarray:
    """A dim room through the camera's tone curve: mid-tones sink, darks crush."""
    lut = np.clip(255.0 * (np.arange(256) / 255.0) ** gamma, 0, 255).astype(np.uint8)
    return cv2.LUT(frame, lut)


GlareSpot = tuple[float, float, float, float, float]  # centre x, y; spread x, y; strength


def glare_spots(rng: np.random.Generator, spots: int) -> list[GlareSpot]:
    """Where a lamp's reflections fall, how wide and how strong."""
    out = []
    for _ in range(spots):
        cx, cy = rng.uniform(250, FRAME_W - 250), rng.uniform(120, FRAME_H - 120)
        sx, sy = rng.uniform(18, 45), rng.uniform(14, 35)
        out.append((cx, cy, sx, sy, rng.uniform(70, 160)))
    return out


def glare_lift(spots: list[GlareSpot]) -> np.ndarray:
    """How much light the reflections add to each pixel of the frame."""
    ys, xs = np.mgrid[0:FRAME_H, 0:FRAME_W].astype(np.float32)
    lift = np.zeros((FRAME_H, FRAME_W), np.float32)
    for cx, cy, sx, sy, amp in spots:
        lift += amp * np.exp(-(((xs - cx) / sx) ** 2 + ((ys - cy) / sy) ** 2) / 2)
    return lift


def glare(frame: np.ndarray, rng: np.random.Generator, spots: int) -> np.ndarray:
    """Reflections of a lamp: soft bright patches that wash colour out towards white."""
    return add_glare(frame, glare_spots(rng, spots))


def add_glare(frame: np.ndarray, spots: list[GlareSpot]) -> np.ndarray:
    return np.clip(frame.astype(np.float32) + glare_lift(spots)[..., None], 0, 255).astype(np.uint8)


def highlights(frame: np.ndarray, rng: np.random.Generator, pieces: list[tuple[str, float, float, float]],
               spots: int) -> np.ndarray:
    """A lamp caught on glossy pieces: small, bright reflections on or at the edge of
    pieces, often clipping to white (a specular highlight is the lamp's own image)."""
    out = frame.astype(np.float32)
    if not pieces:
        return frame
    for _ in range(spots):
        _, x, y, r = pieces[int(rng.integers(0, len(pieces)))]
        angle, off = rng.uniform(0, 2 * np.pi), r * rng.uniform(0, 1.1)
        cx, cy = x + off * np.cos(angle), y + off * np.sin(angle)
        sigma = r * rng.uniform(0.35, 1.3)
        amp = rng.uniform(60, 240)
        x0, x1 = int(max(0, cx - 4 * sigma)), int(min(FRAME_W, cx + 4 * sigma + 1))
        y0, y1 = int(max(0, cy - 4 * sigma)), int(min(FRAME_H, cy + 4 * sigma + 1))
        ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        spot = amp * np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * sigma * sigma))
        out[y0:y1, x0:x1] += spot[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


def gaussian_blur(frame: np.ndarray, sigma: float) -> np.ndarray:
    return cv2.GaussianBlur(frame, (0, 0), sigma)


def motion_blur(frame: np.ndarray, length: int, angle: float) -> np.ndarray:
    """The camera or the table shaken during the exposure: a line-shaped blur."""
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0
    rot = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), angle, 1.0)
    kernel = cv2.warpAffine(kernel, rot, (length, length))
    kernel /= max(kernel.sum(), 1e-6)
    return cv2.filter2D(frame, -1, kernel)


def jpeg(frame: np.ndarray, quality: int) -> np.ndarray:
    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


def sensor_noise(frame: np.ndarray, rng: np.random.Generator, sigma: float) -> np.ndarray:
    """Read noise plus shot noise (brighter pixels noisier), per pixel and channel."""
    f = frame.astype(np.float32)
    noise = rng.normal(0, 1, f.shape).astype(np.float32) * np.sqrt(sigma ** 2 + 0.08 * f)
    return np.clip(f + noise, 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class Arm:
    """An arm reaching over the table: where it enters, where the hand is, its tones."""

    base: tuple[float, float]
    tip: tuple[float, float]
    skin: tuple[int, int, int]
    sleeve: tuple[int, int, int] | None
    width: float = 120.0

    @classmethod
    def random(cls, rng: np.random.Generator, tone: int | None = None) -> Arm:
        edge = rng.integers(0, 3)  # players sit at the bottom, left or right of the frame
        if edge == 0:
            base = (rng.uniform(300, FRAME_W - 300), FRAME_H + 40)
        elif edge == 1:
            base = (-40, rng.uniform(250, FRAME_H - 100))
        else:
            base = (FRAME_W + 40, rng.uniform(250, FRAME_H - 100))
        tip = (rng.uniform(330, FRAME_W - 330), rng.uniform(180, FRAME_H - 180))
        skin = SKIN_TONES[int(rng.integers(0, len(SKIN_TONES))) if tone is None else tone]
        sleeve = SLEEVES[int(rng.integers(0, len(SLEEVES)))]
        return cls(base, tip, skin, sleeve, float(rng.uniform(100, 140)))

    def moved(self, tip: tuple[float, float]) -> Arm:
        return Arm(self.base, tip, self.skin, self.sleeve, self.width)

    def masks(self, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The sleeve's and the hand's pixels (uint8, 1 where they lie) and the soft shadow
        they cast beside them (float, 1 at its darkest), in a frame of ``shape``."""
        box, body, hand, part = self._masks_in_box(shape)
        shadow = np.zeros(shape[:2], np.float32)
        shadow[box] = part
        return body, hand, shadow

    def _masks_in_box(self, shape: tuple[int, ...]
                      ) -> tuple[tuple[slice, slice], np.ndarray, np.ndarray, np.ndarray]:
        """``masks``, the shadow only in the box of the frame it and the arm reach (zero beyond):
        blurred there alone, the same to the bit (the blur's kernel reads zeros past the box's
        inner edges, as it does in the whole frame), for a fifth of the whole frame's cost."""
        bx, by = self.base
        tx, ty = self.tip
        d = np.array([tx - bx, ty - by])
        d /= max(np.linalg.norm(d), 1e-6)
        n = np.array([-d[1], d[0]]) * self.width / 2
        wrist = np.array([tx, ty]) - d * 70
        arm = np.array([[bx + n[0], by + n[1]], [bx - n[0], by - n[1]],
                        [wrist[0] - 0.8 * n[0], wrist[1] - 0.8 * n[1]],
                        [wrist[0] + 0.8 * n[0], wrist[1] + 0.8 * n[1]]], np.int32)
        angle = math.degrees(math.atan2(d[1], d[0]))
        cast = np.zeros(shape[:2], np.uint8)
        offset = np.array([35, 25], np.int32)
        cv2.fillConvexPoly(cast, arm + offset, 1)
        cv2.ellipse(cast, (int(tx) + 35, int(ty) + 25), (70, 50), angle, 0, 360, 1, -1)
        body = np.zeros(shape[:2], np.uint8)
        cv2.fillConvexPoly(body, arm, 1)
        hand = np.zeros(shape[:2], np.uint8)
        cv2.ellipse(hand, (int(tx), int(ty)), (75, 52), angle, 0, 360, 1, -1)
        box = _grown_box(cast | body | hand, SHADOW_REACH, shape)
        shadow = cv2.GaussianBlur(cast[box].astype(np.float32), (0, 0), SHADOW_BLUR)
        return box, body, hand, shadow

    def draw(self, frame: np.ndarray) -> np.ndarray:
        """The arm with its soft shadow beside it; the hand lit from above, darker at its rim.
        Worked in the box the arm and its shadow reach (``_masks_in_box``): the frame beyond it
        is the frame as it was."""
        box, body, hand, shadow = self._masks_in_box(frame.shape)
        part = frame[box].astype(np.float32) * (1.0 - SHADOW_DEPTH * shadow)[..., None]
        for mask, colour in ((body[box], self.sleeve or self.skin), (hand[box], self.skin)):
            # rounded: a little darker towards the rim, as a lit cylinder is (the box holds a
            # ring of the frame round the arm, or ends where the frame does)
            rim = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
            shade = 0.75 + 0.25 * np.clip(rim / 25.0, 0, 1)
            paint = np.array(colour, np.float32)[None, None, :] * shade[..., None]
            part = np.where(mask[..., None] > 0, paint, part)
        out = frame.copy()
        out[box] = np.clip(part, 0, 255).astype(np.uint8)
        return out


def _grown_box(mask: np.ndarray, reach: int, shape: tuple[int, ...]) -> tuple[slice, slice]:
    """The box of a mask's pixels grown by ``reach`` each way, within the frame."""
    x, y, w, h = cv2.boundingRect(mask)
    # (its columns from and to multiples of 16, as the frame's are: OpenCV's blur adds a row's
    # last pixels short of a vector's width in another order, a float's last bit apart)
    left, right = (max(0, x - reach) // 16) * 16, -(-min(shape[1], x + w + reach) // 16) * 16
    return slice(max(0, y - reach), min(shape[0], y + h + reach)), slice(left, min(shape[1], right))


SHADOW_DEPTH = 0.35  # an arm's shadow takes this share of the light at its darkest
SHADOW_BLUR = 18.0  # px: how soft an arm's shadow is (its Gaussian's sigma)
# past its drawn edge the blurred shadow reaches the blur kernel's half width (OpenCV's for a
# float image: 4 sigma each way), and the box holds a ring of frame round the arm besides
SHADOW_REACH = int(round(SHADOW_BLUR * 4)) + 2


# --------------------------------------------------------------------------- the table of them
@dataclass(frozen=True)
class Condition:
    """A named condition: how to draw one frame of a board under it."""

    name: str
    description: str
    apply: Callable[..., tuple[np.ndarray, dict]]  # (frame, rng[, pieces in the frame])
    lens: bool = False  # the reader is given the lens profile for this one
    tilt: bool = False  # the frame is formed by a tilted camera
    hand: bool = False  # a resting hand: the right answer is "a hand is over the board"
    rejection_is_right: bool = False  # motion blur: a clear rejection is the right answer
    on_pieces: bool = False  # drawn where the pieces lie: ``apply`` is given them too
    extra: bool = False  # not in issue 10's table: measured for silent misreads, no exact target


def _warm(f: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    s = rng.uniform(0.08, 0.20)
    return colour_cast(f, s, True), {"strength": round(s, 3)}


def _cool(f: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    s = rng.uniform(0.08, 0.20)
    return colour_cast(f, s, False), {"strength": round(s, 3)}


def _dim(f: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    g = rng.uniform(1.6, 2.4)
    return dim(f, g), {"gamma": round(g, 2)}


def _glare(f: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    n = int(rng.integers(1, 4))
    spots = glare_spots(rng, n)
    return add_glare(f, spots), {"spots": n, "glare": spots}


def _highlights(f: np.ndarray, rng: np.random.Generator,
                pieces: list[tuple[str, float, float, float]] | None = None) -> tuple[np.ndarray, dict]:
    n = int(rng.integers(1, 4))
    return highlights(f, rng, pieces or [], n), {"spots": n}


def _barrel(f: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    k1 = round(float(rng.uniform(-0.32, -0.18)), 2)
    return distort(f, k1, 0.05), {"k1": k1, "k2": 0.05}


def _blur(f: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    s = rng.uniform(1.6, 2.2)
    return gaussian_blur(f, s), {"sigma": round(s, 2)}


def _motion(f: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    n, a = int(rng.integers(7, 16)), float(rng.uniform(0, 180))
    return motion_blur(f, n, a), {"length": n, "angle": round(a)}


def _hand(f: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    arm = Arm.random(rng)
    return arm.draw(f), {"skin": SKIN_TONES.index(arm.skin), "sleeve": arm.sleeve, "arm": arm}


def _jpeg(f: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    q = int(rng.integers(40, 71))
    return jpeg(f, q), {"quality": q}


def _tilt(f: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    return f, {}


def _noise(f: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    s = rng.uniform(6, 14)
    return sensor_noise(f, rng, s), {"sigma": round(s, 1)}


def _clean(f: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    return f, {}


# --------------------------------------------------------------------------- ordinary things (issue 40)
PALE_SKIN = (222, 232, 250)  # paler than the lightest of SKIN_TONES: near the margin's paper
DARK_SKIN = (28, 36, 52)  # darker than the darkest: near a black piece


def turn_pieces(frame: np.ndarray, rng: np.random.Generator,
                pieces: list[tuple[str, float, float, float]],
                size: float = 0.8) -> tuple[np.ndarray, list[float]]:
    """Every piece turned in its place by an angle of its own (a die lands any way round),
    made ``size`` as large so a turned square still fits its place as a real die does (a
    16 mm die in a 26-28 mm place; the flat camera paints pieces three quarters of a place):
    the piece's square lifted off (its place's colour round it filled in) and laid back turned."""
    out = frame.copy()
    angles = []
    h, w = frame.shape[:2]
    for _, x, y, r in pieces:
        angle = float(rng.uniform(0, 90))
        angles.append(round(angle, 1))
        reach = int(np.ceil(1.3 * r)) + 2
        x0, y0, x1, y1 = int(x) - reach, int(y) - reach, int(x) + reach + 1, int(y) + reach + 1
        if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
            continue
        patch = out[y0:y1, x0:x1].astype(np.float32)
        ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        square = np.maximum(np.abs(xs - x), np.abs(ys - y))
        ring = (square > 1.08 * r) & (square <= 1.25 * r)
        under = np.median(patch[ring], axis=0) if ring.any() else patch.reshape(-1, 3).mean(0)
        cleared = np.where((square <= 1.06 * r)[..., None], under, patch)
        rot = cv2.getRotationMatrix2D((x - x0, y - y0), angle, size)
        turned = cv2.warpAffine(patch, rot, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
        body = cv2.warpAffine((square <= r).astype(np.float32), rot, (x1 - x0, y1 - y0),
                              flags=cv2.INTER_LINEAR)[..., None]
        out[y0:y1, x0:x1] = np.clip(body * turned + (1 - body) * cleared, 0, 255).astype(np.uint8)
    return out, angles


def cheap_lens(frame: np.ndarray, vignette: float, fringe: float) -> np.ndarray:
    """A cheap lens: the corners darker by ``vignette`` and colour fringes growing towards
    them (red magnified by ``fringe``, blue shrunk by as much: lateral chromatic aberration)."""
    h, w = frame.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = w / 2, h / 2
    channels = []
    for channel, scale in zip(cv2.split(frame), (1 - fringe, 1.0, 1 + fringe), strict=True):
        mx, my = cx + (xs - cx) / scale, cy + (ys - cy) / scale
        channels.append(cv2.remap(channel, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))
    r2 = ((xs - cx) ** 2 + (ys - cy) ** 2) / (cx * cx + cy * cy)
    fall = 1.0 - vignette * r2
    return np.clip(cv2.merge(channels).astype(np.float32) * fall[..., None], 0, 255).astype(np.uint8)


def small_camera(frame: np.ndarray, width: int = 640, height: int = 480) -> np.ndarray:
    """A 640x480 camera at the same place: the view scaled to its width, the rows it has
    beyond the 16:9 picture showing more of the table."""
    size = (width, width * frame.shape[0] // frame.shape[1])
    scaled = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
    top = (height - scaled.shape[0]) // 2
    out = np.empty((height, width, 3), np.uint8)
    out[:] = scaled[:1].mean(axis=(0, 1))
    out[top:top + scaled.shape[0]] = scaled
    return out


def _turned(f: np.ndarray, rng: np.random.Generator,
            pieces: list[tuple[str, float, float, float]] | None = None) -> tuple[np.ndarray, dict]:
    out, angles = turn_pieces(f, rng, pieces or [])
    return out, {"angles": angles[:6]}


def _tinted_hand(skin: tuple[int, int, int]) -> Callable[..., tuple[np.ndarray, dict]]:
    def apply(f: np.ndarray, rng: np.random.Generator,
              pieces: list[tuple[str, float, float, float]] | None = None) -> tuple[np.ndarray, dict]:
        arm = Arm.random(rng)
        if pieces:  # the hand reaching for a piece, as hands do
            _, x, y, _r = pieces[int(rng.integers(0, len(pieces)))]
            arm = arm.moved((x, y))
        arm = Arm(arm.base, arm.tip, skin, None, arm.width)
        return arm.draw(f), {"arm": arm}
    return apply


def _cheap_lens(f: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    v, c = float(rng.uniform(0.3, 0.5)), float(rng.uniform(0.002, 0.005))
    return cheap_lens(f, v, c), {"vignette": round(v, 2), "fringe": round(c, 4)}


def _vga(f: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    return small_camera(f), {"size": [640, 480]}


CONDITIONS: tuple[Condition, ...] = (
    Condition("clean", "the renderer's own frame (uneven light, light noise)", _clean),
    Condition("warm", "warm lamp, 8-20 % cast", _warm),
    Condition("cool", "cool light, 8-20 % cast", _cool),
    Condition("dim", "dim frame, gamma 1.6-2.4", _dim),
    Condition("glare", "1-3 glare spots", _glare),
    Condition("barrel", "barrel lens distortion, k1 -0.18..-0.32 (lens profile given)", _barrel,
              lens=True),
    Condition("blur", "Gaussian blur, sigma 1.6-2.2", _blur),
    Condition("motion", "motion blur 7-15 px", _motion, rejection_is_right=True),
    Condition("hand", "a resting hand or arm, six skin tones, sleeves", _hand, hand=True),
    Condition("jpeg", "JPEG quality 40-70", _jpeg),
    Condition("tilt", "camera tilted up to 25 degrees", _tilt, tilt=True),
    Condition("noise", "sensor noise, sigma 6-14 plus shot noise", _noise),
    Condition("highlights", "1-3 small bright reflections on glossy pieces, often clipped white",
              _highlights, on_pieces=True, extra=True),
    Condition("turned", "every piece turned 0-90 degrees in its place, four fifths as large",
              _turned, on_pieces=True, extra=True),
    Condition("pale_hand", "a hand paler than the palest skin tone reaching for a piece, bare arm",
              _tinted_hand(PALE_SKIN), hand=True, on_pieces=True, extra=True),
    Condition("dark_hand", "a hand darker than the darkest skin tone reaching for a piece, bare arm",
              _tinted_hand(DARK_SKIN), hand=True, on_pieces=True, extra=True),
    Condition("cheap_lens", "a cheap lens: vignetting 30-50 % and colour fringes 0.2-0.5 %", _cheap_lens,
              extra=True),
    Condition("vga", "a 640x480 camera in the same place (half the pixels a millimetre)", _vga,
              extra=True),
)
CONDITION_NAMES = tuple(c.name for c in CONDITIONS)


def condition(name: str) -> Condition:
    for c in CONDITIONS:
        if c.name == name:
            return c
    raise KeyError(f"unknown condition {name!r}: one of {', '.join(CONDITION_NAMES)}")
