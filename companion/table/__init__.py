"""One running game: the log, the tracker's state, reconciliation and the clocks.

Everything that changes the game goes through :class:`Table`: a board the
stabiliser committed, a card tapped, a button pressed, a declaration from the
tablet, an undo.  Each change is written to the log first, then the state
advances, then listeners (dashboards, LEDs, buzzer) are told.  The state is
always the replay of the log, so a restart after ``kill -9`` resumes exactly.

:class:`Table` is a thin front over four rooms, each with one concern:

- :mod:`~companion.table.ledger`: the record over the log (declare, undo, correct,
  amend, request ids, the replay);
- :mod:`~companion.table.clocks`: turn, phase, pause and limits;
- :mod:`~companion.table.referee`: what the table shows (reconcile, held presses, the
  camera settling, tallies, questions about earlier moves, notices);
- :mod:`~companion.table.view`: the public snapshot, its deltas and who is told.

Locking: the front owns the one lock (``Table._lock``, re-entrant) and takes it around
every call into a room; the rooms never lock and start no threads of their own (a held
press is judged on a camera frame, :meth:`Table.frame_taken`, under the same lock).  The
web and the camera pipeline take it too, to make a duplicate check and a change one step.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from companion.games import load_game
from companion.games.base import Action, BoardView, Game, MalformedAction, Prompt, RuleError, State, Tap
from companion.seats import check_setup
from companion.store import Event, EventLog, GameRecord
from companion.table.clocks import ClockError, Clocks, TableOptions
from companion.table.ledger import (
    Frame,
    HistoryEntry,
    Ledger,
    NothingToUndo,
    NotTheNewest,
    canonical,
)
from companion.table.referee import (
    EARLIER_MOVES,
    HELD_PRESS,
    HELD_PRESS_TEXT,
    RECONSIDER_FRAMES,
    SETTLE_FRAMES,
    HeldPress,
    Referee,
)
from companion.table.view import HISTORY_MAX, HISTORY_SHOWN, Listener, View, Watcher

__all__ = [
    "EARLIER_MOVES", "HELD_PRESS", "HELD_PRESS_TEXT", "HISTORY_MAX", "HISTORY_SHOWN",
    "RECONSIDER_FRAMES", "SETTLE_FRAMES", "ClockError", "HeldPress", "HistoryEntry", "Listener",
    "NotTheNewest", "NothingToUndo", "Table", "TableOptions", "Watcher", "canonical",
]


class Table:
    """The running game (thread-safe).  Use :meth:`open` to start or resume one."""

    def __init__(
        self,
        game: Game,
        log: EventLog,
        record: GameRecord,
        options: TableOptions | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.game = game
        self.log = log
        self.record = record
        self.options = options or TableOptions()
        self._lock = threading.RLock()
        self.clocks = Clocks(game, self.options, clock, record.players, record.created)
        self.ledger = Ledger(game, log, record, self.clocks)  # replays the log
        self.referee = Referee(game, self.ledger, self._publish)
        self.view = View(game, record, self.ledger, self.clocks, self.referee,
                         lambda: self.public())

    @classmethod
    def open(
        cls,
        game_name: str,
        data_dir: str | Path | None,
        players: int | None = None,
        variant: str | None = None,
        seed: int = 0,
        resume: bool = True,
        options: TableOptions | None = None,
        log: EventLog | None = None,
        house_rules: dict[str, str] | None = None,
        setup: dict[str, Any] | None = None,
    ) -> Table:
        """Resume the unfinished game of ``game_name`` in ``data_dir``, or start a new one.

        ``house_rules`` apply to a new game only; a resumed game keeps the ones it was
        logged with.  ``setup`` (names, colours, seats) is logged in the game's options.
        """
        game = load_game(game_name)
        if log is None:
            path = ":memory:" if data_dir is None else Path(data_dir) / "companion.sqlite"
            log = EventLog(path)
        record = log.unfinished(game_name) if resume else None
        if record is None:
            count = players if players is not None else game.min_players
            chosen = variant or game.variants[0]
            rules = game.resolve_house_rules(house_rules)
            game.start(count, chosen, seed, rules)  # validates everything before logging
            options_logged = {**check_setup(setup, count), **({"house_rules": rules} if rules else {})}
            record = log.new_game(game_name, count, chosen, seed, options_logged)
        return cls(game, log, record, options)

    # ------------------------------------------------------------------ the rooms' state
    @property
    def state(self) -> State:
        return self.ledger.state

    @property
    def history(self) -> list[HistoryEntry]:
        return self.ledger.history

    @property
    def _frames(self) -> list[Frame]:
        return self.ledger.frames

    @property
    def clock(self) -> Callable[[], float]:
        """The time the clocks run on (settable: a fake clock in tests)."""
        return self.clocks.now

    @clock.setter
    def clock(self, now: Callable[[], float]) -> None:
        self.clocks.now = now

    @property
    def paused(self) -> bool:
        return self.clocks.paused

    @property
    def player_seconds(self) -> list[float]:
        return self.clocks.player_seconds

    @property
    def seen(self) -> BoardView | None:
        return self.referee.seen

    @seen.setter
    def seen(self, view: BoardView | None) -> None:
        self.referee.seen = view

    @property
    def taps(self) -> list[Tap]:
        return self.referee.taps

    @property
    def table_prompt(self) -> Prompt | None:
        return self.referee.table_prompt

    @property
    def notices(self) -> dict[str, Prompt]:
        return self.referee.notices

    @property
    def _held_press(self) -> HeldPress | None:
        return self.referee.held_press

    @property
    def _ticker(self) -> threading.Thread | None:
        return self.clocks.ticker

    @property
    def rev(self) -> int:
        """Rises on every published change: a delta's ``base`` is the rev it applies to."""
        return self.view.rev

    @property
    def _listeners(self) -> list[Listener]:
        return self.view.listeners

    @property
    def _watchers(self) -> list[Watcher]:
        return self.view.watchers

    # ------------------------------------------------------------------ clocks
    def turn_seconds(self) -> float:
        """Running time of the current turn (paused time excluded)."""
        return self.clocks.turn_seconds(self.state)

    def time_up(self) -> bool:
        return self.clocks.time_up(self.state)

    def phase_seconds(self) -> float:
        """Time since the current phase began (the newest action that changed it)."""
        return self.clocks.phase_seconds(self._frames[-1].phase_started)

    def pause(self, source: str = "tablet") -> None:
        """Stop every clock (logged, so a restart stays paused)."""
        self._set_clock("pause", source)

    def resume(self, source: str = "tablet") -> None:
        """Start the clocks again from now (logged)."""
        self._set_clock("resume", source)

    def _set_clock(self, what: str, source: str) -> None:
        with self._lock:
            self.clocks.check(what)
            event = self.log.append(self.record.id, "clock", {"clock": what}, source)
            self.clocks.event(what, event.at, self.state)
            self._publish("clock")

    def tick(self) -> bool:
        """Publish once when the turn's time runs out (called by the clock watcher)."""
        with self._lock:
            if not self.clocks.time_up_changed(self.state):
                return False
            self._publish("time_up" if self.clocks.shown_time_up else "clock")
            return True

    def watch_clocks(self, interval: float = 0.5) -> None:
        """A daemon thread that pushes the time-up alert live (stopped by :meth:`close`)."""
        self.clocks.watch(interval, self.tick)

    def close(self) -> None:
        """Stop the clock watcher (the log stays open: its owner closes it)."""
        self.clocks.stop()

    # ------------------------------------------------------------------ the public view
    def add_listener(self, listener: Listener) -> None:
        """Call ``listener(kind, public_state)`` after each logged change or new prompt."""
        with self._lock:
            self.view.listeners.append(listener)

    def prompts(self) -> list[Prompt]:
        """The tracker's prompts, then the table's own (mismatch, choice, device notices)."""
        with self._lock:
            return self.view.prompts()

    def names(self) -> list[str]:
        """Each seat's name: the set-up's where it gave one, else the game's."""
        return self.view.names()

    def colours(self) -> list[str]:
        return self.view.colours()

    def history_page(self, before: int | None = None,
                     limit: int = HISTORY_SHOWN) -> tuple[list[dict[str, Any]], bool]:
        """The newest ``limit`` entries older than seq ``before``, and whether older ones remain."""
        with self._lock:
            return self.view.history_page(before, limit)

    def public(self, history: int | None = HISTORY_SHOWN) -> dict[str, Any]:
        """What any watcher may see (GET /api/state), with the newest ``history`` entries."""
        with self._lock:
            return self.view.public(history)

    def watch(self, watcher: Watcher) -> str:
        """Add ``watcher``; returns the state it starts from, then it gets each change's delta."""
        with self._lock:
            return self.view.watch(watcher)

    def unwatch(self, watcher: Watcher) -> None:
        with self._lock:
            self.view.unwatch(watcher)

    def _publish(self, kind: str) -> None:
        """Tell every watcher of a change (the lock held)."""
        self.view.publish(kind)

    # ------------------------------------------------------------------ the record
    def request(self, request_id: str) -> tuple[int, Event] | None:
        """(game id, event) already logged for ``request_id`` in this game or an earlier one."""
        return self.ledger.request(request_id)

    def entry(self, seq: int) -> HistoryEntry | None:
        """The history entry of event ``seq`` (None for an undo or an unknown seq)."""
        with self._lock:
            return self.ledger.entry(seq)

    def declare(self, action: Any, source: str = "tablet",
                request_id: str | None = None) -> HistoryEntry | None:
        """Apply an action from the tablet or a script; undo/correct are table actions.

        Raises MalformedAction (schema), RuleError (the rules refuse it; it also
        becomes the table prompt), NothingToUndo or DuplicateRequest (``request_id``
        was logged already).  Nothing changes on error.
        """
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise MalformedAction('an action is a JSON object with a string "type"')
        action = canonical(action)
        with self._lock:
            if action["type"] == "undo":
                self.undo(source, request_id, seq=action.get("seq"), through=action.get("through"))
                return None
            if action["type"] == "forget_taps":
                self.forget_taps(action.get("card"))
                return None
            if action["type"] == "keep_record":  # "the record is right": a line, no move
                return self.referee.keep_record(source, request_id)
            if action["type"] == "reread":  # "read the table again": logged as a correction
                return self.referee.reread(source, request_id)
            if action["type"] == "reads":  # what a place the camera cannot read holds: read so
                self.referee.doubt_reads(action.get("places"), action.get("colours"))
                return None
            if action["type"] == "correct":
                replacement = action.get("action")
                if not isinstance(replacement, dict):
                    raise MalformedAction('"correct" needs "action": the action to record instead')
                return self.correct(replacement, source, request_id, seq=action.get("seq"),
                                    entry=action.get("entry"))
            try:
                new_state = self.game.apply(self.state, action)
            except RuleError as err:
                self.referee.refused(err)
                raise
            entry = self.ledger.commit(action, new_state, source, request_id)
            self.referee.after_move("action", answered=True)
            return entry

    def forget_taps(self, card: Any = None) -> None:
        """Forget the cards tapped since the last move (or one of them); nothing is logged."""
        with self._lock:
            self.referee.forget_taps(card)

    def undo(self, source: str = "tablet", request_id: str | None = None,
             seq: int | None = None, through: int | None = None) -> HistoryEntry:
        """Take back the newest effective action; given ``seq``, only if it is still the newest;
        given ``through``, the moves since that one with it (:meth:`Ledger.undo`)."""
        with self._lock:
            taken = self.ledger.undo(source, request_id, seq, through)
            self.referee.after_move("undo")
            return taken

    def correct(self, action: Action, source: str = "tablet",
                request_id: str | None = None, seq: int | None = None,
                entry: int | None = None) -> HistoryEntry:
        """Replace the newest action by ``action`` (:meth:`Ledger.correct`), or given ``entry``,
        the move of that number, the moves after it standing (:meth:`amend`)."""
        action = canonical(action)
        with self._lock:
            if entry is not None:
                newest = self._frames[-1].entry
                if newest is None or newest.seq != entry:
                    return self.amend(entry, action, source, request_id)
            replaced = self.game.board_view(self.state)
            made = self.ledger.correct(action, source, request_id, seq)
            self.referee.after_move("correct", made, replaced)
            return made

    def amend(self, seq: int, action: Action, source: str = "tablet",
              request_id: str | None = None) -> HistoryEntry:
        """Replace the standing move ``seq`` by ``action`` and keep every move after it
        (:meth:`Ledger.amend`); returns the corrected move's new entry."""
        action = canonical(action)
        with self._lock:
            index = self.ledger.frame_of(seq) if isinstance(seq, int) else None
            replaced = self.game.board_view(self._frames[index].state) if index else None
            made = self.ledger.amend(seq, action, source, request_id)
            self.referee.after_move("correct", made, replaced)
            return made

    def state_before_newest(self) -> State | None:
        """The state a correction of the newest action starts from (None: nothing to correct)."""
        with self._lock:
            return self._frames[-2].state if len(self._frames) > 1 else None

    def state_before(self, seq: int) -> State | None:
        """The state a correction of the standing move ``seq`` starts from (None: no such
        move stands)."""
        with self._lock:
            return self.ledger.state_before(seq)

    def state_json(self) -> str:
        return json.dumps(self.state, sort_keys=True)

    # ------------------------------------------------------------------ physical inputs
    def board_seen(self, view: BoardView) -> HistoryEntry | None:
        """The stabiliser committed a board: explain it if it changed."""
        with self._lock:
            return self.referee.board_seen(view)

    def tap(self, card: str, seat: int | None = None) -> HistoryEntry | None:
        """A card laid on a reader; an unknown card is a prompt and changes nothing."""
        with self._lock:
            return self.referee.tap(card, seat)

    def button(self, seat: int | None = None) -> HistoryEntry | None:
        """A turn or seat button: the player says the step on the table is done (held while
        the camera is unsettled: :meth:`Referee.button`)."""
        with self._lock:
            return self.referee.button(seat)

    def board_doubted(self, view: BoardView | None, doubtful: Mapping[str, str]) -> None:
        """A camera frame with places it cannot read (by id, with why), no hand over the
        board: a doubt that stands is asked about (:mod:`companion.table.doubt`)."""
        with self._lock:
            self.referee.board_doubted(view, doubtful)

    def notice(self, key: str, prompt: Prompt | None) -> None:
        """Set or clear a standing notice (device unplugged, camera lost, hand over board)."""
        with self._lock:
            self.referee.notice(key, prompt)

    def frame_taken(self) -> None:
        """The camera took a frame (read or lost): the table's pace, never the wall clock."""
        with self._lock:
            self.referee.frame_taken()
