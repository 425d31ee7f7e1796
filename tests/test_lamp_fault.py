"""``companion bench truth --faults lamp``: a lamp's reflection over a place or three all
evening, drawn on the frames by the simulated table's camera (``CafeCamera._lamp``), read by the
real reader."""

from __future__ import annotations

import cv2
import numpy as np
import pytest


@pytest.mark.parametrize("game", ["baron_voodoo", "jivecat", "swing_state"])
def test_a_lamps_hot_spot_all_evening_is_centred_on_its_place_and_read_confident_or_silent(game: str) -> None:
    """``--faults lamp``: the hot spot lies on the place it names, brightest there, and the
    real reader under it commits no place wrong: what the lamp washes out is asked, the rest
    read (boards of real play, several lamps)."""
    import random

    from companion.bench.boards import sample_boards
    from companion.bench.vision import game_layout, make_reader
    from companion.sim.camera.conditions import camera_for
    from companion.sim.faults import FAULT_MODELS, CafeCamera, FaultLog

    layout, colours, players = game_layout(game, None)
    camera = camera_for(layout, seed=3)
    boards = sample_boards(game, players, 2, 2)
    asked = read = 0
    for seed in range(3):
        log = FaultLog()
        cafe = CafeCamera(FAULT_MODELS["lamp"], random.Random(seed), log, camera)
        cafe.drift = 0.0  # (the drift is its own fault)
        reader = make_reader(layout, colours)
        for board in boards:
            frame = camera.frame(board)
            lit = cafe.apply(frame)
            assert (lit >= frame).all()  # light added, never taken away
            spot = layout.spot(cafe.lamp_place() or "")
            middle = np.array([[[(spot.x + spot.w / 2) * camera.px_per_mm,
                                 (spot.y + spot.h / 2) * camera.px_per_mm]]], np.float32)
            x, y = cv2.perspectiveTransform(middle, camera.homography)[0, 0]
            light = cafe._lamp_lift
            assert light is not None
            brightest = np.unravel_index(int(np.argmax(light[..., 0])), light.shape[:2])
            assert abs(brightest[0] - y) <= 1 and abs(brightest[1] - x) <= 1
            assert (lit[int(y), int(x)] > frame[int(y), int(x)]).any() or (frame[int(y), int(x)] == 255).all()
            reading = reader.read(lit)
            reading = reader.read(cafe.apply(camera.frame(board)))  # a still frame: read as it lies
            assert reading.view is not None
            for s in layout.spots:
                if s.id in reading.doubtful:
                    asked += 1
                else:
                    read += 1
                    assert tuple(reading.view.get(s.id, ())) == tuple(board.get(s.id, ())), (seed, s.id)
        assert log.counts["lamp"] == 1
    assert asked and read  # some places washed out and asked, most read
