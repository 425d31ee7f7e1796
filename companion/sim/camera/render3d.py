"""The physically based camera: a game's table rendered by Blender's Cycles, as a webcam sees it.

The flat camera (``render.py``) paints the board top-down and warps it; nothing on it has a
height.  Here the same layout and board view become a scene: the board print
(:func:`companion.vision.board_print.board_print`) as a textured plane at its real size,
dice as rounded cubes with drilled pips on every face (the face up the view's, turned at
random in their cells), Baron Voodoo's stacks, chips with thickness, cards lying flat or
curled a little, standing figures, a lamp and a fill with soft shadows, glossy plastic, and
now and then a forearm and hand.  A pinhole camera 65 cm above the table (higher when the
board needs it) at a tilt of 0-30 degrees renders it; then the webcam's own faults are added
(``finish``): auto exposure, vignetting, barrel distortion, sensor noise and JPEG.

``bpy`` (Blender as a module, the ``render3d`` extra) is imported only by
``blender_scene.py``, when a frame is rendered: planning a scene and reading the committed
frames need only numpy and OpenCV.  Rendering is slow (about a minute a frame on two shared
cores), so a versioned set of frames lives in ``tests/data/frames3d`` (``frames3d.py``).
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass, field
from typing import Any

import cv2
import numpy as np

from companion.games.base import BoardView, Layout, Piece, view_to_json
from companion.vision.board_print import piece_slots
from companion.vision.geometry import MARGIN_MM, canvas_size_mm

FOCAL_PX_720 = 900.0  # the flat camera's lens: about 70 degrees across a 1280 px frame
CAMERA_HEIGHT_MM = 650.0
FRAME_MARGIN_PX = 24  # the whole canvas, markers and all, lies this far inside the frame

DIE_MM = 16.0
CHIP_MM = 3.0  # a chip's or token's thickness
CARD_MM = 0.4
FIGURE_MM = 26.0  # a standing figure's height
KIND_HEIGHT_MM = {"die": DIE_MM, "chip": CHIP_MM, "card": CARD_MM, "figure": FIGURE_MM}
FIGURE_WORDS = ("pawn", "figure", "meeple")
CHIP_WORDS = ("chip", "token", "marker", "monkey", "skull", "coin")

# Scenes are split by what they are made of, decided before the reader was tuned on any of
# them: the tuning set's lamps, plastics, board finishes, skins and camera poses (the side it
# stands on, its roll about its axis, how far off the board's centre it aims) are never the
# test set's.  Within a split every scene draws its own from ``seed``.
LAMPS = {"tune": ("desk", "overhead", "strip"), "test": ("window", "pendant", "spot")}
PLASTICS = {"tune": ("glossy", "matte"), "test": ("satin", "lacquered")}
PAPERS = {"tune": ("matte", "silk"), "test": ("laminated",)}  # the board print's finish
SKINS = {"tune": (0, 2, 4), "test": (1, 3, 5)}
AZIMUTH = {"tune": (-25.0, 25.0), "test": (30.0, 55.0)}  # the test camera stands off to a side
ROLL = {"tune": (0.0, 4.0), "test": (4.0, 9.0)}  # degrees the picture is turned, either way
AIM_MM = {"tune": (0.0, 25.0), "test": (25.0, 45.0)}  # how far from the board's centre it aims
LENS_K1 = {"tune": (-0.10, -0.03), "test": (-0.16, -0.10)}
TILTS = (0.0, 10.0, 20.0, 30.0)
# more of the tuning split's variety, drawn only for its "more" scenes (``frames3d.MORE_GAMES``;
# the frames drawn before them keep their draws): lamps with harder and softer shadows, a
# plastic between glossy and matte; never the test set's
MORE_LAMPS = {"tune": ("bulb", "panel"), "test": ()}
MORE_PLASTICS = {"tune": ("semigloss", "glossy", "matte"), "test": ()}
# and its falloff scenes (``frames3d.FALLOFF``): light that falls off across the board (a
# reading lamp's pool with a soft edge, a broad low light from a wall to one side) on a
# glossier print than the tuning set's others; never the test set's lamps or paper
FALLOFF_LAMPS = {"tune": ("reading", "wall"), "test": ()}
FALLOFF_PAPERS = {"tune": ("gloss",), "test": ()}
# and its track scenes (``frames3d.TRACK``): a ceiling track of small spots, each lighting a
# pool of its own with hard shadows, over the more scenes' plastics; never the test set's lamps
TRACK_LAMPS = {"tune": ("track",), "test": ()}
# and its side scenes (``frames3d.SIDE``): the camera stood further round the board than the
# test set's, turned further about its axis and aimed further off the board's centre, under
# any of the tuning set's lamps (its more, falloff and track ones too), plastics and papers;
# never the test set's poses or kinds
SIDE_AZIMUTH = {"tune": (58.0, 72.0), "test": ()}
SIDE_ROLL = {"tune": (9.0, 13.0), "test": ()}
SIDE_AIM_MM = {"tune": (45.0, 60.0), "test": ()}
SIDE_LAMPS = {"tune": LAMPS["tune"] + MORE_LAMPS["tune"] + FALLOFF_LAMPS["tune"] + TRACK_LAMPS["tune"],
              "test": ()}
SIDE_PLASTICS = {"tune": tuple(dict.fromkeys(PLASTICS["tune"] + MORE_PLASTICS["tune"])), "test": ()}
SIDE_PAPERS = {"tune": PAPERS["tune"] + FALLOFF_PAPERS["tune"], "test": ()}
# the tuning split's VGA scenes: a 640x480 webcam (0.6-0.7 px a mm at 65 cm), the tuning poses,
# under any tuning lamp, plastic and print finish (``SIDE_LAMPS``); the test set has none
VGA_SIZE = {"tune": (640, 480), "test": None}


@dataclass(frozen=True)
class Scene3D:
    """Everything about a rendered frame but the board: camera, lamps, plastic, lens, hand.

    The defaults of the fields added after the first frames were committed (``paper``,
    ``roll``, ``aim_mm``, ``lamp_shift``, ``lamp_gain``) are what those frames had."""

    seed: int
    split: str = "tune"  # "tune" or "test": which set's lamps, plastics and camera poses
    tilt: float = 0.0  # degrees from looking straight down
    azimuth: float = 0.0  # degrees round the board from the near side (0: the players' side)
    lamp: str = "desk"
    plastic: str = "glossy"
    k1: float = -0.06  # barrel distortion, as ``calibrate camera`` would measure it
    exposure_ev: float = 0.0  # the webcam's auto exposure missing by this much
    noise: float = 3.0  # sensor noise, 8-bit levels at mid grey
    vignette: float = 0.18  # light lost in the frame's corners
    hand: bool = False
    skin: int = 0  # index into the skin tones (conditions.SKIN_TONES)
    width: int = 1280
    height: int = 720
    samples: int = 4
    jpeg_quality: int = 90
    paper: str = "matte"
    roll: float = 0.0  # degrees the camera is turned about its own axis
    aim_mm: tuple[float, float] = (0.0, 0.0)  # where it aims, from the canvas's centre (x right, y down)
    lamp_shift: tuple[float, float, float] = (0.0, 0.0, 0.0)  # metres the lamp stands off its place
    lamp_gain: float = 1.0  # the lamp's power against its set's

    @classmethod
    def drawn(cls, seed: int, split: str, tilt: float, hand: bool = False, more: bool = False,
              falloff: bool = False, track: bool = False, side: bool = False, vga: bool = False,
              **over: Any) -> Scene3D:
        """A scene of ``split``'s kinds, everything else drawn from ``seed``; with ``more``,
        its lamp and plastic drawn from the split's more kinds (``MORE_LAMPS``) instead; with
        ``falloff``, its lamp and paper from the falloff kinds (``FALLOFF_LAMPS``); with
        ``track``, its lamp from the track kinds (``TRACK_LAMPS``), its plastic from the more;
        with ``side``, its camera's side, roll and aim from the side poses (``SIDE_AZIMUTH``), its
        lamp, plastic and paper from every tuning kind (``SIDE_LAMPS``); with ``vga``, its size
        ``VGA_SIZE``, its lamp, plastic and paper from every tuning kind too."""
        if split not in LAMPS:
            raise ValueError(f"split {split!r}: 'tune' or 'test'")
        if (more and not MORE_LAMPS[split]) or (falloff and not FALLOFF_LAMPS[split]) \
                or (track and not TRACK_LAMPS[split]) or (side and not SIDE_AZIMUTH[split]) \
                or (vga and not VGA_SIZE[split]):
            raise ValueError(f"split {split!r} has no more scenes")
        rng = random.Random(f"scene3d:{split}:{seed}")

        def either_way(low: float, high: float) -> float:
            return round(rng.uniform(low, high) * rng.choice((-1, 1)), 1)

        aim_angle, aim = rng.uniform(0, 2 * math.pi), rng.uniform(*AIM_MM[split])
        values: dict[str, Any] = {
            "seed": seed, "split": split, "tilt": float(tilt),
            "azimuth": either_way(*AZIMUTH[split]),
            "lamp": rng.choice(LAMPS[split]), "plastic": rng.choice(PLASTICS[split]),
            "k1": round(rng.uniform(*LENS_K1[split]), 3), "exposure_ev": round(rng.uniform(-0.3, 0.3), 2),
            "noise": round(rng.uniform(2.0, 4.5), 1), "vignette": round(rng.uniform(0.1, 0.3), 2),
            "hand": hand, "skin": rng.choice(SKINS[split]), "paper": rng.choice(PAPERS[split]),
            "roll": either_way(*ROLL[split]),
            "aim_mm": (round(aim * math.cos(aim_angle), 1), round(aim * math.sin(aim_angle), 1)),
            "lamp_shift": tuple(round(rng.uniform(-0.15, 0.15), 3) for _ in range(3)),
            "lamp_gain": round(rng.uniform(0.75, 1.3), 2),
        }
        if more:
            values["lamp"] = rng.choice(MORE_LAMPS[split])
            values["plastic"] = rng.choice(MORE_PLASTICS[split])
        if falloff:
            values["lamp"] = rng.choice(FALLOFF_LAMPS[split])
            values["paper"] = rng.choice(FALLOFF_PAPERS[split])
        if track:
            values["lamp"] = rng.choice(TRACK_LAMPS[split])
            values["plastic"] = rng.choice(MORE_PLASTICS[split])
        if side:
            aim_angle, aim = rng.uniform(0, 2 * math.pi), rng.uniform(*SIDE_AIM_MM[split])
            values["azimuth"] = either_way(*SIDE_AZIMUTH[split])
            values["roll"] = either_way(*SIDE_ROLL[split])
            values["aim_mm"] = (round(aim * math.cos(aim_angle), 1), round(aim * math.sin(aim_angle), 1))
            values["lamp"] = rng.choice(SIDE_LAMPS[split])
            values["plastic"] = rng.choice(SIDE_PLASTICS[split])
            values["paper"] = rng.choice(SIDE_PAPERS[split])
        if vga:
            values["width"], values["height"] = VGA_SIZE[split]
            values["lamp"] = rng.choice(SIDE_LAMPS[split])
            values["plastic"] = rng.choice(SIDE_PLASTICS[split])
            values["paper"] = rng.choice(SIDE_PAPERS[split])
        values.update(over)
        return cls(**values)

    @property
    def focal_px(self) -> float:
        return FOCAL_PX_720 * self.width / 1280.0


@dataclass(frozen=True)
class Placed:
    """One piece in the scene: where its footprint's centre lies (canvas mm), how it stands."""

    spot: str
    piece: Piece
    kind: str  # "die", "chip", "card" or "figure"
    x: float
    y: float
    z: float  # the height of its base above the board (a die in a stack stands on another)
    size: float  # a die's edge, a card's side, a chip's or figure's diameter (mm)
    yaw: float  # degrees
    below: bool = False  # a die under the top of a stack: hidden but for its sides
    curl: float = 0.0  # a card's lift at its edges (mm)

    @property
    def top(self) -> float:
        return self.z + KIND_HEIGHT_MM[self.kind] if self.kind != "chip" else self.z + CHIP_MM


