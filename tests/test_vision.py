"""The camera path: rendered frames of real boards read back exactly; hands, garbage and
lost markers give no board."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from companion.bench.boards import sample_boards
from companion.games import GAMES, load_game
from companion.games.base import Layout, Piece, Spot, make_view
from companion.sim.camera.conditions import SKIN_TONES, Arm
from companion.sim.camera.render import Camera
from companion.vision.reader import BoardReader, Reading
from companion.vision.stabiliser import Stabiliser


def reader_for(game_name: str, players: int | None = None) -> tuple[BoardReader, Camera, object]:
    game = load_game(game_name)
    layout = game.layout(game.setup(players or game.min_players, None, 0))
    colours = tuple(sorted(set(layout.pieces) | set(layout.shapes))) or None
    return BoardReader(layout, colours=colours), Camera(layout, seed=5), layout


@pytest.mark.parametrize("game_name", sorted(GAMES))
def test_boards_from_real_play_are_read_exactly(game_name: str) -> None:
    reader, camera, _ = reader_for(game_name)
    boards = sample_boards(game_name, None, 12, seed=2)
    wrong = []
    for i, view in enumerate(boards):
        reading = reader.read(camera.frame(view))
        if reading.view != view:
            wrong.append((i, view, reading.view, reading.problem))
    assert not wrong, wrong[:2]


def test_a_still_view_gives_each_noise_field_again_and_a_frame_is_the_callers_own() -> None:
    """The synthetic camera keeps a still table's finished frames (a copy costs less than the
    light and noise pass): the fields cycle as before, a hand is drawn fresh, and scribbling on
    a frame handed out changes no later frame."""
    _, camera, _ = reader_for("times_square")
    view = sample_boards("times_square", None, 1, seed=2)[0]
    first = camera.frame(view)
    kept = first.copy()
    first[:] = 0
    second, third, fourth = (camera.frame(view) for _ in range(3))
    assert (fourth == kept).all()  # three noise fields: the fourth frame is the first again
    assert not (second == kept).all() and not (third == second).all()
    with_hand = camera.frame(view, hand=0.5)
    assert not (with_hand == second).all()
    assert (camera.frame(view) == third).all()  # the hand drew on its own frame


@pytest.mark.parametrize("seed", range(4))
def test_every_camera_pose_and_light_reads_the_same(seed: int) -> None:
    game = load_game("times_square")
    state = game.setup(2, None, 0)
    layout = game.layout(state)
    view = game.board_view(state)
    camera = Camera(layout, seed=seed, noise=9.0)
    reader = BoardReader(layout)
    assert reader.read(camera.frame(view)).view == view


def test_pips_are_counted_on_dice() -> None:
    game = load_game("baron_voodoo")
    layout = game.layout(game.setup(2, None, 0))
    spots = [s.id for s in layout.spots][:6]
    view = make_view({spot: [Piece(colour, pips)] for spot, colour, pips in
                      zip(spots, ["white", "red", "blue", "yellow", "purple", "white"], range(1, 7),
                          strict=True)})
    reader = BoardReader(layout)
    assert reader.read(Camera(layout, seed=1).frame(view)).view == view


def test_a_count_no_die_shows_is_doubtful_not_read() -> None:
    """A die has 1 to 6 pips (the layout says so): a blank face read is a misread to ask
    about, never a piece of a new kind."""
    game = load_game("baron_voodoo")
    layout = game.layout(game.setup(2, None, 0))
    assert layout.marks["white"] == (1, 6)
    spots = [s.id for s in layout.spots][:2]
    view = make_view({spots[0]: [Piece("white", 0)], spots[1]: [Piece("red", 3)]})
    reading = BoardReader(layout).read(Camera(layout, seed=1).frame(view))
    assert reading.view is not None and spots[0] in reading.doubtful
    assert spots[0] not in reading.view and reading.view[spots[1]] == (Piece("red", 3),)


def test_a_hand_over_the_board_is_read_round_and_what_it_covers_is_named() -> None:
    """An arm reaching in: the board outside it is read, every place it covers is named
    "under a hand", nothing is guessed, and the stabiliser commits nothing while it is there.
    What it covers is measured from the arm as drawn, not from the reader."""
    from companion.bench.vision import Unseen
    from companion.vision.reading import UNDER_A_HAND

    reader, camera, _ = reader_for("times_square")
    game = load_game("times_square")
    view = sample_boards("times_square", 2, 4, seed=5)[-1]
    assert view, "a board with pieces on it"
    stab = Stabiliser()
    read_round = 0
    for sweep in (0.0, 0.3, 0.6, 0.9):
        drawn = np.zeros((720, 1280, 3), np.uint8)
        camera._draw_arm(drawn, sweep)
        over = drawn.any(axis=2)
        arm = Unseen.of(over, over, camera, game.layout(game.setup(2, None, 0)))
        reading = reader.read(camera.frame(view, hand=sweep))
        assert reading.hand and stab.feed(reading) is None and stab.hand_over
        if reading.view is None:  # most of the board hidden: no board at all
            assert reading.problem
            continue
        read_round += 1
        assert arm.hidden and {s for s in arm.hidden if reading.doubtful.get(s) == UNDER_A_HAND} == arm.hidden
        for spot in reader.layout.spots:
            if spot.id not in reading.doubtful:  # what it vouches for is right
                assert reading.view.get(spot.id, ()) == view.get(spot.id, ()), spot.id
    assert read_round >= 2


@pytest.mark.parametrize("frame", [
    None,
    np.zeros((10, 10, 3), np.uint8),
    np.zeros((480, 640), np.uint8),
    np.zeros((480, 640, 3), np.float32),
    np.random.default_rng(0).integers(0, 255, (720, 1280, 3), dtype=np.uint8),
    "not a frame",
])
def test_garbled_frames_are_refused_with_a_reason(frame: object) -> None:
    reader, _, _ = reader_for("times_square")
    reading = reader.read(frame)  # type: ignore[arg-type]
    assert reading.view is None and reading.problem


def test_stabiliser_commits_only_a_board_that_held_still_without_a_hand() -> None:
    a = make_view({"x": [Piece("red")]})
    b = make_view({"y": [Piece("red")]})
    stab = Stabiliser(frames_needed=3)
    assert [stab.feed(Reading(a)) for _ in range(3)] == [None, None, a]
    assert stab.feed(Reading(b)) is None
    assert stab.feed(Reading(None, hand=True)) is None  # the hand resets the count
    assert stab.feed(Reading(b)) is None
    assert stab.feed(Reading(b, hand=True)) is None  # so does a board read round an arm
    assert stab.feed(Reading(b)) is None and stab.feed(Reading(b)) is None
    assert stab.feed(Reading(b)) == b
    assert stab.feed(Reading(b)) is None  # committed once


def test_faces_learnt_in_calibration_name_the_dice() -> None:
    """Learn six faces from one photo, then read other dice under another camera."""
    from companion.calibration import learn_faces

    game = load_game("baron_voodoo")
    layout = game.layout(game.setup(2, None, 0))
    spots = [s.id for s in layout.spots]
    colours = ["yellow", "blue", "red", "purple", "white", "yellow"]
    photo_view = make_view({spots[i]: [Piece(colours[i], i + 1)] for i in range(6)})
    placements = {spots[i]: i + 1 for i in range(6)}
    faces = learn_faces(layout, Camera(layout, seed=1).frame(photo_view), placements)
    assert sorted(faces.templates) == [1, 2, 3, 4, 5, 6]
    test_view = make_view({spots[10 + i]: [Piece(c, 6 - i % 6)] for i, c in
                           enumerate(["white", "red", "blue", "purple", "yellow", "white", "red"])})
    reader = BoardReader(layout, faces=faces)
    assert reader.read(Camera(layout, seed=7).frame(test_view)).view == test_view


def test_face_templates_survive_a_save_and_load(tmp_path) -> None:  # noqa: ANN001
    from companion.vision.faces import FaceTemplates

    mask = np.zeros((40, 40), np.uint8)
    mask[5:35, 5:35] = 1
    mask[10:14, 10:14] = 0
    faces = FaceTemplates()
    faces.learn(1, mask)
    faces.save(tmp_path / "faces.json")
    again = FaceTemplates.load(tmp_path / "faces.json")
    assert again.classify(mask) == 1
    assert again.classify(np.rot90(mask).copy()) == 1  # a die lands any way round
    plain = np.zeros((40, 40), np.uint8)
    plain[5:35, 5:35] = 1
    assert again.classify(plain) == 0  # no icon we know: 0, and the tracker asks


def printed_with_artwork(layout: Layout, size_mm: tuple[float, float] = (70.0, 45.0),
                         board_width: float | None = None) -> Layout:
    """The same board as a real print would have it: artwork in a free corner of the board
    (within ``board_width``: not on the mats beside it) that the drawn layout does not
    show (a large dark panel, as big as a hand)."""
    w, h = size_mm
    for y in np.arange(2.0, layout.height - h - 2.0, 5.0):
        for x in np.arange(2.0, (board_width or layout.width) - w - 2.0, 5.0):
            if all(x + w + 3 < s.x or s.x + s.w + 3 < x or y + h + 3 < s.y or s.y + s.h + 3 < y
                   for s in layout.spots):
                art = Spot("artwork", float(x), float(y), w, h, fill="dark_fill")
                return replace(layout, spots=(*layout.spots, art))
    raise AssertionError("no free corner for the artwork")


def test_a_learnt_empty_board_reads_a_print_the_layout_does_not_draw() -> None:
    reader, _, layout = reader_for("jivecat")
    camera = Camera(printed_with_artwork(layout, board_width=load_game("jivecat").board.width), seed=5)
    boards = sample_boards("jivecat", None, 6, seed=2)
    before = [reader.read(camera.frame(view)) for view in boards]
    assert not any(r.view == view and r.usable for r, view in zip(before, boards, strict=True))
    reader.learn_empty(camera.frame({}))
    assert reader.empty_board is not None
    after = [reader.read(camera.frame(view)) for view in boards]
    assert [r.view for r in after] == boards and not any(r.doubtful for r in after)
    # hands of every skin tone are still found against the learnt board
    for tone in range(len(SKIN_TONES)):
        arm = Arm.random(np.random.default_rng(tone), tone=tone)
        reading = reader.read(arm.draw(camera.frame(boards[0])))
        assert reading.view != boards[0] or reading.doubtful, tone


def test_the_empty_board_is_not_learnt_from_a_board_with_pieces() -> None:
    reader, camera, _ = reader_for("jivecat")
    view = sample_boards("jivecat", None, 2, seed=2)[1]
    with pytest.raises(ValueError, match="pieces stand on"):
        reader.learn_empty(camera.frame(view))
    with pytest.raises(ValueError, match="calibrate board"):
        reader.use_empty(np.zeros((10, 10, 3), np.uint8))
    assert reader.empty_board is None
    assert reader.read(camera.frame(view)).view == view


@pytest.mark.parametrize("game_name", sorted(GAMES))
def test_reading_only_what_changed_says_what_a_first_look_says(game_name: str) -> None:
    """A game in play (hands coming and going, a lamp's reflection now and then, sensor
    noise): the reader that reads again only the places changed since the last clear board
    says of every frame what a reader seeing that frame for the first time says; of a frame
    with an arm over the board (the first look must fit the light round the arm), both see
    the arm and neither vouches for a place wrongly."""
    from companion.sim.camera.conditions import glare

    reader, camera, layout = reader_for(game_name)
    colours = tuple(sorted(set(layout.pieces) | set(layout.shapes))) or None
    rng = np.random.default_rng(17)
    boards = sample_boards(game_name, None, 8, seed=3)
    partial = 0
    seen = reader._read_part

    def counted(*args: object) -> object:
        nonlocal partial
        out = seen(*args)  # type: ignore[arg-type]
        partial += out is not None
        return out

    reader._read_part = counted  # type: ignore[method-assign]
    sampled_in_part = 0
    around = reader._sample_around

    def sampled(*args: object) -> object:
        nonlocal sampled_in_part
        out = around(*args)  # type: ignore[arg-type]
        sampled_in_part += reader._partial
        return out

    reader._sample_around = sampled  # type: ignore[method-assign]
    differ = []
    for i, view in enumerate(boards):
        frames = [camera.frame(view), camera.frame(view)]
        if i % 3 == 1:
            frames.insert(0, camera.frame(boards[i - 1], hand=float(rng.uniform(0.2, 0.8))))
        if i % 3 == 2:
            frames.append(glare(camera.frame(view), rng, 1))
        for k, frame in enumerate(frames):
            ours = reader.read(frame)
            first = BoardReader(layout, colours=colours).read(frame)
            if ours.hand or first.hand:
                # an arm: the light fitted on clear frames, or a first fit made round the arm;
                # both find the arm, neither vouches for a place wrongly
                truth = boards[i - 1] if (i % 3 == 1 and k == 0) else view
                vouched = [{s: r.view.get(s, ()) for s in reader._spot_ids if s not in r.doubtful}
                           for r in (ours, first) if r.view is not None]
                wrong = any(v != {s: truth.get(s, ()) for s in v} for v in vouched)
                if not (ours.hand and first.hand) or wrong:
                    differ.append((i, k, "arm", ours.hand, first.hand, ours.doubtful, first.doubtful))
                continue
            said = [(r.view, sorted(r.doubtful), r.hand) for r in (ours, first)]
            if said[0] != said[1]:
                differ.append((i, k, said, ours.problem, first.problem))
    assert not differ, differ[:2]
    assert partial >= len(boards) // 2  # the part-read path was taken, not only whole reads
    assert sampled_in_part >= len(boards) // 3  # and the board sampled again only round the change


def test_a_window_sampled_again_holds_the_pixels_a_whole_sampling_gives() -> None:
    """The changed region, the markers and the margin's samples are sampled again with the
    whole board's own maps: not a pixel differs from sampling the whole board."""
    reader, camera, _ = reader_for("king_of_clubs")
    boards = sample_boards("king_of_clubs", None, 2, seed=4)
    reader.read(camera.frame(boards[0]))
    sampler = reader._sampler
    assert sampler is not None
    frame = camera.frame(boards[1])
    whole = sampler.whole(frame).copy()
    sampler.small[:] = 0
    rows, cols = slice(-5, 120), slice(300, 380)  # reaching past the board's edge: clipped
    sampler.window(frame, rows, cols)
    sampler.watch(frame)
    assert (sampler.small[:120, 300:380] == whole[:120, 300:380]).all()
    ys, xs = reader._margin_samples
    assert (sampler.small[ys, xs] == whole[ys, xs]).all()
    for marker_rows, marker_cols, _bits in reader._marker_checks:
        assert (sampler.small[marker_rows, marker_cols] == whole[marker_rows, marker_cols]).all()
    assert not sampler.small[200:260, 100:200].any()  # nothing else was sampled


