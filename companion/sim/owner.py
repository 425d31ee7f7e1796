"""The simulated table's owner sets the camera up as a cafe owner would.

A real companion never knows the paints of the pieces or the print of the board: its
owner runs ``companion calibrate board`` on a photo of the empty board and ``calibrate
colours`` on a photo with one piece of each colour where it says, and the service reads
the profile those steps wrote.  The simulated table does the same with its own camera
(its own pose, lens and light) before the first move: the board map, the empty board and
the colour profile come from photos of the world's table, never from the renderer's
constants.  These are the calibration steps' own functions, the code the CLI runs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2

from companion.calibration.steps import colour_order, fit_board, learn_colours
from companion.games.base import Layout, Piece, make_view
from companion.profile import apply_board_map, board_map_json
from companion.sim.camera.render import Camera
from companion.vision.reader import BoardReader


@dataclass(frozen=True)
class OwnersProfile:
    """The files the calibration steps left, for ``ServiceConfig``."""

    board: Path
    empty: Path
    colours: Path


def calibrate_table(game: str, layout: Layout, camera: Camera, folder: Path) -> OwnersProfile:
    """Photograph the empty table and a piece of each colour; run the steps on the photos.

    Done once: a profile already in ``folder`` (a resumed demo) is kept as it is."""
    profile = OwnersProfile(folder / "board.json", folder / "empty.png", folder / "colours.json")
    if all(path.exists() for path in (profile.board, profile.empty, profile.colours)):
        return profile
    folder.mkdir(parents=True, exist_ok=True)
    empty_photo = camera.frame({})
    fit = fit_board(layout, empty_photo)  # calibrate board: where every spot is
    quality = {"markers": fit.markers, "residual_mm": round(fit.residual_mm, 3),
               "max_residual_mm": round(fit.max_residual_mm, 3), "photo": "empty table"}
    profile.board.write_text(json.dumps(board_map_json(game, layout, quality), indent=1))
    del fit  # and its reader: one reader at a time (some 40 MB each)
    mapped = apply_board_map(layout, profile.board)
    placements = colour_order(mapped)  # calibrate colours: one piece of each where it says
    pieces = make_view({spot: [Piece(colour, 0)] for colour, spot in placements.items()})
    learnt = learn_colours(mapped, camera.frame(pieces), placements, empty_photo)
    learnt.profile.save(profile.colours)
    reader = BoardReader(mapped, learnt.profile,
                         colours=tuple(sorted(set(mapped.pieces) | set(mapped.shapes))) or None)
    reader.learn_empty(empty_photo)  # the board's own print, for hands and shadows
    cv2.imwrite(str(profile.empty), reader.empty_board)
    return profile
