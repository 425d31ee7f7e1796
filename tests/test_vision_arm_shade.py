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
