"""A standing figure's cast shadow classed black, taken off its blob (stop 114).
By a figure's foot its shadow leaves the board a quarter to a half of its light: it is classed
black, one of Times Square's piece colours, joins the dancer's blob and widens it, so the place
was asked "pieces touching?" (a yellow dancer's blob 32 x 21 px), or the shadow was read as a
black piece beside the dancer.  Every figure's shadow on a frame points one way, reaches about
as far and is dimmed alike: learned from the figures shaped as one, a dark part of a figure's
blob that way off its foot, within that reach, no wider and dimmed as they are is its shadow.
A black piece on the lamp's side, aside, past the reach, wider or darker stays."""

from __future__ import annotations

import numpy as np
from committed_frames import read_right

from companion.vision.figure_shadows import FrameShadow, Shadow, frame_shadow, measure_shadow, shadow_tail

FRAME = FrameShadow(way=(1.0, 0.0), reach=20.0, share=0.4)  # shadows point +x, 20 px, 0.4 of the light


def _figure_and_dark(x0: int, x1: int, y0: int = 14, y1: int = 22) -> tuple[np.ndarray, np.ndarray]:
    """A 12 px figure (rows and columns 12..24 of a 40 x 60 box) and a dark patch of it."""
    figure = np.zeros((40, 60), bool)
    figure[12:24, 12:24] = True
    dark = np.zeros_like(figure)
    dark[y0:y1, x0:x1] = True
    return figure, dark


def test_a_shadow_the_frame_s_way_off_the_foot_within_its_reach_and_dimmed_alike_is_a_tail() -> None:
    figure, dark = _figure_and_dark(22, 36)
    share = np.full(figure.shape, 0.42, np.float32)
    assert shadow_tail(dark, figure, share, (18.0, 18.0), FRAME)


def test_a_black_piece_on_the_lamp_s_side_aside_too_far_too_wide_or_too_dark_is_no_tail() -> None:
    share = np.full((40, 60), 0.42, np.float32)
    foot = (18.0, 18.0)
    figure, lamp_side = _figure_and_dark(0, 14)  # toward the lamp
    assert not shadow_tail(lamp_side, figure, share, foot, FRAME)
    figure, aside = _figure_and_dark(14, 22, 24, 38)  # off the shadow's line
    assert not shadow_tail(aside, figure, share, foot, FRAME)
    figure, long = _figure_and_dark(22, 50)  # longer than the frame's shadows
    assert not shadow_tail(long, figure, share, foot, FRAME)
    figure, wide = _figure_and_dark(22, 36, 4, 36)  # wider than the figure casting it
    assert not shadow_tail(wide, figure, share, foot, FRAME)
    figure, dark = _figure_and_dark(22, 36)
    black = np.full((40, 60), 0.15, np.float32)  # a black piece's own share of the light
    assert not shadow_tail(dark, figure, black, foot, FRAME)


def test_the_frame_s_shadow_is_learned_from_figures_that_agree() -> None:
    east = Shadow((1.0, 0.0), 0.9, 18.0, 0.4)
    north_east = Shadow((0.9, -0.436), 0.9, 22.0, 0.44)  # 26 degrees apart: one lamp
    assert frame_shadow([east]) is None  # one figure is no consensus
    assert frame_shadow([east, Shadow((-1.0, 0.0), 0.9, 18.0, 0.4)]) is None  # two ways: none learned
    learned = frame_shadow([east, north_east, Shadow((0.0, 1.0), 0.9, 40.0, 0.2)])  # (the third: astray)
    assert learned is not None and learned.reach == 22.0 and abs(learned.share - 0.42) < 1e-6
    assert learned.way[0] > 0.9 and learned.way[1] < 0


def test_a_figure_s_shadow_is_measured_as_the_dimmed_board_joined_to_it() -> None:
    figure = np.zeros((61, 61), bool)
    figure[25:36, 25:36] = True
    share = np.ones(figure.shape, np.float32)
    share[27:34, 36:52] = 0.4  # its shadow, +x off the foot
    share[5:12, 5:12] = 0.4  # another's, not joined to it
    shadow = measure_shadow(share, figure, np.ones(figure.shape, bool), (30.5, 30.5))
    assert shadow is not None and shadow.way[0] > 0.99 and 20 <= shadow.reach <= 22
    assert abs(shadow.share - 0.4) < 1e-6
    assert measure_shadow(np.ones(figure.shape, np.float32), figure, np.ones(figure.shape, bool),
                          (30.5, 30.5)) is None  # no shadow at all


def test_a_dancer_s_shadow_read_as_a_black_piece_is_taken_off_its_blob() -> None:
    """The blue dancer's shadow beside the pink one on s8 was read as a black piece there,
    asked "pieces touching?": both dancers are read, nothing else."""
    read_right("times_square-t20-b2-more", ("s8", "s9"))


def test_a_dancer_s_shadow_widening_its_blob_no_longer_asks_pieces_touching() -> None:
    read_right("times_square-t10-b19-vga", ("c13", "c14", "s13", "s14"))
