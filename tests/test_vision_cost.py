"""The frame cost's yardstick, and the shortcuts that make a changed board cheaper to read
giving what the long way gives."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.bench.boards import sample_boards
from companion.bench.vision import frame_cost, game_layout, make_reader
from companion.sim.camera.conditions import camera_for
from companion.vision.board_map import components_in_box
from companion.vision.empty_board import _FIGURE_SHADOW, _SHADOW, _SPECKS, EmptyBoard, _Reach
from companion.vision.glare import RING_PX
from companion.vision.mark_peaks import connected_components
from companion.vision.reader import BoardReader
from companion.vision.sampling import Sampler, _outside_of


def test_the_frame_cost_names_opencvs_marker_search_on_the_same_frames_and_the_ratio_to_it() -> None:
    figures = frame_cost("times_square", 4)
    assert figures["boards"] == 2  # each board read once changed, once still: never again from a cache
    assert figures["cpu_ms_detect_markers_p50"] > 0
    assert figures["cpu_ms_changed_board_p50"] > 0
    assert figures["changed_board_to_detect_markers"] == pytest.approx(
        figures["cpu_ms_changed_board_p50"] / figures["cpu_ms_detect_markers_p50"])


@pytest.mark.parametrize("reach", [_SHADOW, _FIGURE_SHADOW], ids=["die", "figure"])
@pytest.mark.parametrize("specks", [1, 30, _SPECKS, _SPECKS + 1, 400])
def test_a_piece_within_a_shadows_reach_is_found_as_the_whole_boards_dilation_finds_it(specks: int,
                                                                                      reach: _Reach) -> None:
    rng = np.random.default_rng(specks)
    is_piece = np.zeros((120, 170), bool)
    for _ in range(5):  # a few pieces, some at the board's edges
        y, x = int(rng.integers(-5, 120)), int(rng.integers(-5, 170))
        is_piece[max(0, y):y + 14, max(0, x):x + 14] = True
    ys = rng.integers(0, 120, specks)
    xs = rng.integers(0, 170, specks)
    ys[0], xs[0] = 0, 169  # a corner
    whole = cv2.dilate(is_piece.astype(np.uint8), reach.disc) > 0
    near = EmptyBoard._near_a_piece(is_piece, ys, xs, reach)
    assert near.tolist() == whole[ys, xs].tolist()
    if specks >= 30:  # the draw has specks both near and far from a piece
        assert near.any() and not near.all()


@pytest.mark.parametrize("done", [None, (5, 40, 10, 60), (0, 100, 0, 100), (20, 30, 70, 90), (60, 80, 5, 15),
                                  (15, 25, 35, 45)])
def test_a_window_less_what_was_sampled_already_is_every_other_pixel_of_it_once(done: tuple | None) -> None:
    rows, cols = slice(10, 50), slice(20, 80)
    held = None if done is None else (slice(done[0], done[1]), slice(done[2], done[3]))
    count = np.zeros((100, 100), int)
    for r, c in _outside_of(rows, cols, held):
        count[r, c] += 1
    want = np.zeros((100, 100), int)
    want[rows, cols] = 1
    if held is not None:
        want[held] = 0
    assert count.tolist() == want.tolist()


def _reader_after_a_read(game: str) -> tuple[BoardReader, Sampler, np.ndarray]:
    """A reader after it read one frame of ``game``'s board, its sampler, and that frame."""
    layout, colours, players = game_layout(game)
    reader = make_reader(layout, colours)
    first = camera_for(layout, seed=3).frame(sample_boards(game, players, 2, 0)[0])
    reader.read(first)
    assert reader._sampler is not None
    return reader, reader._sampler, first


def test_the_blobs_window_sampled_round_a_change_holds_what_sampling_the_whole_board_holds() -> None:
    _reader, sampler, first = _reader_after_a_read("swing_state")
    frame = np.ascontiguousarray(first[:, ::-1])  # another frame: every window differs from the last
    sampler.cells(frame)
    sampler.window(frame, slice(100, 200), slice(150, 300))
    sampler.window(frame, slice(80, 260), slice(120, 240))  # in part where the first one was
    whole = sampler.sample(frame)
    assert np.array_equal(sampler.small[80:260, 120:300][:, :30], whole[80:260, 120:300][:, :30])
    assert np.array_equal(sampler.small[100:200, 150:300], whole[100:200, 150:300])
    assert not np.array_equal(sampler.small[0:20], whole[0:20])  # never asked for: as it was


