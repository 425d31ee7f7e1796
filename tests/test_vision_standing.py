"""Pieces in the light of a lamp: a piece's own shadow is light to fit, not a doubt; what is
not the print dimmed evenly is still something over the board (companion/vision/empty_board.py,
standing.py)."""

from __future__ import annotations

import cv2
import numpy as np

from companion.bench.boards import sample_boards
from companion.games import load_game
from companion.games.base import Piece, make_view
from companion.sim.camera.render import Camera
from companion.vision.reader import BoardReader


def _baron():
    game = load_game("baron_voodoo")
    layout = game.layout(game.setup(game.min_players, None, 0))
    colours = tuple(sorted(set(layout.pieces) | set(layout.shapes)))
    view = sample_boards("baron_voodoo", None, 1, seed=2)[0]
    # B3 purple-lit cell emptied: the die in A3 beside it casts its shadow over it
    return layout, colours, make_view({k: list(v) for k, v in view.items() if k != "B3"})


def _die_beside_an_empty_place(layout, view) -> tuple[str, float, float] | None:
    """An empty place to the right of a coloured die, and the board point at the die's
    right edge."""
    def empty_at(x: float, y: float) -> str | None:
        for s in layout.spots:
            if s.x <= x <= s.x + s.w and s.y <= y <= s.y + s.h:
                return None if view.get(s.id) else s.id
        return None

    for spot in layout.spots:
        pieces = view.get(spot.id, ())
        if len(pieces) != 1 or pieces[0].colour not in ("red", "blue", "purple") or spot.w > 40:
            continue
        right, mid = spot.x + spot.w / 2 + 8.5, spot.y + spot.h / 2
        beside = empty_at(right + 10, mid)
        if beside is not None:
            return beside, right, mid
    return None


def _beside_a_die(layout, view, reader: BoardReader, frame: np.ndarray) -> tuple[str, np.ndarray]:
    """An empty place beside a coloured die, and a strip from the die's edge across it
    (frame pixels, 0/1): where a lamp up and to the left would cast the die's shadow; big
    enough to hide a piece, were it not the print dimmed."""
    found = _die_beside_an_empty_place(layout, view)
    assert found is not None
    beside, right, mid = found
    corners = reader.board_to_frame(np.array([right, right + 14, right + 14, right]),
                                    np.array([mid - 8, mid - 8, mid + 8, mid + 8]))
    mask = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), 1)
    return beside, mask


def _dimmed(frame: np.ndarray, mask: np.ndarray, shares: tuple[float, float, float]) -> np.ndarray:
    soft = cv2.GaussianBlur(mask.astype(np.float32), (0, 0), 1.0)[..., None]
    out = frame.astype(np.float32) * (1 - soft * (1 - np.array(shares, np.float32)))
    return np.clip(out, 0, 255).astype(np.uint8)


def test_a_pieces_own_shadow_is_light_not_a_doubt() -> None:
    layout, colours, view = _baron()
    frame = Camera(layout, seed=5).frame(view)
    reader = BoardReader(layout, colours=colours)
    assert reader.read(frame).view == view
    _, mask = _beside_a_die(layout, view, reader, frame)
    shaded = _dimmed(frame, mask, (0.6, 0.6, 0.6))
    reading = BoardReader(layout, colours=colours).read(shaded)
    assert reading.view == view and not reading.doubtful, reading.doubtful


def test_a_coloured_patch_beside_a_piece_is_still_something_over_the_board() -> None:
    """Dimmed unevenly (a sleeve's edge, a coloured thing) it is no shadow: the place is
    doubted, never read through it as if it were light."""
    layout, colours, view = _baron()
    frame = Camera(layout, seed=5).frame(view)
    reader = BoardReader(layout, colours=colours)
    reader.read(frame)
    spot, mask = _beside_a_die(layout, view, reader, frame)
    tinted = _dimmed(frame, mask, (0.9, 0.55, 0.3))
    reading = BoardReader(layout, colours=colours).read(tinted)
    assert reading.view is None or reading.doubtful, "a coloured patch passed for a shadow"


def test_a_dies_shaded_side_whose_top_the_lamp_washed_out_is_no_token() -> None:
    """Baron Voodoo, tuning split, under a ceiling track's spots: a red 4's top lit past any
    colour and its side toward the camera in shade, brown, alone in its blob: it was read a
    brown token, sure.  A token of a die's colour in shade whose die's top would lie beyond
    it (away from the camera's nadir) where the board is no colour is doubted.  (Its lit top
    is now taken for the die, red under a sheen (``Classifying._sheen_lit_dice``): the die is
    found, its side with it, and read: its face lit past mid-grey still bears light marks,
    ``mark_peaks._peaks``'s ``light_ink``, and the lamp's light lies clear of its empty places.)"""
    from committed_frames import reading_of

    frame, layout, reading = reading_of("tune", "baron_voodoo-t10-b1-track")
    assert reading.view is not None
    doubtful = dict(reading.doubtful or {})
    assert "C3" not in doubtful and reading.view.get("C3") == frame.view.get("C3") == (Piece("red", 4),)
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)
