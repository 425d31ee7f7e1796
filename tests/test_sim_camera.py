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


def test_a_frozen_frame_is_the_kept_one_read_only_and_equal_to_the_copy() -> None:
    """The simulated table's source takes frames as kept (no copy of 2.7 MB a frame): read-only,
    the same object for the same board, noise field and sweep, and the pixels of a copy."""
    camera, view = camera_and_view()
    copies, plain = camera_and_view()
    for hand in (None, None, None, None, 0.3, 0.3, 0.3, 0.3, None):
        frozen, copy = camera.frame(view, hand, frozen=True), copies.frame(plain, hand)
        assert not frozen.flags.writeable and copy.flags.writeable
        assert np.array_equal(frozen, copy)
    three = [camera.frame(view, frozen=True) for _ in range(6)]
    assert three[0] is three[3] and three[1] is three[4] and three[0] is not three[1]
    resting = [camera.frame(view, 0.5, frozen=True) for _ in range(4)]
    assert resting[0] is resting[3] and resting[0] is not three[0]
    mine = camera.frame(view)  # not frozen: the caller's own, as before
    mine[:] = 0
    assert camera.frame(view, frozen=True).mean() > 30


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


def test_a_resting_arm_is_drawn_once_and_again_on_a_changed_board() -> None:
    """The arm's part is kept for the sweep last drawn: the same sweep gives the same frame
    (by noise field) as a camera drawing it afresh; a new board or sweep draws it again."""
    camera, view = camera_and_view()
    fresh, _ = camera_and_view()
    for sweep in (0.3, 0.3, 0.3, 0.3, 0.47):
        assert np.array_equal(camera.frame(view, sweep), fresh.frame(view, sweep))
    # a piece laid in the arm's part of the frame, beside the arm: the part kept for this
    # sweep shows the board before it, so it must be drawn again
    rows, cols = camera._arm_box(0.47)
    arm = np.zeros((*camera.background.shape[:2],), np.uint8)
    camera._draw_arm(arm, 0.47)
    empty_spots = [s.id for s in camera.layout.spots if not view.get(s.id)]
    spot = next(s for s in empty_spots
                if (p := camera.pieces_in_frame({s: (Piece("white", 6),)})[0])
                and rows.start + 20 < p[2] < rows.stop - 20 and cols.start + 20 < p[1] < cols.stop - 20
                and not arm[int(p[2]) - 20:int(p[2]) + 20, int(p[1]) - 20:int(p[1]) + 20].any())
    moved = {**view, spot: (Piece("white", 6),)}
    before = camera.frame(view, 0.47)
    fresh.frame(view, 0.47)  # the two cameras keep the same noise field
    for _ in range(4):
        assert np.array_equal(camera.frame(moved, 0.47), fresh.frame(moved, 0.47))
    (_, x, y, r), = camera.pieces_in_frame({spot: moved[spot]})
    after = camera.frame(moved, 0.47)
    patch = (slice(int(y - r / 2), int(y + r / 2)), slice(int(x - r / 2), int(x + r / 2)))
    assert np.abs(after[patch].astype(int) - before[patch].astype(int)).mean() > 20


def test_a_resting_hand_is_drawn_still_after_its_reach_and_a_moving_one_sweeps() -> None:
    from companion.sim.camera.source import SyntheticSource

    camera, view = camera_and_view()
    source = SyntheticSource(camera)
    source.show(view)
    swept: list[float | None] = []
    camera.frame = lambda _view, hand=None, frozen=False: swept.append(hand)  # type: ignore[method-assign]
    source.hand_over(3)  # the arm reaching in to move a piece: three frames, moving
    source.read()
    source.hand_over(5, resting=True)  # then left lying on the table
    for _ in range(7):
        source.read()
    assert all(s is not None for s in swept[:6]) and swept[6:] == [None, None]
    assert len(set(swept[:3])) == 3  # the reach moves: its last two frames, then rests
    assert len(set(swept[2:6])) == 1
    source.hand_over(4)  # a hand reaching about again moves at every frame
    for _ in range(4):
        source.read()
    assert len(set(swept[8:])) == 4 and swept[5] not in swept[8:]