def test_the_markers_and_the_margin_sampled_in_one_pass_hold_what_sampling_the_whole_board_holds() -> None:
    reader, sampler, first = _reader_after_a_read("king_of_clubs")
    assert sampler.small is not None
    frame = np.ascontiguousarray(first[::-1])  # another frame: every pixel differs from the last
    before = sampler.small.copy()
    sampler.watch(frame)
    whole = sampler.sample(frame)
    watched = np.zeros(before.shape[:2], bool)
    for rows, cols, _bits in reader._marker_checks:
        watched[rows.start - 3:rows.stop + 3, cols.start - 3:cols.stop + 3] = True
    watched[reader._margin_samples] = True
    assert np.array_equal(sampler.small[watched], whole[watched])
    assert np.array_equal(sampler.small[~watched], before[~watched])


def test_the_board_lighter_than_empty_round_each_blob_is_what_the_whole_boards_pass_finds_there() -> None:
    layout, colours, players = game_layout("baron_voodoo")
    reader = make_reader(layout, colours)
    frame = camera_for(layout, seed=3).frame(sample_boards("baron_voodoo", players, 2, 0)[1])
    reader.read(frame)
    assert reader._flat is not None
    is_piece = (reader._classify(reader._flat) < len(reader._piece_names)).astype(np.uint8)
    _n, _, stats, _ = cv2.connectedComponentsWithStats(is_piece)
    inner = (stats[:, 0] > 2 * RING_PX) & (stats[:, 1] > 2 * RING_PX) & (stats[:, 4] > 30)
    inner[0] = False
    assert inner.sum() > 3
    stats = np.concatenate([stats[:1], stats[inner]])  # pieces, clear of the board's edges
    lifted = np.full_like(reader._flat, 255)  # a reflection all over: lighter than the empty board
    whole = cv2.inRange(lifted, reader._ref_lit, reader._white)
    for few in (stats[:3], stats):  # a few blobs (their rings only), and every blob (the whole board)
        lit = reader._lighter_than_empty(lifted, few)
        looked = np.zeros(lit.shape, bool)
        for x, y, w, h, area in few[1:]:
            if area:
                looked[max(0, y - RING_PX):y + h + RING_PX, max(0, x - RING_PX):x + w + RING_PX] = True
        assert whole[looked].mean() > 0.9 * 255
        assert np.array_equal(lit[looked], whole[looked])
        if len(few) == 3:
            assert not lit[~looked].any()  # the rest of the board was not looked at


@pytest.mark.parametrize("shape", [(37, 53, 3), (1, 0, 3), (1, 500, 3)])
def test_each_pixels_colour_is_the_tables_at_its_six_bit_index(shape: tuple[int, ...]) -> None:
    layout, colours, _players = game_layout("jivecat")
    reader = make_reader(layout, colours)
    img = np.random.default_rng(7).integers(0, 256, shape, dtype=np.uint8)
    q = img.astype(np.int32) >> 2
    want = reader._lut[(q[..., 0] << 12) | (q[..., 1] << 6) | q[..., 2]]
    got = reader._classify(img)
    assert got.shape == shape[:-1] and got.dtype == np.uint8
    assert np.array_equal(got, want)


def test_a_view_found_again_samples_what_working_it_out_anew_does_and_only_a_few_are_kept() -> None:
    layout, colours, players = game_layout("times_square")
    board = sample_boards("times_square", players, 2, 0)[1]
    frame = camera_for(layout, seed=3).frame(board)
    shifted = np.ascontiguousarray(np.roll(frame, (6, -9), axis=(0, 1)))  # the camera bumped
    moved = np.ascontiguousarray(np.roll(frame, (-4, 5), axis=(0, 1)))
    reader = make_reader(layout, colours)
    assert reader._locate(frame) is None
    first = reader._sampler
    assert first is not None
    first.whole(frame)
    assert reader._locate(frame) is None  # the same markers, seen the same: the same view
    again = reader._sampler
    assert again is not None and again is not first and again.small is None
    assert again.maps[0] is first.maps[0]  # taken from the kept view, not worked out again
    for other in (shifted, moved, frame):
        assert reader._locate(other) is None
        fresh = make_reader(layout, colours)
        assert fresh._locate(other) is None
        assert fresh._sampler is not None and reader._sampler is not None
        assert np.array_equal(reader._sampler.sample(other), fresh._sampler.sample(other))
        assert np.array_equal(reader._sampler.cells(other), fresh._sampler.cells(other))
        assert reader.frame_px_per_mm == fresh.frame_px_per_mm
        assert len(reader._views) <= 2
    assert reader._sampler.maps[0] is not first.maps[0]  # the first view was let go: only two kept


