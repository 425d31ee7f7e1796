"""Logs that cannot fill an SD card: a warning that repeats is summarised per minute.

A table device sending garbage, a client hammering the server, a camera that keeps
failing: each would write the same warning thousands of times a minute into the
journal (issue 42 measured 5-6 MB in 20 s).  :class:`RepeatSummary` lets the first
:data:`FIRST` records of one kind through in each minute, counts the rest, and writes one
line with the count when the minute is over (or at exit).  A "kind" is the logger, the
level and the message before its arguments are filled in, so "garbled frame: checksum
mismatch" and "... length mismatch" are two kinds, while the same one from different
bytes is one.  Written by hand because the standard library's logging has no
rate limit and the well-kept libraries that do (structlog, loguru) would replace the
logging set-up of every module for one filter.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
from collections.abc import Callable

FIRST = 3  # records of one kind let through per window
WINDOW_S = 60.0
KINDS_KEPT = 1000  # distinct kinds counted at once (a flood of unique messages is one more)

Kind = tuple[str, int, str]


class RepeatSummary(logging.Filter):
    """A handler filter: the first few of a kind per minute pass, then a count."""

    def __init__(self, first: int = FIRST, window_s: float = WINDOW_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.first = first
        self.window_s = window_s
        self.clock = clock
        self._lock = threading.Lock()
        self._windows: dict[Kind, list[float]] = {}  # kind -> [start, records seen]
        self._last: dict[Kind, logging.LogRecord] = {}  # the latest of each kind, for its words
        self.emit_summary: Callable[[str, int, str], None] = _log_summary

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "summary", False):
            return True
        now = self.clock()
        kind = (record.name, record.levelno, str(record.msg)[:200])
        due = self._expired(now)
        with self._lock:
            window = self._windows.get(kind)
            if window is None:
                if len(self._windows) >= KINDS_KEPT:
                    kind = ("*", record.levelno, "messages of many kinds")
                    window = self._windows.setdefault(kind, [now, 0])
                else:
                    window = self._windows[kind] = [now, 0]
            window[1] += 1
            passed = window[1] <= self.first
            if not passed:
                self._last[kind] = record
        for summary in due:
            self.emit_summary(*summary)
        return passed

    def _expired(self, now: float) -> list[tuple[str, int, str]]:
        """Windows that are over: their summaries (when some were held back)."""
        out = []
        with self._lock:
            for kind, (start, seen) in list(self._windows.items()):
                if now - start >= self.window_s:
                    del self._windows[kind]
                    last = self._last.pop(kind, None)
                    if seen > self.first and last is not None:
                        out.append(_summary(kind, last, int(seen), self.first, now - start))
        return out

    def flush(self) -> None:
        """Write every held-back count now (at exit)."""
        for summary in self._expired(float("inf")):
            self.emit_summary(*summary)


def _summary(kind: Kind, last: logging.LogRecord, seen: int, first: int,
             seconds: float) -> tuple[str, int, str]:
    name, level, _ = kind
    try:
        words = last.getMessage()
    except (TypeError, ValueError):
        words = str(last.msg)
    span = "the last minute" if seconds == float("inf") or seconds < 120 else f"{seconds:.0f} s"
    return name, level, (f"{seen - first} more like this in {span} ({seen} in all, the first "
                         f"{first} shown; the last): {words[:300]}")


def _log_summary(name: str, level: int, text: str) -> None:
    logging.getLogger(name).log(level, "%s", text, extra={"summary": True})


_installed: RepeatSummary | None = None


def install(root: logging.Logger | None = None) -> RepeatSummary:
    """Put the summary filter on every handler of ``root`` (the root logger by default);
    once per process, however often the command's entry point runs (as in tests)."""
    global _installed
    root = root or logging.getLogger()
    if _installed is None:
        _installed = RepeatSummary()
        atexit.register(_installed.flush)
    for handler in root.handlers:
        if _installed not in handler.filters:
            handler.addFilter(_installed)
    return _installed