def piece_kind(layout: Layout, spot_id: str, piece: Piece) -> str:
    """How a piece of this colour at this place is made: a die, a card, a chip or a figure.
    From the layout's shape, marks and the name the game gives the colour (a colour that is
    both a pawn and chips is a pawn on a place large enough for one)."""
    shape = layout.shapes.get(piece.colour, "disc")
    low, high = layout.marks.get(piece.colour, (0, 0))
    name = layout.pieces.get(piece.colour, "").lower()
    if shape == "square":
        return "die" if low >= 1 and high <= 6 and "card" not in name else "card"
    figure = any(w in name for w in FIGURE_WORDS)
    chip = any(w in name for w in CHIP_WORDS)
    if figure and chip:
        spot = layout.spot(spot_id)
        return "figure" if spot.w * spot.h >= 900 else "chip"
    if figure or not chip and layout.pieces and all(
            not any(w in n.lower() for w in CHIP_WORDS + ("card", "die")) for n in layout.pieces.values()):
        return "figure"  # a game of characters only (Times Square's dancers)
    return "chip"


def plan_pieces(layout: Layout, view: BoardView, stacks: dict[str, list[Piece]] | None,
                rng: random.Random) -> list[Placed]:
    """Every piece of the scene.  A place whose stack is known (bottom to top, its top the
    view's piece) holds that stack at its centre; any other place holds the view's pieces
    side by side, as the flat camera draws them, each turned at random."""
    out: list[Placed] = []
    for spot_id, pieces in sorted(view.items()):
        spot = layout.spot(spot_id)
        x0, y0 = spot.x + MARGIN_MM, spot.y + MARGIN_MM
        stack = (stacks or {}).get(spot_id)
        if stack and len(pieces) == 1 and stack[-1] == pieces[0]:
            cx, cy = x0 + spot.w / 2, y0 + spot.h / 2
            kind = piece_kind(layout, spot_id, stack[-1])
            size = min(DIE_MM, 0.8 * min(spot.w, spot.h))
            z = 0.0
            for i, piece in enumerate(stack):
                jitter = 0.1 * size if i else 0.12 * (min(spot.w, spot.h) - size)
                out.append(Placed(spot_id, piece, kind, cx + rng.uniform(-jitter, jitter),
                                  cy + rng.uniform(-jitter, jitter), z, size, rng.uniform(0, 90),
                                  below=i < len(stack) - 1))
                z += size if kind == "die" else KIND_HEIGHT_MM[kind]
            continue
        for piece, (cx, cy, r) in zip(pieces, piece_slots(len(pieces), spot.w, spot.h), strict=True):
            kind = piece_kind(layout, spot_id, piece)
            if kind == "die":
                size = min(DIE_MM, 0.8 * min(spot.w, spot.h), 2 * r * 1.05)
                slack = max(0.0, 0.5 * (min(spot.w, spot.h) / max(1, len(pieces)) ** 0.5 - size * 1.3))
            else:
                size, slack = 2 * r, 0.6
            yaw = rng.uniform(0, 90) if kind in ("die", "card") else rng.uniform(0, 360)
            curl = rng.choice((0.0, 0.0, rng.uniform(0.5, 1.8))) if kind == "card" else 0.0
            out.append(Placed(spot_id, piece, kind, x0 + cx + rng.uniform(-slack, slack),
                              y0 + cy + rng.uniform(-slack, slack), 0.0, size,
                              yaw if kind != "card" else rng.uniform(-6, 6), curl=curl))
    return out