def test_an_arm_across_the_margin_is_read_without_fitting_the_light_again_at_every_frame() -> None:
    """A light fitted round an arm is fitted again once the arm may be gone, or when a fit is
    due: not at every frame the arm still lies across the margin (two fits and two flattenings
    of the whole board each)."""
    from companion.sim.camera.source import SyntheticSource
    from companion.vision.reader import REFIT_EVERY

    layout, colours, players = game_layout("swing_state")
    reader = make_reader(layout, colours)
    fits: list[bool] = []
    fit = reader._fit_light

    def counted(small: np.ndarray, margin: np.ndarray, away: np.ndarray | None = None) -> str:
        fits.append(away is not None)
        return fit(small, margin, away)

    reader._fit_light = counted  # type: ignore[method-assign]
    source = SyntheticSource(camera_for(layout, seed=3))
    source.show(sample_boards("swing_state", players, 2, 0)[1])
    assert reader.read(source.read()).view is not None
    arm_frames = 3 * REFIT_EVERY
    source.hand_over(arm_frames)
    fits.clear()
    readings = [reader.read(source.read()) for _ in range(arm_frames)]
    assert all(r.hand for r in readings)  # the arm is seen in every frame, fitted or not
    assert any(fits)  # the light was fitted round the arm (when a fit fell due)
    assert len(fits) <= arm_frames // 2  # was two at every frame (48 here)
    after = reader.read(source.read())  # the arm gone: the light fitted again, clear of it
    assert not after.hand and after.view is not None and fits[-1] is False


