"""One running game: the log, the tracker's state, reconciliation and the clocks.

Everything that changes the game goes through :class:`Table`: a board the
stabiliser committed, a card tapped, a button pressed, a declaration from the
tablet, an undo.  Each change is written to the log first, then the state
advances, then listeners (dashboards, LEDs, buzzer) are told.  The state is
always the replay of the log, so a restart after ``kill -9`` resumes exactly.
"""

from __future__ import annotations

import bisect
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.games import load_game
from companion.games.base import (
    Action,
    BoardView,
    Game,
    MalformedAction,
    Prompt,
    RuleError,
    State,
    Tap,
    Trigger,
    view_to_json,
)
from companion.reconcile import (
    RecordedMove,
    changed_places,
    reconcile,
    reconsider,
    reconsider_earlier,
    tally_mismatch,
)
from companion.seats import check_setup, game_colours
from companion.store import DamagedLog, Event, EventLog, GameRecord, effective_events

SETTLE_S = 1.5  # how long a board must be clear of hands before a held press is judged
HELD_PRESS = "press"  # the notice shown while a press waits for the camera to settle
HELD_PRESS_TEXT = "Press noted: it counts once the camera sees the table clear of hands."

Listener = Callable[[str, dict[str, Any]], None]
Watcher = Callable[[str, str], None]
"""Called with (SSE event name, JSON data) after every change: ``delta`` or ``state``."""

RECONSIDER_S = 8.0  # how long after a move the board may still show it was misread
EARLIER_MOVES = 40  # how many moves back a card that stays put is checked (a night and more)
HISTORY_SHOWN = 50  # history entries in a snapshot; older ones are paged (/api/history)
HISTORY_MAX = 500  # the most one request may ask for


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
    """``action``, or ``correct`` when it replaced the action before it."""

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "kind": self.kind,
            "text": self.text,
            "action": self.action,
            "source": self.source,
            "at": self.at,
            "undone": self.undone,
        }


@dataclass
class _Frame:
    """A state on the push/pop stack with the history entry that produced it."""

    state: State
    entry: HistoryEntry | None
    turn_started: float
    phase: str = ""
    phase_started: float = 0.0
    """When the run of frames in this phase began: the phase clock without a walk back."""


@dataclass
class TableOptions:
    """Per-table settings: a phase time limit in seconds by phase name and a limit for
    one player's turn (both off when absent)."""

    phase_limits: dict[str, float] = field(default_factory=dict)
    turn_limit: float | None = None


