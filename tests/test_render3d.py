"""The physically based camera's plan and scenes (companion/sim/camera/render3d.py, frames3d.py),
the hand's truth, and one small frame rendered so the renderer cannot rot.

Rendering needs Blender as a module (the ``render3d`` extra, about 1 GB): without it the one
test that renders is skipped, unless ``COMPANION_RENDER3D=required`` (set by scripts/test.sh
where it installs ``bpy``), when a missing ``bpy`` fails it.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile

import cv2
import numpy as np
import pytest

from companion.games import load_game
from companion.sim.camera.frames3d import (
    FALLOFF,
    GAMES3D,
    MORE_GAMES,
    MORE_HANDS,
    PLAYERS3D,
    SIDE,
    SPLITS,
    TRACK,
    VGA,
    VGA_BOARDS,
    FrameSpec,
    committed,
    plan,
)
from companion.sim.camera.render3d import (
    AIM_MM,
    AZIMUTH,
    FALLOFF_LAMPS,
    FALLOFF_PAPERS,
    LAMPS,
    MORE_LAMPS,
    MORE_PLASTICS,
    PAPERS,
    PLASTICS,
    ROLL,
    SIDE_AIM_MM,
    SIDE_AZIMUTH,
    SIDE_LAMPS,
    SIDE_PAPERS,
    SIDE_PLASTICS,
    SIDE_ROLL,
    SKINS,
    TILTS,
    TRACK_LAMPS,
    VGA_SIZE,
    HandPose,
    Pinhole,
    Scene3D,
    camera_axes,
    covered_places,
    pinhole_for,
)
from companion.vision.geometry import MARGIN_MM, canvas_size_mm
from companion.vision.palette import bgr

HAVE_BPY = importlib.util.find_spec("bpy") is not None
BPY_REQUIRED = os.environ.get("COMPANION_RENDER3D") == "required"
FRAMES = list(committed())


def layout_of(game_name: str):
    game = load_game(game_name)
    return game.layout(game.setup(PLAYERS3D.get(game_name, game.min_players), None, 0))


def test_the_splits_differ_in_board_finish_plastic_roll_and_aim_too():
    assert not set(PAPERS["tune"] + FALLOFF_PAPERS["tune"]) & set(PAPERS["test"])
    assert not set(PLASTICS["tune"]) & set(PLASTICS["test"])
    # the tuning split's more, falloff and track lamps are none of the test set's
    assert not set(MORE_LAMPS["tune"] + FALLOFF_LAMPS["tune"] + TRACK_LAMPS["tune"]) & set(LAMPS["test"])
    assert ROLL["tune"][1] <= ROLL["test"][0] and AIM_MM["tune"][1] <= AIM_MM["test"][0]
    for seed in range(60):
        for split in SPLITS:
            scene = Scene3D.drawn(seed, split, 20)
            assert scene.paper in PAPERS[split] and scene.plastic in PLASTICS[split]
            assert ROLL[split][0] <= abs(scene.roll) <= ROLL[split][1]
            assert AIM_MM[split][0] - 0.1 <= float(np.hypot(*scene.aim_mm)) <= AIM_MM[split][1] + 0.1
            assert all(abs(v) <= 0.15 for v in scene.lamp_shift) and 0.75 <= scene.lamp_gain <= 1.3
        falloff = Scene3D.drawn(seed, "tune", 20, falloff=True)
        assert falloff.lamp in FALLOFF_LAMPS["tune"] and falloff.paper in FALLOFF_PAPERS["tune"]
        track = Scene3D.drawn(seed, "tune", 20, track=True)
        assert track.lamp in TRACK_LAMPS["tune"] and track.plastic in MORE_PLASTICS["tune"]
        assert track.paper in PAPERS["tune"]
    with pytest.raises(ValueError, match="no more scenes"):
        Scene3D.drawn(1, "test", 20, falloff=True)
    with pytest.raises(ValueError, match="no more scenes"):
        Scene3D.drawn(1, "test", 20, track=True)
    with pytest.raises(ValueError, match="no more scenes"):
        Scene3D.drawn(1, "test", 20, side=True)
    with pytest.raises(ValueError, match="no more scenes"):
        Scene3D.drawn(1, "test", 20, vga=True)


def test_the_vga_scenes_are_a_640x480_webcam_under_tuning_kinds_whatever_size_the_rest_are_made_at():
    """A VGA scene keeps its webcam's size however the plan is rendered (``--size``), and its
    lamp, plastic and paper are of the tuning kinds, never the test set's."""
    for seed in range(40):
        plain, vga = Scene3D.drawn(seed, "tune", 10), Scene3D.drawn(seed, "tune", 10, vga=True)
        assert (vga.width, vga.height) == VGA_SIZE["tune"] != (plain.width, plain.height)
        assert vga.focal_px == pytest.approx(plain.focal_px / 2)  # the same lens, half the pixels
        assert vga.lamp in SIDE_LAMPS["tune"] and vga.lamp not in LAMPS["test"]
        assert vga.plastic in SIDE_PLASTICS["tune"] and vga.plastic not in PLASTICS["test"]
        assert vga.paper in SIDE_PAPERS["tune"] and vga.paper not in PAPERS["test"]
        assert (vga.azimuth, vga.roll, vga.aim_mm) == (plain.azimuth, plain.roll, plain.aim_mm)


