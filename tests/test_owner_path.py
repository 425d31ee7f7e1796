"""Issue 42: the owner's path as written works, every ignored or malformed input is named
with a non-zero exit, and every normal stop is clean (exit 0, no traceback)."""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from waiting import first_event

from companion.calibration import sheets
from companion.cli import main, reachable_urls
from companion.doctor import WARN, check_profile
from companion.games import GAMES, load_game
from companion.logsummary import RepeatSummary
from companion.profile import Profile, write_settings
from companion.table import Table

ROOT = Path(__file__).resolve().parent.parent
GUARD_S = 60.0  # hang guards only


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True,
                          timeout=GUARD_S, env={**os.environ, "PYTHONPATH": str(ROOT)})


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# ---------------------------------------------------------------------- ignored or malformed input
def test_log_truncate_on_a_folder_without_a_log_creates_nothing(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["log", "truncate", "--data", str(tmp_path), "--game", "1",
                                       "--from", "3", "--yes"])
    assert result.exit_code == 1 and "no event log" in result.output
    assert list(tmp_path.iterdir()) == []


def test_log_truncate_names_a_game_the_log_does_not_have(tmp_path: Path) -> None:
    table = Table.open("times_square", tmp_path, 2, None, 0)
    table.close()
    table.log.close()
    result = CliRunner().invoke(main, ["log", "truncate", "--data", str(tmp_path), "--game", "99",
                                       "--from", "1", "--yes"])
    assert result.exit_code == 1 and "has no game 99" in result.output


def test_serve_names_players_a_resumed_game_cannot_take(tmp_path: Path) -> None:
    table = Table.open("times_square", tmp_path, 2, None, 0)
    table.close()
    table.log.close()
    done = run("serve", "--data", str(tmp_path), "--players", "9", "--port", "0", "--no-gpio")
    assert done.returncode == 1
    assert "--players 9 (the game has 2)" in done.stderr and "--new-game" in done.stderr
    assert "Dashboard:" not in done.stdout


def test_serve_with_a_camera_warns_of_a_missing_board_map_and_colours(tmp_path: Path) -> None:
    from companion.cli import missing_calibration
    from companion.service import ServiceConfig

    config = ServiceConfig(game="times_square", data_dir=tmp_path, camera="camera:0")
    warned = missing_calibration(config)
    assert len(warned) == 2 and "board.json" in warned[0] and "colours.json" in warned[1]
    assert missing_calibration(ServiceConfig(game="times_square", data_dir=tmp_path)) == []


def test_emulate_lists_card_ids_and_its_own_example_works(tmp_path: Path) -> None:
    listed = CliRunner().invoke(main, ["emulate", "--game", "jivecat", "--list-cards"])
    assert listed.exit_code == 0 and "zombie-1" in listed.output
    assert CliRunner().invoke(main, ["emulate", "--list-cards"]).exit_code == 2
    from companion.emulate import HELP, EmulatedTable

    example = next(line.split()[:3] for line in HELP.splitlines() if "by card id" in line)
    table = EmulatedTable(None, "jivecat")
    try:
        assert table.do(" ".join(example)).startswith("tapped ")
        assert "zombie-1" in (table.do("cards") or "")
        with pytest.raises(ValueError, match="type cards for the list"):
            table.do("tap 6 lounge-03")
    finally:
        table.close()