@pytest.mark.parametrize("game_name", sorted(GAMES))
def test_a_still_table_under_sensor_noise_is_still_and_a_moved_piece_is_not(game_name: str) -> None:
    """The 4 mm cells come from the frame at half size (not from the whole board sampled):
    the camera's noise fields still leave a still table still, and one piece moved is a
    change."""
    reader, camera, layout = reader_for(game_name)
    view = sample_boards(game_name, None, 1, seed=6)[0]
    first = reader.read(camera.frame(view))
    assert first.view == view
    for _ in range(4):  # every noise field of the camera, and the first again
        assert reader.read(camera.frame(view)) is first
    size = {s.id: (s.w, s.h) for s in layout.spots}

    def takes(place: str, pieces: tuple[Piece, ...]) -> bool:  # (a place the rules put them on)
        return all(layout.spot(place).may_hold(p.colour) for p in pieces)

    # (to a place like it, else off the board: King of Clubs' four Nightclubs fill their places)
    spot, pieces, free = next(((s, p, o) for s, p in sorted(view.items()) if p for o in size
                               if o not in view and size[o] == size[s] and takes(o, p)),
                              (*next((s, p) for s, p in sorted(view.items()) if p), None))
    moved = {k: v for k, v in view.items() if k != spot} | ({free: pieces} if free else {})
    after = reader.read(camera.frame(moved))
    assert after is not first and after.view == moved, (spot, free, after.view, after.doubtful)


