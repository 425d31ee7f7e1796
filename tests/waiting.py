"""Bounded polling for tests that watch another thread or process catch up.

A timeout here is a hang guard, never a verdict: the seconds a test names are what it needs
on a quiet machine, and the wait lasts ``LOAD_FACTOR`` times that, so that a machine busy
with other work (two CPU-bound processes beside the suite) cannot fail a test that only
waits.  A passing wait returns as soon as its check holds, so this costs a green run nothing.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

LOAD_FACTOR = 6.0
HANG_MS = 60_000  # a browser page waits this long only if it hangs: what it waits for comes in 1-5 s


def wait_until(check: Callable[[], object], timeout: float = 5.0) -> bool:
    """True as soon as ``check()`` holds; False after ``LOAD_FACTOR`` x ``timeout`` seconds."""
    deadline = time.monotonic() + LOAD_FACTOR * timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.01)
    return False


def first_event(sock: socket.socket) -> bool:
    """Read until the stream's first event has come (or the stream ended)."""
    data = b""
    while b"event: state" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return False
        data += chunk
    return True
