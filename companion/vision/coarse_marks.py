"""What a frame too coarse for a die's pips still lets the reader say of a piece's marks.

Under ``MARKS_PX_PER_MM`` a pip is two frame pixels across and a frame pixel a tenth of a
die's face (a 640x480 webcam over a game board, or a 720p one far off to a side).  The
physically based VGA scenes (stop 82) showed what goes wrong there and not nearer: a lone
pip's place on the top judged against an outline blurred a pixel in, marks run together, a
piece's rim a pixel wide.  The checks here hold a read to that; the reader's rooms ask them
(``PieceMarks``, ``Blobs``), and ``coarse_face`` reads a die's face whole where they leave
it unclear.
"""

from __future__ import annotations

from typing import Any

from companion.vision.die_layout import DIE_FACES
from companion.vision.palette import DARK_PIECES, WHITE
from companion.vision.pose import DIE_MM
from companion.vision.reading import COUNT_PX_PER_MM, MARKS_PX_PER_MM

RIM_PX_PER_MM = 1.0  # a glossy piece's rim keeps its colour in a pixel or more from this many px a mm


class CoarseMarks:
    """A coarse frame's allowances, for the reader (its located board's scale, its layout)."""

    frame_px_per_mm: float = 0.0  # the located board's frame pixels a millimetre (``Locating``)
    layout: Any
    _piece_names: list[str]

    def _coarse_edge(self) -> float:
        """A frame pixel's share of a die's face where the frame has fewer than
        ``MARKS_PX_PER_MM`` (a pip two pixels across, an edge blurred over a tenth of a face),
        else 0: what a read that leans on where a die's top ends allows for."""
        px = self.frame_px_per_mm
        return 1.0 / (DIE_MM * px) if 0.0 < px < MARKS_PX_PER_MM else 0.0

    def _clipping_hides(self, index: int, spot: str) -> bool:
        """Would a lamp's highlight clipped white on this piece hide what it is?  On a light
        piece of a colour it hides a dark mark, at its rim too; a white piece may be clipped by a
        bright lamp, and on a dark piece clipped white may be its marks.  But from a frame too
        coarse to show a piece's rim (under ``RIM_PX_PER_MM``), a white one clipped is a
        coloured one the lamp washed white as well, where one may stand (Jivecat at 0.57 px a
        mm: a glossy blue pawn, its colour left in a pixel of its rim, read as white; and a
        fresh board at 0.86, a blue chip and a red one, stop 83).  A die is judged by its pips too: a
        white die is all white with its marks, flat or lit (the flat camera's VGA frames)."""
        name = self._piece_names[index]
        if name not in DARK_PIECES | WHITE:
            return True
        return name in WHITE and self.layout.marks.get(name, (0, 0)) == (0, 0) \
            and 0.0 < self.frame_px_per_mm < RIM_PX_PER_MM \
            and any(self.layout.spot(spot).may_hold(n) for n in self._piece_names if n not in WHITE)

    def _count_too_fine(self, marks: tuple[int, int] | None, pips: int) -> bool:
        """Is a count of marks (a die's pips, a card's code) read from a frame too coarse for it?
        Under ``COUNT_PX_PER_MM`` none is: a pip is a pixel and a half across, and fresh VGA
        boards (stop 83) showed a purple 5 read as a 4, a red 3 as a 2, a code's 3 and 4 as no
        marks.  Above it, a count of seven to nine marks on a card's code (a die's grid) is
        too fine under ``MARKS_PX_PER_MM``: a 7, 8 and 9 differ only in the middle column,
        whose three places run into one mark (Jivecat at 0.57 px a mm: a trend card's ring of
        8 read as a 7); a 6 leaves that column empty."""
        if marks is None or marks[1] == 0:
            return False
        if 0.0 < self.frame_px_per_mm < COUNT_PX_PER_MM:
            return True
        return marks[1] > max(DIE_FACES) and pips > max(DIE_FACES) and bool(self._coarse_edge())
