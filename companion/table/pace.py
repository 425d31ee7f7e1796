"""The table's own clock: the camera's frames, counted, never the wall clock.

How long a held press waits for the view to settle, whether a second press came at once
after the first (a finger's bounce), and whether a move is recent enough for the board to
say it was misread are all counted in the frames the vision loop takes (read or lost), so a
loaded machine's slow frames stretch them as they stretch what the camera sees.  Without a
camera loop counting frames (no camera, or a harness that hands boards in) no frame passes:
a held press waits for the next board handed in, every press is a press, and the newest
move may be reconsidered until the next one.
"""

from __future__ import annotations

import json
from typing import Any

from companion.games.base import BoardView, Game, State, Tap
from companion.reconcile import changed_places

CAMERA_FPS = 8  # the pace the frame counts below are set for: the service reads 8-10 a second
# A press held while the view was blocked waits, once the view is back, for a settled board or
# this many frames with none (1.5 s at 8 fps): a board that did not change never settles anew.
SETTLE_FRAMES = 12
# How many camera frames after a move the board may still show it was misread (8 s at 8 fps);
# later, a change is the players' next move, not a misread of that one.
RECONSIDER_FRAMES = 64
# A second press fewer camera frames than this after a press recorded a move, with nothing
# moved on the table, is asked about (pressed twice?): a person's next deliberate press takes
# half a second at least (4 frames at the service's 8 fps), a finger's double press a frame or
# two; a clock window took a fast table's quick passes for double presses, and a loaded
# machine's slow frames for quick ones.
DOUBLE_PRESS_FRAMES = 3
RECENT_KEPT = 8  # moves whose frame is kept (an undo reaches a few moves back)


class Pace:
    """Frames counted (``frames``), and the frames at which things happened."""

    def __init__(self) -> None:
        self.frames = 0
        self.settle_frames = SETTLE_FRAMES
        self.pressed_frame = 0  # when a press last recorded a move
        self.cleared_frame = 0  # when the view last came back
        self.settled_since_clear = True  # a board settled since the view came back
        self._recorded: dict[int, int] = {}  # when the table recorded each newest move, by seq

    def tick(self) -> None:
        self.frames += 1

    def recorded(self, seq: int, pressed: bool) -> None:
        """The table recorded move ``seq`` now (by a press, or not)."""
        if pressed:
            self.pressed_frame = self.frames
        self._recorded[seq] = self.frames
        for old in sorted(self._recorded)[:-RECENT_KEPT]:
            del self._recorded[old]

    def recent(self, seq: int) -> bool:
        """Whether the table recorded move ``seq`` fewer than :data:`RECONSIDER_FRAMES` frames
        ago (always, with no frames counted; never for a move replayed from the log: a
        restart is no moment after the move)."""
        recorded = self._recorded.get(seq)
        return recorded is not None and self.frames - recorded < RECONSIDER_FRAMES

    def soon_after_press(self) -> bool:
        """Fewer than :data:`DOUBLE_PRESS_FRAMES` frames since a press recorded a move."""
        return self.frames - self.pressed_frame < DOUBLE_PRESS_FRAMES

    def view_back(self) -> None:
        self.cleared_frame, self.settled_since_clear = self.frames, False

    def settling(self) -> bool:
        """The view came back fewer than ``settle_frames`` frames ago and no board settled."""
        return not self.settled_since_clear and self.frames - self.cleared_frame < self.settle_frames


class Bounces:
    """Whether a press is a finger's bounce or the players pressing again for a move already
    recorded; mixed into the referee, whose record, table and taps they read."""

    game: Game
    ledger: Any
    pace: Pace
    seen: BoardView | None
    raw_seen: BoardView | None
    taps: list[Tap]
    _pressed_last: bool
    _bounce: bool
    _press_seat: int | None
    _press_state: State | None = None  # the record when the press that waits for an answer came

    def step_reads_otherwise(self) -> bool:
        """Whether the moves the rules allow now differ from those when the press that waits
        came: the players' correction changed the step it was judged against (the captured
        die's face, so its effects).  That press, judged again, is a press again: recorded
        only if the table shows its move.  Baron Voodoo seed 17, cafe, typical: B7's die, read
        a pip high since the set-up, was captured; the players pressed again for their
        capture, the set-up was corrected, and that press recorded "Gran Bwa ends the turn"
        before the Steal its true face gave them: the record never matched the table again."""
        if self._press_state is None:
            return False
        game = self.game
        return {json.dumps(a, sort_keys=True) for a in game.legal_actions(self.ledger.state)} \
            != {json.dumps(a, sort_keys=True) for a in game.legal_actions(self._press_state)}

    def _pressed_twice(self, after: State) -> bool:
        """A press that would record a move nothing on the table shows (:meth:`_unseen`),
        fewer than :data:`DOUBLE_PRESS_FRAMES` camera frames after a press recorded a move,
        no board seen since (or that soon and held while the camera settled): a double press,
        asked, never recorded.  With no camera loop counting frames every press is a press."""
        return self._at_once() and self._unseen(after)

    def _at_once(self) -> bool:
        """A press with no card read, fewer than :data:`DOUBLE_PRESS_FRAMES` frames after a
        press recorded a move, no board seen since (or held that soon): a finger's bounce."""
        newest = self.ledger.frames[-1].entry
        return (self._pressed_last and self.raw_seen is not None and newest is not None
                and self.pace.frames > 0 and not self.taps
                and (self._bounce or self.pace.soon_after_press()))

    def _pressed_again(self, again: bool, after: State) -> bool:
        """A press made after a waiting press recorded its move on the table set right, no
        press since (``again``), that would record a move nothing on the table shows: the
        players pressing again for the move they had not seen recorded, asked, never
        recorded.  Jivecat seed 7, cafe, typical: Yellow's buy, refused for a knocked chip,
        was recorded when the chip was put back; the press the players made again with it
        waited on a chore and was then recorded as "Yellow ends the turn", and her next buy's
        card was read as the Staff card: the record fell a round behind the table."""
        return again and not self.taps and self._unseen(after)

    def _spent_on(self, kind: str, corrected: Any) -> bool:
        """Whether a press that waited for the players' answer was made for the move the answer
        recorded as the newest entry (a move declared, the newest entry corrected to it; not an
        older entry amended, the moves since standing), and the game owes no press after it (a
        King of Clubs pass after a Move declared).  Judged again on the record as answered, it
        is then as a press made again: a move nothing on the table shows (the end of the turn)
        is asked, never recorded.  Jivecat seed 12, cafe, typical: a press made again for Hi-Fi
        Stereo, judged after the players corrected "Red ends the turn" to it, recorded "Red ends
        the turn" once more, and the game wedged a round ahead of the table."""
        newest = self.ledger.frames[-1].entry
        if newest is None or (kind == "correct" and (corrected is None or corrected.seq != newest.seq)):
            return False
        return not self.game.press_owed(self.ledger.state, newest.action, self._press_seat)

    def _unseen(self, after: State) -> bool:
        """Whether every place the move to ``after`` changes still shows what it did (its
        chores, a Skull to return, change the record's board, not yet the table)."""
        before, made = self.game.board_view(self.ledger.state), self.game.board_view(after)
        seen = self.seen if self.seen is not None else before
        return all(seen.get(p, ()) == before.get(p, ()) for p in changed_places(before, made))
