"""companion doctor: with the emulated device plugged in and a rendered camera, and with nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from companion import doctor as doctor_module
from companion.calibration.rehearsal import board_photo
from companion.doctor import FAIL, OK, WARN, check_camera, doctor, has_marks, run_checks
from companion.emulate import EmulatedTable
from companion.games import load_game
from companion.profile import write_settings
from companion.sim.camera.frames3d import committed
from companion.vision.geometry import MARKER_IDS
from companion.vision.reader import MARKS_PX_PER_MM
from companion.vision.reading import COUNT_PX_PER_MM
from firmware.protocol import VERSION


def rendered_camera(folder: Path, game: str = "times_square") -> str:
    """A folder of rendered frames of the board with its markers: a camera that needs no camera."""
    rules = load_game(game)
    layout = rules.layout(rules.setup(rules.min_players, None, 0))
    folder.mkdir()
    for i in range(3):
        cv2.imwrite(str(folder / f"frame-{i}.png"), board_photo(layout, seed=i))
    return f"folder:{folder}"


def test_ready_with_the_emulator_plugged_in_and_a_rendered_camera(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # how fast a folder of frames reads is this machine's load, not the code's: the slow
    # camera's warning has its own test on a clock the test sets
    monkeypatch.setattr(doctor_module, "MIN_FPS", 0.0)
    device = EmulatedTable(tmp_path / "device")
    profile = tmp_path / "profile"
    write_settings(profile, "table", {"game": "times_square", "camera": rendered_camera(tmp_path / "cam"),
                                      "serial": str(tmp_path / "device"), "data_dir": "log"})
    write_settings(profile, "gpio", {"mode": "mock"})
    try:
        checks = {c.part: c for c in run_checks(profile, None, None, None, seconds=0.5)}
    finally:
        device.close()
    assert checks["camera"].status == OK, checks["camera"]
    seen = f"board markers seen {list(MARKER_IDS)} ({len(MARKER_IDS)} of {len(MARKER_IDS)})"
    assert "frames/s, " + seen in checks["camera"].detail
    assert checks["device"].status == OK, checks["device"]
    device = checks["device"].detail
    assert f"hello '{VERSION}', firmware {VERSION}" in device and "7 card readers, 6 seat buttons" in device
    assert checks["gpio"].status == WARN and "pretend pins" in checks["gpio"].detail
    assert checks["profile"].status == WARN and "board.json, colours.json" in checks["profile"].detail
    assert "companion calibrate board" in checks["profile"].fix
    assert checks["disk"].status == OK and "MB free" in checks["disk"].detail


def test_nothing_plugged_in_says_what_to_fix(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    write_settings(profile, "table", {"game": "times_square", "camera": f"folder:{tmp_path / 'none'}",
                                      "serial": str(tmp_path / "ttyACM0")})
    env = {k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"}
    done = subprocess.run([sys.executable, "-m", "companion", "doctor", "--profile", str(profile),
                           "--seconds", "0.2", "--device-timeout", "1"],
                          capture_output=True, text=True, timeout=60, env=env)
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert f"[{FAIL}] camera" in out and "fix: check the cable" in out
    assert f"[{FAIL}] device" in out and "no hello" in out and "fix: plug the table device in" in out
    assert f"[{FAIL}] gpio" in out and "--no-gpio" in out
    assert "not ready: fix camera, device, gpio" in out


def test_a_broken_profile_is_reported_key_by_key(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    profile.mkdir()
    (profile / "table.toml").write_text('[table]\ngame = "times_square"\nport = "x"\nfps = -1\n')
    out = CliRunner().invoke(doctor, ["--profile", str(profile), "--gpio", "off", "--camera",
                                      "folder:/nonexistent", "--serial", str(tmp_path / "none"),
                                      "--seconds", "0.1", "--device-timeout", "1"])
    assert out.exit_code == 1
    assert "[FAIL] profile" in out.output and "[table] port = 'x'" in out.output
    assert "[table] fps = -1: must be above 0" in out.output
    assert "[ok  ] gpio     off" in out.output


def test_a_slow_camera_is_warned_about(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A camera giving fewer than MIN_FPS frames a second is named slow, with what to do;
    the seconds come from a clock the test sets, half a second a look."""
    ticks = iter(range(1000))
    monkeypatch.setattr(doctor_module, "time", SimpleNamespace(monotonic=lambda: 0.5 * next(ticks)))
    check = check_camera(rendered_camera(tmp_path / "cam"), seconds=2.0)
    assert check.status == WARN and "slow camera" in check.fix, check
    assert " 1.2 frames/s" in check.detail or " 1.0 frames/s" in check.detail, check.detail


def frames_folder(folder: Path, frame: np.ndarray, scale: float = 1.0) -> str:
    """One frame (scaled) as a camera: a folder of it."""
    folder.mkdir()
    scaled = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    cv2.imwrite(str(folder / "frame-0.png"), scaled)
    return f"folder:{folder}"


def test_a_camera_too_far_for_the_dice_is_told_and_one_too_far_for_the_board_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The board's pixels a millimetre, measured on its markers: Swing State seen from far
    round its side (a committed physically based frame, 0.59 px a mm as the reader locates
    it): under 0.6 no die's pips are counted (stop 83, ``COUNT_PX_PER_MM``), so the owner is
    told the tablet will ask for every one; Times Square's pawns carry no marks, so the same
    distance is fine for it; half that camera's pixels and the board itself is refused.  A
    frame at 0.6-0.85 px a mm is told the pips need about 0.85."""
    monkeypatch.setattr(doctor_module, "MIN_FPS", 0.0)
    frame = next(f for f in committed(split="tune") if f.path.stem == "swing_state-t10-b2-side").image()
    check = check_camera(frames_folder(tmp_path / "far", frame), seconds=0.3, marks=has_marks("swing_state"))
    assert check.status == WARN and "under 0.60 px a mm no die's pips" in check.fix, check
    px_per_mm = float(check.detail.split("the board at ")[1].split(" px")[0])
    assert 0.5 < px_per_mm < COUNT_PX_PER_MM
    vga = next(f for f in committed(split="tune") if f.path.stem == "baron_voodoo-t10-b3-vga").image()
    check = check_camera(frames_folder(tmp_path / "vga", vga), seconds=0.3, marks=has_marks("baron_voodoo"))
    assert check.status == WARN and "pips need about 0.85 px a mm" in check.fix, check
    assert COUNT_PX_PER_MM <= float(check.detail.split("the board at ")[1].split(" px")[0]) < MARKS_PX_PER_MM
    assert check_camera(frames_folder(tmp_path / "plain", frame), seconds=0.3,
                        marks=has_marks("times_square")).status == OK
    check = check_camera(frames_folder(tmp_path / "small", frame, 0.75), seconds=0.3, marks=False)
    assert check.status == FAIL and check.fix.startswith("too few pixels"), check
    assert not has_marks("times_square") and has_marks("swing_state") and has_marks("baron_voodoo")
    assert has_marks(None) and has_marks("no such game")


def test_a_near_camera_is_no_warning_for_the_dice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Baron Voodoo's board rendered as the rehearsal photographs it (1.45 px a mm): its dice
    are counted, nothing to fix."""
    monkeypatch.setattr(doctor_module, "MIN_FPS", 0.0)
    check = check_camera(rendered_camera(tmp_path / "cam", "baron_voodoo"), seconds=0.3)
    assert check.status == OK and "the board at 1." in check.detail, check
