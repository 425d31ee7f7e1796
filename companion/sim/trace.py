"""A trace of a simulated game, for debugging a wedge: off unless asked for.

When the environment variable :data:`ENV` (``COMPANION_SIM_TRACE``) names a file, the
world's process writes one line per physical event its players make (what moved where,
each card laid, each press and tap, what they noticed on their table), and the runner
writes, with the camera's frame number, what the players saw on the tablet before each
action (its prompts and the history lines new since they last looked), each event as it
reached the channels, and each fault injected.  Both processes append to the same file
(one ``write`` a line, so their lines never mix); the order is the game's, since the
world thinks only while the runner waits for it.

Off (the variable unset or empty) nothing is opened and every hook is one ``is None``
test.  This module imports no part of the companion's runtime: the world's process may
import it (:mod:`companion.sim.worldproc` blocks the runtime there).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from companion.games.base import BoardView, diff_views
from companion.sim.events import (
    BoardChange,
    CardTap,
    Declare,
    HandOver,
    SeatButton,
    TapOption,
    Tidy,
    TurnButton,
)

ENV = "COMPANION_SIM_TRACE"


class Trace:
    """Lines appended to one file, each ``<who> [f<frame>] <text>``."""

    def __init__(self, path: str, who: str) -> None:
        self.path = path
        self.who = who
        self.view: BoardView | None = None  # the table as the last BoardChange left it
        self.history_seen = 0  # the newest history entry already written
        self.prompts_seen = "[]"  # the prompts last written, as data
        self.clock: Callable[[], int] | None = None  # the camera's frame now, for lines without one
        self.committed: BoardView | None = None  # the companion's camera's last committed board

    def line(self, text: str, frame: int | None = None) -> None:
        if frame is None and self.clock is not None:
            frame = self.clock()
        at = "" if frame is None else f" f{frame}"
        data = f"{self.who}{at} {text}".replace("\n", " ") + "\n"
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, data.encode())
        finally:
            os.close(fd)

    def event(self, event: Any, frame: int | None = None, verb: str = "") -> None:
        """One physical event, in words: a board change as the pieces that moved."""
        self.line(f"{verb}{self.describe(event)}", frame)

    def describe(self, event: Any) -> str:
        if isinstance(event, BoardChange):
            before, self.view = self.view, dict(event.view)
            if before is None:
                return f"table laid: {_view_words(event.view)}"
            moves = diff_views(before, event.view)
            words = "; ".join(f"{_piece(m.piece)} {m.source or 'off'} -> {m.target or 'off'}"
                              for m in moves)
            return f"moved: {words or 'nothing'}"
        if isinstance(event, CardTap):
            reader = "the shared reader" if event.seat is None else f"seat {event.seat}'s reader"
            return f"card {event.card} laid on {reader}"
        if isinstance(event, SeatButton):
            return f"seat {event.seat}'s button pressed"
        if isinstance(event, TurnButton):
            return "turn button pressed"
        if isinstance(event, Declare):
            return f"declared on the tablet: {event.action}"
        if isinstance(event, TapOption):
            return f"tapped the button {event.words!r}"
        if isinstance(event, HandOver):
            return f"a hand over the board for {event.frames} frames"
        if isinstance(event, Tidy):
            return "the board tidied (cup lifted, hand off)"
        return repr(event)

    def watch(self, table: Any) -> None:
        """Write what the companion's table is handed (``table``: the running one, in the
        runner's process): each board its camera commits, as the pieces that differ from the
        last, and what each card, press, board and frame recorded or asked (a frame only when
        it did: a held press judged).  The harness's view, never the players'."""
        referee = getattr(table, "referee", None)

        def said() -> tuple[Any, ...]:
            history = getattr(getattr(referee, "ledger", None), "history", None) or []
            prompt = getattr(referee, "table_prompt", None)
            newest = history[-1] if history else None
            return (getattr(newest, "seq", 0), getattr(newest, "text", ""),
                    getattr(prompt, "text", None), getattr(referee, "held_press", None) is not None)

        def traced(name: str) -> None:
            inner = getattr(table, name)

            def call(*args: Any) -> Any:
                if name == "board_seen":
                    before, self.committed = self.committed, dict(args[0])
                    moves = diff_views(before or {}, args[0])
                    self.line("camera committed: " + ("; ".join(
                        f"{_piece(m.piece)} {m.source or 'off'} -> {m.target or 'off'}"
                        for m in moves) or "nothing new"))
                was = said()
                result = inner(*args)
                now = said()
                if name != "frame_taken" or now != was:
                    what = "" if name in ("board_seen", "frame_taken") else repr(args)
                    recorded = f"recorded #{now[0]} {now[1]}" if now[0] != was[0] else "nothing recorded"
                    asked = f"; asks {str(now[2])[:200]!r}" if now[2] is not None and now[2] != was[2] else ""
                    self.line(f"table {name}{what}: {recorded}{asked}{'; a press held' if now[3] else ''}")
                return result
            setattr(table, name, call)

        if referee is not None:
            for name in ("board_seen", "tap", "button", "frame_taken"):
                traced(name)

    def tablet(self, state: dict[str, Any], frame: int | None = None,
               words: Callable[[Any], str] = str) -> None:
        """What the players see before an action: the history lines new since they last
        looked (an undone one marked), and the prompts when they changed (each button in
        ``words``, the words on it)."""
        entries = [h for h in state.get("history") or [] if isinstance(h, dict)]
        for h in entries:
            seq = h.get("seq")
            if isinstance(seq, int) and seq > self.history_seen:
                undone = " (undone)" if h.get("undone") else ""
                self.line(f"history #{seq}{undone} [{h.get('source')}] {h.get('text')}", frame)
                self.history_seen = seq
        shown = [p for p in state.get("prompts") or [] if isinstance(p, dict)]
        key = repr([(p.get("kind"), p.get("text"), p.get("options")) for p in shown])
        if key == self.prompts_seen:
            return
        self.prompts_seen = key
        prompts = []
        for p in shown:
            buttons = " | ".join(words(o) for o in p.get("options") or [])
            prompts.append(f"{p.get('kind')}: {p.get('text')}" + (f" [{buttons}]" if buttons else ""))
        self.line(f"prompts ({len(prompts)}): " + " || ".join(prompts), frame)


def _piece(piece: Any) -> str:
    pips = getattr(piece, "pips", 0)
    return f"{getattr(piece, 'colour', piece)}{f'/{pips}' if pips else ''}"


def _view_words(view: BoardView) -> str:
    return ", ".join(f"{spot}: {' '.join(_piece(p) for p in stack)}" for spot, stack in sorted(view.items()))


def open_trace(who: str) -> Trace | None:
    """The trace named by :data:`ENV` for this writer, or None (off: nothing is opened)."""
    path = os.environ.get(ENV)
    return Trace(path, who) if path else None