# ---------------------------------------------------------------------- set-up of a table
def test_calibrate_init_writes_a_pin_and_a_data_folder_and_doctor_warns_without(tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    done = CliRunner().invoke(main, ["calibrate", "init", "--profile", str(profile), "--game", "jivecat"])
    assert done.exit_code == 0, done.output
    table = Profile.load(profile).settings["table"]
    assert table["pin"].isdigit() and len(table["pin"]) >= 6 and table["data_dir"] == "data"
    assert f"table PIN {table['pin']}" in done.output
    check, _ = check_profile(profile)
    assert "pin" not in check.detail.split("missing:")[-1]
    bare = tmp_path / "bare"
    write_settings(bare, "table", {"game": "jivecat"})
    check, _ = check_profile(bare)
    assert check.status == WARN and "pin, data_dir" in check.detail
    assert "new PIN" in check.fix and "data_dir" in check.fix
    bad = CliRunner().invoke(main, ["calibrate", "init", "--profile", str(tmp_path / "p2"),
                                    "--game", "jivecat", "--pin", "12"])
    assert bad.exit_code == 2 and not (tmp_path / "p2" / "table.toml").exists()


def test_the_banner_never_offers_0_0_0_0() -> None:
    for host in ("0.0.0.0", "::"):
        urls = reachable_urls(host, 8000)
        assert urls and not any("0.0.0.0" in u or "[::]" in u for u in urls)
        assert urls[-1] == "http://127.0.0.1:8000"
    assert reachable_urls("192.168.1.5", 8000) == ["http://192.168.1.5:8000"]


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("paper", sorted(sheets.PAPERS))
def test_nothing_is_printed_in_a_markers_quiet_zone(tmp_path: Path, game: str, paper: str) -> None:
    rules = load_game(game)
    layout = rules.layout(rules.setup(rules.min_players, None, 0))
    zones = sheets.quiet_zones(layout)
    info = sheets.marker_pdf(layout, rules.title, tmp_path / "m.pdf", paper)
    for marker_id, corners in sheets.marker_corners_mm(layout).items():
        assert sheets._clear(sheets.label_place(marker_id, corners)[2], zones), marker_id
    board = (sheets.MARGIN_MM, sheets.MARGIN_MM, sheets.MARGIN_MM + layout.width,
             sheets.MARGIN_MM + layout.height)
    for *_, box in sheets.corner_labels(board):
        assert sheets._clear(box, zones)
    width, height = sheets.canvas_size_mm(layout)
    _, tiles = sheets.plan_pages(width, height, paper)
    for tile in tiles:
        for other in tiles:
            if abs(other.row - tile.row) + abs(other.col - tile.col) == 1:
                spots = sheets.crosshair_spots(tile, other, zones)
                assert len(spots) == 2
                r = sheets.CROSSHAIR_MM
                assert all(sheets._clear((x - r, y - r, x + r + 8, y + r), zones) for x, y in spots)
    assert sheets.FOOTER_TOP_MM < sheets.FOOTER_MM  # the footer lies below the tiled area
    assert info["lay_order"] == sorted(info["lay_order"], key=lambda n: (n[0], int(n[1:])))


# ---------------------------------------------------------------------- logs
def test_a_repeating_warning_is_counted_per_minute() -> None:
    now = [0.0]
    summary = RepeatSummary(clock=lambda: now[0])
    said: list[str] = []
    summary.emit_summary = lambda name, level, text: said.append(text)
    passed = 0
    for i in range(10_000):
        record = logging.LogRecord("x", logging.WARNING, __file__, 1, "garbled frame: %s", (i,), None)
        passed += summary.filter(record)
    assert passed == 3 and said == []
    now[0] = 61.0
    other = logging.LogRecord("y", logging.WARNING, __file__, 1, "something else", (), None)
    assert summary.filter(other)
    assert said == ["9997 more like this in the last minute (10000 in all, the first 3 shown; "
                    "the last): garbled frame: 9999"]


def test_a_garbage_flood_from_the_device_writes_a_few_lines(caplog: pytest.LogCaptureFixture) -> None:
    import random

    from companion.sensors.serial_link import SerialLink, _FrameProtocol

    health = []
    link = SerialLink("loop://", lambda r, u: None, lambda s, p: None, health.append)
    summary = RepeatSummary()
    handler = logging.Handler()
    handler.addFilter(summary)
    lines: list[logging.LogRecord] = []
    handler.emit = lines.append  # type: ignore[method-assign]
    logger = logging.getLogger("companion.sensors.serial_link")
    logger.addHandler(handler)
    try:
        protocol = _FrameProtocol(link)
        rng = random.Random(7)
        for _ in range(200):
            protocol.data_received(bytes(rng.getrandbits(8) for _ in range(4096)))
    finally:
        logger.removeHandler(handler)
    assert link.health.bad_frames > 1000
    assert len(lines) <= 3 * 8  # the first few of each kind of garbage, whatever the flood
    assert len(health) <= 2  # the dashboard's notice changes at most once a second


# ---------------------------------------------------------------------- clean stops
def test_sigterm_with_a_dashboard_connected_exits_0_without_a_traceback(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "companion", "serve", "--data", str(tmp_path),
                             "--port", str(port), "--no-gpio", "--pin", "246810"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    streams = []
    try:
        assert proc.stdout is not None
        assert "Dashboard: http://127.0.0.1:" in proc.stdout.readline()
        for _ in range(2):
            sock = socket.create_connection(("127.0.0.1", port), timeout=GUARD_S)
            sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: t\r\n\r\n")
            assert first_event(sock)
            streams.append(sock)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=GUARD_S)
    finally:
        if proc.poll() is None:  # a failed check must not leave the service running
            proc.kill()
            proc.wait()
        for sock in streams:
            sock.close()
    assert proc.returncode == 0, err
    assert "stopping" in out and "Traceback" not in err and "Aborted" not in out + err


def test_sigterm_stops_the_demo_with_its_result(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "demo", "--game", "times_square", "--port", "0",
         "--pin", "135790", "--data", str(tmp_path / "data"), "--speed", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert proc.stdout is not None
        assert "Dashboard: http://127.0.0.1:" in proc.stdout.readline()
        time.sleep(2)  # a few moves at human pace (not a verdict: any point of the game will do)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=GUARD_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, out + err
    assert "Game over: False" in out and "Scores: {" in out and "Stopped before the game ended" in out
    assert "Traceback" not in err
