"""The calibration steps as functions: each checks its input and measures its result.

The command-line wrappers (``companion calibrate ...``) write the results into the
table profile and print the measures; the tests run these same functions on
rendered photos.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np
from tqdm import tqdm

from companion.games.base import Layout
from companion.vision.colour_profile import ColourProfile
from companion.vision.faces import FaceTemplates, _fit
from companion.vision.geometry import MARKER_IDS, spot_rect_px
from companion.vision.reader import SCALE, BoardReader

CHARUCO_SQUARES = (7, 5)
CHARUCO_SQUARE_MM = 30.0
CHARUCO_MARKER_MM = 22.0
MIN_PIECE_DELTA_E = 15.0  # a sample this close to the empty board is the board, not a piece
MIN_SEPARATION_DELTA_E = 10.0  # two piece colours this close would be confused
MIN_FACE_MARGIN = 0.1


class CalibrationError(ValueError):
    """The input cannot calibrate anything: the message says what to do instead."""


def charuco_board() -> cv2.aruco.CharucoBoard:
    return cv2.aruco.CharucoBoard(CHARUCO_SQUARES, CHARUCO_SQUARE_MM, CHARUCO_MARKER_MM,
                                  cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_100))


# ---------------------------------------------------------------------- camera
def calibrate_camera(images: list[tuple[str, np.ndarray | None]]) -> dict[str, object]:
    """Camera matrix and distortion from photos of the ChArUco sheet, with the reprojection error."""
    board = charuco_board()
    detector = cv2.aruco.CharucoDetector(board)
    object_points, image_points, used, rejected = [], [], [], []
    size = None
    for name, image in tqdm(images, desc="photos", unit="photo", leave=False, disable=None):
        if image is None:
            rejected.append(f"{name}: not an image")
            continue
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        if size is not None and gray.shape[::-1] != size:
            rejected.append(f"{name}: {gray.shape[1]}x{gray.shape[0]}, the others are {size[0]}x{size[1]}")
            continue
        corners, ids, _, _ = detector.detectBoard(gray)
        if ids is None or len(ids) < 6:
            rejected.append(f"{name}: the ChArUco sheet was not found (6 corners or more needed)")
            continue
        size = gray.shape[::-1]
        obj, img = board.matchImagePoints(corners, ids)
        object_points.append(obj)
        image_points.append(img)
        used.append(name)
    if len(object_points) < 3 or size is None:
        raise CalibrationError(
            f"the ChArUco sheet was found in {len(object_points)} of {len(images)} photos; 3 or more "
            "(10-20 is best) are needed" + ("".join(f"\n  {r}" for r in rejected)))
    error, matrix, dist, _, _ = cv2.calibrateCamera(object_points, image_points, size, None, None)
    return {"rms_px": float(error), "matrix": matrix.tolist(), "distortion": dist.ravel().tolist(),
            "photos_used": len(used), "photos_rejected": rejected, "size": list(size)}


def camera_verdict(rms_px: float) -> str:
    if rms_px < 0.5:
        return "good"
    if rms_px < 1.0:
        return "usable; more photos from steeper angles would help"
    return "poor: retake the photos, sharper and with the whole sheet in view"


# ---------------------------------------------------------------------- board
@dataclass
class BoardFit:
    reader: BoardReader
    markers: int
    residual_mm: float
    max_residual_mm: float


def fit_board(layout: Layout, photo: np.ndarray) -> BoardFit:
    """Find every marker; measure how well one homography maps all their corners."""
    reader = BoardReader(layout)
    reading = reader.read(photo)
    if reader._homography is None:
        raise CalibrationError(f"{reading.markers_found} of {len(MARKER_IDS)} markers found "
                               f"({reading.problem}): every marker must be in the picture, flat and lit")
    found = reader._last or {}
    if len(found) < len(MARKER_IDS):  # the reader copes with two; a board map wants them all
        missing = ", ".join(str(i) for i in MARKER_IDS if i not in found)
        raise CalibrationError(f"{len(found)} of {len(MARKER_IDS)} markers found (not seen: "
                               f"{missing}): every marker must be in the picture, flat and lit")
    src = np.concatenate([found[i] for i in MARKER_IDS]).reshape(-1, 1, 2).astype(np.float64)
    dst = np.concatenate([reader._targets[i] for i in MARKER_IDS]).astype(np.float64)
    mapped = cv2.perspectiveTransform(src, reader._homography).reshape(-1, 2) / reader.px_per_mm
    errors = np.linalg.norm(mapped - dst, axis=1)
    return BoardFit(reader, len(found), float(errors.mean()), float(errors.max()))


def board_check_picture(layout: Layout, photo: np.ndarray, fit: BoardFit) -> np.ndarray:
    """The rectified photo with every spot of the map drawn over it."""
    reader = fit.reader
    top = cv2.warpPerspective(photo, reader._homography, reader._size)
    for spot in layout.spots:
        x0, y0, x1, y1 = spot_rect_px(layout, spot.id, reader.px_per_mm)
        cv2.rectangle(top, (x0, y0), (x1, y1), (0, 0, 255), 1)
        cv2.putText(top, spot.id[:6], (x0 + 1, y0 + 10), cv2.FONT_HERSHEY_PLAIN, 0.7, (0, 0, 255), 1)
    return top


# ---------------------------------------------------------------------- colours
def _lab_star(lab: np.ndarray) -> np.ndarray:
    """OpenCV's 8-bit Lab to CIE L*a*b*, where a distance of ~2 is just noticeable."""
    lab = np.asarray(lab, np.float64)
    return np.stack([lab[..., 0] * 100 / 255, lab[..., 1] - 128, lab[..., 2] - 128], -1)


