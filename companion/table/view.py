"""The public view of the running game: what any watcher may see, and its changes.

A snapshot (GET /api/state) is built from the other rooms; each change is published as
a small delta to the live streams (watchers) and as the snapshot to listeners (LEDs,
buzzer, the venue).  Nothing is computed when nobody watches (a replay of a long log).
Not locked: the front (:class:`companion.table.Table`) holds its lock around every call.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Callable
from typing import Any

from companion.games.base import BoardView, Game, Prompt, view_to_json
from companion.seats import game_colours
from companion.store import GameRecord
from companion.table.clocks import Clocks
from companion.table.ledger import Ledger
from companion.table.referee import Referee

HISTORY_SHOWN = 50  # history entries in a snapshot; older ones are paged (/api/history)
HISTORY_MAX = 500  # the most one request may ask for

Listener = Callable[[str, dict[str, Any]], None]
Watcher = Callable[[str, str], None]
"""Called with (SSE event name, JSON data) after every change: ``delta`` or ``state``."""


class View:
    """The snapshot, the deltas against it, and who is told of them.

    ``snapshot`` is what :meth:`publish` calls for the state it sends: the front's
    ``public``, looked up on each call so that whatever wraps it sees every snapshot."""

    def __init__(self, game: Game, record: GameRecord, ledger: Ledger, clocks: Clocks,
                 referee: Referee, snapshot: Callable[[], dict[str, Any]] | None = None) -> None:
        self.game = game
        self.record = record
        self.ledger = ledger
        self.clocks = clocks
        self.referee = referee
        self.snapshot = snapshot or self.public
        self.rev = 0
        """Rises on every published change: a delta's ``base`` is the rev it applies to."""
        self._last: dict[str, Any] | None = None  # the snapshot the next delta is against
        self.watchers: list[Watcher] = []
        self.listeners: list[Listener] = []

    # ------------------------------------------------------------------ reading
    def prompts(self) -> list[Prompt]:
        """The tracker's prompts, then the table's own (mismatch, choice, device notices)."""
        state, referee = self.ledger.state, self.referee
        out = []
        asked = referee.table_prompt
        if asked is not None:
            out.append(asked)
        # the standing tally warning, raised before a press asked the same, is shown once
        out += [p for p in referee.notices.values() if asked is None or p.text != asked.text]
        over = self.game.outcome(state) is not None
        # at game over no chore, turn or choice is left to do: they are cleared
        out += [p for p in self.game.prompts(state)
                if not over or p.kind not in ("chore", "turn", "choice")]
        if over:
            return out
        if self.clocks.phase_up(state, self.ledger.frames[-1].phase_started):
            out.insert(0, Prompt(f"Time is up for {self.game.phase_label(state)}.", "warning"))
        if self.clocks.time_up(state):
            seat = self.game.current_player(state)
            out.insert(0, Prompt(f"Time is up for {self.names()[seat]}'s turn.", "warning", seat))
        return out

    def _prompt_json(self, prompt: Prompt) -> dict[str, Any]:
        """A prompt as the tablet gets it, with ``labels``: each option's words where the
        tablet's forms cannot give them (a correction's reading names values the forms no
        longer offer, a card already played: "cheat-k01"), else None."""
        out = prompt.to_json()
        labels: list[str | None] = []
        for option in prompt.options or []:
            label = None
            entry, action = option.get("entry"), option.get("action")
            if option.get("type") == "correct" and isinstance(entry, int) and isinstance(action, dict):
                before = self.ledger.state_before(entry)
                if before is not None:
                    label = f"Correct #{self.ledger.move_number(entry)}: {self.game.describe(before, action)}"
            labels.append(label)
        if any(labels):
            out["labels"] = labels
        return out

    def names(self) -> list[str]:
        """Each seat's name: the set-up's where it gave one, else the game's."""
        names = self.game.player_names(self.ledger.state)
        chosen = self.record.options.get("names") or []
        return [str(chosen[i]) if i < len(chosen) and chosen[i] else n for i, n in enumerate(names)]

    def colours(self) -> list[str]:
        """Each seat's banner colour: the set-up's, else the colour the seat plays with on the
        table (a Deity's dice), else the one its name says, else the palette's."""
        chosen = self.record.options.get("colours") or []
        own = game_colours(self.game, self.ledger.state)
        return [str(chosen[i]) if i < len(chosen) and chosen[i] else own[i]
                for i in range(self.record.players)]

    def history_page(self, before: int | None = None,
                     limit: int = HISTORY_SHOWN) -> tuple[list[dict[str, Any]], bool]:
        """The newest ``limit`` entries older than seq ``before`` (oldest first), and whether
        older ones remain: the history paged, never rebuilt whole."""
        limit = max(1, min(limit, HISTORY_MAX))
        history = self.ledger.history
        end = len(history) if before is None else bisect.bisect_left(
            history, before, key=lambda h: h.seq)
        start = max(0, end - limit)
        return [h.to_json() for h in history[start:end]], start > 0

    def public(self, history: int | None = HISTORY_SHOWN) -> dict[str, Any]:
        """What any watcher may see: the tablet JSON (GET /api/state), with the newest
        ``history`` entries (None: all, for a finished game's record) and ``history_total``."""
        ledger, clocks, referee, game = self.ledger, self.clocks, self.referee, self.game
        shown = ledger.history if history is None else (
            ledger.history[-history:] if history > 0 else [])
        state = ledger.state
        outcome = game.outcome(state)
        names = self.names()
        colours = self.colours()
        scores = game.scores(state)
        turn = game.current_player(state)
        seconds = clocks.seat_seconds(state)
        return {
            "game": game.name,
            "title": game.title,
            "game_id": self.record.id,
            "variant": self.record.variant,
            "players": [
                {"seat": i, "name": n, "score": scores[i], "clock_s": round(seconds[i], 1),
                 "colour": colours[i]}
                for i, n in enumerate(names)
            ],
            "paused": clocks.paused,
            "turn_s": round(clocks.turn_seconds(state), 1),
            "turn_limit_s": clocks.options.turn_limit,
            "time_up": clocks.time_up(state),
            "turn": turn,
            "turn_name": names[turn] if turn is not None else None,
            "phase": game.phase(state),
            "phase_label": game.phase_label(state),
            "house_rules": {rule.id: game.house_rule(state, rule.id) for rule in game.house_rules},
            "phase_s": round(clocks.phase_seconds(ledger.frames[-1].phase_started), 1),
            "scores": scores,
            "prompts": [self._prompt_json(p) for p in self.prompts()],
            "history": [h.to_json() for h in shown],
            "history_total": len(ledger.history),
            "rev": self.rev,
            "can_undo": len(ledger.frames) > 1,
            "over": outcome is not None,
            "winner": list(outcome.winners) if outcome else None,
            "reason": outcome.reason if outcome else None,
            "board": view_to_json(game.board_view(state)),
            "seen": view_to_json(referee.seen) if referee.seen is not None else None,
            "seen_mismatch": seen_mismatch(game.board_view(state), referee.seen),
            "taps": [{"card": t.card, "seat": t.seat, "name": game.card_name(t.card)}
                     for t in referee.taps],
            "summary": game.summary(state),
        }

    # ------------------------------------------------------------------ telling
    def watch(self, watcher: Watcher) -> str:
        """Add ``watcher`` and return the full state it starts from (JSON, with ``rev``);
        from then on it gets each change as a delta against the rev before it."""
        snapshot = self.snapshot()
        if self._last is None:
            self._last = snapshot
        self.watchers.append(watcher)
        return json.dumps(snapshot, allow_nan=False)

    def unwatch(self, watcher: Watcher) -> None:
        if watcher in self.watchers:
            self.watchers.remove(watcher)

    def publish(self, kind: str) -> None:
        """Tell every watcher: a small delta to the streams, the snapshot to listeners.

        Nothing is computed when nobody watches (a replay of a long log)."""
        self.rev += 1
        added, undone = self.ledger.take_changes()
        if not (self.watchers or self.listeners):
            self._last = None
            return
        snapshot = self.snapshot()
        if self.watchers:
            last = self._last or {"rev": self.rev - 1}
            changed = {k: v for k, v in snapshot.items()
                       if k not in ("history", "rev") and last.get(k) != v}
            delta = {"rev": snapshot["rev"], "base": last["rev"], "set": changed,
                     "history": {"add": [h.to_json() for h in added], "undone": undone}}
            data = json.dumps(delta, allow_nan=False)
            for watcher in list(self.watchers):
                watcher("delta", data)
            self._last = snapshot
        else:
            self._last = None
        for listener in list(self.listeners):
            listener(kind, snapshot)


def seen_mismatch(board: BoardView, seen: BoardView | None) -> list[str]:
    """The places where the camera's committed board and the record's differ, for the
    tablet's board drawing (none while the camera has committed nothing)."""
    if seen is None:
        return []
    return sorted(s for s in set(seen) | set(board) if seen.get(s, ()) != board.get(s, ()))
