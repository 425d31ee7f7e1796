"""``companion calibrate``: what a cafe owner runs once per table.

1. ``markers``: print the four board markers (and a ChArUco sheet for the lens).
2. ``camera``: photos of the ChArUco sheet -> camera matrix and distortion.
3. ``board``: a photo of the board with its markers -> a rectified picture with
   every spot of the game's layout drawn over it, to check the mapping.
4. ``colours``: a photo with one piece of each colour on the spots it names ->
   a colour profile the reader loads (``--colours``).
5. ``cards``: tap each card on the device when asked -> a tag registry (``--tags``).
Each long step shows progress.  See calibration/README.md.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import click
import cv2
import numpy as np
from tqdm import tqdm

from companion.games import GAMES, load_game
from companion.games.base import Layout
from companion.vision.faces import FaceTemplates
from companion.vision.geometry import (
    MARGIN_MM,
    aruco_dictionary,
    canvas_size_mm,
    marker_corners_mm,
    spot_rect_px,
)
from companion.vision.reader import BoardReader, ColourProfile

DPI = 300
CHARUCO_SQUARES = (7, 5)
CHARUCO_SQUARE_MM = 30.0
CHARUCO_MARKER_MM = 22.0


def _layout(game_name: str, players: int | None) -> Layout:
    game = load_game(game_name)
    return game.layout(game.setup(players or game.min_players, None, 0))


def marker_sheet(layout: Layout) -> np.ndarray:
    """The board's margin at true size (300 dpi): cut out the corners, tape them on."""
    px_per_mm = DPI / 25.4
    total_w, total_h = canvas_size_mm(layout)
    sheet = np.full((int(total_h * px_per_mm), int(total_w * px_per_mm)), 255, np.uint8)
    for marker_id, corners in marker_corners_mm(layout).items():
        size = int(round((corners[1][0] - corners[0][0]) * px_per_mm))
        x, y = (corners[0] * px_per_mm).round().astype(int)
        sheet[y:y + size, x:x + size] = cv2.aruco.generateImageMarker(aruco_dictionary(), marker_id, size)
        cv2.putText(sheet, f"id {marker_id}", (x, y + size + 40), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 0, 2)
    m = int(MARGIN_MM * px_per_mm)
    cv2.rectangle(sheet, (m, m), (sheet.shape[1] - m, sheet.shape[0] - m), 160, 3)
    return sheet


def charuco_board() -> cv2.aruco.CharucoBoard:
    return cv2.aruco.CharucoBoard(CHARUCO_SQUARES, CHARUCO_SQUARE_MM, CHARUCO_MARKER_MM,
                                  cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_100))


def calibrate_camera(images: list[np.ndarray]) -> dict[str, object]:
    """Camera matrix and distortion from photos of the ChArUco sheet."""
    board = charuco_board()
    detector = cv2.aruco.CharucoDetector(board)
    object_points, image_points = [], []
    size = None
    for image in tqdm(images, desc="photos", unit="photo", leave=False):
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        size = gray.shape[::-1]
        corners, ids, _, _ = detector.detectBoard(gray)
        if ids is None or len(ids) < 6:
            continue
        obj, img = board.matchImagePoints(corners, ids)
        object_points.append(obj)
        image_points.append(img)
    if len(object_points) < 3 or size is None:
        raise ValueError(f"the ChArUco sheet was found in {len(object_points)} photos; 3 or more needed")
    error, matrix, dist, _, _ = cv2.calibrateCamera(object_points, image_points, size, None, None)
    return {"rms_px": float(error), "matrix": matrix.tolist(), "distortion": dist.ravel().tolist(),
            "photos_used": len(object_points), "size": list(size)}