def test_the_side_scenes_stand_further_round_turned_and_off_centre_than_the_test_set():
    """The tuning split's side poses lie past the test set's on every axis, never among them."""
    assert SIDE_AZIMUTH["tune"][0] > AZIMUTH["test"][1] and SIDE_ROLL["tune"][0] >= ROLL["test"][1]
    assert SIDE_AIM_MM["tune"][0] >= AIM_MM["test"][1]
    for seed in range(60):
        plain, side = Scene3D.drawn(seed, "tune", 20), Scene3D.drawn(seed, "tune", 20, side=True)
        assert SIDE_AZIMUTH["tune"][0] <= abs(side.azimuth) <= SIDE_AZIMUTH["tune"][1]
        assert SIDE_ROLL["tune"][0] <= abs(side.roll) <= SIDE_ROLL["tune"][1]
        assert SIDE_AIM_MM["tune"][0] - 0.1 <= float(np.hypot(*side.aim_mm)) <= SIDE_AIM_MM["tune"][1] + 0.1
        # its lamp, plastic and paper of any tuning kind, never the test set's
        assert side.lamp in SIDE_LAMPS["tune"] and side.lamp not in LAMPS["test"]
        assert side.plastic in SIDE_PLASTICS["tune"] and side.plastic not in PLASTICS["test"]
        assert side.paper in SIDE_PAPERS["tune"] and side.paper not in PAPERS["test"]
        assert side.skin == plain.skin


