"""Bounded polling for tests that watch another thread or process catch up."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(check: Callable[[], object], timeout: float = 5.0) -> bool:
    """True as soon as ``check()`` holds; False after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.01)
    return False
