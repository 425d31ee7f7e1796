"""How a simulated table's players put the table right when the tablet refuses what the
camera read or draws the table otherwise than it is: straighten the pieces, lay the moves
that ran together again one at a time, press again.

A part of :class:`~companion.sim.world.World` (its table, its moves and its buttons).
"""

from __future__ import annotations

from typing import Any

from companion.games.base import Action, BoardView, view_to_json
from companion.sim.events import (
    STRAIGHTEN_FRAMES,
    BoardChange,
    HandOver,
    PhysicalEvent,
    SeatButton,
    TurnButton,
)


class Mending:
    """Straightening and laying again (mixed into :class:`~companion.sim.world.World`)."""

    compares_board: bool
    pending: Action | None

    def table_now(self) -> BoardView | None:  # the World's
        raise NotImplementedError

    def press_for(self, action: Action, seat: int | None = None) -> TurnButton | SeatButton:  # the World's
        raise NotImplementedError

    @staticmethod
    def press_held(tablet: dict[str, Any]) -> bool:  # the World's
        raise NotImplementedError

    def nothing_stands_since(self, tablet: dict[str, Any], total: int,
                             action: Action | None = None) -> bool:  # the World's
        raise NotImplementedError

    def straighten(self, tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """The tablet refuses what the camera read of the table ("Not allowed: ... put the
        pieces back"), yet the pieces are where the players put them: someone straightens
        them, so the camera looks again, and press the button again when the move they pressed
        for is still not recorded (a line saying it stands: no press, it would be the next
        move's).  At most twice for one point of the game and one thing the
        tablet says of it, then they carry on (and the prompt stays for whoever reads the
        tablet).  When the tablet draws the table as an earlier move of theirs left it, they
        lay the moves since again instead (:meth:`lay_again_since`)."""
        view = self.table_now()
        refused = [p for p in tablet.get("prompts") or []
                   if p.get("kind") == "warning" and str(p.get("text", "")).startswith(
                       ("Not allowed:", "The table does not match"))]
        # the tablet's picture of the table is not the table (a value read wrong and taken)
        drawn_wrong = self.compares_board and view is not None and "board" in tablet \
            and tablet["board"] != view_to_json(view)
        if view is None or not (refused or drawn_wrong):
            return []
        # one point of the game and what the tablet says of it: a refusal after the tablet
        # drew the table wrong (a straightening used up on that) is looked at afresh
        said = str(refused[0].get("text", "")) if refused else "drawn wrong"
        key = f"{tablet.get('history_total')}: {said}"
        if key != getattr(self, "_laid_again", None):
            # once for one point of the game; unasked, only when the tablet is moves behind
            relay = self.lay_again_since(tablet, view, behind=1 if refused else 2)
            if relay:
                self._laid_again = key
                return relay
        tries = getattr(self, "_straightened", {})
        if tries.get(key, 0) >= 2:
            return []
        self._straightened = {key: tries.get(key, 0) + 1}
        made_at = getattr(self, "last_move", ([], None, 0))[1]
        if self.pending is not None and not drawn_wrong and self.pressed_last() \
                and not self.press_held(tablet) \
                and (made_at is None or self.nothing_stands_since(tablet, made_at, self.pending)):
            # the move still waits for its press: pressed again, on the same button.  A move
            # the camera records alone is not: a press after it (Jivecat) ends the turn
            seat = getattr(self, "pending_seat", None)
            return [HandOver(STRAIGHTEN_FRAMES), BoardChange(view), self.press_for(self.pending, seat)]
        return [HandOver(STRAIGHTEN_FRAMES), BoardChange(view)]

    def press_again(self) -> list[PhysicalEvent]:
        """The press for the move that waits, on the same button, when the players' last move
        ended with a press; else nothing."""
        if self.pending is None or not self.pressed_last():
            return []
        return [self.press_for(self.pending, getattr(self, "pending_seat", None))]

    def pressed_last(self) -> bool:
        """Whether the players' last move ended with a press of a button."""
        events = getattr(self, "last_move", ([], None, 0))[0]
        return any(isinstance(e, (TurnButton, SeatButton)) for e in events)

    def lay_again_since(self, tablet: dict[str, Any], view: BoardView,
                        behind: int = 1) -> list[PhysicalEvent]:
        """The tablet draws the table as one of the players' last moves left it, at least
        ``behind`` moves ago, and the moves after it ran together for the camera (a hand
        over the board while one was made, the next made at once): they put the table back
        as the tablet draws it, then make those moves again one at a time, each once the
        tablet shows the one before (:meth:`lay_next`), as the camera needs to see them."""
        drawn = tablet.get("board") if self.compares_board else None
        recent = getattr(self, "recent_boards", [])
        if drawn is None or not recent or drawn == view_to_json(view):
            return []
        earlier = [i for i, board in enumerate(recent[:-behind]) if view_to_json(board) == drawn]
        if not earlier:
            return []
        boards: list[BoardView] = []
        for board in [*recent[earlier[-1] + 1:], view]:
            if board != (boards[-1] if boards else recent[earlier[-1]]):
                boards.append(board)
        self.relay = (recent[earlier[-1]], boards, 0)
        return [HandOver(STRAIGHTEN_FRAMES), BoardChange(recent[earlier[-1]])]

    def lay_next(self, tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """Laying moves again one at a time (:meth:`lay_again_since`): once the tablet draws
        the table as the last one laid left it, the next; with the last (the table as it is
        now), the press for the move that waits.  When the tablet does not show one (a
        misread, a hand), it is straightened, twice at most; then they stop and carry on."""
        relay = getattr(self, "relay", None)
        if relay is None:
            return []
        laid, boards, tries = relay
        if tablet.get("board") == view_to_json(laid):
            if len(boards) > 1:
                self.relay = (boards[0], boards[1:], 0)
                return [HandOver(), BoardChange(boards[0])]
            self.relay = None  # the table as it is now; the move that waits is pressed for
            press = self.press_again()
            return [HandOver(), BoardChange(boards[0]), *press] if boards else press
        if tries >= 2:
            self.relay = None
            return []
        self.relay = (laid, boards, tries + 1)
        return [HandOver(STRAIGHTEN_FRAMES), BoardChange(laid)]