def test_a_piece_a_pixel_from_the_change_is_read_once_after_a_hand(tmp_path: Path) -> None:
    """Issue 10, found by the truth bench: Swing State's red pawn moves on beside the
    Incumbent's black pawn under a hand.  The black pawn's box in the kept board reached one
    pixel into the changed region and its box now did not, so it was neither carried nor read
    again: the board was committed without it (or, the other way round, with it twice), and
    the game stalled on "black missing".  Whatever the hand's path, the reader says what a
    first look says."""
    import cv2

    from companion.profile import apply_board_map
    from companion.sim.camera.render import lamp_cast, varied_paints
    from companion.sim.owner import calibrate_table
    from companion.vision.colour_profile import ColourProfile

    game = load_game("swing_state")
    layout = game.layout(game.start(3, None, 2, None))
    camera = Camera(layout, seed=2, paints=varied_paints(2), cast=lamp_cast(2))
    owners = calibrate_table("swing_state", layout, camera, tmp_path / "profile")
    mapped = apply_board_map(layout, owners.board)
    colours = tuple(sorted(set(layout.pieces) | set(layout.shapes))) or None
    empty = cv2.imread(str(owners.empty))

    def reader() -> BoardReader:
        made = BoardReader(mapped, ColourProfile.load(owners.colours), colours=colours)
        made.use_empty(empty)
        return made

    pawn = {c: (Piece(c, 0),) for c in ("black", "red", "blue")}
    die = (Piece("white", 2),)
    before = {"r1-18": pawn["black"], "r1-20-blue": pawn["red"], "r2-00": pawn["blue"], "die": die}
    after = {"r1-18": pawn["black"], "r1-22-blue": pawn["red"], "r2-00": pawn["blue"], "die": die}
    final = camera.frame(after)
    first = reader().read(final)
    assert first.view == after and not first.doubtful
    # each frame drawn once (the drawing is not what is tested): the still board before, and
    # the new board under the hand at each point of its sweep
    still = [camera.frame(before) for _ in range(3)]
    sweeps = [round(k * 0.17, 2) for k in range(6)]
    under_hand = {sweep: camera.frame(after, sweep) for sweep in sweeps}
    differ = []
    for linger in range(5):
        for first_point in range(6):
            ours = reader()
            for frame in still:
                ours.read(frame)
            point = first_point
            for _ in range(linger):  # the hand withdraws over the new board, as the demo's does
                point = (point + 1) % 6
                ours.read(under_hand[sweeps[point]])
            said = ours.read(final)
            if (said.view, said.doubtful) != (after, {}):
                differ.append((linger, sweeps[first_point], said.view, said.doubtful))
    assert not differ, differ[:2]


