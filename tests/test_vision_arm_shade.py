"""A hand paler than the print under it: the arm is seen short of its fingertip, and the shade
on the unseen fingertip is the colour of a black piece (issue 40's tuning ledger entry)."""

from __future__ import annotations

from committed_frames import read_committed

from companion.vision.reading import UNDER_A_HAND


def test_a_black_piece_where_a_pale_fingertip_lies_is_under_the_hand_not_read() -> None:
    frame, layout, _reader, reading = read_committed("tune", "swing_state-t10-b0-hand")
    assert reading.hand and reading.view is not None
    doubtful = dict(reading.doubtful or {})
    assert doubtful.get("r2-10-red") == UNDER_A_HAND  # the fingertip's shade, not a black pawn
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)


def test_without_a_hand_a_black_piece_is_read_as_before() -> None:
    """No arm over the board: the black pawns of a Swing State board are read, not doubted."""
    frame, _layout, _reader, reading = read_committed("tune", "swing_state-t10-b1")
    assert not reading.hand and reading.view is not None
    blacks = [spot for spot, held in frame.view.items() if any(p.colour == "black" for p in held)]
    assert blacks
    assert all(reading.view.get(spot) == frame.view.get(spot) for spot in blacks)


def test_a_glossy_papers_sheen_at_the_boards_edge_is_no_arm() -> None:
    """Jivecat, tuning split, 30 degrees, a desk lamp on silk paper: the lamp's broad sheen
    lifts the print at the board's near edge evenly and smoothly, over a hand's size, and no
    arm crosses the margin.  It is the board under a reflection, not a light sleeve: no hand,
    no place "under a hand or arm" (eight were, and the board was kept from the stabiliser),
    nothing read wrong."""
    frame, layout, _reader, reading = read_committed("tune", "jivecat-t30-b2")
    assert not frame.hand
    assert not reading.hand and reading.view is not None
    doubtful = dict(reading.doubtful or {})
    assert UNDER_A_HAND not in doubtful.values()
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)