def learn_colours(layout: Layout, photo: np.ndarray, placements: dict[str, str]) -> ColourProfile:
    """A profile from a photo with a piece of each colour on the spot ``placements`` names."""
    reader = BoardReader(layout)
    reading = reader.read(photo)
    if reader._homography is None:
        raise ValueError(f"the board was not found in the photo: {reading.problem}")
    top = cv2.warpPerspective(photo, reader._homography, reader._size)
    lab = cv2.cvtColor(top, cv2.COLOR_BGR2LAB)
    profile = ColourProfile.default()
    for colour, spot_id in placements.items():
        x0, y0, x1, y1 = spot_rect_px(layout, spot_id, reader.px_per_mm)
        cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
        r = max(2, min(x1 - x0, y1 - y0) // 6)
        patch = lab[cy - r:cy + r, cx - r:cx + r].reshape(-1, 3)
        profile.pieces[colour] = np.median(patch, axis=0).astype(float).tolist()
    return profile


def learn_faces(layout: Layout, photo: np.ndarray, placements: dict[str, int],
                profile: ColourProfile | None = None) -> FaceTemplates:
    """Templates from a photo with one die showing each face on the spot ``placements`` names."""
    reader = BoardReader(layout, profile or ColourProfile.default(), keep_masks=True)
    reading = reader.read(photo)
    if reading.view is None:
        raise ValueError(f"the board was not read: {reading.problem}")
    faces = FaceTemplates()
    for spot_id, face in placements.items():
        found = reader.masks.get(spot_id)
        if not found:
            raise ValueError(f"no die found on {spot_id} (face {face} was to lie there)")
        faces.learn(face, found[0][1])
    return faces


@click.group()
def calibrate() -> None:
    """Set up a table once: markers, camera, board mapping, colours, card tags."""


@calibrate.command()
@click.option("--game", type=click.Choice(sorted(GAMES)), required=True)
@click.option("--players", type=int, default=None)
@click.option("--out", type=click.Path(path_type=Path), default=Path("markers.png"), show_default=True)
@click.option("--charuco", type=click.Path(path_type=Path), default=None,
              help="Also write the ChArUco sheet for camera calibration here.")
def markers(game: str, players: int | None, out: Path, charuco: Path | None) -> None:
    """Print the board markers at true size (300 dpi PNG)."""
    cv2.imwrite(str(out), marker_sheet(_layout(game, players)))
    click.echo(f"wrote {out}: print at 300 dpi, no scaling; tape each marker to its corner")
    if charuco:
        px = int(DPI / 25.4 * CHARUCO_SQUARE_MM)
        image = charuco_board().generateImage((CHARUCO_SQUARES[0] * px, CHARUCO_SQUARES[1] * px))
        cv2.imwrite(str(charuco), image)
        click.echo(f"wrote {charuco}: the ChArUco sheet for 'calibrate camera'")


@calibrate.command()
@click.argument("photos", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), default=Path("camera.json"), show_default=True)
def camera(photos: tuple[Path, ...], out: Path) -> None:
    """Camera matrix and lens distortion from photos of the ChArUco sheet."""
    images = [img for img in (cv2.imread(str(p)) for p in photos) if img is not None]
    try:
        result = calibrate_camera(images)
    except ValueError as err:
        raise click.ClickException(str(err)) from err
    out.write_text(json.dumps(result, indent=1))
    click.echo(f"wrote {out}: reprojection error {result['rms_px']:.3f} px from "
               f"{result['photos_used']} photos")


@calibrate.command()
@click.option("--game", type=click.Choice(sorted(GAMES)), required=True)
@click.option("--players", type=int, default=None)
@click.argument("photo", type=click.Path(exists=True, path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), default=Path("board-check.png"), show_default=True)
def board(game: str, players: int | None, photo: Path, out: Path) -> None:
    """Rectify a photo of the board and draw the game's spots over it, to check the map."""
    layout = _layout(game, players)
    image = cv2.imread(str(photo))
    reader = BoardReader(layout)
    reading = reader.read(image)
    if reader._homography is None:
        raise click.ClickException(f"board not found: {reading.problem}")
    top = cv2.warpPerspective(image, reader._homography, reader._size)
    for spot in layout.spots:
        x0, y0, x1, y1 = spot_rect_px(layout, spot.id, reader.px_per_mm)
        cv2.rectangle(top, (x0, y0), (x1, y1), (0, 0, 255), 1)
        cv2.putText(top, spot.id[:6], (x0 + 1, y0 + 10), cv2.FONT_HERSHEY_PLAIN, 0.7, (0, 0, 255), 1)
    cv2.imwrite(str(out), top)
    click.echo(f"wrote {out}: every red box should sit on its printed space; if not, edit the "
               f"game's data file (positions in mm from the board's top-left corner)")