def test_a_changed_region_grows_over_every_box_near_it() -> None:
    """The rule behind the test above: a box within reach of the region is taken in whole
    (and whatever is then near), a box farther off is left out."""
    from companion.vision.board_map import grown_over as _grown_over

    region = (100, 200, 100, 200)  # rows 100..200, columns 100..200
    inside_by_a_pixel = (150, 60, 20, 41)  # x, y, w, h: rows 60..101
    short_by_a_pixel = (150, 201, 20, 20)  # rows 201..221: 1 px below
    then_near = (150, 223, 20, 20)  # near only once the one above is in
    far = (300, 300, 20, 20)
    assert _grown_over(region, [inside_by_a_pixel, short_by_a_pixel, then_near, far]) == (60, 243, 100, 200)
    assert _grown_over(region, [far]) == region


def test_a_piece_where_the_game_puts_none_is_asked_about_never_read() -> None:
    """A score marker's black on a Baron Voodoo grid cell (``Spot.takes``: dice only) is no
    piece the rules put there, a shade or a piece out of place: the cell is doubted with that
    reason, the marker never read there; the same marker on its track is read."""
    reader, camera, _layout = reader_for("baron_voodoo")
    view = make_view({"A1": [Piece("red", 3)], "C3": [Piece("black", 0)], "track0-2": [Piece("black", 0)]})
    reading = reader.read(camera.frame(view))
    assert reading.view is not None
    assert "C3" not in reading.view and "black where the game puts none" in reading.doubtful["C3"]
    assert reading.view["track0-2"] == (Piece("black", 0),) and reading.view["A1"] == (Piece("red", 3),)
