"""The table profile: checked on load, one message per bad key; serve loads all of it."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import cv2
import pytest
from gpiozero import Device

from companion.calibration.rehearsal import board_photo
from companion.games import load_game
from companion.profile import (
    Profile,
    ProfileError,
    apply_board_map,
    board_map_json,
    service_config,
    write_settings,
)
from companion.sensors.gpio import GpioPins, GpioUnavailable, choose_pin_factory

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "profile-example"


def write(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "table.toml").write_text(text)
    return folder


def test_the_shipped_example_profile_loads() -> None:
    settings = Profile.load(EXAMPLE).service_settings()
    assert settings["game"] == "jivecat" and settings["players"] == 4
    assert settings["host"] == "0.0.0.0" and settings["gpio_pins"] == GpioPins(17, 27, 22)


def test_every_bad_key_is_named_with_what_it_must_be(tmp_path: Path) -> None:
    folder = write(tmp_path / "p", """
[table]
game = "chess"
port = "eight thousand"
prot = 8000
pin = 1234
[gpio]
button = 99
[lights]
colour = "red"
""")
    with pytest.raises(ProfileError) as caught:
        Profile.load(folder)
    problems = caught.value.problems
    assert len(problems) == 6, problems
    text = str(caught.value)
    assert "[table] game = 'chess': must be one of" in text
    assert "[table] port = 'eight thousand': must be a whole number from 0 to 65535" in text
    assert "[table] prot: unknown key" in text
    assert "[table] pin = 1234: must be 6 or more digits in quotes" in text
    assert "[gpio] button = 99: must be from 0 to 27" in text
    assert "[lights]: unknown section" in text


def test_a_missing_or_broken_calibration_file_is_reported(tmp_path: Path) -> None:
    folder = write(tmp_path / "p", '[table]\ngame = "jivecat"\ncolours = "nowhere.json"\n')
    (folder / "tags.json").write_text("{not json")
    with pytest.raises(ProfileError) as caught:
        Profile.load(folder)
    assert any("nowhere.json" in p and "no such file" in p for p in caught.value.problems)
    assert any(p.startswith("tags.json: not a readable JSON file") for p in caught.value.problems)
    with pytest.raises(ProfileError, match="no table.toml"):
        Profile.load(tmp_path)


def test_write_settings_refuses_a_bad_value_and_keeps_the_file(tmp_path: Path) -> None:
    folder = write(tmp_path / "p", '[table]\ngame = "jivecat"\nport = 8100\n')
    before = (folder / "table.toml").read_text()
    with pytest.raises(ProfileError, match="port"):
        write_settings(folder, "table", {"port": -3})
    assert (folder / "table.toml").read_text() == before
    write_settings(folder, "gpio", {"button": 5})
    assert Profile.load(folder).get("gpio", "button") == 5
    assert Profile.load(folder).get("table", "port") == 8100


def test_flags_override_the_profile_only_when_given(tmp_path: Path) -> None:
    folder = write(tmp_path / "p", """