def test_a_drifting_lights_gains_through_a_look_up_table_are_the_float_scaling() -> None:
    from companion.sim.camera.conditions import channel_gains

    camera, view = camera_and_view()
    frame = camera.frame(view)
    for part in (0.0, 0.07, 0.3):
        gains = np.array([1.0 - part, 1.0 - 0.7 * part, 1.0 - 0.3 * part], np.float32)
        want = np.clip(frame.astype(np.float32) * gains, 0, 255).astype(np.uint8)
        assert np.array_equal(channel_gains(frame, gains), want)
    bright = np.array([1.2, 1.0, 0.5], np.float32)  # above 1 clips at white, as the floats do
    assert np.array_equal(channel_gains(frame, bright),
                          np.clip(frame.astype(np.float32) * bright, 0, 255).astype(np.uint8))


def test_a_bumped_camera_a_cup_and_the_light_kept_by_what_was_drawn_give_the_frames_made_each_time() -> None:
    import random

    from companion.sim.faults import DRIFT_FRAMES, MOVED_KEPT, CafeCamera, FaultLog, FaultModel

    camera, view = camera_and_view("times_square")
    spot = camera.layout.spots[0].id
    other = {**view, spot: (*view.get(spot, ()), Piece("white", 6))}
    model = FaultModel(bump=1.0, cup=1.0, drift=1.0)
    boards = [view] * 9 + [other] * 6 + [view] * 6  # still, a change, and back
    sweeps = [None] * 12 + [0.1, 0.3, 0.3, 0.3] + [None] * 5  # an arm reaching, then resting
    # while the light drifts (its table changes at most frames), and once it has drifted
    for start, want_warped in ((DRIFT_FRAMES // 2, len(boards)), (DRIFT_FRAMES, 13)):
        kept, plain = (CafeCamera(model, random.Random(11), FaultLog(), camera) for _ in range(2))
        for cafe in (kept, plain):  # bumped, and a cup on the board, from the first frame on
            cafe.frames, cafe.bump_at, cafe.cup_at = start, start + 1, start + 1
        warped = []
        real = kept._bumped
        kept._bumped = lambda frame, real=real, warped=warped: warped.append(1) or real(frame)  # type: ignore
        for board, sweep in zip(boards, sweeps, strict=True):
            frame = camera.frame(board, sweep)
            assert camera.drawn is not None and camera.drawn[2] == sweep
            got, want = kept.apply(frame.copy(), camera.drawn), plain.apply(frame.copy())
            assert np.array_equal(got, want)
            assert not got.flags.writeable  # handed out as kept: read-only, nobody changes it
        # drifted: warped once per noise field for each still board, and the arm at each sweep
        # and field: 3 + 3 + 4, and 3 again for the first board (let go for the ones drawn since)
        assert len(warped) <= want_warped and len(kept._moved) <= MOVED_KEPT
        if start == DRIFT_FRAMES:
            assert len(warped) == want_warped


def test_an_arm_finished_band_by_band_is_the_arms_box_finished_whole() -> None:
    """Only the pixels the arm drew are lit and noised again (in each band of rows, the box
    of what it touched): the frame is the one the arm's whole box finished again gives."""
    camera, view = camera_and_view()
    [camera.frame(view) for _ in range(3)]
    assert camera._cache is not None
    _, warped, finished = camera._cache
    for sweep in (0.0, 0.17, 0.5, 0.83, 1.0):
        got = camera.frame(view, sweep)
        field = camera._count % 3
        rows, cols = camera._arm_box(sweep)
        part = warped[rows, cols].copy()
        camera._draw_arm(part, sweep, offset=(cols.start, rows.start))
        want = finished[field].copy()
        want[rows, cols] = camera._finish(part, field, (rows, cols))
        assert np.array_equal(got, want)


def _whole_frame_arm(arm: object, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An arm drawn as the simulated camera drew one before it worked in the arm's box (its
    shadow blurred over the whole frame, the whole frame shaded and painted), and its shadow."""
    import cv2

    from companion.sim.camera.conditions import SHADOW_BLUR, SHADOW_DEPTH

    box, body, hand, _ = arm._masks_in_box(frame.shape)  # type: ignore[attr-defined]
    bx, by = arm.base  # type: ignore[attr-defined]
    tx, ty = arm.tip  # type: ignore[attr-defined]
    d = np.array([tx - bx, ty - by])
    d /= max(np.linalg.norm(d), 1e-6)
    n = np.array([-d[1], d[0]]) * arm.width / 2  # type: ignore[attr-defined]
    wrist = np.array([tx, ty]) - d * 70
    outline = np.array([[bx + n[0], by + n[1]], [bx - n[0], by - n[1]],
                        [wrist[0] - 0.8 * n[0], wrist[1] - 0.8 * n[1]],
                        [wrist[0] + 0.8 * n[0], wrist[1] + 0.8 * n[1]]], np.int32)
    angle = float(np.degrees(np.arctan2(d[1], d[0])))
    shadow = np.zeros(frame.shape[:2], np.float32)
    cv2.fillConvexPoly(shadow, outline + np.array([35, 25], np.int32), 1.0)
    cv2.ellipse(shadow, (int(tx) + 35, int(ty) + 25), (70, 50), angle, 0, 360, 1.0, -1)
    shadow = cv2.GaussianBlur(shadow, (0, 0), SHADOW_BLUR)
    out = frame.astype(np.float32) * (1.0 - SHADOW_DEPTH * shadow)[..., None]
    for mask, colour in ((body, arm.sleeve or arm.skin), (hand, arm.skin)):  # type: ignore[attr-defined]
        rim = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
        shade = 0.75 + 0.25 * np.clip(rim / 25.0, 0, 1)
        paint = np.array(colour, np.float32)[None, None, :] * shade[..., None]
        out = np.where(mask[..., None] > 0, paint, out)
    return np.clip(out, 0, 255).astype(np.uint8), shadow


def test_an_arm_drawn_in_its_box_is_the_arm_drawn_over_the_whole_frame() -> None:
    """``Arm.draw`` blurs the shadow and paints only in the box the arm and its shadow reach:
    the frame is the same to the bit as drawn whole, the arm reaching past the frame's edges too."""
    from companion.sim.camera.conditions import Arm
    from companion.sim.camera.render import FRAME_W

    rng = np.random.default_rng(11)
    frame = rng.integers(0, 256, (FRAME_H, FRAME_W, 3), dtype=np.uint8)
    tips = [None, (-30.0, 200.0), (FRAME_W + 20.0, 100.0), (640.0, -40.0), (900.0, FRAME_H + 10.0)]
    shadowed = 0
    for k in range(12):
        arm = Arm.random(np.random.default_rng(k), tone=k % 6)
        tip = tips[k % len(tips)]
        if tip is not None:
            arm = arm.moved(tip)
        whole, whole_shadow = _whole_frame_arm(arm, frame)
        assert np.array_equal(arm.draw(frame), whole), (k, arm)
        body, hand, shadow = arm.masks(frame.shape)
        assert np.array_equal(shadow, whole_shadow), (k, arm)  # (to the float's last bit)
        assert body.any() and hand.any()
        shadowed += float(shadow.max()) > 0.5  # (one along the frame's right edge casts it off the frame)
    assert shadowed >= 10


def test_cameras_of_one_seed_share_its_noise_and_no_camera_can_change_it() -> None:
    """A seed's sensor-noise fields are drawn once and kept (``noise_fields``): a second camera
    of that seed gets the same numbers, read-only; another seed gets its own."""
    from companion.sim.camera.render import noise_fields

    camera, view = camera_and_view()
    again = Camera(camera.layout, seed=5)
    assert np.array_equal(camera.frame(view), again.frame(view))
    fields = noise_fields(5, 6.0)
    assert all(not f.flags.writeable for f in fields)
    fresh = np.random.default_rng(5).normal(0, 6.0, (90, fields[0].shape[1], 3)).astype(np.float32)
    assert np.array_equal(fields[0][:90], fresh)  # the seed's generator's first numbers, in order
    assert not np.array_equal(noise_fields(6, 6.0)[0][:90], fields[0][:90])
