"""The synthetic camera's caches: a still table is drawn once, a changed one again, and a
frame with an arm over it is the still frame with only the arm's part drawn again."""

from __future__ import annotations

import numpy as np

from companion.games import load_game
from companion.games.base import Piece
from companion.sim.camera.render import FRAME_H, Camera


def camera_and_view(game: str = "baron_voodoo") -> tuple[Camera, dict]:
    rules = load_game(game)
    state = rules.start(2, None, 3, None)
    return Camera(rules.layout(state), seed=5), dict(rules.board_view(state))


def test_a_cached_frame_is_drawn_again_when_the_world_changes() -> None:
    camera, view = camera_and_view()
    noise_fields = 3
    first = [camera.frame(view) for _ in range(noise_fields)]
    again = [camera.frame(view) for _ in range(noise_fields)]
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))  # still: the cache
    spot = camera.layout.spots[0].id
    moved = {**view, spot: (*view.get(spot, ()), Piece("white", 6))}
    changed = [camera.frame(moved) for _ in range(noise_fields)]
    # the world changed: the frame is drawn again, and differs where the piece now stands
    (_, x, y, r), = [p for p in camera.pieces_in_frame(moved) if p[0] == spot][-1:]
    for a, b in zip(first, changed, strict=True):
        patch = (slice(int(y - r / 2), int(y + r / 2)), slice(int(x - r / 2), int(x + r / 2)))
        assert np.abs(a[patch].astype(int) - b[patch].astype(int)).mean() > 20
    back = [camera.frame(view) for _ in range(noise_fields)]
    assert all(np.array_equal(a, b) for a, b in zip(first, back, strict=True))


def test_a_frame_handed_out_is_the_callers_own() -> None:
    camera, view = camera_and_view()
    frame = camera.frame(view)
    frame[:] = 0  # a caller drawing on its frame changes no later frame
    for _ in range(3):
        assert camera.frame(view).mean() > 30


def test_an_arm_changes_only_its_part_of_the_frame_and_is_drawn_in_full() -> None:
    camera, view = camera_and_view()
    still = [camera.frame(view) for _ in range(3)]  # one frame of each noise field
    for sweep in (0.0, 0.45, 1.0):
        with_arm = camera.frame(view, sweep)
        base = still[(camera._count - 1) % 3]  # the still frame of the same noise field
        rows, cols = camera._arm_box(sweep)
        outside = np.ones(with_arm.shape[:2], bool)
        outside[rows, cols] = False
        assert np.array_equal(with_arm[outside], base[outside])
        # the whole arm is inside its part: drawn on a full frame it touches nothing outside
        full = np.zeros_like(with_arm)
        camera._draw_arm(full, sweep)
        assert not full[outside].any() and full[rows, cols].any()
        # and the arm is there: skin where the hand reaches, down to the frame's bottom edge
        _, (tip_x, tip_y) = camera._arm(sweep)
        assert np.abs(with_arm[tip_y, tip_x].astype(int) - base[tip_y, tip_x]).sum() > 30
        assert full[FRAME_H - 1].any()
