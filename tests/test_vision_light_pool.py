"""A lamp's pool of light inside the board is light, not something over the board (issue 40).

The light is fitted to the white margin round the board (and its tone to the printed
surfaces); a lamp low or near the table, or a silk print's broad sheen, lights the inside of
the board more than a fit to the ring of paper can show.  What the fit leaves is measured on
the print where no piece can stand and taken off (``Light.refine``, ``light.pool_field``);
before that, the tuning split's Jivecat frame at 30 degrees under the overhead lamp on silk
paper doubted seven empty places beside the Staff as "glare?".
"""

from __future__ import annotations

import cv2
import numpy as np
from committed_frames import kept_reading, read_right, reading_of

from companion.vision.light import POOL_CELL, POOL_SLACK, pool_field


def _pool(shape: tuple[int, int], centre: tuple[float, float], sigma: float, lift: float) -> np.ndarray:
    h, w = shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    return 1.0 + lift * np.exp(-((xs - centre[0]) ** 2 + (ys - centre[1]) ** 2) / (2 * sigma ** 2))


def test_a_pool_of_light_on_the_print_is_measured_where_no_piece_stands() -> None:
    """A smooth pool lifting the print by up to 30 %, with dark pieces and white glare over
    part of it: the field found is the pool's (log share, less the slack the flattening
    tolerates anyway) within a few percent nearly everywhere, and never more than the pool
    (its steepest core is smoothed, taken off a little short); the pieces do not pull it down
    nor the glare up."""
    rng = np.random.default_rng(5)
    h, w = 320, 480
    reference = np.zeros((h, w, 3), np.uint8)
    reference[:] = (150, 180, 200)
    reference[::24, :] = (90, 110, 130)  # the print's lines
    reference[:, ::24] = (90, 110, 130)
    pool = _pool((h, w), (150, 120), 90, 0.3)
    flat = np.clip(reference * pool[..., None] + rng.normal(0, 2, (h, w, 3)), 0, 255).astype(np.uint8)
    measure = np.ones((h, w), bool)
    for x, y in ((100, 100), (200, 160), (300, 60)):  # pieces stand on places, not measured there
        cv2.circle(flat, (x, y), 8, (30, 30, 30), -1)
        measure[y - 11:y + 12, x - 11:x + 12] = False
    cv2.circle(flat, (160, 200), 6, (30, 30, 30), -1)  # a dark piece leaning past its place's edge
    cv2.circle(flat, (250, 250), 7, (255, 255, 255), -1)  # a white glint
    field = pool_field(flat, reference, measure)
    assert field is not None
    gh, gw = field.shape[:2]
    truth = np.maximum(np.log(cv2.resize(pool, (gw, gh), interpolation=cv2.INTER_AREA)) - POOL_SLACK, 0)
    inner = (slice(1, gh - 1), slice(1, gw - 1))
    off = field[inner] - truth[inner][..., None]
    assert float(np.median(np.abs(off))) < 0.02 and float(np.percentile(np.abs(off), 95)) < 0.05
    assert float(off.max()) < 0.03
    assert field.shape == (h // POOL_CELL, w // POOL_CELL, 3)


def test_no_pool_no_change_and_shade_is_no_pool() -> None:
    """The board as the fit left it, the empty board within noise, or darker than the fit
    over a broad patch (the shade of a figure, a hand's outskirts): nothing to take off."""
    rng = np.random.default_rng(6)
    reference = np.full((320, 480, 3), (150, 180, 200), np.uint8)
    flat = np.clip(reference + rng.normal(0, 2, reference.shape), 0, 255).astype(np.uint8)
    everywhere = np.ones(reference.shape[:2], bool)
    assert pool_field(flat, reference, everywhere) is None
    shaded = flat.copy()
    shaded[80:240, 100:300] = (shaded[80:240, 100:300] * 0.82).astype(np.uint8)
    assert pool_field(shaded, reference, everywhere) is None


def test_jivecat_under_a_pool_of_light_reads_the_places_beside_the_staff() -> None:
    """jivecat-t30-b1 (tuning split: overhead lamp, silk print, 30 degrees): the empty places
    beside the Staff were "glare?" (the print there lit past the margin's fit); read now,
    every place right."""
    read_right("jivecat-t30-b1", ("L25", "L26", "L27", "L28", "L29", "S5", "S6"))
    _frame, _layout, reading = reading_of("tune", "jivecat-t30-b1")
    assert not reading.doubtful and not reading.hand


def test_a_spot_lamps_pool_over_a_track_of_places_is_no_hand() -> None:
    """Swing State from the side at 30 degrees under a spot lamp: the lamp's pool lifts the
    track a quarter past what the margin's fit gives, and the print free of places lies
    only at the board's middle and right.  Measured there, the pool faded before the track
    and the lit track was one patch reaching in from the board's edge: a hand over all 73
    places.  Measured on the places too (where the first measure leaves the patch taken for
    an arm unexplained), the patch is the empty board: no hand, and the places read."""
    frame, layout, reading = reading_of("tune", "swing_state-t30-b0-side")
    assert reading.view is not None and not reading.hand, reading.problem
    doubts = reading.doubtful or {}
    assert "under a hand or arm" not in set(doubts.values())
    assert len(doubts) < len(layout.spots) // 2
    for spot, pieces in frame.view.items():
        assert spot in doubts or reading.view.get(spot) == pieces, spot


def test_a_pool_no_print_shows_is_measured_on_the_places_before_a_hand_is_seen() -> None:
    """swing_state-t10-b37 (held out: a window's light on a laminated print, 10 degrees, kept
    once mended): the print free of places showed no pool, and that "none" was taken as known
    for the light, so the measure on the places (``Arms._pool_for_an_arm``) was never made and
    the lit track stood as a hand over the board: 17 empty places asked, five of them "under a
    hand or arm".  Measured on the places too, the patch is light: no hand, those places read
    empty, and no place read wrong."""
    frame, reading = kept_reading("swing_state-t10-b37", "test")
    assert reading.view is not None and not reading.hand, reading.problem
    doubts = reading.doubtful or {}
    assert "under a hand or arm" not in set(doubts.values())
    for spot in ("r1-00", "r1-06-red", "r1-06-blue", "r1-07", "r1-08-red", "r2-05", "r2-27-red", "r3-00"):
        assert spot not in doubts and not reading.view.get(spot), spot
    for spot, pieces in frame.view.items():
        assert spot in doubts or reading.view.get(spot) == pieces, spot


def test_a_dark_place_under_a_silk_sheen_is_the_print_and_a_hand_over_the_print_is_not() -> None:
    """jivecat-t30-b2 (tuning split: desk lamp, silk print, 30 degrees): the grey Staff place
    lifted 23-26 levels alike in every channel, its tint kept, was "glare?" (36 from the grey
    chips' colour, which has no tint to keep); read now, the frame exact.  A hand over the
    print lifts the channels unevenly: the places a hand covers on jivecat-t20-b0-hand stay
    asked (a faint stray judged by the tinted pieces alone had read them empty)."""
    read_right("jivecat-t30-b2", ("S8", "N28", "N29"))
    _frame, _layout, reading = reading_of("tune", "jivecat-t30-b2")
    assert not reading.doubtful and not reading.hand
    frame, _layout, reading = reading_of("tune", "jivecat-t20-b0-hand")
    covered = set(frame.truth["hand"]["covered"])
    assert {"N05", "N09", "N14", "N15"} <= covered
    assert covered <= set(reading.doubtful or {})