class ClockError(ValueError):
    """Pause asked while paused, or resume while running."""


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
        self.clock = clock
        self._lock = threading.RLock()
        self._watchers: list[Watcher] = []
        self.rev = 0
        """Rises on every published change: a delta's ``base`` is the rev it applies to."""
        self._last: dict[str, Any] | None = None  # the snapshot the next delta is against
        self._added: list[HistoryEntry] = []  # history since the last publish
        self._undone: list[int] = []
        self._listeners: list[Listener] = []
        self.history: list[HistoryEntry] = []
        self.taps: list[Tap] = []
        self.seen: BoardView | None = None
        self.table_prompt: Prompt | None = None
        self.notices: dict[str, Prompt] = {}
        # a button pressed while the camera has not settled waits for it (see ``button``)
        self.settle_s = SETTLE_S
        self._settling_until = 0.0
        self._settled_since_clear = True
        self._held_press: tuple[int | None, threading.Timer] | None = None
        self.player_seconds: list[float] = [0.0] * record.players
        self.paused = False
        self._mark = record.created  # running time accrues from here (when not paused)
        self._turn_seconds = 0.0  # running time of the current turn before ``_mark``
        self._time_up = False
        self._ticker: threading.Thread | None = None
        self._closed = threading.Event()
        self._replay()

    # ------------------------------------------------------------------ opening and replay
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

    def _replay(self) -> None:
        """Rebuild the state as the replay of the log (also after a restart).

        Events are re-run in their order, exactly as they happened live: actions push,
        undos pop, clock events pause and resume, so the clocks come back too.
        """
        rec = self.record
        state = self.game.start(rec.players, rec.variant, rec.seed,
                                rec.options.get("house_rules"))
        self._frames = [_Frame(state, None, rec.created, self.game.phase(state), rec.created)]
        self.history = []
        self.player_seconds = [0.0] * rec.players
        self.paused = False
        self._mark = rec.created
        self._turn_seconds = 0.0
        events = self.log.events(rec.id)
        undone_later = {e.seq for e, undone in effective_events(events) if undone}
        skipped: list[int] = []  # stack depths where an action taken back later no longer applies
        for event in events:
            if event.kind == "clock":
                self._clock_event(str((event.action or {}).get("clock")), event.at)
                continue
            if event.kind in ("undo", "correct"):  # a correction takes back the newest, then applies
                if skipped and skipped[-1] == len(self._frames):
                    skipped.pop()  # it takes back the action that no longer applied
                elif len(self._frames) > 1:
                    self._advance_clocks(event.at)
                    before_turn = self.game.current_player(self.state)
                    frame = self._frames.pop()
                    assert frame.entry is not None
                    frame.entry.undone = True
                    self._turn_changed(before_turn)
                if event.kind == "undo":
                    continue
            assert event.action is not None  # EventLog refuses an action event without one
            before = self.state
            try:
                after = self.game.apply(before, event.action)
                text = self.game.describe(before, event.action)
            except (RuleError, MalformedAction, KeyError, TypeError, ValueError) as err:
                if event.seq in undone_later:  # taken back later: it never shaped the state
                    self.history.append(HistoryEntry(
                        event.seq, f"(no longer applies: {err})", event.action,
                        event.source, event.at, True, event.kind))
                    skipped.append(len(self._frames))
                    continue
                raise DamagedLog(
                    f"event {event.seq} of game {rec.id} in {self.log.path} no longer applies "
                    f"({err}), so the events after it cannot be replayed either. To recover, "
                    f"keep the events before it (companion log truncate --data DIR --game "
                    f"{rec.id} --from {event.seq}), start a new game (--new-game), or "
                    f"restore a backup.") from None
            entry = HistoryEntry(event.seq, text, event.action, event.source, event.at, False,
                                 event.kind)
            self.history.append(entry)
            self._advance_clocks(event.at)
            self._push(after, entry, event.at)
            self._turn_changed(self.game.current_player(before))

    def _push(self, state: State, entry: HistoryEntry, at: float) -> None:
        top = self._frames[-1]
        phase = self.game.phase(state)
        started = top.phase_started if phase == top.phase else at
        self._frames.append(_Frame(state, entry, at, phase, started))

    # ------------------------------------------------------------------ clocks
    def _advance_clocks(self, now: float) -> None:
        """Credit running time since the mark to the seat whose turn it is."""
        if not self.paused:
            elapsed = max(0.0, now - self._mark)
            seat = self.game.current_player(self.state)
            if self.game.outcome(self.state) is None:
                if seat is None:  # a step everyone takes at once: everyone's clock runs
                    self.player_seconds = [s + elapsed for s in self.player_seconds]
                elif 0 <= seat < len(self.player_seconds):
                    self.player_seconds[seat] += elapsed
                self._turn_seconds += elapsed
        self._mark = now

    def _turn_changed(self, seat_before: int | None) -> None:
        """A new turn starts when the seat that must act changes (not only the phase)."""
        if self.game.current_player(self.state) != seat_before:
            self._turn_seconds = 0.0
            self._time_up = False

    def _clock_event(self, what: str, at: float) -> None:
        if what == "pause" and not self.paused:
            self._advance_clocks(at)
            self.paused = True
        elif what == "resume" and self.paused:
            self.paused = False
            self._mark = at

    def turn_seconds(self) -> float:
        """Running time of the current turn (paused time excluded)."""
        running = 0.0 if self.paused or self.game.outcome(self.state) is not None else \
            max(0.0, self.clock() - self._mark)
        return self._turn_seconds + running

    def time_up(self) -> bool:
        limit = self.options.turn_limit
        return (limit is not None and self.game.outcome(self.state) is None
                and self.game.current_player(self.state) is not None
                and self.turn_seconds() > limit)

    def pause(self, source: str = "tablet") -> None:
        """Stop every clock (logged, so a restart stays paused)."""
        self._set_clock("pause", source)

    def resume(self, source: str = "tablet") -> None:
        """Start the clocks again from now (logged)."""
        self._set_clock("resume", source)

    def _set_clock(self, what: str, source: str) -> None:
        with self._lock:
            if (what == "pause") == self.paused:
                raise ClockError("the clocks are already paused" if self.paused
                                 else "the clocks are already running")
            event = self.log.append(self.record.id, "clock", {"clock": what}, source)
            self._clock_event(what, event.at)
            self._publish("clock")

    def tick(self) -> bool:
        """Publish once when the turn's time runs out (called by the clock watcher)."""
        with self._lock:
            now_up = self.time_up()
            if now_up == self._time_up:
                return False
            self._time_up = now_up
            self._publish("time_up" if now_up else "clock")
            return True

    def watch_clocks(self, interval: float = 0.5) -> None:
        """A daemon thread that pushes the time-up alert live (stopped by :meth:`close`)."""
        if self._ticker is not None:
            return

        def run() -> None:
            while not self._closed.wait(interval):
                self.tick()

        self._ticker = threading.Thread(target=run, name="table-clock", daemon=True)
        self._ticker.start()

    def close(self) -> None:
        """Stop the clock watcher (the log stays open: its owner closes it)."""
        self._closed.set()
        if self._ticker is not None:
            self._ticker.join(timeout=2)
            self._ticker = None

    # ------------------------------------------------------------------ reading
    @property
    def state(self) -> State:
        return self._frames[-1].state

    def add_listener(self, listener: Listener) -> None:
        """Call ``listener(kind, public_state)`` after each logged change or new prompt."""
        with self._lock:
            self._listeners.append(listener)

    def prompts(self) -> list[Prompt]:
        """The tracker's prompts, then the table's own (mismatch, choice, device notices)."""
        out = []
        if self.table_prompt is not None:
            out.append(self.table_prompt)
        out += list(self.notices.values())
        over = self.game.outcome(self.state) is not None
        # at game over no chore, turn or choice is left to do: they are cleared
        out += [p for p in self.game.prompts(self.state)
                if not over or p.kind not in ("chore", "turn", "choice")]
        if over:
            return out
        limit = self.options.phase_limits.get(self.game.phase(self.state))
        if limit is not None and self.phase_seconds() > limit:
            out.insert(0, Prompt(f"Time is up for {self.game.phase_label(self.state)}.", "warning"))
        if self.time_up():
            seat = self.game.current_player(self.state)
            out.insert(0, Prompt(f"Time is up for {self.names()[seat]}'s turn.", "warning", seat))
        return out

    def names(self) -> list[str]:
        """Each seat's name: the set-up's where it gave one, else the game's."""
        names = self.game.player_names(self.state)
        chosen = self.record.options.get("names") or []
        return [str(chosen[i]) if i < len(chosen) and chosen[i] else n for i, n in enumerate(names)]

    def colours(self) -> list[str]:
        """Each seat's banner colour: the set-up's, else the colour the seat plays with on the
        table (a Deity's dice), else the one its name says, else the palette's."""
        chosen = self.record.options.get("colours") or []
        own = game_colours(self.game, self.state)
        return [str(chosen[i]) if i < len(chosen) and chosen[i] else own[i]
                for i in range(self.record.players)]

    def phase_seconds(self) -> float:
        """Time since the current phase began (the newest action that changed it)."""
        return max(0.0, self.clock() - self._frames[-1].phase_started)

    def history_page(self, before: int | None = None,
                     limit: int = HISTORY_SHOWN) -> tuple[list[dict[str, Any]], bool]:
        """The newest ``limit`` entries older than seq ``before`` (oldest first), and whether
        older ones remain: the history paged, never rebuilt whole."""
        limit = max(1, min(limit, HISTORY_MAX))
        with self._lock:
            end = len(self.history) if before is None else bisect.bisect_left(
                self.history, before, key=lambda h: h.seq)
            start = max(0, end - limit)
            return [h.to_json() for h in self.history[start:end]], start > 0

    def public(self, history: int | None = HISTORY_SHOWN) -> dict[str, Any]:
        """What any watcher may see: the tablet JSON (GET /api/state), with the newest
        ``history`` entries (None: all, for a finished game's record) and ``history_total``."""
        with self._lock:
            shown = self.history if history is None else (
                self.history[-history:] if history > 0 else [])
            state = self.state
            game = self.game
            outcome = game.outcome(state)
            names = self.names()
            colours = self.colours()
            scores = game.scores(state)
            turn = game.current_player(state)
            clocks = list(self.player_seconds)
            if outcome is None and not self.paused:
                running = max(0.0, self.clock() - self._mark)
                for seat in range(len(clocks)) if turn is None else [turn]:
                    clocks[seat] += running
            return {
                "game": game.name,
                "title": game.title,
                "game_id": self.record.id,
                "variant": self.record.variant,
                "players": [
                    {"seat": i, "name": n, "score": scores[i], "clock_s": round(clocks[i], 1),
                     "colour": colours[i]}
                    for i, n in enumerate(names)
                ],
                "paused": self.paused,
                "turn_s": round(self.turn_seconds(), 1),
                "turn_limit_s": self.options.turn_limit,
                "time_up": self.time_up(),
                "turn": turn,
                "turn_name": names[turn] if turn is not None else None,
                "phase": game.phase(state),
                "phase_label": game.phase_label(state),
                "house_rules": {rule.id: game.house_rule(state, rule.id) for rule in game.house_rules},
                "phase_s": round(self.phase_seconds(), 1),
                "scores": scores,
                "prompts": [p.to_json() for p in self.prompts()],
                "history": [h.to_json() for h in shown],
                "history_total": len(self.history),
                "rev": self.rev,
                "can_undo": len(self._frames) > 1,
                "over": outcome is not None,
                "winner": list(outcome.winners) if outcome else None,
                "reason": outcome.reason if outcome else None,
                "board": view_to_json(game.board_view(state)),
                "seen": view_to_json(self.seen) if self.seen is not None else None,
                "seen_mismatch": self._seen_mismatch(state),
                "taps": [{"card": t.card, "seat": t.seat, "name": game.card_name(t.card)}
                         for t in self.taps],
                "summary": game.summary(state),
            }

    def _seen_mismatch(self, state: State) -> list[str]:
        """Spots where the camera's committed board and the tracked board differ."""
        if self.seen is None:
            return []
        board = self.game.board_view(state)
        return sorted(s for s in set(self.seen) | set(board) if self.seen.get(s, ()) != board.get(s, ()))

    # ------------------------------------------------------------------ changing
    def watch(self, watcher: Watcher) -> str:
        """Add ``watcher`` and return the full state it starts from (JSON, with ``rev``);
        from then on it gets each change as a delta against the rev before it."""
        with self._lock:
            snapshot = self.public()
            if self._last is None:
                self._last = snapshot
            self._watchers.append(watcher)
            return json.dumps(snapshot, allow_nan=False)

    def unwatch(self, watcher: Watcher) -> None:
        with self._lock:
            if watcher in self._watchers:
                self._watchers.remove(watcher)

    def _delta(self, snapshot: dict[str, Any], last: dict[str, Any]) -> dict[str, Any]:
        changed = {k: v for k, v in snapshot.items()
                   if k not in ("history", "rev") and last.get(k) != v}
        return {"rev": snapshot["rev"], "base": last["rev"], "set": changed,
                "history": {"add": [h.to_json() for h in self._added],
                            "undone": list(self._undone)}}

    def _publish(self, kind: str) -> None:
        """Tell every watcher: a small delta to the streams, the snapshot to listeners.

        Nothing is computed when nobody watches (a replay of a long log)."""
        self.rev += 1
        if not (self._watchers or self._listeners):
            self._added, self._undone, self._last = [], [], None
            return
        snapshot = self.public()
        if self._watchers:
            last = self._last or {"rev": self.rev - 1}
            data = json.dumps(self._delta(snapshot, last), allow_nan=False)
            for watcher in list(self._watchers):
                watcher("delta", data)
            self._last = snapshot
        else:
            self._last = None
        self._added, self._undone = [], []
        for listener in list(self._listeners):
            listener(kind, snapshot)

    def _commit(self, action: Action, new_state: State, source: str,
                request_id: str | None = None) -> HistoryEntry:
        """Log first, then advance, then tell: the order the invariants need."""
        before = self.state
        text = self.game.describe(before, action)
        over = self.game.outcome(new_state) is not None
        event = self.log.append(self.record.id, "action", action, source, request_id,
                                finished=True if over else None)
        return self._advance(event, text, before, new_state, "action")

    def _advance(self, event: Event, text: str, before: State, new_state: State,
                 kind: str) -> HistoryEntry:
        """The state follows an event already logged; then the watchers are told."""
        assert event.action is not None
        action, source = event.action, event.source
        entry = HistoryEntry(event.seq, text, action, source, event.at, False, event.kind)
        self._advance_clocks(event.at)
        self.history.append(entry)
        self._added.append(entry)
        self._push(new_state, entry, event.at)
        self._turn_changed(self.game.current_player(before))
        self.taps = []
        self.table_prompt = None
        self._check_tallies()
        self._publish(kind)
        return entry

    def _check_tallies(self, board_changed: bool = False) -> bool:
        """Set or clear the standing warning that the score pieces on the table differ from
        the record.  It is raised only when the table changed (``board_changed``) and still
        differs: right after a move is recorded the players have yet to take its point or
        move its marker, and a difference a press of the button would record as a move (the
        marker moved before the press) is a move under way.  True when it changed."""
        if not board_changed and "tally" not in self.notices:
            return False
        text = None
        if self.seen is not None and self.game.outcome(self.state) is None:
            differ = tally_mismatch(self.game, self.state, self.seen)
            pressed = reconcile(self.game, self.state, self.seen, list(self.taps), "button") \
                if differ is not None else None
            # a move under way: a press would record a move that leaves the counts right (or
            # the table fits several moves); a press that leaves them wrong explains nothing
            under_way = pressed is not None and (
                (pressed.state is not None
                 and tally_mismatch(self.game, pressed.state, self.seen) is None)
                or (pressed.prompt is not None and pressed.prompt.kind == "choice"))
            if pressed is not None and not under_way:
                text = (f"The score pieces differ from the record: {differ}. Set them as the "
                        "record says, or correct the record in the history.")
        current = self.notices.get("tally")
        if (current.text if current else None) == text:
            return False
        if text is None:
            del self.notices["tally"]
        else:
            self.notices["tally"] = Prompt(text, "warning")
        return True

    def request(self, request_id: str) -> tuple[int, Event] | None:
        """(game id, event) already logged for ``request_id``, in this game or an earlier one
        (a retry that reaches the next game after a winning move was logged), if any."""
        done = self.log.find_request(self.record.id, request_id)
        if done is not None:
            return self.record.id, done
        return self.log.find_request_anywhere(request_id)

    def entry(self, seq: int) -> HistoryEntry | None:
        """The history entry of event ``seq`` (None for an undo or an unknown seq)."""
        with self._lock:
            for entry in reversed(self.history):
                if entry.seq == seq:
                    return entry
                if entry.seq < seq:
                    break
        return None

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
                self.undo(source, request_id, seq=action.get("seq"))
                return None
            if action["type"] == "forget_taps":
                self.forget_taps(action.get("card"))
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
                self.table_prompt = Prompt(
                    f"Refused: {err.reason} (rule: {err.rule})", "warning",
                    self.game.current_player(self.state),
                )
                self._publish("prompt")
                raise
            return self._commit(action, new_state, source, request_id)

    def forget_taps(self, card: Any = None) -> None:
        """Forget the cards tapped since the last move (or one of them): a card that missed
        its move, was tapped by mistake or twice would otherwise be read into every press
        that follows.  Taps are not part of the record, so nothing is logged."""
        if card is not None and not isinstance(card, str):
            raise MalformedAction('"card" is the id of a tapped card')
        with self._lock:
            kept = [t for t in self.taps if card is not None and t.card != card]
            if len(kept) == len(self.taps):
                raise NothingToUndo("no such card tapped" if card is not None and self.taps
                                    else "no cards tapped")
            self.taps = kept
            self.table_prompt = None  # a refusal of those cards is no longer the question
            self._publish("taps")

    def undo(self, source: str = "tablet", request_id: str | None = None,
             seq: int | None = None) -> HistoryEntry:
        """Take back the newest effective action (logged as an undo event); given ``seq``,
        only if that is still the newest (:meth:`check_newest`)."""
        with self._lock:
            if len(self._frames) == 1:
                raise NothingToUndo("nothing to undo")
            self.check_newest(seq, "undone")
            # taking back the winning move reopens the game, in the same write
            was_over = self.game.outcome(self.state) is not None
            event = self.log.append(self.record.id, "undo", None, source, request_id,
                                    finished=False if was_over else None)
            self._advance_clocks(event.at)
            seat_before = self.game.current_player(self.state)
            taken = self._take_back_newest()
            self._turn_changed(seat_before)
            self.table_prompt = None
            self.taps = []
            self._check_tallies()
            self._publish("undo")
            return taken

    def correct(self, action: Action, source: str = "tablet",
                request_id: str | None = None, seq: int | None = None,
                entry: int | None = None) -> HistoryEntry:
        """Replace the newest action by ``action``, logged as one ``correct`` event (a crash
        leaves either the old action or the replacement); refused ones change nothing.
        Given ``seq``, only if that is still the newest move (:meth:`check_newest`).  Given
        ``entry``, the move of that number is replaced and the moves after it stand
        (:meth:`amend`)."""
        action = canonical(action)
        with self._lock:
            if entry is not None:
                newest = self._frames[-1].entry
                if newest is None or newest.seq != entry:
                    return self.amend(entry, action, source, request_id)
            if len(self._frames) == 1:
                raise NothingToUndo("nothing to correct")
            self.check_newest(seq, "replaced")
            before = self._frames[-2].state
            new_state = self.game.apply(before, action)
            text = self.game.describe(before, action)
            was_over = self.game.outcome(self.state) is not None
            over = self.game.outcome(new_state) is not None
            event = self.log.append(self.record.id, "correct", action, source, request_id,
                                    finished=over if over != was_over else None)
            self._take_back_newest()
            return self._advance(event, text, before, new_state, "correct")

    def amend(self, seq: int, action: Action, source: str = "tablet",
              request_id: str | None = None) -> HistoryEntry:
        """Replace the standing move ``seq`` by ``action`` and keep every move after it: the
        camera misread a card that stays on the table (a Nightclub's value) and the players
        went on.  The moves after it must all still be legal from the corrected one, else
        nothing changes (RuleError names the first that is not).  Logged as one decision,
        in one transaction: an undo of each move down to ``seq``, the correction, and each
        later move made again with its own source, so a restart replays the same record.
        Returns the corrected move's new entry."""
        action = canonical(action)
        with self._lock:
            if not isinstance(seq, int) or isinstance(seq, bool):
                raise MalformedAction('"entry" is the number of the move to correct')
            index = self._frame_of(seq)
            if index is None:
                raise NothingToUndo(f"move {seq} is not in the record (undone, or never made)")
            before = self._frames[index - 1].state
            states = [self.game.apply(before, action)]  # the corrected move, then each later one
            texts = [self.game.describe(before, action)]
            later = [f.entry for f in self._frames[index + 1:] if f.entry is not None]
            for entry in later:
                try:
                    texts.append(self.game.describe(states[-1], entry.action))
                    states.append(self.game.apply(states[-1], entry.action))
                except RuleError as err:
                    raise RuleError(f"with move {seq} corrected, move {entry.seq} "
                                    f"({entry.text}) no longer applies: {err.reason}",
                                    err.rule) from None
            was_over = self.game.outcome(self.state) is not None
            over = self.game.outcome(states[-1]) is not None
            events = self.log.append_many(
                self.record.id,
                [("undo", None, source, None)] * len(later)
                + [("correct", action, source, request_id)]
                + [("action", e.action, e.source, None) for e in later],
                finished=over if over != was_over else None)
            seat_before = self.game.current_player(self.state)
            for _ in range(len(later) + 1):
                self._take_back_newest()
            made = events[len(later):]
            for event, text, after in zip(made, texts, states, strict=True):
                assert event.action is not None
                new = HistoryEntry(event.seq, text, event.action, event.source, event.at,
                                   False, event.kind)
                self.history.append(new)
                self._added.append(new)
                self._push(after, new, event.at)
            self._advance_clocks(events[-1].at)
            self._turn_changed(seat_before)
            self.taps = []
            self.table_prompt = None
            self._check_tallies()
            self._publish("correct")
            return self.history[-len(made)]

    def _take_back_newest(self) -> HistoryEntry:
        """Pop the newest move's frame and mark its entry undone (published with the change)."""
        frame = self._frames.pop()
        assert frame.entry is not None
        frame.entry.undone = True
        self._undone.append(frame.entry.seq)
        return frame.entry

    def _frame_of(self, seq: int) -> int | None:
        """The index in the stack of the frame the standing move ``seq`` made, if it stands."""
        return next((i for i, f in enumerate(self._frames)
                     if f.entry is not None and f.entry.seq == seq), None)

    def check_newest(self, seq: int | None, done: str) -> None:
        """A player taps "undo" or "replace" on the move they read as the newest; the camera
        may record another before the tap arrives, and the tap would then take back a move
        they never saw.  Given the ``seq`` they saw, anything else newer is refused."""
        if seq is None:
            return
        if not isinstance(seq, int) or isinstance(seq, bool):
            raise MalformedAction('"seq" is the number of the move meant (the newest one)')
        newest = self._frames[-1].entry
        assert newest is not None
        if newest.seq != seq:
            raise NotTheNewest(f"move {seq} can no longer be {done}: move {newest.seq} "
                               f"({newest.text}) was recorded after it; look at the history again")

    # ------------------------------------------------------------------ physical inputs
    def _reconcile(self, trigger: Trigger, source: str) -> HistoryEntry | None:
        seen = self.seen if self.seen is not None else self.game.board_view(self.state)
        verdict = reconcile(self.game, self.state, seen, list(self.taps), trigger)
        if verdict.action is not None and verdict.state is not None:
            entry = self._commit(canonical(verdict.action), verdict.state, source)
            if (earlier := self._reconsider_earlier(seen)) is not None:
                self.table_prompt = earlier  # the move stands; a card laid before it was misread
                self._publish("prompt")
            return entry
        # a press the table cannot explain may be explained by a misread of the move before
        # it: that question is the answer, not "the table does not match"
        if trigger in ("board", "button") and (second := self._reconsider(seen, trigger)) is not None:
            verdict.prompt = second
        if verdict.prompt is not None:
            self.table_prompt = verdict.prompt
            self._publish("prompt")
        elif self._question_settled(seen):
            self.table_prompt = None
            self._publish("prompt")
        else:  # nothing to record, but what the table shows changed: dashboards see it
            self._publish(trigger)
        return None

    def _question_settled(self, seen: BoardView) -> bool:
        """A question whether a move was misread is moot once the table reads as recorded
        again (a misread for a moment, the record right): it would stay until the next move."""
        options = self.table_prompt.options if self.table_prompt is not None else None
        if not options or any(o.get("type") != "correct" for o in options):
            return False
        return not {p for p in changed_places(self.game.board_view(self.state), seen)
                    if not self.game.score_place(p)}

    def _reconsider(self, seen: BoardView, trigger: Trigger) -> Prompt | None:
        """Does the board, moments after the camera's last move, say it was misread?  Or
        does it show a card laid moves ago, that no move changes, as another value?"""
        entry = self._frames[-1].entry
        if entry is not None and entry.source in ("camera", "table") \
                and len(self._frames) >= 2 and self.clock() - entry.at <= RECONSIDER_S:
            prompt = reconsider(self.game, self._frames[-2].state, entry.action, self.state,
                                seen, list(self.taps), trigger)
            if prompt is not None:
                return prompt
        return self._reconsider_earlier(seen)

    def _reconsider_earlier(self, seen: BoardView) -> Prompt | None:
        if not self.game.fixed_places(self.state):
            return None  # the common case, after every move: nothing stays put to check
        frames = self._frames[-(EARLIER_MOVES + 1):]
        moves = [RecordedMove(f.entry.seq, f.entry.action, f.entry.source, prev.state, f.state)
                 for prev, f in zip(frames, frames[1:], strict=False) if f.entry is not None]
        return reconsider_earlier(self.game, moves, self.state, seen)

    def board_seen(self, view: BoardView) -> HistoryEntry | None:
        """The stabiliser committed a board: explain it if it changed."""
        with self._lock:
            if view == self.seen:
                return None
            self.seen = view
            entry = self._reconcile("board", "camera")
            self._board_settled()
            if entry is None and self._check_tallies(board_changed=True):
                self._publish("notice")
            return entry

    def tap(self, card: str, seat: int | None = None) -> HistoryEntry | None:
        """A card laid on a reader; an unknown card is a prompt and changes nothing."""
        with self._lock:
            known = self.game.card_ids()
            if known and card not in known:
                self.table_prompt = Prompt(
                    f"Unknown card {card!r} on reader {seat}: not a card of {self.game.title}.",
                    "warning",
                )
                self._publish("prompt")
                return None
            self.taps.append(Tap(card, seat))
            return self._reconcile("tap", "cards")

    def button(self, seat: int | None = None) -> HistoryEntry | None:
        """A turn or seat button: the player says the step on the table is done.

        Pressed while a hand is over the board, the camera gives no picture, or the board
        changed in the last ``settle_s`` seconds, the press is held (returns None) and judged
        once the camera settles: on the next settled board, or ``settle_s`` after the view
        cleared.  Judging it on the board as it was before the pieces landed would refuse
        or mis-record the move the player just made."""
        with self._lock:
            if self._camera_unsettled():
                self._hold_press(seat)
                return None
            return self._reconcile("button", "table")

    # ------------------------------------------------------------------ held presses
    def _camera_unsettled(self) -> bool:
        if "vision" in self.notices or "camera" in self.notices:
            return True
        # the view came back a moment ago and no board has settled since: wait for one
        return not self._settled_since_clear and time.monotonic() < self._settling_until

    def _hold_press(self, seat: int | None) -> None:
        if self._held_press is not None:
            self._held_press[1].cancel()  # pressed twice while waiting: one press
        timer = threading.Timer(self._settle_wait(), self._release_press)
        timer.daemon = True
        self._held_press = (seat, timer)
        timer.start()
        # players see their press counted: pressing again or making the move again would
        # record it twice
        self.notice(HELD_PRESS, Prompt(HELD_PRESS_TEXT, "info", seat))

    def _drop_held_press(self) -> None:
        """The held press is judged now: its timer and its notice go (the notice's going is
        published with whatever the press records)."""
        if self._held_press is not None:
            self._held_press[1].cancel()
        self._held_press = None
        self.notices.pop(HELD_PRESS, None)

    def _settle_wait(self) -> float:
        return max(self.settle_s, self._settling_until - time.monotonic())

    def _release_press(self) -> HistoryEntry | None:
        """Judge a held press now, unless the camera is still unsettled (then wait again)."""
        with self._lock:
            if self._held_press is None:
                return None
            seat, _ = self._held_press
            if "vision" in self.notices or "camera" in self.notices:
                self._hold_press(seat)
                return None
            self._drop_held_press()
            return self._reconcile("button", "table")

    def _board_settled(self) -> None:
        """A settled board arrived: a held press is judged on it, right after the board."""
        self._settled_since_clear = True
        if self._held_press is not None:
            self._drop_held_press()
            self._reconcile("button", "table")

    def notice(self, key: str, prompt: Prompt | None) -> None:
        """Set or clear a standing notice (device unplugged, camera lost, hand over board)."""
        with self._lock:
            if prompt is None:
                if self.notices.pop(key, None) is None:
                    return
                if key in ("vision", "camera"):  # the view is back: give it time to settle
                    self._settling_until = time.monotonic() + self.settle_s
                    self._settled_since_clear = False
            else:
                current = self.notices.get(key)
                if current is not None and current.text == prompt.text:
                    return
                self.notices[key] = prompt
            self._publish("notice")

    def state_before_newest(self) -> State | None:
        """The state a correction of the newest action starts from (None: nothing to correct)."""
        with self._lock:
            return self._frames[-2].state if len(self._frames) > 1 else None

    def state_before(self, seq: int) -> State | None:
        """The state a correction of the standing move ``seq`` starts from (None: no such
        move stands)."""
        with self._lock:
            index = self._frame_of(seq)
            return None if index is None else self._frames[index - 1].state

    def state_json(self) -> str:
        return json.dumps(self.state, sort_keys=True)
