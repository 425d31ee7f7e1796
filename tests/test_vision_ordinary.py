"""Ordinary things at a real table (issue 40), on the flat camera at seeds the benches never
draw: dice turned any way in their places, very pale and very dark hands, a cheap lens's
colour fringes, a 640x480 camera."""

from __future__ import annotations

import numpy as np
import pytest
from committed_frames import read_committed

from companion.bench.boards import sample_boards
from companion.games import load_game
from companion.sim.camera.conditions import camera_for, condition, small_camera
from companion.vision.blobs import MARKS_UNCLEAR
from companion.vision.reader import MARKS_PX_PER_MM, BoardReader
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
    # Swing State's board is twice as wide: 0.59 px a mm, its die's pips 1.5-1.8 px, read
    layout, colours, boards = game_board("swing_state", 3)
    reader = BoardReader(layout, colours=colours)
    for k, view in enumerate(boards[-3:]):
        reading = reader.read(small_camera(camera_for(layout, seed=70 + k).frame(view)))
        assert 0.5 < reader.frame_px_per_mm < 0.6
        assert reading.view is not None, reading.problem
        assert not confidently_wrong(reading, view, layout)
        assert reading.view.get("die") == view.get("die") or "die" in (reading.doubtful or {})
    # a 480x360 camera there: 0.43 px a mm, refused and told why
    reading = reader.read(small_camera(camera_for(layout, seed=70).frame(boards[-1]), 480, 360))
    assert reader.frame_px_per_mm < 0.5
    assert reading.view is None and reading.problem.startswith("too few pixels")
    assert f"{reader.frame_px_per_mm:.2f} px a mm" in reading.problem and "need 0.50" in reading.problem


def test_a_small_cameras_sharp_markers_are_no_shake() -> None:
    """A camera with fewer pixels a millimetre than the board is sampled at draws the markers'
    edges in steps that differ with their direction: King of Clubs at 640x480 (0.61 px a mm)
    skews 1.30-1.32, past what focus blur does, with every direction as sharp as in focus.
    A shake blurs one direction: the motion-blurred frames stay refused."""
    layout, colours, _ = game_board("king_of_clubs", 2)
    boards = sample_boards("king_of_clubs", 2, 8, 7)
    reader = BoardReader(layout, colours=colours)
    for k in (1, 4, 7):  # the frames whose markers skew past SHAKE_SKEW_MAX
        view = boards[k]
        reading = reader.read(small_camera(camera_for(layout, seed=500 + k).frame(view)))
        assert reading.view is not None, reading.problem
        assert not confidently_wrong(reading, view, layout)
    rng = np.random.default_rng(5)
    for k in range(3):
        frame, _info = condition("motion").apply(camera_for(layout, seed=900 + k).frame(boards[k]), rng)
        reading = BoardReader(layout, colours=colours).read(frame)
        assert reading.view is None


def test_the_palest_arm_over_a_piece_beside_one_read_is_no_empty_rest_of_its_place() -> None:
    """The bench's very pale hand (seed 100) over Times Square: the forearm passes for the
    cream and the dark print alike, seen only below the track, and a green dancer under it
    shared a place with a black one read sure, so the place was read as the black alone.  The
    print's lines it covers are the arm's (``print_edges``): the place is under the arm."""
    from companion.bench.vision import conditions_benchmark

    result = conditions_benchmark(["times_square"], per_condition=12, seed=100, sequences=0,
                                  names=["pale_hand"])
    figures = result["extra_conditions"]["pale_hand"]
    assert figures["frames"] == 12 and figures["silently_misread"] == 0, figures


