"""Ordinary things at a real table (issue 40), on the flat camera at seeds the benches never
draw: dice turned any way in their places, very pale and very dark hands, a cheap lens's
colour fringes, a 640x480 camera."""

from __future__ import annotations

import numpy as np
import pytest

from companion.bench.boards import sample_boards
from companion.games import load_game
from companion.sim.camera.conditions import camera_for, condition, small_camera
from companion.vision.reader import BoardReader
from companion.vision.stabiliser import Stabiliser


def game_board(game_name: str, players: int, seed: int = 4242):
    game = load_game(game_name)
    layout = game.layout(game.setup(players, None, 0))
    colours = tuple(sorted(set(layout.pieces) | set(layout.shapes)))
    return layout, colours, sample_boards(game_name, players, 6, seed)


def confidently_wrong(reading, view, layout) -> list[str]:
    unsure = reading.doubtful or {}
    return [s.id for s in layout.spots
            if s.id not in unsure and reading.view.get(s.id, ()) != view.get(s.id, ())]


def test_a_die_turned_any_way_in_its_place_is_read_or_doubted_never_read_empty() -> None:
    layout, colours, boards = game_board("baron_voodoo", 2)
    view = boards[-1]
    read = 0
    for seed in (5, 6, 7):
        camera = camera_for(layout, seed=seed)
        frame, info = condition("turned").apply(camera.frame(view), np.random.default_rng(seed),
                                                camera.pieces_in_frame(view))
        assert any(20 < a < 70 for a in info["angles"])  # some dice stand near 45 degrees
        reading = BoardReader(layout, colours=colours).read(frame)
        assert reading.view is not None, reading.problem
        assert not confidently_wrong(reading, view, layout), seed  # never empty, never another face
        read += len([s for s in view if s not in (reading.doubtful or {})])
    assert read >= 0.75 * 3 * len(view)  # most of the turned dice are read, not doubted


@pytest.mark.parametrize("name", ["pale_hand", "dark_hand"])
def test_a_very_pale_or_very_dark_hand_reaching_for_a_piece_is_a_hand(name: str) -> None:
    layout, colours, boards = game_board("times_square", 2)
    for k, view in enumerate(boards[-3:]):
        camera = camera_for(layout, seed=50 + k)
        frame, info = condition(name).apply(camera.frame(view), np.random.default_rng(50 + k),
                                            camera.pieces_in_frame(view))
        reading = BoardReader(layout, colours=colours).read(frame)
        if reading.view is not None:
            assert not confidently_wrong(reading, view, layout), k
            assert reading.hand or reading.doubtful, k
        stab = Stabiliser()
        assert stab.feed(reading) is None and stab.feed(reading) is None


def test_a_cheap_lens_colour_fringes_and_dark_corners_are_not_taken_for_blur() -> None:
    layout, colours, boards = game_board("baron_voodoo", 2)
    for k, view in enumerate(boards[-3:]):
        camera = camera_for(layout, seed=60 + k)
        frame, info = condition("cheap_lens").apply(camera.frame(view), np.random.default_rng(60 + k))
        assert info["fringe"] >= 0.002
        reading = BoardReader(layout, colours=colours).read(frame)
        assert reading.view is not None and "blurred" not in reading.problem, reading.problem
        assert not confidently_wrong(reading, view, layout)


def test_a_640x480_camera_is_read_where_its_pixels_allow_and_refused_with_that_reason_where_not() -> None:
    # Baron Voodoo's board fills the frame at 0.74 px a mm: read
    layout, colours, boards = game_board("baron_voodoo", 2)
    view = boards[-1]
    reader = BoardReader(layout, colours=colours)
    reading = reader.read(small_camera(camera_for(layout, seed=70).frame(view)))
    assert reader.frame_px_per_mm > 0.6
    assert reading.view is not None, reading.problem
    assert not confidently_wrong(reading, view, layout)
    assert len([s for s in view if s not in (reading.doubtful or {})]) >= 0.8 * len(view)
    # Swing State's board is twice as wide: under 0.6 px a mm, refused and told why
    layout, colours, boards = game_board("swing_state", 3)
    reader = BoardReader(layout, colours=colours)
    reading = reader.read(small_camera(camera_for(layout, seed=70).frame(boards[-1])))
    assert reader.frame_px_per_mm < 0.6
    assert reading.view is None and reading.problem.startswith("too few pixels")
    assert "px a mm" in reading.problem
