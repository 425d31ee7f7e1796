"""A piece's cast shadow on the empty board is light, not a thing (``cast_shadow``): the print
dimmed alike in every channel, its detail still showing, with a piece near enough to cast it.
A dark piece, a hand's colour, or a patch with no caster stays in doubt."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from committed_frames import read_right

from companion.vision.cast_shadow import SHADOW_REACH_MM, cast_shadow
from companion.vision.empty_board import EmptyBoard
from companion.vision.reading import SCALE

BOARD = np.array([175, 205, 220], np.float32)  # the print's beige (BGR)


def _judge(seen: np.ndarray, reference: np.ndarray, caster_gap: int | None = 4) -> bool:
    """The patch rows 20-39, columns 20-39 of ``seen`` judged against ``reference``, a piece's
    blob ``caster_gap`` px to its right (None: no piece at all)."""
    components = np.zeros(reference.shape[:2], np.int32)
    components[20:40, 20:40] = 1
    blobs = np.zeros(reference.shape[:2], np.int32)
    if caster_gap is not None:
        blobs[20:40, 40 + caster_gap:56 + caster_gap] = 1
    detail = SimpleNamespace(_reference=reference)
    return cast_shadow(seen, reference, components, 1, np.array([20, 20, 20, 20, 400]), blobs,
                       lambda region, x, y, flat: EmptyBoard._print_detail(detail, region, x, y, flat))


def _board(lines: bool = False) -> np.ndarray:
    board = np.tile(BOARD, (100, 100, 1))
    if lines:  # a printed line every 6 px: detail the shadow must keep
        board[:, ::6] *= 0.55
    return board.astype(np.uint8)


def _dimmed(reference: np.ndarray, by: tuple[float, float, float]) -> np.ndarray:
    seen = reference.astype(np.float32).copy()
    seen[20:40, 20:40] *= np.array(by, np.float32)
    return np.clip(seen, 0, 255).astype(np.uint8)


def test_the_board_dimmed_alike_beside_a_piece_is_its_shadow() -> None:
    plain, lined = _board(), _board(lines=True)
    assert _judge(_dimmed(plain, (0.8, 0.8, 0.8)), plain)
    assert _judge(_dimmed(lined, (0.7, 0.72, 0.7)), lined)  # the print's lines show through it


def test_a_dark_piece_a_tinted_patch_or_no_caster_is_no_shadow() -> None:
    plain, lined = _board(), _board(lines=True)
    assert not _judge(_dimmed(plain, (0.15, 0.15, 0.15)), plain)  # darker than a shadow: a black piece
    assert not _judge(_dimmed(plain, (0.6, 0.75, 0.95)), plain)  # a hand's warmth, not the board dimmed
    assert not _judge(_dimmed(plain, (0.8, 0.8, 0.8)), plain, caster_gap=None)  # nothing casts it
    far = int(SHADOW_REACH_MM * SCALE) + 2
    assert not _judge(_dimmed(plain, (0.8, 0.8, 0.8)), plain, caster_gap=far)
    flat_over_lines = lined.copy()
    flat_over_lines[20:40, 20:40] = (BOARD * 0.7).astype(np.uint8)  # the lines hidden: a thing over it
    assert not _judge(flat_over_lines, lined)
    spotted = _dimmed(plain, (0.8, 0.8, 0.8))
    spotted[22:38, 22:30] = (60, 90, 140)  # another colour inside it
    assert not _judge(spotted, plain)


def test_the_dice_shadows_on_empty_places_are_read_through() -> None:
    # Baron Voodoo from straight above under a low lamp: the dice's shadows on empty places
    # A7, C6 and D2 were "something over it (a hand, a shadow)?"
    read_right("baron_voodoo-t00-b0-falloff", ("A7", "C6", "D2"))
