"""companion emulate: the firmware on a pty, driven by a script, seen by a real host link."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from waiting import wait_until

from companion.emulate import EmulatedTable
from companion.games import load_game
from companion.sensors.serial_link import SerialLink
from companion.sensors.tags import factory_uid


class Host:
    def __init__(self, port: str) -> None:
        self.tags: list[tuple[int, str]] = []
        self.buttons: list[tuple[int, bool]] = []
        self.lock = threading.Lock()
        self.link = SerialLink(port, lambda r, u: self.tags.append((r, u)),
                               lambda s, p: self.buttons.append((s, p)), retry_s=0.2)


def test_a_script_taps_presses_unplugs_and_replugs(tmp_path: Path) -> None:
    link = tmp_path / "table-device"
    script = tmp_path / "evening.txt"
    card = load_game("king_of_clubs").card_ids()[0]
    script.write_text(f"""# a rehearsal
wait-host 10
tap 2 0a0b0c0d
press 1
tap 6 {card}          # by card id, with --game
unplug
wait 1.0
replug
wait-host 10
tap 3 01020304
quit
""")
    proc = subprocess.Popen([sys.executable, "-m", "companion", "emulate", "--script", str(script),
                             "--link", str(link), "--game", "king_of_clubs"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert first.startswith("table device emulated on /dev/pts/") and str(link) in first
    assert wait_until(link.exists, 5)
    host = Host(str(link))
    host.link.start()
    try:
        assert wait_until(lambda: (2, "0a0b0c0d") in host.tags, 15)
        assert wait_until(lambda: (1, True) in host.buttons and (1, False) in host.buttons, 10)
        assert wait_until(lambda: (6, factory_uid("king_of_clubs", card)) in host.tags, 10)
        assert wait_until(lambda: host.link.health.reconnects >= 1, 15)
        assert wait_until(lambda: (3, "01020304") in host.tags, 20)
        out, _ = proc.communicate(timeout=20)
    finally:
        host.link.stop()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out
    assert "unplugged" in out and f"plugged in again: {link}" in out
    assert not link.exists()  # unplugged when done


def test_a_bad_script_line_is_named_and_stops_the_script(tmp_path: Path) -> None:
    script = tmp_path / "s.txt"
    script.write_text("tap 2 0a0b0c0d\ntap 9 0a0b0c0d\npress 1\n")
    done = subprocess.run([sys.executable, "-m", "companion", "emulate", "--script", str(script)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "line 2: reader must be 0 to 6, not '9'" in done.stdout
    assert "pressed seat 1" not in done.stdout


def test_typed_lines_that_make_no_sense_change_nothing(tmp_path: Path) -> None:
    table = EmulatedTable(tmp_path / "dev")
    try:
        for line, message in (("tap 1 lounge", "neither a tag UID in hex"), ("press x", "seat must be"),
                              ("dance", "unknown command 'dance'"), ("tap 1", "tap READER")):
            try:
                table.do(line)
            except ValueError as err:
                assert message in str(err)
            else:
                raise AssertionError(f"{line!r} was accepted")
        assert table.do("replug") == "already plugged in"
        assert table.do("unplug") == "unplugged" and not (tmp_path / "dev").exists()
        assert table.do("replug") == f"plugged in again: {tmp_path / 'dev'}"
        assert table.do("  # a comment") is None
    finally:
        table.close()