# --------------------------------------------------------------------------- the camera
@dataclass
class Pinhole:
    """The webcam as OpenCV models it: intrinsics, and the board canvas's pose before it.

    Canvas coordinates are millimetres from the canvas's top-left corner, x to the right,
    y down, z into the table (a piece's top at height h lies at z = -h)."""

    matrix: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    size: tuple[int, int]
    k1: float = 0.0
    position_mm: np.ndarray = field(default_factory=lambda: np.zeros(3))  # in the world (see world_mm)

    @property
    def distortion(self) -> np.ndarray:
        return np.array([self.k1, 0.0, 0.0, 0.0, 0.0])

    def project(self, points_mm: np.ndarray, distorted: bool = True) -> np.ndarray:
        """Canvas points (N x 3) to frame pixels (N x 2), through the lens when ``distorted``."""
        dist = self.distortion if distorted else np.zeros(5)
        px, _ = cv2.projectPoints(np.asarray(points_mm, np.float64).reshape(-1, 1, 3), self.rvec, self.tvec,
                                  self.matrix, dist)
        return px.reshape(-1, 2)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Pinhole:
        """The camera a frame's truth names (``to_json``'s)."""
        return cls(np.array(data["matrix"]), np.array(data["rvec"]).reshape(3, 1),
                   np.array(data["tvec"]).reshape(3, 1), tuple(data["size"]), data["distortion"][0],
                   np.array(data.get("position_mm", (0.0, 0.0, 0.0))))

    def to_json(self) -> dict[str, Any]:
        return {"matrix": self.matrix.tolist(), "distortion": self.distortion.tolist(),
                "size": list(self.size), "rvec": self.rvec.ravel().tolist(),
                "tvec": self.tvec.ravel().tolist(),
                "position_mm": self.position_mm.tolist()}

    def lens_profile(self) -> dict[str, Any]:
        """The lens as ``companion calibrate camera`` writes it, for the reader."""
        return {"matrix": self.matrix.tolist(), "distortion": self.distortion.tolist(),
                "size": list(self.size), "rms_px": 0.0, "photos_used": 0}