def test_the_prints_lines_under_a_pale_patch_are_covered_not_under_a_shade_or_blur() -> None:
    """An edge of the print is covered where its contrast is gone under a colour that is not
    the print's, not where a shadow dims it with its light, nor where blur softens every edge
    of the frame alike, nor where the camera lost a thin line with the print round it as it was."""
    import cv2

    from companion.vision.print_edges import PrintEdges

    cream = (190, 215, 225)
    empty = np.full((120, 200, 3), cream, np.uint8)
    for x in range(10, 200, 20):
        empty[:, x:x + 2] = 90  # the print's lines
    zone = np.ones(empty.shape[:2], bool)
    none = np.zeros(empty.shape[:2], bool)
    pale = empty.copy()
    pale[40:80, 50:150] = (215, 215, 240)  # a pale forearm over the lines, as light as the cream
    edges = PrintEdges(empty)

    def covered_edges(seen: np.ndarray, pieces: np.ndarray) -> np.ndarray:
        return edges.covered(seen, none, zone, pieces)

    covered = covered_edges(pale, none)
    assert covered[40:80, 50:150].any() and not covered[:30].any() and not covered[90:].any()
    shade = empty.copy()
    shade[40:80, 55:145] = (shade[40:80, 55:145] * 0.55).astype(np.uint8)  # a shadow: lines and light alike
    assert not covered_edges(shade, none).any()
    blurred = cv2.GaussianBlur(empty, (0, 0), 1.2)  # every line of the frame soft alike
    assert not covered_edges(blurred, none).any()
    assert not covered_edges(pale, np.ones_like(none)).any()  # a piece's own box is its
    faded = empty.copy()
    faded[40:80, 70:72] = cream  # a line lost (as blur takes a thin one), the print round it as it was
    assert not covered_edges(faded, none).any()
    own_hue = empty.copy()
    own_hue[40:80, 50:150] = cream  # (an arm of the print's own hue and lightness: not told, no worse)
    assert not covered_edges(own_hue, none).any()


def test_a_cheap_lens_colour_fringes_are_measured_on_the_markers_and_taken_off() -> None:
    """Red magnified and blue shrunk towards the frame's corners (lateral chromatic
    aberration) grew a red and a blue rim on every black Skull token at Jivecat's mats, read
    as pieces touching them (no cheap-lens frame of Jivecat read exact).  Each channel's size
    against green is measured on the markers (``fringes``) and taken off: the scales are found
    to a few parts in ten thousand, a clean frame has none, and the board reads exact; with a
    calibrated lens they are measured about its principal point."""
    from companion.sim.camera.conditions import cheap_lens
    from companion.vision.fringes import channel_scales

    layout, colours, boards = game_board("jivecat", 3)
    camera = camera_for(layout, seed=61)
    clean = camera.frame(boards[-1])
    reader = BoardReader(layout, colours=colours)
    assert reader.read(clean).view == boards[-1]
    markers = list(reader._last.values())
    assert channel_scales(clean, markers, (640.0, 360.0)) is None
    for fringe in (0.003, 0.0045):
        frame = cheap_lens(clean, 0.4, fringe)
        scales = channel_scales(frame, markers, (640.0, 360.0))
        assert scales is not None
        assert abs(scales[0] - (1 - fringe)) < 5e-4 and abs(scales[1] - (1 + fringe)) < 5e-4, scales
        fresh = BoardReader(layout, colours=colours)
        for _ in range(2):  # measured on the first frame's markers and taken off it, then kept
            reading = fresh.read(frame)
            assert reading.view == boards[-1] and not reading.doubtful, reading.doubtful
    # they grow from the lens's axis: its principal point when the lens was calibrated
    from companion.vision.lens import Lens

    matrix = np.array([[900.0, 0.0, 650.0], [0.0, 900.0, 370.0], [0.0, 0.0, 1.0]])
    calibrated = BoardReader(layout, colours=colours, lens=Lens(matrix, np.zeros(5)))
    calibrated.read(cheap_lens(clean, 0.4, 0.004))
    assert calibrated._fringes is not None and calibrated._fringes.centre == (650.0, 370.0)


def test_a_dice_marks_too_small_for_the_camera_say_so_not_blur() -> None:
    """Swing State seen from far round its side (a committed tuning frame, 0.59 px a mm): the
    die's pips are a pixel or two across, and its count is doubted with that reason (the
    camera too far, which the owner can mend), not "blur?"; a frame seen at 0.85 px a mm or
    more keeps the plain reason."""
    frame, _layout, reader, reading = read_committed("tune", "swing_state-t10-b2-side")
    assert reader.frame_px_per_mm < MARKS_PX_PER_MM
    why = (reading.doubtful or {}).get("die", "")
    assert why.startswith("marks too small for the camera") and f"{reader.frame_px_per_mm:.2f} px a mm" in why
    assert not any(w == MARKS_UNCLEAR for w in (reading.doubtful or {}).values())
    _frame, _layout, reader, reading = read_committed("tune", "king_of_clubs-t30-b0-more")
    assert reader.frame_px_per_mm >= MARKS_PX_PER_MM
    assert MARKS_UNCLEAR in (reading.doubtful or {}).values()
