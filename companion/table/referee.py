"""The referee of what the table shows: the camera's board, the cards tapped, the buttons.

It explains each change of the table as the legal move it implies (:mod:`companion.reconcile`)
and records it through the ledger, or asks: a question when the table does not match, a
press held until the camera settles, a warning when the score pieces differ from the
record, a question whether an earlier move was misread.  The table's own prompt and its
standing notices live here because the referee reads them (a camera notice holds a press).

Locking: every method is called with the front's lock held (the camera loop's
:meth:`Referee.frame_taken` too, which may judge a held press).

Pace: the referee never reads the wall clock; it counts camera frames
(:mod:`companion.table.pace`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.games.base import BoardView, Game, MalformedAction, Prompt, RuleError, State, Tap, Trigger
from companion.reconcile import (
    NextMoves,
    changed_places,
    reconcile,
    reconsider,
    reconsider_earlier,
    tally_mismatch,
)
from companion.table.disagreement import Disagreements
from companion.table.doubt import Doubt, Doubting
from companion.table.held import HeldPress, HeldPresses
from companion.table.ledger import HistoryEntry, Ledger, NothingToUndo, canonical
from companion.table.overrides import Overrides
from companion.table.pace import DOUBLE_PRESS_FRAMES, RECONSIDER_FRAMES, SETTLE_FRAMES, Bounces, Pace
from companion.table.presses import HELD_PRESS, HELD_PRESS_TEXT, ended_unpressed
from companion.table.search import differing

__all__ = ["DOUBLE_PRESS_FRAMES", "HELD_PRESS", "HELD_PRESS_TEXT", "RECONSIDER_FRAMES", "SETTLE_FRAMES",
           "HeldPress", "Referee"]

CHAINED_MOVES = 4  # moves one settled board may record after its first, one after another
EARLIER_MOVES = 40  # how many moves back a card that stays put is checked (a night and more)

Publish = Callable[[str], None]
"""Tells the watchers that something changed, with the kind of change."""


class Referee(HeldPresses, Bounces, Disagreements, Doubting):
    """What the table shows against the record: ``seen`` (the camera's last committed board),
    ``taps`` (cards laid since the last move), ``table_prompt`` (its question or refusal),
    ``notices`` (standing ones: device unplugged, camera lost, hand over the board)."""

    def __init__(self, game: Game, ledger: Ledger, publish: Publish) -> None:
        self.game = game
        self.ledger = ledger
        self.publish = publish
        self.seen: BoardView | None = None
        self.raw_seen: BoardView | None = None  # as the camera read it, before ``overrides``
        self.overrides = Overrides()  # readings the players said are wrong ("the record is right")
        self.overrides.restore(game, ledger.state, ledger.kept)  # as logged
        self._press_waiting = False  # a press the table could not explain waits for its answer
        self._pressed_last = False  # the newest move was recorded by a press, no board seen since
        self.pace = Pace()  # camera frames taken (:meth:`frame_taken`): the table's own clock
        self._bounce = False  # judging a held press made at once after a press recorded a move
        self._set_right: int | None = None  # the entry a waiting press recorded on a board, no press since
        self._again = self._press_again = False  # a press made after that (the same press again?)
        self._asked: tuple[str, Prompt | None] | None = None  # the last disagreement worked out
        self._readings: dict[int, list[Any]] = {}  # entries' other readings, by seq
        self._warned: tuple[str, Prompt | None] | None = None  # the warning for a table seen
        self._made: dict[tuple[object, ...], State | None] = {}  # corrected records, by reading
        self.next_moves = NextMoves()  # the legal moves from the record's state, once per state
        self.taps: list[Tap] = []
        self.table_prompt: Prompt | None = None
        self.notices: dict[str, Prompt] = {}
        # a button pressed while the camera has not settled waits for it (see ``button``)
        self.held_press: HeldPress | None = None
        self.doubt = Doubt()  # a place the camera cannot read, frame after frame

    # ------------------------------------------------------------------ after the record moved
    def after_move(self, kind: str, corrected: HistoryEntry | None = None,
                   replaced: BoardView | None = None, answered: bool = False) -> None:
        """The record moved (logged already): the taps and the question were about the table
        before it; the tallies are checked again, then the watchers are told.  Where the
        players ``corrected`` an entry (whose move had laid the table ``replaced``) to other
        than the camera reads, its reading there is set aside (it misreads them)."""
        if answered:
            self.doubt_answered()  # a reading of a place the camera cannot read, tapped
            self.one_off_answered()  # a refused reading's place read a mark off, tapped
        asked = [self.table_prompt, self.notices.get("tally")]
        second = self.second_of_two(asked[0]) if answered else None
        self._pressed_last = False
        later = self.outlasting_taps() if answered else []
        self.taps = second or []
        self.table_prompt = None
        if corrected is not None and replaced is not None and self.raw_seen is not None \
                and any(p is not None and {"type": "keep_record"} in p.options for p in asked):
            self._trust(corrected, replaced)
        if self.raw_seen is not None and self.overrides.places:  # set against the record as it is now
            self.seen = self.overrides.apply(self.raw_seen, self.game.board_view(self.ledger.state))
        waiting, self._press_waiting = self.press_still_waits(), False
        if kind == "correct" and waiting and self.step_reads_otherwise():
            self._press_again = True  # its step reads otherwise now: recorded if the table shows it
        self.check_tallies()
        self.publish(kind)
        if (kind == "correct" or answered) and waiting \
                and (second is not None or self.press_owed_after(kind)):  # the second of two: its press's
            # a move nothing on the table shows is asked, never recorded (:meth:`_spent_on`)
            self._press_again = self._press_again or (second is None and self._spent_on(kind, corrected))
            self.judge_waiting_press()
            # once, after a move declared: the press it answered is spent (Jivecat seed 2)
            self._press_waiting = self._press_waiting and not answered
        elif (kind == "correct" or answered) and self.seen is not None \
                and differing(self.game, self.ledger.state, self.seen):
            # cards laid for the next step before the answer: read with it
            self.taps += [t for t in later if t not in self.taps]
            self._reconcile("board", "camera")  # a move the table shows since: read it now

    def refused(self, err: RuleError) -> None:
        """A declared move the rules refuse becomes the table's prompt (nothing is logged)."""
        self.table_prompt = Prompt(f"Refused: {err.reason} (rule: {err.rule})", "warning",
                                   self.game.current_player(self.ledger.state))
        self.publish("prompt")

    def forget_taps(self, card: Any = None) -> None:
        """Forget the cards tapped since the last move (or one of them): a card that missed
        its move, was tapped by mistake or twice would otherwise be read into every press
        that follows.  Taps are not part of the record, so nothing is logged."""
        if card is not None and not isinstance(card, str):
            raise MalformedAction('"card" is the id of a tapped card')
        kept = [t for t in self.taps if card is not None and t.card != card]
        if len(kept) == len(self.taps):
            raise NothingToUndo("no such card tapped" if card is not None and self.taps
                                else "no cards tapped")
        self.taps = kept
        self.table_prompt = None  # a refusal of those cards is no longer the question
        self.publish("taps")

    # ------------------------------------------------------------------ physical inputs
    def board_seen(self, view: BoardView, vouched: frozenset[str] = frozenset()) -> HistoryEntry | None:
        """The stabiliser committed a board: explain it if it changed (``vouched``: as vouched for)."""
        if view == self.raw_seen:
            return None
        self._pressed_last = False  # the table moved since the last press
        self.raw_seen = view
        self.overrides.recall(board := self.game.board_view(self.ledger.state), view, vouched)
        self.seen = self.overrides.apply(view, board)
        # the board may show more than that move (the camera missed the table between moves:
        # a hand over it while the next was made): each move it explains in turn
        entry = self._board_shows_more(self._reconcile("board", "camera"))
        recorded = len(self.ledger.frames), self.ledger.frames[-1].entry
        self._board_settled()
        if (len(self.ledger.frames), self.ledger.frames[-1].entry) != recorded:
            return entry  # a held press recorded its move on this board: its chores are still to do
        if entry is None and self.check_tallies(board_changed=True):
            self.publish("notice")
        return entry

    def tap(self, card: str, seat: int | None = None) -> HistoryEntry | None:
        """A card laid on a reader; an unknown card is a prompt and changes nothing."""
        known = self.game.card_ids()
        if known and card not in known:
            self.table_prompt = Prompt(
                f"Unknown card {card!r} on reader {seat}: not a card of {self.game.title}.",
                "warning",
            )
            self.publish("prompt")
            return None
        unpressed = None if self.held_press is not None \
            else ended_unpressed(self.game, self.ledger.state, self.seen, self.taps, seat)
        if unpressed is not None:  # a card on the next seat's reader: the move before it is done
            entry = self.ledger.commit(canonical(unpressed[0]), unpressed[1], "table")
            self.after_move("action")
            self.pace.recorded(entry.seq, pressed=False)
        self.taps.append(Tap(card, seat))
        if self._laid_again():  # the card the press lacked: the press is judged with it
            return self._reconcile("button", "table")
        # the table may show the steps after the card's, refused before it was laid again (King
        # of Clubs seed 206, cafe: the next dance's Dancers turned up after a tap dropped)
        return self._board_shows_more(self._reconcile("tap", "cards"), moves_only=True)

    def _board_shows_more(self, entry: HistoryEntry | None, moves_only: bool = False) -> HistoryEntry | None:
        """After a move recorded, each move after it the board seen explains (``CHAINED_MOVES``);
        ``moves_only``: a board no move explains is left as it stands, not refused again (the
        table before the chores of a card's move, Jivecat's Skull row yet to slide)."""
        for _ in range(CHAINED_MOVES if entry is not None and self.seen is not None else 0):
            if self.table_prompt is not None or not differing(self.game, self.ledger.state, self.seen) \
                    or (moves_only and reconcile(self.game, self.ledger.state, self.seen, list(self.taps),
                                                 "board").action is None) \
                    or (more := self._reconcile("board", "camera")) is None:
                break
            entry = more
        return entry

    def button(self, seat: int | None = None) -> HistoryEntry | None:
        """A turn or seat button: the player says the step on the table is done.

        Pressed while a hand is over the board, the camera gives no picture, or the view came
        back fewer than ``settle_frames`` camera frames ago with no board settled since, the
        press is held (returns None) and judged once the camera settles: on the next settled
        board, or ``settle_frames`` frames after the view cleared.  Judging it on the board as
        it was before the pieces landed would refuse or mis-record the move the player just
        made.  Without a camera loop counting frames it waits for the next board handed in."""
        if self._camera_unsettled():
            self._hold_press(seat)
            return None
        self._pressing = seat
        newest = self.ledger.frames[-1].entry
        self._again, self._set_right = newest is not None and newest.seq == self._set_right, None
        return self._reconcile("button", "table")

    def _reconcile(self, trigger: Trigger, source: str) -> HistoryEntry | None:
        ledger = self.ledger
        seen = self.seen if self.seen is not None else self.game.board_view(ledger.state)
        verdict = reconcile(self.game, ledger.state, seen, list(self.taps), trigger)
        again, self._again = self._again and trigger == "button", False
        if verdict.action is not None and verdict.state is not None and trigger == "button" \
                and (self._pressed_twice(verdict.state) or self._pressed_again(again, verdict.state)):
            self.table_prompt = Prompt(
                f"The button was pressed again {'after' if again else 'at once after'} "
                f"#{ledger.move_number(ledger.frames[-1].entry.seq)} "
                f"({ledger.frames[-1].entry.text}), with nothing moved on the table: pressed twice? "
                f"Nothing is recorded; if it was meant, tap: "
                f"{self.game.describe(ledger.state, verdict.action)}.", "choice",
                self.game.current_player(ledger.state), [verdict.action])
            self.publish("prompt")
            return None
        if verdict.action is not None and verdict.state is not None and trigger == "button" \
                and self._standing(seen, verdict.state) and self._explained(seen):
            # the table differs from the record where the pressed move does not go, and an
            # entry read otherwise explains it (a card the camera misread moves ago): asked
            # before anything is recorded, the press judged again once the players answer.  A
            # difference no entry explains (a card laid after its tap, a chore still to do)
            # does not hold the press: it is asked about at a press nothing explains
            verdict.action = verdict.state = None
        if verdict.action is not None and verdict.state is not None:
            entry = ledger.commit(canonical(verdict.action), verdict.state, source)
            self.after_move("action")
            self._pressed_last = trigger == "button"
            self.pace.recorded(entry.seq, self._pressed_last)
            if (earlier := self._reconsider_earlier(seen)) is not None:
                self.table_prompt = earlier  # the move stands; a card laid before it was misread
                self.publish("prompt")
            return entry
        # a press the table cannot explain may be explained by a misread of the move before
        # it: that question is the answer, not "the table does not match"
        if trigger in ("board", "button") and (second := self._reconsider(seen, trigger)) is not None:
            verdict.prompt = second
        elif (verdict.prompt is None or verdict.prompt.kind == "warning") and (
                (self.raw_seen is not None and trigger == "button") or verdict.refusals):
            # the table differs from the record: say where, and offer each way out as a tap
            verdict.prompt = self._disagreement(seen, trigger, verdict.refusals) or verdict.prompt
        if trigger == "button" and verdict.prompt is not None and not self._at_once() and any(
                o.get("type") in ("correct", "keep_record") for o in verdict.prompt.options):
            # a bounce never waits: judged once the table is set right it would record the
            # next step (Jivecat seed 8, cafe, typical: the buy's bounce, refused on its chore,
            # was judged with the next buy's card; that buy's own press ended the turn)
            self._press_waiting, self._press_seat = True, self._pressing  # judged again once answered
            self._press_again, self._press_state = again, self.ledger.state
        if verdict.prompt is not None:
            self.table_prompt = verdict.prompt
            self.publish("prompt")
        elif trigger == "board" and self.press_still_waits() and self._press_fits(seen):
            # the difference that held the press is gone (a passing misread, a piece put back): judged
            # now as a press made again, a move nothing shows asked (Jivecat seed 13, cafe, typical)
            self._press_waiting, self._press_again = False, True
            self.table_prompt = None
            entry = self.judge_waiting_press()
            self._set_right = entry.seq if entry is not None else None
            return entry
        elif self._question_settled(seen):
            self.table_prompt = None
            self.publish("prompt")
        else:  # nothing to record, but what the table shows changed: dashboards see it
            self.publish(trigger)
        return None

    def _explained(self, seen: BoardView) -> bool:
        """Whether the warning for the table names an entry whose correction explains it."""
        asked = self._disagreement(seen, "button")
        return asked is not None and any(o.get("type") == "correct" for o in asked.options)

    def _standing(self, seen: BoardView, after: State) -> bool:
        """Whether the table differs from the record with the pressed move made at places
        that move does not change (its own chores may lag; those do not)."""
        if self.raw_seen is None:
            return False
        board = self.game.board_view
        moved = changed_places(board(self.ledger.state), board(after))
        return bool(differing(self.game, after, seen) - moved)

    def frame_taken(self) -> None:
        """The camera took a frame (read or lost): the table's pace.  A double press, the
        settling of the view and the window for a misread are judged by it; a held press
        whose view has been clear for ``settle_frames`` frames is judged now."""
        self.pace.tick()
        if self.held_press is not None and not self._camera_unsettled():
            self._judge_held_press()

    # ------------------------------------------------------------------ questions about moves
    def _question_settled(self, seen: BoardView) -> bool:
        """A question whether a move was misread is moot once the table reads as recorded
        again (a misread for a moment, the record right): it would stay until the next move."""
        options = self.table_prompt.options if self.table_prompt is not None else None
        if options and any(o.get("type") == "keep_record" for o in options):
            return not differing(self.game, self.ledger.state, seen) \
                and tally_mismatch(self.game, self.ledger.state, seen) is None
        if not options or any(o.get("type") != "correct" for o in options):
            return False
        return not {p for p in changed_places(self.game.board_view(self.ledger.state), seen)
                    if not self.game.score_place(p)}

    def _reconsider(self, seen: BoardView, trigger: Trigger) -> Prompt | None:
        """Does the board, moments after the camera's last move, say it was misread?  Or
        does it show a card laid moves ago, that no move changes, as another value?"""
        frames = self.ledger.frames
        entry = frames[-1].entry
        if entry is not None and entry.source in ("camera", "table") \
                and len(frames) >= 2 and self.pace.recent(entry.seq):
            prompt = reconsider(self.game, frames[-2].state, entry.action, frames[-1].state,
                                seen, list(self.taps), trigger, self.next_moves)
            if prompt is not None:
                return prompt
        return self._reconsider_earlier(seen)

    def _reconsider_earlier(self, seen: BoardView) -> Prompt | None:
        state = self.ledger.state
        if not self.game.fixed_places(state):
            return None  # the common case, after every move: nothing stays put to check
        return self.other_readings(reconsider_earlier(self.game, self._moves(EARLIER_MOVES), state, seen))

    def notice(self, key: str, prompt: Prompt | None) -> None:
        """Set or clear a standing notice (device unplugged, camera lost, hand over board)."""
        if prompt is None:
            if self.notices.pop(key, None) is None:
                return
            if key in ("vision", "camera"):  # the view is back: give it time to settle
                self.pace.view_back()
        else:
            current = self.notices.get(key)
            if current is not None and current.text == prompt.text:
                return
            self.notices[key] = prompt
        self.publish("notice")
