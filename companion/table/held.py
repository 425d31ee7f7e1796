"""A press held until the camera settles: made while a hand is over the board, the camera gives
no picture, or the view came back a moment ago, it is judged on the next settled board (or
``settle_frames`` frames after the view cleared), never on the board as it was before the
pieces landed.  A part of :class:`~companion.table.referee.Referee`, which holds the state it
reads; the frames are counted by :mod:`companion.table.pace`, never the wall clock."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from companion.games.base import BoardView, Game, Prompt, Tap, Trigger
from companion.reconcile import NextMoves, reconcile
from companion.table.ledger import HistoryEntry, Ledger, canonical
from companion.table.pace import Pace
from companion.table.presses import HELD_PRESS, HELD_PRESS_TEXT, press_then_next


@dataclass(frozen=True)
class HeldPress:
    """A press waiting for the camera to settle: whose button, and the camera frame it came at."""

    seat: int | None
    frame: int
    quick: bool = False  # made at once after a press that recorded a move: maybe a bounce
    taps: int = 0  # the cards tapped before it (later ones are the next move's)
    newest: int | None = None  # the newest entry's seq when it came (moves tapped since may spend it)


class HeldPresses:
    """The referee's desk for presses held while the camera settles."""

    game: Game
    ledger: Ledger
    pace: Pace
    taps: list[Tap]
    seen: BoardView | None
    next_moves: NextMoves
    notices: dict[str, Prompt]
    held_press: HeldPress | None
    _pressed_last: bool
    _bounce: bool
    _pressing: int | None
    # the referee's own (annotations only: a stub here would shadow them in the referee's bases)
    publish: Callable[[str], None]
    notice: Callable[[str, Prompt | None], None]
    after_move: Callable[[str], None]
    spent_on_a_tapped_move: Callable[[int | None], bool]
    _reconcile: Callable[[Trigger, str], HistoryEntry | None]

    def _camera_unsettled(self) -> bool:
        if "vision" in self.notices or "camera" in self.notices:
            return True
        return self.pace.settling()  # the view came back a moment ago: wait for a board

    def _hold_press(self, seat: int | None) -> None:
        """Hold it (pressed twice while waiting: one press); players see it counted, so they
        neither press nor make the move again."""
        held, quick = self.held_press, self._pressed_last and self.pace.soon_after_press()
        newest = self.ledger.frames[-1].entry
        self.held_press = HeldPress(seat, self.pace.frames, quick, len(self.taps),
                                    newest.seq if newest else None) if held is None else held
        self.notice(HELD_PRESS, Prompt(HELD_PRESS_TEXT, "info", seat))

    def _drop_held_press(self) -> None:
        """Judged now: its notice goes (published with whatever the press records)."""
        self.held_press = None
        self.notices.pop(HELD_PRESS, None)

    def _board_settled(self) -> None:
        """A settled board arrived: a held press is judged on it, right after the board."""
        self.pace.settled_since_clear = True
        if self.held_press is not None:
            self._judge_held_press()

    def _judge_held_press(self) -> None:
        """Judge the held press now; one made at once after a press that recorded a move is
        judged as a double press would have been (held, it came later than the frames)."""
        held = self.held_press
        quick = held is not None and held.quick
        self._drop_held_press()
        if held is not None and self.spent_on_a_tapped_move(held.newest):
            return
        if held is not None and len(self.taps) > held.taps and self._press_then_next(held.taps):
            return
        self._bounce, self._pressing = quick, held.seat if held is not None else None
        try:
            self._reconcile("button", "table")
        finally:
            self._bounce = False

    def _press_then_next(self, count: int) -> bool:
        """The held press's move, read with its own cards (those tapped before it) on the board,
        which may show the next move under way too (:func:`press_then_next`): recorded, the
        later cards kept for the next press.  False when no one move fits."""
        state, earlier, later = self.ledger.state, self.taps[:count], self.taps[count:]
        if self.seen is None:
            return False
        own = reconcile(self.game, state, self.seen, earlier, "button")  # the next not begun
        first = own.action if own.state is not None \
            else press_then_next(self.game, state, self.seen, earlier, later, self.next_moves)
        if first is None:
            return False
        entry = self.ledger.commit(canonical(first), self.game.apply(state, first), "table")
        self.after_move("action")
        self.taps, self._pressed_last = later, True
        self.pace.recorded(entry.seq, pressed=True)
        self.publish("taps")
        return True