[table]
game = "jivecat"
players = 3
port = 8123
host = "0.0.0.0"
data_dir = "log"
[gpio]
mode = "mock"
button = 5
[seats]
shared_reader = 4
""")
    defaults = {"game": "times_square", "players": None, "port": 8000, "host": "127.0.0.1",
                "seed": 0, "data_dir": None, "no_gpio": False}
    config = service_config(folder, None, defaults, set(), {})
    assert (config.game, config.players, config.port, config.host) == ("jivecat", 3, 8123, "0.0.0.0")
    assert config.data_dir == folder / "log" and config.gpio == "mock"
    assert config.gpio_pins.button == 5 and config.shared_reader == 4
    config = service_config(folder, None, defaults | {"port": 9000, "no_gpio": True}, {"port", "no_gpio"},
                            {"placement": 60.0})
    assert config.port == 9000 and config.game == "jivecat" and config.gpio == "off"
    assert config.phase_limits == {"placement": 60.0}
    with pytest.raises(ValueError, match="not both"):
        service_config(folder, folder / "table.toml", defaults, set(), {})


def test_the_lens_file_reaches_the_service_config_where_the_reader_can_use_it(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    import dataclasses

    from companion.service import ServiceConfig

    folder = write(tmp_path / "p", '[table]\ngame = "times_square"\n')
    (folder / "camera.json").write_text(json.dumps({"rms_px": 0.3, "matrix": [], "distortion": []}))
    config = service_config(folder, None, {}, set(), {})
    if "lens" in {f.name for f in dataclasses.fields(ServiceConfig)}:
        assert config.lens == folder / "camera.json"
    else:  # before the reader learns lens correction: said, not silently dropped
        assert "lens is in the profile but this build cannot use it" in caplog.text


def test_the_board_map_moves_the_spots_the_reader_looks_at(tmp_path: Path) -> None:
    game = load_game("times_square")
    layout = game.layout(game.setup(2, None, 0))
    data = board_map_json("times_square", layout, {})
    first = layout.spots[0].id
    data["spots"][first][0] += 3.0
    path = tmp_path / "board.json"
    path.write_text(json.dumps(data))
    moved = apply_board_map(layout, path)
    assert moved.spot(first).x == layout.spot(first).x + 3.0
    assert moved.spots[1:] == layout.spots[1:]
    data["spots"][first] = [-5, 0, 10, 10]
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=f"spot {first}.*inside"):
        apply_board_map(layout, path)
    folder = write(tmp_path / "p", '[table]\ngame = "jivecat"\n')
    shutil.copy(path, folder / "board.json")
    with pytest.raises(ProfileError, match="made for 'times_square', this table plays 'jivecat'"):
        Profile.load(folder)


def test_off_a_pi_gpio_never_falls_back_to_mock_pins_silently(monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    saved = Device.pin_factory
    Device.pin_factory = None
    try:
        with pytest.raises(GpioUnavailable, match="not a Raspberry Pi.*--no-gpio.*--gpio mock"):
            choose_pin_factory("pi", model_file=str(tmp_path / "no-model"))
        assert Device.pin_factory is None
        model = tmp_path / "model"
        model.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\x00")
        assert choose_pin_factory("pi", model_file=str(model)) == "pi"
        assert choose_pin_factory("mock") == "mock" and Device.pin_factory is not None
    finally:
        if Device.pin_factory is not saved and Device.pin_factory is not None:
            Device.pin_factory.close()
        Device.pin_factory = saved


def test_serve_off_a_pi_without_a_gpio_choice_says_what_to_do(tmp_path: Path) -> None:
    folder = write(tmp_path / "p", '[table]\ngame = "times_square"\nport = 0\ndata_dir = "log"\n')
    frames = tmp_path / "frames"
    frames.mkdir()
    rules = load_game("times_square")
    cv2.imwrite(str(frames / "f.png"), board_photo(rules.layout(rules.setup(2, None, 0))))
    (folder / "table.toml").write_text((folder / "table.toml").read_text() + f'camera = "folder:{frames}"\n')
    env = {k: v for k, v in __import__("os").environ.items() if k != "GPIOZERO_PIN_FACTORY"}
    done = subprocess.run([sys.executable, "-m", "companion", "serve", "--profile", str(folder)],
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 1, done.stderr  # a clean exit, not an abort with threads still running
    assert "not a Raspberry Pi" in done.stderr and "--no-gpio" in done.stderr


def test_serve_profile_on_every_address_answers_on_loopback(tmp_path: Path) -> None:
    folder = write(tmp_path / "p", """
[table]
game = "jivecat"
players = 3
pin = "482193"
data_dir = "log"
[gpio]
mode = "mock"
""")
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "serve", "--profile", str(folder), "--host", "0.0.0.0",
         "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        banner = proc.stdout.readline()
        # issue 42: the banner names an address a tablet can open, never 0.0.0.0
        found = re.search(r"Dashboard: http://[^\s:]+:(\d+)\s+table PIN: 482193", banner)
        assert "0.0.0.0" not in banner
        assert found, banner + proc.stdout.read() if proc.poll() is not None else banner
        port = int(found.group(1))
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5) as r:
                    state = json.loads(r.read())
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        assert state["game"] == "jivecat" and len(state["players"]) == 3
        assert (folder / "log").is_dir()
    finally:
        proc.terminate()  # SIGTERM, as systemctl stop sends: a clean stop
        out, _ = proc.communicate(timeout=10)
    assert proc.returncode == 0 and "stopping" in out


def test_the_mqtt_section_becomes_the_venue_settings_and_bad_keys_are_named(tmp_path: Path) -> None:
    folder = write(tmp_path / "p", """
[table]
game = "times_square"
[mqtt]
url = "mqtts://table3:secret@broker.local"
venue = "cafe"
table = "t3"
tls_ca = "ca.pem"
""")
    (folder / "ca.pem").write_text("-----BEGIN CERTIFICATE-----\n")
    mqtt = Profile.load(folder).service_settings()["mqtt"]
    assert (mqtt.host, mqtt.port, mqtt.username, mqtt.venue, mqtt.table) == (
        "broker.local", 8883, "table3", "cafe", "t3")
    assert Path(mqtt.tls_ca).resolve() == (folder / "ca.pem").resolve()  # relative to the profile
    bad = write(tmp_path / "q", '[table]\ngame = "times_square"\n[mqtt]\nbroker = "x"\nport = "y"\n')
    with pytest.raises(ProfileError) as caught:
        Profile.load(bad)
    assert "[mqtt] broker: unknown key" in str(caught.value)
    assert "[mqtt] port = 'y'" in str(caught.value)