@pytest.mark.parametrize("seed", range(6))
def test_the_unexplained_opened_and_labelled_in_its_box_is_what_the_whole_board_gives(seed: int) -> None:
    from companion.vision.arms import _opened_components
    from companion.vision.mark_peaks import connected_components

    rng = np.random.default_rng(seed)
    unexplained = np.zeros((150, 210), bool)
    for _ in range(int(rng.integers(1, 10))):  # patches, threads and specks, some at the edges
        y, x = int(rng.integers(-3, 150)), int(rng.integers(-3, 210))
        unexplained[max(0, y):y + int(rng.integers(1, 30)), max(0, x):x + int(rng.integers(1, 30))] = True
    unexplained &= rng.random(unexplained.shape) < 0.85
    whole = cv2.morphologyEx(unexplained.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, components, stats, _ = connected_components(whole)
    found = _opened_components(unexplained)
    assert found is not None and n > 2
    mask, n_box, components_box, stats_box = found
    assert np.array_equal(mask, whole) and n_box == n
    assert np.array_equal(components_box, components)  # the same label for every component
    assert np.array_equal(stats_box[1:], stats[1:])
    assert _opened_components(np.zeros((40, 40), bool)) is None


def test_a_read_only_frame_found_still_is_not_sampled_again_and_a_real_change_is_always_read() -> None:
    """A camera that hands out the frames it keeps (read-only, as the simulated table's
    does) gives a still table's few frames over and over: one found still against the last
    board read is known still when it comes again.  A moved piece, a frame that can be
    written to (changed in place after it was read) or one found still against an older
    board is read as before."""
    from companion.sim.camera.source import SyntheticSource

    layout, colours, players = game_layout("swing_state")
    boards = sample_boards("swing_state", players, 3, 0)
    source = SyntheticSource(camera_for(layout, seed=3))
    source.show(boards[1])
    reader = make_reader(layout, colours)
    assert reader._sampler is None
    first = reader.read(source.read())
    assert first.view is not None and reader._sampler is not None
    sampled: list[int] = []
    cells = reader._sampler.cells

    def counted(frame: np.ndarray) -> np.ndarray:
        sampled.append(1)
        return cells(frame)

    reader._sampler.cells = counted  # type: ignore[method-assign]
    frames = [source.read() for _ in range(6)]  # three noise fields, twice
    assert all(not f.flags.writeable for f in frames) and frames[0] is frames[3]
    assert all(reader.read(f) is first for f in frames)
    assert len(sampled) == 3  # the second time round, each field's frame was known still
    # a frame of the same pixels that can be written to is sampled every time
    own = frames[0].copy()
    assert reader.read(own) is first and reader.read(own) is first and len(sampled) == 5
    own[:] = 0  # changed in place after it was read: read again, not taken as still
    assert reader.read(own) is not first and len(sampled) == 6
    # a piece moved: read, whatever frames were found still before
    source.show(boards[2])
    moved = reader.read(source.read())
    assert moved is not first and moved.view == boards[2] != boards[1]
    source.show(boards[1])
    back = [reader.read(source.read()) for _ in range(3)]
    assert back[0].view == boards[1] and all(r.view == boards[1] for r in back)
    # the frames found still against the first reading were let go when another board was
    # read: each is sampled again, against the board read now
    before = len(sampled)
    assert [reader.read(f).view for f in frames[:3]] == [boards[1]] * 3
    assert len(sampled) - before == 3


@pytest.mark.parametrize("seed", range(4))
def test_the_marks_contrast_from_whole_grey_levels_is_the_float_difference_towards_the_ink(seed: int) -> None:
    """``_peaks`` takes the contrast towards the ink as OpenCV's saturating difference of
    whole grey levels: the same numbers, bit for bit, as the float difference clipped at 0
    (in single precision, whose whole-number differences are exact), on light and dark bodies
    alike, and the same peaks and their values."""
    from companion.vision.mark_peaks import _median_where, _peaks, connected_components

    rng = np.random.default_rng(seed)
    for body in (40, 200):
        gray = np.clip(rng.normal(body, 30, (60, 64)), 0, 255).astype(np.uint8)
        for cy, cx in rng.integers(12, 50, (4, 2)):
            cv2.circle(gray, (int(cx), int(cy)), 3, 235 if body < 128 else 20, -1)
        mask = (rng.random(gray.shape) < 0.8).astype(np.uint8)
        filled = np.zeros_like(mask)
        filled[6:54, 6:58] = 1
        level, pip, contrast, whole, radius, window, n, centres, values = _peaks(gray, mask, filled, 2000.0)
        assert level == _median_where(gray, mask) and level == int(level)
        ink_way = np.float32(np.sign(pip - level))
        towards = (gray.astype(np.float32) - np.float32(level)) * ink_way  # the float way
        want = cv2.GaussianBlur(np.maximum(towards, 0) / np.float32(max(abs(pip - level), 30.0)), (0, 0),
                                max(0.8, 0.07 * radius))
        assert whole.dtype == want.dtype == np.float32 and np.array_equal(whole, want)
        want[filled == 0] = 0
        peaks = (want >= cv2.dilate(want, np.ones((window, window), np.uint8))) & (want > 0.12)
        n_want, _, _, centres_want = connected_components(peaks.astype(np.uint8))
        assert n == n_want > 1 and np.array_equal(centres, centres_want)
        assert np.array_equal(values, np.array([want[int(round(y)), int(round(x))]
                                                for x, y in centres_want[1:]], np.float32))


@pytest.mark.parametrize("seed", range(3))
def test_each_patchs_lighter_and_washed_out_shares_at_once_are_its_own_pass_over_it(seed: int) -> None:
    """``_lighter_shares`` works out every unexplained patch's share of pixels lighter than
    the empty board (and washed out) in one pass: the numbers each patch's own pass over its
    box gives, bit for bit."""
    from companion.vision.arms import _opened_components
    from companion.vision.glare import SHEEN_MIN

    layout, colours, _ = game_layout("swing_state")
    reader = make_reader(layout, colours)
    rng = np.random.default_rng(seed)
    shape = reader._reference.shape
    flat = np.clip(reader._reference.astype(np.int16) + rng.integers(-20, 40, shape), 0, 255).astype(np.uint8)
    unexplained = cv2.dilate((rng.random(shape[:2]) < 0.004).astype(np.uint8), np.ones((7, 7), np.uint8)) > 0
    found = _opened_components(unexplained)
    assert found is not None
    _, n, components, stats = found
    for washed_out in (None, rng.random(shape[:2]) < 0.4):
        reader.glare.washed_out = washed_out
        lighter, washed = reader._lighter_shares(flat, components, stats)
        assert n > 20 and 0 < lighter[1:].mean() < 1
        for k in range(1, n):
            x, y, w, h, _ = stats[k]
            region = components[y:y + h, x:x + w] == k
            pixels, empty = flat[y:y + h, x:x + w][region], reader._reference[y:y + h, x:x + w][region]
            brighter = (pixels.astype(np.int16) - empty.astype(np.int16)).min(axis=1)
            assert lighter[k] == float(np.mean(brighter > SHEEN_MIN))
            want = 0.0 if washed_out is None else washed_out[y:y + h, x:x + w][region].mean()
            assert washed[k] == want


def test_the_places_among_an_arms_pixels_counted_are_the_sorted_unique_ones() -> None:
    from companion.vision.arms import _places

    rng = np.random.default_rng(5)
    for size, top in ((0, 5), (7, 1), (5000, 40), (300, 0)):
        picked = rng.integers(-1, top + 1, size).astype(np.int32)
        want = np.unique(picked)
        assert np.array_equal(_places(picked), want[want >= 0])
    assert not len(_places(np.full(20, -1, np.int32)))


@pytest.mark.parametrize("size", [5, 13, 25])
def test_a_dilation_by_a_discs_rectangles_one_by_one_is_the_dilation_by_the_disc(size: int) -> None:
    from companion.vision.empty_board import _disc_as_rectangles

    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    rectangles = _disc_as_rectangles(disc)
    assert len(rectangles) < disc.shape[0]  # fewer passes than the disc has rows
    rng = np.random.default_rng(size)
    mask = (rng.random((90, 130)) < 0.01).astype(np.uint8)
    mask[0, 0] = mask[-1, 64] = 1  # at the edges too
    union = np.zeros_like(mask)
    for rectangle in rectangles:
        union = np.maximum(union, cv2.dilate(mask, rectangle))
    assert np.array_equal(union, cv2.dilate(mask, disc))


def test_a_marker_under_an_arms_edge_is_no_move_of_the_board_but_two_are_and_a_bumped_camera_is() -> None:
    """The board is searched for again (OpenCV's marker search, the light, the board kept and
    the marks' cache started afresh) only when it moved: a hand across one marker's edge
    among markers that fit is not a move."""
    reader, sampler, first = _reader_after_a_read("swing_state")
    small = sampler.sample(first)
    assert reader._still_fits(small)
    checks = reader._marker_checks
    assert len(checks) >= 4

    def edge_across(board: np.ndarray, check: tuple) -> None:
        rows, cols, bits = check  # a pale hand over most of the marker, its edge across it
        board[rows, cols.start:cols.start + (cols.stop - cols.start) * 17 // 20] = (165, 190, 220)
        patch = cv2.cvtColor(board[rows, cols], cv2.COLOR_BGR2GRAY)
        lo, hi = float(patch.min()), float(patch.max())
        assert hi - lo >= 40 and np.mean((patch > (lo + hi) / 2) != bits) > 0.35  # ink where white was

    one = small.copy()
    edge_across(one, checks[0])
    assert reader._still_fits(one)
    two = one.copy()
    edge_across(two, checks[1])
    assert not reader._still_fits(two)  # two markers off: more likely the board than two hands
    bumped = np.ascontiguousarray(np.roll(first, (18, -25), axis=(0, 1)))
    assert not reader._still_fits(sampler.sample(bumped))
    covered = small.copy()  # markers wholly covered say nothing: the rest must fit
    for rows, cols, _bits in checks[:-2]:
        covered[rows, cols] = (60, 70, 90)
    assert reader._still_fits(covered)
    edge_across(covered, checks[-1])
    assert not reader._still_fits(covered)  # one off and only one fitting: no board to trust


@pytest.mark.parametrize("seed", range(6))
def test_a_few_pixels_joined_to_a_piece_one_by_one_are_those_its_components_join(seed: int) -> None:
    """The sheen joined to a black piece, found from the few pixels beside it (an arm frame's
    shortcut), is what the components over the whole board find: through chains of such pixels,
    at the board's edges, never through a gap."""
    from companion.vision.dark_sheen import DarkSheen

    rng = np.random.default_rng(seed)
    piece = np.zeros((60, 90), bool)
    for _ in range(3):
        y, x = int(rng.integers(-4, 60)), int(rng.integers(-4, 90))
        piece[max(0, y):y + 8, max(0, x):x + 8] = True
    chains = np.zeros(piece.shape, np.uint8)
    for _ in range(8):  # strokes a pixel wide: joined only along them
        y0, x0, y1, x1 = (int(v) for v in rng.integers(-5, 95, 4))
        cv2.line(chains, (x0, y0), (x1, y1), 1, 1)
    chains[rng.random(piece.shape) < 0.04] = 1  # and specks
    ys, xs = np.nonzero(chains.astype(bool) & ~piece)
    got_y, got_x = DarkSheen._joined_sparse(piece, ys, xs)
    got = set(zip(got_y.tolist(), got_x.tolist(), strict=True))
    want = set(zip(*(a.tolist() for a in np.nonzero(DarkSheen._joined_dense(piece, ys, xs))), strict=True))
    assert got == want
    assert want and len(want) < len(ys)  # the draw joins some pixels and leaves others apart


def test_the_sheen_joined_to_black_on_a_board_read_round_an_arm_is_what_the_components_give() -> None:
    """An arm frame of Jivecat's (black skull tiles) read with the sheen joined one pixel at a
    time gives the labels the whole board's components give (many pixels: the long way too)."""
    from companion.sim.camera.render import Camera
    from companion.vision import dark_sheen

    layout, colours, players = game_layout("jivecat")
    reader = make_reader(layout, colours)
    board = sample_boards("jivecat", players, 6, 0)[-1]
    camera = Camera(layout, seed=3)
    reader.read(camera.frame(board))
    assert any(p.colour == "black" for stack in board.values() for p in stack)
    calls: list[tuple] = []
    joined = BoardReader._sheen_joined_to_black

    def kept(self: BoardReader, *args: object) -> np.ndarray:
        calls.append(tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args))
        return joined(self, *args)

    BoardReader._sheen_joined_to_black = kept  # type: ignore[method-assign]
    try:
        for sweep in (0.1, 0.4, 0.7):
            reader.read(camera.frame(board, hand=sweep))
    finally:
        BoardReader._sheen_joined_to_black = joined  # type: ignore[method-assign]
    assert calls
    changed = 0
    for flat, labels, as_empty, region in calls:
        sparse = joined(reader, flat, labels, as_empty, region)
        changed += not np.array_equal(sparse, labels)
        limit = dark_sheen.SPARSE_SHEEN
        dark_sheen.SPARSE_SHEEN = -1  # every pixel joined by the components over the board
        try:
            whole = joined(reader, flat, labels, as_empty, region)
        finally:
            dark_sheen.SPARSE_SHEEN = limit
        assert np.array_equal(sparse, whole)
    assert changed  # the sheen was joined to a tile: the shortcut was exercised


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 8])
def test_the_markers_sharpness_median_of_a_few_is_numpys(n: int) -> None:
    from companion.vision.locating import _median

    values = np.random.default_rng(n).uniform(0.5, 4.0, n).tolist()
    assert _median(sorted(values)) == pytest.approx(float(np.median(values)), abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_faces_tint_judged_from_channel_histograms_is_what_sorting_its_pixels_gives(seed: int) -> None:
    """``tinted_grey`` takes each channel's median from its histogram under the face, not by
    sorting every pixel: on faces of an odd count of pixels the two are the same level, and
    the judgement the same as with numpy's median."""
    from companion.vision.classifying import GREY_TINT_MAX, TINT_COSINE, TINTED
    from companion.vision.mark_peaks import channel_medians

    rng = np.random.default_rng(seed)
    layout, colours, _n = game_layout("times_square", None)
    reader = make_reader(layout, colours)
    greys = [i for i, c in enumerate(reader._centroid_bgr) if float(np.ptp(c)) < TINTED]
    assert greys
    for _ in range(20):
        base = rng.integers(150, 250, 3)
        flat = np.clip(base + rng.normal(0, 6, (21, 23, 3)), 0, 255).astype(np.uint8)
        own = rng.random((21, 23)) < 0.7
        if np.count_nonzero(own) % 2 == 0:
            own[0, 0] = not own[0, 0]
        sorted_median = np.median(flat[own].astype(np.float32), axis=0)
        assert channel_medians(flat, own.astype(np.uint8)).tolist() == sorted_median.tolist()
        tint = sorted_median - sorted_median.mean()
        size = float(np.linalg.norm(tint))
        for index in greys:
            expected = size >= GREY_TINT_MAX and any(
                float(np.ptp(c)) >= TINTED and float(tint @ (c - c.mean())) >= TINT_COSINE * size * float(
                    np.linalg.norm(c - c.mean())) for c in reader._centroid_bgr[:len(reader._piece_names)])
            assert reader.tinted_grey(index, flat, own) == expected


def test_a_pieces_marks_are_read_again_only_where_a_change_reached_them() -> None:
    """A die beside a change has its blob read again (its neighbours' pixels changed round
    it), but its marks depend on its own box only: they are not counted again while its box
    looks as it did when they were, however many frames ago that was (a Baron Voodoo game's
    moves, each board shown once: 0.75 dice a move counted again at unchanged places before).
    Every board is still read right."""
    from companion.vision import piece_marks
    from companion.vision.geometry import MARGIN_MM
    from companion.vision.reading import SCALE

    layout, colours, players = game_layout("baron_voodoo")
    boards = sample_boards("baron_voodoo", players, 12, 0)
    camera = camera_for(layout, seed=3)
    reader = make_reader(layout, colours)
    counted: list[str | None] = []
    read_pips = piece_marks.PieceMarks._read_pips

    def counting(self: BoardReader, frame: np.ndarray, index: int, bx: int, by: int, bw: int, bh: int,
                 *args: object, **kwargs: object) -> tuple[int, bool, bool]:
        counted.append(self._spot_at((bx + bw / 2) / SCALE - MARGIN_MM, (by + bh / 2) / SCALE - MARGIN_MM))
        return read_pips(self, frame, index, bx, by, bw, bh, *args, **kwargs)

    again = 0
    for before, board in zip(boards, boards[1:], strict=False):
        if before is boards[0]:
            assert reader.read(camera.frame(before)).view == before
        counted.clear()
        piece_marks.PieceMarks._read_pips = counting  # type: ignore[method-assign]
        try:
            reading = reader.read(camera.frame(board))
        finally:
            piece_marks.PieceMarks._read_pips = read_pips  # type: ignore[method-assign]
        assert reading.view == board and not reading.doubtful
        changed = {s for s in set(board) | set(before) if board.get(s) != before.get(s)}
        again += sum(1 for spot in counted if spot not in changed)
    assert again == 0


def test_components_labelled_in_their_box_are_the_whole_masks() -> None:
    """``board_map.components_in_box`` labels only the box round a mask's pixels (a board's
    pieces lie in part of it) and must give what OpenCV gives for the whole mask: the same
    labels in the same order, boxes, areas and centres (the background's too), for blobs at
    odd and even offsets, touching the mask's edges or not, and for an empty mask."""
    rng = np.random.default_rng(40)
    for trial in range(300):
        h, w = int(rng.integers(20, 90)), int(rng.integers(20, 90))
        mask = np.zeros((h, w), np.uint8)
        for _ in range(int(rng.integers(0, 6))):
            y, x = int(rng.integers(0, h)), int(rng.integers(0, w))
            dy, dx = int(rng.integers(1, 15)), int(rng.integers(1, 15))
            mask[y:y + dy, x:x + dx] = rng.random((len(range(h)[y:y + dy]), len(range(w)[x:x + dx]))) < 0.8
        n, labels, stats, centres = connected_components(mask)
        n2, labels2, stats2, centres2 = components_in_box(mask)
        assert n2 == n and np.array_equal(labels2, labels) and np.array_equal(stats2, stats), trial
        assert np.allclose(centres2, centres, rtol=0, atol=1e-9), trial