def test_the_plan_is_every_game_and_tilt_on_three_boards_with_hands_round_robin():
    everything = plan()
    assert len({s.path() for s in everything}) == len(everything)
    scenes = {(s.game, s.tilt, s.board, s.hand, s.more, s.falloff, s.track, s.side, s.vga)
              for s in everything}
    assert len({s.seed for s in everything}) == len(scenes)  # one seed a scene, both splits
    specs = [s for s in everything if not (s.more or s.falloff or s.track or s.side or s.vga)]
    assert everything[:len(specs)] == specs  # the more scenes come after the round-robin
    vga = [s for s in everything if s.vga]
    assert everything[len(everything) - len(vga):] == vga  # the VGA scenes last
    # each game of VGA on six boards of the tuning playouts, in the tuning split only, every tilt
    assert {s.split for s in vga} == {"tune"}
    assert not any(s.more or s.hand or s.falloff or s.track or s.side for s in vga)
    assert sorted((s.game, s.board) for s in vga) == sorted((g, b) for g in VGA for b in range(VGA_BOARDS))
    assert {s.tilt for s in vga} == set(TILTS)
    assert all(s.name.endswith("-vga") for s in vga)
    everything = everything[:len(everything) - len(vga)]
    side = [s for s in everything if s.side]
    assert everything[len(everything) - len(side):] == side  # the side scenes last
    # each game of SIDE on each tuning board, in the tuning split only, every tilt among them
    assert {s.split for s in side} == {"tune"}
    assert not any(s.more or s.hand or s.falloff or s.track for s in side)
    assert sorted((s.game, s.board) for s in side) == sorted((g, b) for g in SIDE for b in range(3))
    assert {s.tilt for s in side} == set(TILTS)
    assert all(s.name.endswith("-side") for s in side)
    everything = everything[:len(everything) - len(side)]
    track = [s for s in everything if s.track]
    assert everything[len(everything) - len(track):] == track  # the track scenes last
    # each game of TRACK on each tuning board, in the tuning split only, every tilt among them
    assert {s.split for s in track} == {"tune"} and not any(s.more or s.hand or s.falloff for s in track)
    assert sorted((s.game, s.board) for s in track) == sorted((g, b) for g in TRACK for b in range(3))
    assert {s.tilt for s in track} == set(TILTS)
    assert all(s.name.endswith("-track") for s in track)
    everything = everything[:len(everything) - len(track)]
    falloff = [s for s in everything if s.falloff]
    assert everything[len(everything) - len(falloff):] == falloff  # and the falloff scenes before them
    # each game of FALLOFF on each tuning board, in the tuning split only, every tilt among them
    assert {s.split for s in falloff} == {"tune"} and not any(s.more or s.hand for s in falloff)
    assert sorted((s.game, s.board) for s in falloff) == sorted((g, b) for g in FALLOFF for b in range(3))
    assert {s.tilt for s in falloff} == set(TILTS)
    assert all(s.name.endswith("-falloff") for s in falloff)
    more_scenes = everything[len(specs):len(everything) - len(falloff)]
    more = [s for s in more_scenes if not s.hand]
    hands_more = [s for s in more_scenes if s.hand]
    assert more_scenes == more + hands_more  # the more hand frames after the more scenes
    # the tuning split's more scenes: each of its games on each tuning board at two tilts,
    # a shallow and a steep one; never in the test split
    assert {s.split for s in more} == {"tune"}
    # and a hand over each board of the games of MORE_HANDS, every tilt among them
    assert {s.split for s in hands_more} == {"tune"} and all(s.more for s in hands_more)
    assert sorted((s.game, s.board) for s in hands_more) == sorted(
        (g, b) for g in MORE_HANDS for b in range(3))
    assert {s.tilt for s in hands_more} == set(TILTS)
    assert sorted((s.game, s.board) for s in more) == sorted(
        (g, b) for g in MORE_GAMES for b in range(3) for _ in range(2))
    for g in MORE_GAMES:
        for b in range(3):
            low, high = sorted(s.tilt for s in more if s.game == g and s.board == b)
            assert low in TILTS[:2] and high in TILTS[2:]
    bare = [s for s in specs if not s.hand]
    assert {(s.game, s.split, s.tilt, s.board) for s in bare} == {
        (g, split, t, b) for g in GAMES3D for split in SPLITS for t in TILTS for b in range(3)}
    hands = [s for s in specs if s.hand]
    assert {(s.game, s.split, s.board) for s in hands} == {
        (g, split, b) for g in GAMES3D for split in SPLITS for b in range(3)}
    assert {s.tilt for s in hands} == set(TILTS)
    # each board of every game, in both splits, before the next board of any
    first_of_board = [next(i for i, s in enumerate(specs) if s.board == b) for b in range(3)]
    for b in range(3):
        block = specs[first_of_board[b]:first_of_board[b + 1] if b < 2 else None]
        assert {(s.game, s.split, s.tilt) for s in block if not s.hand} == {
            (g, split, t) for g in GAMES3D for split in SPLITS for t in TILTS}
    assert len({s.seed for s in specs}) == len({(s.game, s.tilt, s.board, s.hand) for s in specs})