def world_mm(layout: Layout, points: np.ndarray) -> np.ndarray:
    """Canvas points (x right, y down, z into the table) in the scene's world: millimetres,
    origin at the canvas's centre, x right, y towards the far side, z up."""
    total_w, total_h = canvas_size_mm(layout)
    p = np.asarray(points, np.float64).reshape(-1, 3)
    return np.stack([p[:, 0] - total_w / 2, total_h / 2 - p[:, 1], -p[:, 2]], 1)


def camera_axes(tilt: float, azimuth: float, roll: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The camera's right, up and backward axes in the world, looking at the board from
    ``tilt`` degrees off vertical on the side ``azimuth`` degrees round from the near one, the
    board's far side up in the picture, then turned ``roll`` degrees about its own axis."""
    t, a = math.radians(tilt), math.radians(azimuth)
    back = np.array([math.sin(t) * math.sin(a), -math.sin(t) * math.cos(a), math.cos(t)])
    up_hint = np.array([-math.sin(a), math.cos(a), 0.0])
    right = np.cross(up_hint, back)
    right /= np.linalg.norm(right)
    up = np.cross(back, right)
    r = math.radians(roll)
    right, up = math.cos(r) * right + math.sin(r) * up, math.cos(r) * up - math.sin(r) * right
    return right, up, back


def pinhole_for(layout: Layout, scene: Scene3D) -> Pinhole:
    """The camera of ``scene``: 65 cm above the table, aimed ``scene.aim_mm`` off the board's
    centre, further along its axis until the whole canvas (markers and margin) fits in the frame."""
    right, up, back = camera_axes(scene.tilt, scene.azimuth, scene.roll)
    w, h = scene.width, scene.height
    f = scene.focal_px
    matrix = np.array([[f, 0, w / 2 - 0.5], [0, f, h / 2 - 0.5], [0, 0, 1]], np.float64)
    total_w, total_h = canvas_size_mm(layout)
    corners = np.array([[0, 0, 0], [total_w, 0, 0], [total_w, total_h, 0], [0, total_h, 0]], np.float64)
    rot_cv = np.stack([right, -up, -back])  # world -> OpenCV camera (x right, y down, z forward)
    flip = np.diag([1.0, -1.0, -1.0])  # canvas axes -> world axes
    total = np.array([-total_w / 2, total_h / 2, 0.0])
    distance = CAMERA_HEIGHT_MM / math.cos(math.radians(scene.tilt))
    aim = np.array([scene.aim_mm[0], -scene.aim_mm[1], 0.0])
    for _ in range(200):
        position = aim + back * distance
        rotation = rot_cv @ flip
        tvec = rot_cv @ (total - position)
        cam = Pinhole(matrix, cv2.Rodrigues(rotation)[0], tvec.reshape(3, 1), (w, h), scene.k1, position)
        px = cam.project(corners)
        if (px.min(0) >= FRAME_MARGIN_PX).all() and (px.max(0) <= np.array([w, h]) - FRAME_MARGIN_PX).all():
            return cam
        distance *= 1.02
    raise ValueError(f"the board does not fit the frame at tilt {scene.tilt}")


# --------------------------------------------------------------------------- the hand
@dataclass(frozen=True)
class HandPose:
    """A forearm reaching in from the players' side and a hand over the board.

    Canvas millimetres (x right, y down); heights above the board.  The forearm is a cylinder
    from ``entry`` (beyond the near edge) down to the wrist over ``tip``; the hand a flattened
    ellipsoid beyond the wrist along the arm.  Blender builds these shapes
    (``blender_scene``), and :func:`covered_places` says what they hide."""

    entry: tuple[float, float]
    tip: tuple[float, float]
    palm_height: float  # mm above the board
    skin: int
    ARM_RADIUS_MM = 34.0
    HAND_MM = (45.0, 85.0, 20.0)  # the hand's half width, half length and half thickness
    HAND_BEYOND_WRIST_MM = 50.0

    @classmethod
    def drawn(cls, layout: Layout, rng: random.Random, skin: int) -> HandPose:
        total_w, total_h = canvas_size_mm(layout)
        tip = (rng.uniform(0.25, 0.75) * total_w, rng.uniform(0.2, 0.7) * total_h)
        entry = (tip[0] + rng.uniform(-0.25, 0.25) * total_w, total_h + 260.0)
        return cls(entry, tip, rng.uniform(35, 70), skin)

    def elbow_wrist(self) -> tuple[np.ndarray, np.ndarray]:
        """The forearm's ends, canvas points (z into the table, so a height is negative)."""
        return (np.array([*self.entry, -(self.palm_height + 70.0)]),
                np.array([*self.tip, -(self.palm_height + 15.0)]))

    def hand_frame(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The hand's centre and its axes (across, along the arm, up), canvas coordinates."""
        elbow, wrist = self.elbow_wrist()
        d = wrist - elbow
        centre = wrist + d / np.linalg.norm(d) * self.HAND_BEYOND_WRIST_MM
        along = np.array([d[0], d[1], 0.0]) / np.linalg.norm(d[:2])
        up = np.array([0.0, 0.0, -1.0])
        across = np.cross(along, up)
        return centre, across, along, up

    def outlines(self, steps: int = 24) -> list[np.ndarray]:
        """Points on the forearm's and the hand's surfaces (one array each, canvas mm): each
        shape is convex, so the hull of its projected points is what it hides."""
        elbow, wrist = self.elbow_wrist()
        d = wrist - elbow
        e1 = np.cross(d, [0.0, 0.0, 1.0])
        e1 /= np.linalg.norm(e1)
        e2 = np.cross(d / np.linalg.norm(d), e1)
        u = np.linspace(0, 2 * np.pi, steps, endpoint=False)
        ring = self.ARM_RADIUS_MM * (np.cos(u)[:, None] * e1 + np.sin(u)[:, None] * e2)
        arm = np.concatenate([elbow + t * d + ring for t in np.linspace(0, 1, 12)])
        centre, across, along, up = self.hand_frame()
        a, b = np.meshgrid(np.linspace(0, np.pi, steps // 2), u)
        unit = np.stack([np.sin(a) * np.cos(b), np.sin(a) * np.sin(b), np.cos(a)], -1).reshape(-1, 3)
        hx, hy, hz = self.HAND_MM
        hand = centre + (unit[:, :1] * hx) * across + (unit[:, 1:2] * hy) * along + (unit[:, 2:] * hz) * up
        return [arm, hand]

    def to_json(self) -> dict[str, Any]:
        return {"tip_mm": [round(v, 1) for v in self.tip], "entry_mm": [round(v, 1) for v in self.entry],
                "palm_height_mm": round(self.palm_height, 1), "skin": self.skin}


def covered_places(layout: Layout, camera: Pinhole, hand: HandPose, placed: list[Placed],
                   hidden: float = 0.5) -> tuple[list[str], list[str]]:
    """The places the hand and forearm hide in the frame: (covered, partly).  A place's
    region is its printed rectangle together with the tops of the pieces on it, as the camera
    sees them; covered when at least ``hidden`` of it lies under the hand, partly when at least
    a twentieth does."""
    w, h = camera.size
    mask = np.zeros((h, w), np.uint8)
    for points in hand.outlines():
        px = camera.project(points)
        cv2.fillConvexPoly(mask, cv2.convexHull(np.round(px).astype(np.int32)), 1)
    tops: dict[str, float] = {}
    for p in placed:
        tops[p.spot] = max(tops.get(p.spot, 0.0), p.top)
    covered, partly = [], []
    region = np.zeros_like(mask)
    for spot in layout.spots:
        x0, y0 = spot.x + MARGIN_MM, spot.y + MARGIN_MM
        rect = [[x0, y0], [x0 + spot.w, y0], [x0 + spot.w, y0 + spot.h], [x0, y0 + spot.h]]
        corners = np.array([[*c, -z] for z in {0.0, tops.get(spot.id, 0.0)} for c in rect])
        hull = cv2.convexHull(np.round(camera.project(corners)).astype(np.int32))
        region[:] = 0
        cv2.fillConvexPoly(region, hull, 1)
        area = int(region.sum())
        if not area:
            continue
        share = int((region & mask).sum()) / area
        if share >= hidden:
            covered.append(spot.id)
        elif share >= 0.05:
            partly.append(spot.id)
    return covered, partly


# --------------------------------------------------------------------------- the webcam's faults
def _distortion_maps(camera: Pinhole) -> tuple[np.ndarray, np.ndarray]:
    w, h = camera.size
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    pts = np.stack([xs.ravel(), ys.ravel()], 1).reshape(-1, 1, 2)
    ideal = cv2.undistortPoints(pts, camera.matrix, camera.distortion, P=camera.matrix).reshape(h, w, 2)
    return ideal[..., 0].copy(), ideal[..., 1].copy()


def finish(linear_bgr: np.ndarray, camera: Pinhole, scene: Scene3D) -> np.ndarray:
    """A webcam's picture of the rendered light (linear, float BGR, top row first): auto
    exposure, vignetting, the sensor's tone curve, barrel distortion, noise and JPEG."""
    rng = np.random.default_rng([scene.seed, 7])
    img = np.maximum(linear_bgr.astype(np.float32), 0)
    h, w = img.shape[:2]
    luma = img @ np.array([0.0722, 0.7152, 0.2126], np.float32)
    # auto exposure: the brightest few per cent of the picture (the paper) near the top of the range
    gain = 0.78 / max(1e-6, float(np.percentile(luma, 96))) * 2.0 ** scene.exposure_ev
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    img *= (gain * (1.0 - scene.vignette * r2))[..., None]
    srgb = np.where(img <= 0.0031308, 12.92 * img, 1.055 * np.power(np.maximum(img, 1e-8), 1 / 2.4) - 0.055)
    out = np.clip(srgb * 255.0, 0, 255).astype(np.float32)
    if scene.k1:
        mx, my = _distortion_maps(camera)
        out = cv2.remap(out, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    # shot noise grows with the light; read noise does not
    sigma = scene.noise * np.sqrt(0.35 + out / 255.0)
    out += rng.normal(0, 1, out.shape).astype(np.float32) * sigma
    frame = np.clip(out, 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg_quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


# --------------------------------------------------------------------------- truth
def truth(layout: Layout, view: BoardView, stacks: dict[str, list[Piece]] | None, scene: Scene3D,
          camera: Pinhole, placed: list[Placed], game: str, players: int) -> dict[str, Any]:
    """What a frame shows, for the tests and the bench: the board, the scene, the camera,
    and where each piece's top face lies in the frame."""
    tops = np.array([[p.x, p.y, -p.top] for p in placed], np.float64).reshape(-1, 3)
    feet = np.array([[p.x, p.y, 0.0] for p in placed], np.float64).reshape(-1, 3)
    top_px = camera.project(tops) if len(placed) else np.zeros((0, 2))
    foot_px = camera.project(feet) if len(placed) else np.zeros((0, 2))
    return {
        "game": game, "players": players, "view": view_to_json(view),
        "stacks": {k: [[p.colour, p.pips] for p in v]
                   for k, v in sorted((stacks or {}).items()) if len(v) > 1},
        "scene": asdict(scene), "camera": camera.to_json(),
        "pieces": [{"spot": p.spot, "colour": p.piece.colour, "pips": p.piece.pips, "kind": p.kind,
                    "below": p.below, "centre_mm": [round(p.x, 2), round(p.y, 2)], "top_mm": round(p.top, 2),
                    "top_px": [round(float(a), 1) for a in t], "foot_px": [round(float(a), 1) for a in f]}
                   for p, t, f in zip(placed, top_px, foot_px, strict=True)],
    }
