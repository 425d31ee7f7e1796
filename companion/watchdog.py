"""A watchdog for inputs that can hang without an error: a camera read that blocks.

A USB camera or a driver can block inside ``read()`` for seconds or forever; the
vision loop then neither fails nor reports anything.  The watchdog watches the loop's
frame counter from its own thread and raises a standing notice while it stalls.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from companion.games.base import Prompt

NOTICE = "camera-watchdog"


class Watchdog:
    """Calls ``notice(key, prompt)`` when ``progress()`` stops rising for ``stall_s``."""

    def __init__(self, progress: Callable[[], int], notice: Callable[[str, Prompt | None], None],
                 stall_s: float = 3.0, what: str = "The camera") -> None:
        self.progress = progress
        self.notice = notice
        self.stall_s = stall_s
        self.what = what
        self.stalled = False
        self.stalls = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Watchdog:
        self._thread = threading.Thread(target=self._run, name="watchdog", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def _run(self) -> None:
        last, since = self.progress(), time.monotonic()
        while not self._stop.wait(min(0.25, self.stall_s / 4)):
            now, seen = time.monotonic(), self.progress()
            if seen != last:
                last, since = seen, now
                if self.stalled:
                    self.stalled = False
                    self.notice(NOTICE, None)
            elif now - since >= self.stall_s:
                if not self.stalled:
                    self.stalls += 1
                self.stalled = True
                self.notice(NOTICE, Prompt(
                    f"{self.what} has given no picture for {now - since:.0f} s (its read is "
                    "stuck): check its cable, or restart the companion.", "warning"))