@calibrate.command()
@click.option("--game", type=click.Choice(sorted(GAMES)), required=True)
@click.option("--players", type=int, default=None)
@click.argument("photo", type=click.Path(exists=True, path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), default=Path("colours.json"), show_default=True)
def colours(game: str, players: int | None, photo: Path, out: Path) -> None:
    """Learn piece colours: one piece of each colour on the spots listed first."""
    layout = _layout(game, players)
    wanted = sorted(set(layout.pieces) | set(layout.shapes))
    placements = dict(zip(wanted, (s.id for s in layout.spots), strict=False))
    image = cv2.imread(str(photo))
    if image is None:
        raise click.ClickException(f"{photo} is not an image")
    try:
        profile = learn_colours(layout, image, placements)
    except ValueError as err:
        raise click.ClickException(str(err)) from err
    profile.save(out)
    click.echo(f"wrote {out} from: " + ", ".join(f"{c} on {s}" for c, s in placements.items()))


@calibrate.command()
@click.option("--game", type=click.Choice(sorted(GAMES)), required=True)
@click.option("--players", type=int, default=None)
@click.argument("photo", type=click.Path(exists=True, path_type=Path))
@click.option("--faces", "count", type=int, default=6, show_default=True,
              help="How many faces: face N lies on the N-th spot of the layout.")
@click.option("--colours", type=click.Path(exists=True, path_type=Path), default=None)
@click.option("--out", type=click.Path(path_type=Path), default=Path("faces.json"), show_default=True)
def faces(game: str, players: int | None, photo: Path, count: int, colours: Path | None,
          out: Path) -> None:
    """Learn die face icons: a die showing face 1 on the first spot, face 2 on the second..."""
    layout = _layout(game, players)
    image = cv2.imread(str(photo))
    if image is None:
        raise click.ClickException(f"{photo} is not an image")
    placements = {spot.id: n for n, spot in enumerate(layout.spots[:count], 1)}
    profile = ColourProfile.load(colours) if colours else None
    try:
        learn_faces(layout, image, placements, profile).save(out)
    except ValueError as err:
        raise click.ClickException(str(err)) from err
    click.echo(f"wrote {out}: faces " + ", ".join(f"{n} on {s}" for s, n in placements.items()))


@calibrate.command()
@click.option("--game", type=click.Choice(sorted(GAMES)), required=True)
@click.option("--serial", "port", required=True, help="The table device's serial port.")
@click.option("--out", type=click.Path(path_type=Path), default=Path("tags.json"), show_default=True)
@click.option("--timeout", type=float, default=30.0, show_default=True)
def cards(game: str, port: str, out: Path, timeout: float) -> None:
    """Register card tags: tap each card on any reader when its name is shown."""
    from companion.sensors.serial_link import SerialLink
    from companion.sensors.tags import TagRegistry

    ids = load_game(game).card_ids()
    taps: list[str] = []
    link = SerialLink(port, lambda r, uid: taps.append(uid), lambda s, p: None).start()
    mapping: dict[str, str] = {}
    try:
        if not link.wait_connected(10):
            raise click.ClickException(f"no table device answered on {port}")
        for card in tqdm(ids, desc="cards", unit="card"):
            taps.clear()
            tqdm.write(f"tap: {card}")
            deadline = time.monotonic() + timeout
            while not taps and time.monotonic() < deadline:
                time.sleep(0.02)
            if not taps:
                tqdm.write(f"  no tap for {card}; skipped")
                continue
            if taps[0] in mapping:
                tqdm.write(f"  that tag is already {mapping[taps[0]]}; skipped")
                continue
            mapping[taps[0]] = card
    finally:
        link.stop()
    TagRegistry.save(out, game, mapping)
    click.echo(f"wrote {out}: {len(mapping)} of {len(ids)} cards registered")
