"""The record of one game over the log: the standing moves, their states, the history.

Every change is written to the log before the record moves (nothing is acknowledged
before it is in the log), and the record is always the replay of the log, so a restart
after ``kill -9`` resumes exactly.  Not locked: the front (:class:`companion.table.Table`)
holds its lock around every call, and tells the watchers after the record moved.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass
from typing import Any

from companion.games.base import Action, Game, MalformedAction, RuleError, State
from companion.store import DamagedLog, Event, EventLog, GameRecord, effective_events
from companion.table.clocks import Clocks

UNSURE = "unsure_of"
"""A field the log keeps on a reading taken among others the table could not tell apart
("Read the table again" on a night long cleared away): those other readings, for the words of
its line (:meth:`Game.describe_unsure`).  The record's move is the reading without it."""


def plain(action: Action) -> Action:
    """The move the record makes of a logged ``action`` (without :data:`UNSURE`)."""
    return {k: v for k, v in action.items() if k != UNSURE} if UNSURE in action else action


def as_recorded(game: Game, before: State, action: Action) -> tuple[Action, str]:
    """The move the record makes of a logged ``action`` and the words of its line: a reading
    logged with the others the table could not tell it from is worded as unsure of them."""
    if UNSURE not in action:
        return action, game.describe(before, action)
    others = action[UNSURE]
    shown = [o for o in others if isinstance(o, dict)] if isinstance(others, list) else []
    return plain(action), game.describe_unsure(before, plain(action), shown)


def canonical(action: Action) -> Action:
    """The action as the log will give it back (keys sorted): the live history's words and
    the state then read the same after a restart as before it."""
    return json.loads(json.dumps(action, sort_keys=True))


class NothingToUndo(ValueError):
    """Undo asked with no effective action left."""


class NotTheNewest(NothingToUndo):
    """Undo or replace asked for a move that is no longer the newest: another was recorded
    between the player's look at the history and the tap (the camera does not wait)."""