@pytest.mark.skipif(not FRAMES, reason="no frames committed in tests/data/frames3d")
def test_every_committed_frame_is_one_of_the_plan_and_keeps_its_split_s_kinds():
    names = {(s.split, s.name) for s in plan()}
    for frame in FRAMES:
        assert (frame.split, frame.truth["name"]) in names, frame.path.name
        scene = frame.truth["scene"]
        assert scene["split"] == frame.path.parent.name
        if frame.truth["name"].endswith("-more"):  # the tuning split's more scenes
            assert frame.split == "tune" and scene["lamp"] in LAMPS["tune"] + MORE_LAMPS["tune"]
            assert scene["plastic"] in PLASTICS["tune"] + MORE_PLASTICS["tune"]
        elif frame.truth["name"].endswith("-falloff"):  # and its falloff scenes
            assert frame.split == "tune" and scene["lamp"] in FALLOFF_LAMPS["tune"]
            assert scene["paper"] in FALLOFF_PAPERS["tune"] and scene["plastic"] in PLASTICS["tune"]
        elif frame.truth["name"].endswith("-track"):  # and its track scenes
            assert frame.split == "tune" and scene["lamp"] in TRACK_LAMPS["tune"]
            assert scene["paper"] in PAPERS["tune"] and scene["plastic"] in MORE_PLASTICS["tune"]
        elif frame.truth["name"].endswith("-side"):  # and its side scenes
            assert frame.split == "tune" and scene["lamp"] in SIDE_LAMPS["tune"]
            assert scene["paper"] in SIDE_PAPERS["tune"] and scene["plastic"] in SIDE_PLASTICS["tune"]
            assert SIDE_AZIMUTH["tune"][0] <= abs(scene["azimuth"]) <= SIDE_AZIMUTH["tune"][1]
        elif frame.truth["name"].endswith("-vga"):  # and its VGA scenes
            assert frame.split == "tune" and scene["lamp"] in SIDE_LAMPS["tune"]
            assert scene["paper"] in SIDE_PAPERS["tune"] and scene["plastic"] in SIDE_PLASTICS["tune"]
            size = tuple(frame.truth["camera"]["size"])
            assert (scene["width"], scene["height"]) == VGA_SIZE["tune"] == size
        else:
            assert scene["lamp"] in LAMPS[frame.split] and scene["plastic"] in PLASTICS[frame.split]
        assert scene["skin"] in SKINS[frame.split]
        # the first frames were made before the board's finish was drawn: all matte paper
        assert scene.get("paper", PAPERS["tune"][0]) in PAPERS[frame.split] + FALLOFF_PAPERS[frame.split] \
            or "paper" not in scene
        if frame.hand:
            assert set(frame.truth["hand"]["covered"]) <= {s.id for s in layout_of(frame.game).spots}


def test_a_rolled_camera_turns_the_picture_about_its_own_axis():
    right0, up0, back0 = camera_axes(20.0, 10.0)
    right, up, back = camera_axes(20.0, 10.0, 7.0)
    assert np.allclose(back, back0)
    assert float(np.degrees(np.arccos(np.clip(right @ right0, -1, 1)))) == pytest.approx(7.0, abs=1e-6)
    assert np.cross(right, up) == pytest.approx(back)


@pytest.mark.parametrize("split", SPLITS)
def test_an_off_centre_camera_still_sees_the_whole_canvas_from_65_cm_or_more(split):
    for game_name in GAMES3D:
        layout = layout_of(game_name)
        total_w, total_h = canvas_size_mm(layout)
        corners = np.array([[0, 0, 0], [total_w, 0, 0], [total_w, total_h, 0], [0, total_h, 0]], float)
        for seed in range(3):
            scene = Scene3D.drawn(seed, split, 30.0)
            camera = pinhole_for(layout, scene)
            px = camera.project(corners)
            assert (px >= 0).all() and (px[:, 0] <= 1280).all() and (px[:, 1] <= 720).all()
            assert camera.position_mm[2] >= 649.0
            # the optical axis meets the table at the scene's aim, off the canvas's centre
            rot = cv2.Rodrigues(camera.rvec)[0]
            origin = -rot.T @ camera.tvec.ravel()  # the camera's centre in canvas coordinates
            axis = rot[2]
            hit = origin + axis * (-origin[2] / axis[2])
            assert hit[:2] == pytest.approx(np.array([total_w / 2, total_h / 2]) + scene.aim_mm, abs=0.01)


def straight_down(layout) -> Pinhole:
    return pinhole_for(layout, Scene3D.drawn(1, "tune", 0.0, roll=0.0, aim_mm=(0.0, 0.0), k1=0.0))


def test_the_hand_covers_the_places_under_it_and_none_far_from_it():
    layout = layout_of("baron_voodoo")
    camera = straight_down(layout)
    spot = layout.spot("D4")
    centre = (spot.x + MARGIN_MM + spot.w / 2, spot.y + MARGIN_MM + spot.h / 2)
    # the hand's centre over D4: its tip (the wrist) 50 mm short of it, along the arm
    hand = HandPose((centre[0], centre[1] + 700.0), (centre[0], centre[1] + HandPose.HAND_BEYOND_WRIST_MM),
                    50.0, 0)
    covered, partly = covered_places(layout, camera, hand, [])
    assert "D4" in covered and "D5" in covered  # under the palm, and under the forearm nearer the players
    assert not set(covered) & set(partly)
    far = [s.id for s in layout.spots if abs(s.x + MARGIN_MM + s.w / 2 - centre[0]) > 150]
    assert far and not set(far) & set(covered + partly)


