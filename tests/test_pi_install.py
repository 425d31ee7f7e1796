"""The Raspberry Pi install as far as a non-Pi machine can check it: the unit verified by
systemd, the script's steps dry-run, and its file steps run for real under a prefix."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from companion.profile import Profile

ROOT = Path(__file__).resolve().parent.parent
INSTALL = ROOT / "deploy" / "install.sh"
UNIT = ROOT / "deploy" / "table-companion.service"
VENV = Path(sys.executable).parent.parent
ANALYZE = shutil.which("systemd-analyze")
needs_systemd = pytest.mark.skipif(
    ANALYZE is None, reason="systemd-analyze is missing: scripts/test.sh installs Debian's systemd package")


def unit_options(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # keys are case-sensitive in systemd
    parser.read(path)
    return parser


def install(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(INSTALL), *args], capture_output=True, text=True, timeout=60)


def test_the_unit_restarts_on_failure_starts_at_boot_and_logs_to_the_journal() -> None:
    unit = unit_options(UNIT)
    assert unit["Service"]["Restart"] == "on-failure"
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    assert unit["Service"]["StandardOutput"] == unit["Service"]["StandardError"] == "journal"
    assert unit["Service"]["ExecStart"].endswith("companion serve --profile /etc/table-companion/profile")


def test_dry_run_lists_every_step_and_changes_nothing(tmp_path: Path) -> None:
    done = install("--dry-run", "--prefix", str(tmp_path / "root"))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for expected in ("apt-get install -y python3-venv python3-pip python3-picamera2 python3-lgpio",
                     "useradd --system --user-group", "--groups video,dialout,gpio companion",
                     "python3 -m venv --system-site-packages", "bin/pip install --upgrade",
                     "systemctl enable table-companion.service"):
        assert expected in out, expected
    steps = [line for line in out.splitlines() if line.startswith("== ")]
    assert [s.split()[1] for s in steps] == ["1/6", "2/6", "3/6", "4/6", "5/6", "6/6"]
    assert not (tmp_path / "root").exists()


@needs_systemd
def test_prefix_install_writes_a_profile_and_a_unit_systemd_accepts(tmp_path: Path) -> None:
    root = tmp_path / "root"
    done = install("--prefix", str(root), "--no-system", "--venv", str(VENV))
    assert done.returncode == 0, done.stdout + done.stderr
    profile = root / "etc" / "table-companion" / "profile"
    loaded = Profile.load(profile)  # the example profile, valid, its log under the prefix
    assert loaded.service_settings()["data_dir"] == root / "var" / "lib" / "table-companion"
    pin = loaded.get("table", "pin")
    assert len(pin) == 6 and pin != Profile.load(ROOT / "docs" / "profile-example").get("table", "pin")
    unit = root / "etc" / "systemd" / "system" / "table-companion.service"
    assert unit_options(unit)["Service"]["ExecStart"] == f"{VENV}/bin/companion serve --profile {profile}"
    verified = subprocess.run([ANALYZE, "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0, verified.stderr
    assert "table-companion.service" not in verified.stderr  # nothing said about our unit

    # run again: the owner's edited profile is kept
    settings = profile / "table.toml"
    settings.write_text(settings.read_text().replace("jivecat", "swing_state"))
    assert install("--prefix", str(root), "--no-system", "--venv", str(VENV)).returncode == 0
    assert Profile.load(profile).get("table", "game") == "swing_state"


@needs_systemd
def test_systemd_analyze_catches_a_broken_unit(tmp_path: Path) -> None:
    """The check above can fail: a misspelt setting and a missing program are reported."""
    broken = tmp_path / "table-companion.service"
    broken.write_text(UNIT.read_text().replace("Restart=on-failure", "Restart=sometimes"))
    verified = subprocess.run([ANALYZE, "verify", str(broken)], capture_output=True, text=True, timeout=60)
    assert "Failed to parse service restart specifier" in verified.stderr
    assert "is not executable" in verified.stderr  # /opt/table-companion is not installed here


def _readable_by_anyone(script: Path) -> Path:
    """A copy of a deploy script in a folder every user may enter, laid out as in the repo."""
    top = Path(tempfile.mkdtemp(prefix="install-"))
    top.chmod(0o755)
    (top / "deploy").mkdir(mode=0o755)
    copy = top / "deploy" / script.name
    shutil.copyfile(script, copy)
    copy.chmod(0o644)
    return copy


def test_without_root_the_full_install_refuses_and_says_how(tmp_path: Path) -> None:
    script = INSTALL
    if os.getuid() == 0:  # drop to nobody, as an owner who forgot sudo
        script = _readable_by_anyone(INSTALL)  # a checkout in a 0700 folder is closed to nobody
    command = ["bash", str(script), "--prefix", str(tmp_path / "root")]
    if os.getuid() == 0:
        command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    finally:
        if script != INSTALL:
            shutil.rmtree(script.parents[1])
    assert done.returncode == 1 and "run as root (sudo bash" in done.stderr
    assert not (tmp_path / "root").exists()


def test_flashing_copies_the_firmware_with_mpremote() -> None:
    done = subprocess.run(["bash", str(ROOT / "deploy" / "flash.sh"), "--dry-run", "/dev/ttyACM0"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("+ ")]
    copied = [line.split(":")[-1] for line in lines if " fs cp " in line]
    assert copied == ["protocol.py", "mfrc522.py", "app.py", "main.py"]
    assert all("connect /dev/ttyACM0" in line for line in lines) and lines[-1].endswith("reset")
    firmware = {p.name for p in (ROOT / "firmware").glob("*.py")} - {"__init__.py"}
    assert set(copied) == firmware  # every firmware file goes to the Pico