def delta_e(a: object, b: object) -> float:
    return float(np.linalg.norm(_lab_star(np.asarray(a)) - _lab_star(np.asarray(b))))


def colour_order(layout: Layout) -> dict[str, str]:
    """Which colour goes on which spot for ``calibrate colours``: colour -> spot id, each on
    the first free place that takes it (``Spot.takes``: the owner puts Baron Voodoo's score
    marker on its track, where it belongs, not on a grid cell); a colour no free place takes
    goes on the first free place."""
    wanted = sorted(set(layout.pieces) | set(layout.shapes))
    free = list(layout.spots)
    order: dict[str, str] = {}
    for colour in wanted:
        if not free:
            break
        spot = next((s for s in free if s.takes and colour in s.takes), None) \
            or next((s for s in free if s.may_hold(colour)), free[0])
        order[colour] = spot.id
        free.remove(spot)
    return order


def _flat_top(layout: Layout, photo: np.ndarray) -> tuple[BoardReader, np.ndarray]:
    """The board seen from above as the reader samples colours, its light evened out."""
    reader = BoardReader(layout)
    reading = reader.read(photo)
    top = reader.topdown(photo)  # sampled at SCALE px per mm, light flattened by the reader
    if top is None:
        raise CalibrationError(f"the board was not found in the photo: {reading.problem}")
    return reader, top


