"""The table's clocks: each seat's running time, the current turn's, the phase's, and pause.

Every method is told the state and the time it concerns, so the replay of the log and
the live table credit time the same way.  Not locked: the front
(:class:`companion.table.Table`) holds its lock around every call; the watcher thread
(:meth:`Clocks.watch`) calls the front's ``tick``, which takes it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from companion.games.base import Game, State


@dataclass
class TableOptions:
    """Per-table settings: a phase time limit in seconds by phase name and a limit for
    one player's turn (both off when absent)."""

    phase_limits: dict[str, float] = field(default_factory=dict)
    turn_limit: float | None = None


class ClockError(ValueError):
    """Pause asked while paused, or resume while running."""


class Clocks:
    """Running time per seat and per turn, paused or not, against ``now`` (the wall clock,
    or a fake one in tests: the front's ``clock``)."""

    def __init__(self, game: Game, options: TableOptions, now: Callable[[], float],
                 players: int, created: float) -> None:
        self.game = game
        self.options = options
        self.now = now
        self.shown_time_up = False
        """Whether the time-up alert was last published as up: only a change is told."""
        self.ticker: threading.Thread | None = None
        self._closed = threading.Event()
        self.restart(players, created)

    def restart(self, players: int, created: float) -> None:
        """Every clock at zero and running from ``created``: where the replay of a log starts."""
        self.player_seconds: list[float] = [0.0] * players
        self.paused = False
        self.mark = created  # running time accrues from here (when not paused)
        self.turn_before_mark = 0.0  # running time of the current turn before ``mark``

    def advance(self, now: float, state: State) -> None:
        """Credit running time since the mark to the seat whose turn it is in ``state``."""
        if not self.paused:
            elapsed = max(0.0, now - self.mark)
            seat = self.game.current_player(state)
            if self.game.outcome(state) is None:
                if seat is None:  # a step everyone takes at once: everyone's clock runs
                    self.player_seconds = [s + elapsed for s in self.player_seconds]
                elif 0 <= seat < len(self.player_seconds):
                    self.player_seconds[seat] += elapsed
                self.turn_before_mark += elapsed
        self.mark = now

    def turn_changed(self, seat_before: int | None, state: State) -> None:
        """A new turn starts when the seat that must act changes (not only the phase)."""
        if self.game.current_player(state) != seat_before:
            self.turn_before_mark = 0.0
            self.shown_time_up = False

    def check(self, what: str) -> None:
        """Refuse a pause while paused and a resume while running (before anything is logged)."""
        if (what == "pause") == self.paused:
            raise ClockError("the clocks are already paused" if self.paused
                             else "the clocks are already running")

    def event(self, what: str, at: float, state: State) -> None:
        """A logged clock event (``pause`` or ``resume``) takes effect at ``at``."""
        if what == "pause" and not self.paused:
            self.advance(at, state)
            self.paused = True
        elif what == "resume" and self.paused:
            self.paused = False
            self.mark = at

    def turn_seconds(self, state: State) -> float:
        """Running time of the current turn (paused time excluded)."""
        running = 0.0 if self.paused or self.game.outcome(state) is not None else \
            max(0.0, self.now() - self.mark)
        return self.turn_before_mark + running

    def time_up(self, state: State) -> bool:
        limit = self.options.turn_limit
        return (limit is not None and self.game.outcome(state) is None
                and self.game.current_player(state) is not None
                and self.turn_seconds(state) > limit)

    def phase_seconds(self, phase_started: float) -> float:
        """Time since the current phase began (the newest action that changed it)."""
        return max(0.0, self.now() - phase_started)

    def phase_up(self, state: State, phase_started: float) -> bool:
        limit = self.options.phase_limits.get(self.game.phase(state))
        return limit is not None and self.phase_seconds(phase_started) > limit

    def seat_seconds(self, state: State) -> list[float]:
        """Each seat's time so far, the running stretch of the seat(s) to act included."""
        clocks = list(self.player_seconds)
        if self.game.outcome(state) is None and not self.paused:
            running = max(0.0, self.now() - self.mark)
            turn = self.game.current_player(state)
            for seat in range(len(clocks)) if turn is None else [turn]:
                clocks[seat] += running
        return clocks

    def time_up_changed(self, state: State) -> bool:
        """Whether the turn's time ran out (or stopped being out) since it was last shown."""
        now_up = self.time_up(state)
        if now_up == self.shown_time_up:
            return False
        self.shown_time_up = now_up
        return True

    def watch(self, interval: float, tick: Callable[[], object]) -> None:
        """Call ``tick`` every ``interval`` seconds from a daemon thread, until :meth:`stop`."""
        if self.ticker is not None:
            return

        def run() -> None:
            while not self._closed.wait(interval):
                tick()

        self.ticker = threading.Thread(target=run, name="table-clock", daemon=True)
        self.ticker.start()

    def stop(self) -> None:
        """Stop the watcher thread (safe twice, and when none was started)."""
        self._closed.set()
        if self.ticker is not None:
            self.ticker.join(timeout=2)
            self.ticker = None