@dataclass
class HistoryEntry:
    seq: int
    text: str
    action: Action
    source: str
    at: float
    undone: bool = False
    kind: str = "action"
    """``action``, ``correct`` when it replaced the action before it, or ``keep_record``: a
    line that moves no move (the players said the record is right, the table wrong)."""
    move: int = 0
    """The number players read beside it: its place in the history (1, 2, 3...), which the
    log's ``seq`` is not (undos, pauses and other games' events take sequence numbers too)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "move": self.move,
            "kind": self.kind,
            "text": self.text,
            "action": self.action,
            "source": self.source,
            "at": self.at,
            "undone": self.undone,
        }


@dataclass
class Frame:
    """A state on the push/pop stack with the history entry that produced it."""

    state: State
    entry: HistoryEntry | None
    turn_started: float
    phase: str = ""
    phase_started: float = 0.0
    """When the run of frames in this phase began: the phase clock without a walk back."""


class Ledger:
    """History over the store: declare, undo, correct and amend, each logged first.

    ``frames`` is the stack of states the standing moves made (the first is the set-up);
    ``history`` every move ever recorded, undone ones marked.  The clocks are moved with
    the record, at the times the log gives."""

    def __init__(self, game: Game, log: EventLog, record: GameRecord, clocks: Clocks) -> None:
        self.game = game
        self.log = log
        self.record = record
        self.clocks = clocks
        self.frames: list[Frame] = []
        self.history: list[HistoryEntry] = []
        self._added: list[HistoryEntry] = []  # history since the last publish
        self._undone: list[int] = []
        self.kept: list[Action] = []  # the "record is right" decisions logged, oldest first
        self.replay()

    @property
    def state(self) -> State:
        return self.frames[-1].state

    def replay(self) -> None:
        """Rebuild the state as the replay of the log (also after a restart).

        Events are re-run in their order, exactly as they happened live: actions push,
        undos pop, clock events pause and resume, so the clocks come back too.
        """
        rec, clocks = self.record, self.clocks
        state = self.game.start(rec.players, rec.variant, rec.seed,
                                rec.options.get("house_rules"))
        self.frames = [Frame(state, None, rec.created, self.game.phase(state), rec.created)]
        self.history = []
        self.kept = []
        clocks.restart(rec.players, rec.created)
        events = self.log.events(rec.id)
        undone_later = {e.seq for e, undone in effective_events(events) if undone}
        skipped: list[int] = []  # stack depths where an action taken back later no longer applies
        for event in events:
            if event.kind == "clock":
                clocks.event(str((event.action or {}).get("clock")), event.at, self.state)
                continue
            if event.kind == "keep_record":
                self._noted(event)
                continue
            if event.kind in ("undo", "correct"):  # a correction takes back the newest, then applies
                if skipped and skipped[-1] == len(self.frames):
                    skipped.pop()  # it takes back the action that no longer applied
                elif len(self.frames) > 1:
                    clocks.advance(event.at, self.state)
                    before_turn = self.game.current_player(self.state)
                    frame = self.frames.pop()
                    assert frame.entry is not None
                    frame.entry.undone = True
                    clocks.turn_changed(before_turn, self.state)
                if event.kind == "undo":
                    continue
            assert event.action is not None  # EventLog refuses an action event without one
            before = self.state
            try:
                action, text = as_recorded(self.game, before, event.action)
                after = self.game.apply(before, action)
            except (RuleError, MalformedAction, KeyError, TypeError, ValueError) as err:
                if event.seq in undone_later:  # taken back later: it never shaped the state
                    self._append(HistoryEntry(
                        event.seq, f"(no longer applies: {err})", event.action,
                        event.source, event.at, True, event.kind))
                    skipped.append(len(self.frames))
                    continue
                raise DamagedLog(
                    f"event {event.seq} of game {rec.id} in {self.log.path} no longer applies "
                    f"({err}), so the events after it cannot be replayed either. To recover, "
                    f"keep the events before it (companion log truncate --data DIR --game "
                    f"{rec.id} --from {event.seq}), start a new game (--new-game), or "
                    f"restore a backup.") from None
            entry = HistoryEntry(event.seq, text, action, event.source, event.at, False, event.kind)
            self._append(entry)
            clocks.advance(event.at, self.state)
            self._push(after, entry, event.at)
            clocks.turn_changed(self.game.current_player(before), self.state)

    def _append(self, entry: HistoryEntry) -> None:
        """A new history entry, numbered as players count moves."""
        entry.move = len(self.history) + 1
        self.history.append(entry)

    def _push(self, state: State, entry: HistoryEntry, at: float) -> None:
        top = self.frames[-1]
        phase = self.game.phase(state)
        started = top.phase_started if phase == top.phase else at
        self.frames.append(Frame(state, entry, at, phase, started))

    def take_changes(self) -> tuple[list[HistoryEntry], list[int]]:
        """The entries added and the seqs undone since the last call: a delta's history."""
        added, undone = self._added, self._undone
        self._added, self._undone = [], []
        return added, undone

    # ------------------------------------------------------------------ changing
    def commit(self, action: Action, new_state: State, source: str,
               request_id: str | None = None) -> HistoryEntry:
        """Log ``action`` (already applied to give ``new_state``), then advance the record."""
        before = self.state
        text = self.game.describe(before, action)
        over = self.game.outcome(new_state) is not None
        event = self.log.append(self.record.id, "action", action, source, request_id,
                                finished=True if over else None)
        return self._advance(event, text, before, new_state)

    def _advance(self, event: Event, text: str, before: State, new_state: State) -> HistoryEntry:
        """The state follows an event already logged."""
        assert event.action is not None
        entry = HistoryEntry(event.seq, text, plain(event.action), event.source, event.at, False,
                             event.kind)
        self.clocks.advance(event.at, self.state)
        self._append(entry)
        self._added.append(entry)
        self._push(new_state, entry, event.at)
        self.clocks.turn_changed(self.game.current_player(before), self.state)
        return entry

    def note(self, kind: str, payload: Action, source: str,
             request_id: str | None = None) -> HistoryEntry:
        """Log a decision that moves no move (``keep_record``: the players said the record is
        right where the camera reads otherwise) and show it in the history in its words
        (``payload["text"]``); nothing to undo, the record stands as it was."""
        return self._noted(self.log.append(self.record.id, kind, payload, source, request_id),
                           live=True)

    def _noted(self, event: Event, live: bool = False) -> HistoryEntry:
        payload = event.action or {}
        entry = HistoryEntry(event.seq, str(payload.get("text") or ""), payload, event.source,
                             event.at, False, event.kind)
        self.history.append(entry)
        self.kept.append(payload)
        if live:
            self._added.append(entry)
        return entry

    def undo(self, source: str, request_id: str | None, seq: int | None,
             through: int | None = None) -> HistoryEntry:
        """Take back the newest effective action (logged as an undo event); given ``seq``,
        only if that is still the newest (:meth:`check_newest`); given ``through``, the moves
        after that standing one with it, as one decision (the table shows none was made).
        Returns the oldest move taken back."""
        if len(self.frames) == 1:
            raise NothingToUndo("nothing to undo")
        self.check_newest(seq, "undone")
        count = 1
        if through is not None:
            if not isinstance(through, int) or isinstance(through, bool):
                raise MalformedAction('"through" is the number of the oldest move to take back')
            index = self.frame_of(through)
            if index is None:
                raise NothingToUndo(f"{self.move_name(through)} is not in the record (undone, or never made)")
            count = len(self.frames) - index
        # taking back the winning move reopens the game, in the same write
        was_over = self.game.outcome(self.state) is not None
        events = self.log.append_many(self.record.id, [("undo", None, source, None)] * (count - 1)
                                      + [("undo", None, source, request_id)],
                                      finished=False if was_over else None)
        self.clocks.advance(events[-1].at, self.state)
        seat_before = self.game.current_player(self.state)
        for _ in range(count):
            taken = self._take_back_newest()
        self.clocks.turn_changed(seat_before, self.state)
        return taken

    def correct(self, action: Action, source: str, request_id: str | None,
                seq: int | None) -> HistoryEntry:
        """Replace the newest action by ``action``, logged as one ``correct`` event (a crash
        leaves either the old action or the replacement); refused ones change nothing.
        Given ``seq``, only if that is still the newest move (:meth:`check_newest`)."""
        if len(self.frames) == 1:
            raise NothingToUndo("nothing to correct")
        self.check_newest(seq, "replaced")
        before = self.frames[-2].state
        move, text = as_recorded(self.game, before, action)
        new_state = self.game.apply(before, move)
        was_over = self.game.outcome(self.state) is not None
        over = self.game.outcome(new_state) is not None
        event = self.log.append(self.record.id, "correct", action, source, request_id,
                                finished=over if over != was_over else None)
        # the time since the last move was the seat's to act on the record then, as an undo
        # credits it and the replay does: credited after the take-back it went to the seat
        # before the corrected move, and a restart showed other clocks than the table had
        self.clocks.advance(event.at, self.state)
        self._take_back_newest()
        return self._advance(event, text, before, new_state)

    def amend(self, seq: int, action: Action, source: str,
              request_id: str | None) -> HistoryEntry:
        """Replace the standing move ``seq`` by ``action`` and keep every move after it: the
        camera misread a card that stays on the table (a Nightclub's value) and the players
        went on.  The moves after it must all still be legal from the corrected one, else
        nothing changes (RuleError names the first that is not).  Logged as one decision,
        in one transaction: an undo of each move down to ``seq``, the correction, and each
        later move made again with its own source, so a restart replays the same record.
        A later move read from the table that only read the corrected one again
        (:meth:`Game.read_again`) is taken back with it.  Returns the corrected move's new entry."""
        if not isinstance(seq, int) or isinstance(seq, bool):
            raise MalformedAction('"entry" is the number of the move to correct')
        index = self.frame_of(seq)
        if index is None:
            raise NothingToUndo(f"{self.move_name(seq)} is not in the record (undone, or never made)")
        before = self.frames[index - 1].state
        move, text = as_recorded(self.game, before, action)
        states = [self.game.apply(before, move)]  # the corrected move, then each later one
        texts = [text]
        later = [f.entry for f in self.frames[index + 1:] if f.entry is not None]
        kept = []  # the later moves made again: not those that only read the corrected one again
        for entry in later:
            if self.game.read_again(states[-1], entry.action, entry.source):
                continue
            try:
                texts.append(self.game.describe(states[-1], entry.action))
                states.append(self.game.apply(states[-1], entry.action))
            except RuleError as err:
                raise RuleError(f"with {self.move_name(seq)} corrected, {self.move_name(entry.seq)} "
                                f"({entry.text}) no longer applies: {err.reason}",
                                err.rule) from None
            kept.append(entry)
        was_over = self.game.outcome(self.state) is not None
        over = self.game.outcome(states[-1]) is not None
        events = self.log.append_many(
            self.record.id,
            [("undo", None, source, None)] * len(later)
            + [("correct", action, source, request_id)]
            + [("action", e.action, e.source, None) for e in kept],
            finished=over if over != was_over else None)
        self.clocks.advance(events[0].at, self.state)  # (as in ``correct``)
        seat_before = self.game.current_player(self.state)
        for _ in range(len(later) + 1):
            self._take_back_newest()
        made = events[len(later):]
        for event, text, after in zip(made, texts, states, strict=True):
            assert event.action is not None
            new = HistoryEntry(event.seq, text, plain(event.action), event.source, event.at,
                               False, event.kind)
            self._append(new)
            self._added.append(new)
            self._push(after, new, event.at)
        self.clocks.advance(events[-1].at, self.state)
        self.clocks.turn_changed(seat_before, self.state)
        return self.history[-len(made)]

    def _take_back_newest(self) -> HistoryEntry:
        """Pop the newest move's frame and mark its entry undone (published with the change)."""
        frame = self.frames.pop()
        assert frame.entry is not None
        frame.entry.undone = True
        self._undone.append(frame.entry.seq)
        return frame.entry

    # ------------------------------------------------------------------ reading
    def frame_of(self, seq: int) -> int | None:
        """The index in the stack of the frame the standing move ``seq`` made, if it stands."""
        return next((i for i, f in enumerate(self.frames)
                     if f.entry is not None and f.entry.seq == seq), None)

    def check_newest(self, seq: int | None, done: str) -> None:
        """A player taps "undo" or "replace" on the move they read as the newest; the camera
        may record another before the tap arrives, and the tap would then take back a move
        they never saw.  Given the ``seq`` they saw, anything else newer is refused."""
        if seq is None:
            return
        if not isinstance(seq, int) or isinstance(seq, bool):
            raise MalformedAction('"seq" is the number of the move meant (the newest one)')
        newest = self.frames[-1].entry
        assert newest is not None
        if newest.seq != seq:
            raise NotTheNewest(f"{self.move_name(seq)} can no longer be {done}: {self.move_name(newest.seq)} "
                               f"({newest.text}) was recorded after it; look at the history again")

    def move_number(self, seq: int) -> int | None:
        """The number players read beside event ``seq`` in the history: its place in it
        (1, 2, 3...; an undone move keeps its number), not the log's sequence number, which
        also counts undos and other games' events.  None when no entry has that seq."""
        index = bisect.bisect_left(self.history, seq, key=lambda h: h.seq)
        return self.history[index].move if index < len(self.history) and self.history[index].seq == seq \
            else None

    def move_name(self, seq: int) -> str:
        """"move 7", numbered as the history is; "that move" for one the history lacks."""
        number = self.move_number(seq)
        return "that move" if number is None else f"move {number}"

    def entry(self, seq: int) -> HistoryEntry | None:
        """The history entry of event ``seq`` (None for an undo or an unknown seq)."""
        for entry in reversed(self.history):
            if entry.seq == seq:
                return entry
            if entry.seq < seq:
                break
        return None

    def request(self, request_id: str) -> tuple[int, Event] | None:
        """(game id, event) already logged for ``request_id``, in this game or an earlier one
        (a retry that reaches the next game after a winning move was logged), if any."""
        done = self.log.find_request(self.record.id, request_id)
        if done is not None:
            return self.record.id, done
        return self.log.find_request_anywhere(request_id)

    def state_before(self, seq: int) -> State | None:
        """The state a correction of the standing move ``seq`` starts from (None: no such
        move stands)."""
        index = self.frame_of(seq)
        return None if index is None else self.frames[index - 1].state