def _spot_sample(layout: Layout, lab: np.ndarray, spot_id: str, px_per_mm: float) -> np.ndarray:
    x0, y0, x1, y1 = spot_rect_px(layout, spot_id, px_per_mm)
    cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
    r = max(2, min(x1 - x0, y1 - y0) // 6)
    return np.median(lab[cy - r:cy + r, cx - r:cx + r].reshape(-1, 3), axis=0)


@dataclass
class ColourResult:
    profile: ColourProfile
    separation: float  # the closest two learnt colours, delta E
    closest: tuple[str, str]
    from_board: dict[str, float] = field(default_factory=dict)  # each colour's distance to the board


def learn_colours(layout: Layout, photo: np.ndarray, placements: dict[str, str],
                  empty: np.ndarray | None = None) -> ColourResult:
    """A colour profile from a photo with a piece of each colour on the spot ``placements`` names.

    Each sample is compared with the same place on the empty board (``empty``, a photo
    of it) or, without one, with the board's own colours: a sample that is the board
    means a piece is missing, and nothing is learnt.
    """
    top = _flat_top(layout, photo)[1]  # its reader is dropped before the next is built
    half = SCALE  # px per mm of the reader's top-down colour picture
    lab = cv2.cvtColor(top, cv2.COLOR_BGR2LAB)
    empty_lab = cv2.cvtColor(_flat_top(layout, empty)[1], cv2.COLOR_BGR2LAB) if empty is not None else None
    base = ColourProfile.default()
    surfaces = list(base.surfaces.values())
    samples: dict[str, np.ndarray] = {}
    from_board: dict[str, float] = {}
    missing = []
    for colour, spot_id in placements.items():
        sample = _spot_sample(layout, lab, spot_id, half)
        if empty_lab is not None:
            distance = delta_e(sample, _spot_sample(layout, empty_lab, spot_id, half))
        else:
            distance = min(delta_e(sample, s) for s in surfaces)
        from_board[colour] = distance
        if distance < MIN_PIECE_DELTA_E:
            missing.append(f"{colour} on {spot_id} (differs from the empty board by only "
                           f"{distance:.1f})")
        samples[colour] = sample
    if missing and len(missing) == len(placements):
        raise CalibrationError(
            f"no piece on any of the {len(placements)} spots: this photo shows the empty board. "
            "Put one piece of each colour on the spots listed, then photograph again.")
    if missing:
        raise CalibrationError(
            "these spots look like the empty board, not a piece: " + "; ".join(missing)
            + ". Put one piece of each colour on the spots listed, then photograph again.")
    names = list(samples)
    separation, closest = float("inf"), ("", "")
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            d = delta_e(samples[a], samples[b])
            if d < separation:
                separation, closest = d, (a, b)
    if len(names) > 1 and separation < MIN_SEPARATION_DELTA_E:
        raise CalibrationError(
            f"{closest[0]} and {closest[1]} look alike (delta E {separation:.1f}): check that each "
            "piece is on its own spot in the order listed, and that the light is white, not coloured")
    for colour, sample in samples.items():
        base.pieces[colour] = sample.astype(float).tolist()
    return ColourResult(base, separation if len(names) > 1 else float("nan"), closest, from_board)


# ---------------------------------------------------------------------- faces
@dataclass
class FaceResult:
    faces: FaceTemplates
    margins: dict[int, float]  # 1 - the best fit of each face's icon to any other face's


def learn_faces(layout: Layout, photo: np.ndarray, placements: dict[str, int],
                profile: ColourProfile | None = None) -> FaceTemplates:
    """Templates from a photo with one die showing each face on the spot ``placements`` names."""
    reader = BoardReader(layout, profile or ColourProfile.default(), keep_masks=True)
    reading = reader.read(photo)
    if reading.view is None:
        raise CalibrationError(f"the board was not read: {reading.problem}")
    faces = FaceTemplates()
    for spot_id, face in placements.items():
        found = reader.masks.get(spot_id)
        if not found:
            raise CalibrationError(f"no die found on {spot_id} (face {face} was to lie there)")
        faces.learn(face, found[0][1])
    return faces


def face_margins(faces: FaceTemplates) -> dict[int, float]:
    """How far each face stands from the nearest other face (0: indistinguishable, 1: nothing alike)."""
    margins = {}
    for face, template in faces.templates.items():
        others = [max(_fit(np.rot90(template, k), other) for k in range(4))
                  for f, other in faces.templates.items() if f != face]
        margins[face] = 1.0 - max(others, default=0.0)
    return margins


def learn_faces_checked(layout: Layout, photo: np.ndarray, placements: dict[str, int],
                        profile: ColourProfile | None = None) -> FaceResult:
    faces = learn_faces(layout, photo, placements, profile)
    margins = face_margins(faces)
    alike = sorted(f for f, m in margins.items() if m < MIN_FACE_MARGIN)
    if alike:
        raise CalibrationError(f"faces {alike} cannot be told apart (fit margin below "
                               f"{MIN_FACE_MARGIN}): is the same face up on two spots?")
    return FaceResult(faces, margins)


# ---------------------------------------------------------------------- cards
def register_cards(taps: queue.Queue[str], cards: list[str], known: dict[str, str],
                   timeout: float, say: Callable[[str], None],
                   asking: Callable[[str], None] = lambda card: None) -> tuple[dict[str, str], list[str]]:
    """Ask for each card in turn and take the next tag tapped as it.

    ``known`` (uid -> card) are tags already registered: a tag that is another card is
    refused.  Returns the new uid -> card pairs and the cards that got no tag.
    """
    mapping: dict[str, str] = {}
    missed: list[str] = []
    for card in tqdm(cards, desc="cards", unit="card", leave=False, disable=None):
        while not taps.empty():  # a tap before the question is not an answer
            taps.get_nowait()
        say(f"tap: {card}")
        asking(card)
        deadline = time.monotonic() + timeout
        while True:
            try:
                uid = taps.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                say(f"  no tap for {card}: skipped")
                missed.append(card)
                break
            other = mapping.get(uid) or known.get(uid)
            if other is not None and other != card:
                say(f"  that tag is already {other}: tap {card} instead")
                continue
            mapping[uid] = card
            break
    return mapping, missed