@pytest.mark.skipif(not HAVE_BPY and not BPY_REQUIRED,
                    reason="Blender as a module (bpy, the render3d extra) is not installed")
def test_one_small_frame_renders_with_its_pieces_and_hand_where_its_truth_says(tmp_path, monkeypatch):
    """The same small scene with and without a hand: pieces show their colours where the
    truth puts their tops, the places the truth says the hand covers change under it, and the
    renderer's temporary files are gone afterwards."""
    if not HAVE_BPY:
        pytest.fail("COMPANION_RENDER3D=required but bpy is not installed (pip install --no-deps bpy==5.0.1)")
    from companion.sim.camera.blender_scene import render

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the renderer's files go here, and must go
    game = load_game("times_square")
    state = game.setup(2, None, 0)
    layout, view = game.layout(state), game.board_view(state)
    # 640x360 at one sample: a few seconds each on one core; smaller, a figure's head is a pixel
    frames, truths = [], []
    for hand in (False, True):
        scene = Scene3D.drawn(5, "tune", 20.0, hand=hand, width=640, height=360, samples=1, noise=0.0)
        frame, truth = render(layout, view, scene, None, "times_square", 2, threads=1)
        frames.append(cv2.cvtColor(frame, cv2.COLOR_BGR2LAB).astype(float))
        truths.append(truth)
        assert frame.shape == (360, 640, 3) and truth["render_cpu_seconds"] > 0
    assert list(tmp_path.iterdir()) == []
    bare, handed = truths
    assert bare["hand"] is None and bare["camera"] == handed["camera"]

    def lab_of(colour: str) -> np.ndarray:
        return cv2.cvtColor(np.array([[bgr(colour)]], np.uint8), cv2.COLOR_BGR2LAB)[0, 0].astype(float)

    def around(lab: np.ndarray, uv) -> np.ndarray:
        u, v = (int(round(a)) for a in uv)
        return np.median(lab[v - 1:v + 2, u - 1:u + 2].reshape(-1, 3), 0)

    assert len(bare["pieces"]) == sum(len(v) for v in view.values())
    nearer = sum(np.linalg.norm(around(frames[0], p["top_px"]) - lab_of(p["colour"]))
                 < np.linalg.norm(around(frames[0], p["top_px"]) - lab_of("board")) for p in bare["pieces"])
    assert nearer >= 0.75 * len(bare["pieces"])  # a figure in its own shade may be dark
    covered = handed["hand"]["covered"]
    assert covered and not set(covered) & set(handed["hand"]["partly_covered"])
    camera = Pinhole.from_json(handed["camera"])
    for spot_id in covered:
        spot = layout.spot(spot_id)
        centre = [spot.x + MARGIN_MM + spot.w / 2, spot.y + MARGIN_MM + spot.h / 2, 0.0]
        (uv,) = camera.project(np.array([centre]))
        assert np.linalg.norm(around(frames[1], uv) - around(frames[0], uv)) > 12, spot_id


def test_a_frame_spec_names_its_hand_and_board():
    spec = FrameSpec("swing_state", "test", 20.0, 2, hand=True)
    assert spec.name == "swing_state-t20-b2-hand"
    assert spec.path().parent.name == "test"


def test_every_lamp_paper_and_plastic_a_scene_may_draw_is_one_the_renderer_knows():
    """A kind named in a split's draws (its lamps, more, falloff and track lamps; papers; plastics)
    is one Blender's scene has a setting for: a name misspelt would show only when a frame of
    it is rendered, not in the one small frame CI renders."""
    from companion.sim.camera.blender_scene import LAMP_SETS, PAPER_FINISH, PLASTIC_ROUGHNESS

    for split in SPLITS:
        lamps = LAMPS[split] + MORE_LAMPS[split] + FALLOFF_LAMPS[split] + TRACK_LAMPS[split]
        assert set(lamps) <= set(LAMP_SETS)
        assert set(PAPERS[split] + FALLOFF_PAPERS[split]) <= set(PAPER_FINISH)
        assert set(PLASTICS[split] + MORE_PLASTICS[split]) <= set(PLASTIC_ROUGHNESS)
