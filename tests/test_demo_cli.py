"""companion demo from the command line: the result when the game ends and on Ctrl-C, no bar left."""

from __future__ import annotations

import fcntl
import os
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path


def demo(tmp_path: Path, *extra: str, stderr: int = subprocess.PIPE) -> subprocess.Popen:
    # Ctrl-C as at a terminal: a suite started in the background (``cmd &`` in a script)
    # hands its children SIGINT ignored, and Python then never raises KeyboardInterrupt
    return subprocess.Popen(
        [sys.executable, "-m", "companion", "demo", "--game", "times_square", "--port", "0",
         "--pin", "135790", "--data", str(tmp_path / "data"), *extra],
        stdout=subprocess.PIPE, stderr=stderr, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def test_the_result_is_printed_when_the_game_ends_and_no_bar_is_left(tmp_path: Path) -> None:
    """The bar is drawn on a terminal (a pty here) and wiped before the result is printed."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a 100-column terminal
    proc = demo(tmp_path, "--speed", "0", "--exit-when-over", stderr=slave)
    os.close(slave)
    drawn = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the demo closed its end
            break
        if not chunk:
            break
        drawn += chunk
    os.close(master)
    out, _ = proc.communicate(timeout=240)
    assert proc.returncode == 0, out
    assert "Game over: True  winner:" in out and "companion agrees" in out
    err = drawn.decode(errors="replace")
    assert "moves:" in err  # the bar was drawn...
    assert err.split("\r")[-1].strip() == "", repr(err[-300:])  # ...and nothing of it is left
    assert "moves:" not in out


def test_no_bar_lines_in_a_pipe_or_the_journal(tmp_path: Path) -> None:
    proc = demo(tmp_path, "--speed", "0", "--exit-when-over", "--max-steps", "3")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1  # three steps do not finish a game: said, with the table as it stood
    assert "Game over: False" in out and "moves:" not in err


def test_ctrl_c_prints_the_table_as_it_stood_and_exits_0(tmp_path: Path) -> None:
    proc = demo(tmp_path, "--speed", "1")
    assert proc.stdout is not None
    banner = proc.stdout.readline()
    assert "Dashboard: http://127.0.0.1:" in banner
    time.sleep(3)  # a few moves at human pace
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, out + err
    assert "Aborted!" not in out + err
    assert "Game over: False" in out and "Scores: {" in out
    assert f"Stopped before the game ended; the same --data {tmp_path / 'data'} resumes it" in out
