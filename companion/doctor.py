"""``companion doctor``: is this table ready?  Each part checked, and what to fix when it is not.

Camera (frames per second, board markers seen, the board's pixels a millimetre), the serial
device (hello, firmware version, readers), GPIO, the profile's completeness, the disk the
log lives on, and the venue's MQTT broker when the table publishes to one.  Exit status 1
when anything must be fixed before a game.
"""

from __future__ import annotations

import copy
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import cv2
import numpy as np

from companion.profile import FILES, REQUIRED_FILES, Profile, ProfileError
from companion.venue.cli import mqtt_from_options, mqtt_options

OK, WARN, FAIL = "ok", "warn", "FAIL"
MIN_FPS = 4.0
DISK_FAIL_MB = 200
DISK_WARN_MB = 1024


@dataclass
class Check:
    part: str
    status: str
    detail: str
    fix: str = ""

    def lines(self) -> list[str]:
        out = [f"[{self.status:4}] {self.part:8} {self.detail}"]
        if self.fix:
            out.append(f"{'':15}fix: {self.fix}")
        return out


def check_profile(folder: Path | None) -> tuple[Check, Profile | None]:
    if folder is None:
        return Check("profile", WARN, "no profile given: checking only what the options name",
                     "companion calibrate init --profile DIR --game GAME, then doctor --profile DIR"), None
    try:
        profile = Profile.load(folder)
    except ProfileError as err:
        return Check("profile", FAIL, f"{folder}: " + "; ".join(err.problems),
                     "correct the keys named above in table.toml"), None
    missing = profile.missing()
    required = [(name, step) for name, step in missing if name in {FILES[k] for k in REQUIRED_FILES}]
    optional = [name for name, _ in missing if (name, _) not in required]
    detail = f"{folder}: table.toml valid, game {profile.get('table', 'game')}"
    if optional:
        detail += f"; not calibrated (optional): {', '.join(optional)}"
    unset = unset_settings(profile)
    if required or unset:
        what = [n for n, _ in required] + [n for n, _ in unset]
        return Check("profile", WARN, detail + f"; missing: {', '.join(what)}",
                     "; ".join(step for _, step in required + unset)), profile
    return Check("profile", OK, detail), profile


def unset_settings(profile: Profile) -> list[tuple[str, str]]:
    """Settings a table.toml should have that serve would otherwise make up at each start."""
    out = []
    if profile.get("table", "pin") is None:
        out.append(("pin", "set pin = \"<6+ digits>\" in [table] of table.toml (without it "
                           "every start draws a new PIN)"))
    if profile.get("table", "data_dir") is None:
        out.append(("data_dir", "set data_dir = \"data\" (or an absolute folder) in [table] of "
                                "table.toml (without it the log goes wherever serve is started)"))
    return out


def check_camera(spec: str | None, seconds: float = 2.0, marks: bool = True) -> Check:
    """Frames a second, the board's markers in view, and how many pixels a millimetre of the
    board takes (measured on the markers): too few and the board is refused; a few more and
    the marks on dice and cards (``marks``: the game has some) are asked for, not counted."""
    from companion.vision.geometry import MARKER_IDS, MARKER_MM, aruco_dictionary
    from companion.vision.reader import MARKS_PX_PER_MM, MIN_FRAME_PX_PER_MM
    from companion.vision.reading import COUNT_PX_PER_MM
    from companion.vision.sources import open_source

    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)  # our message says it
    if not spec:
        return Check("camera", FAIL, "no camera configured",
                     'set camera = "camera:0" (USB) or "picamera:0" (Pi camera) in [table]')
    try:
        source = open_source(spec)
    except (OSError, ValueError) as err:
        return Check("camera", FAIL, f"{spec}: {err}",
                     "check the cable and 'ls /dev/video*'; a Pi camera module is picamera:0")
    frames, last = 0, None
    started = time.monotonic()
    try:
        while time.monotonic() - started < seconds:
            frame = source.read()
            if frame is None:
                break
            frames += 1
            last = frame
    finally:
        source.close()
    elapsed = max(1e-6, time.monotonic() - started)
    if last is None:
        return Check("camera", FAIL, f"{spec}: opened but gives no picture",
                     "another program may hold the camera; unplug and replug it")
    fps = frames / elapsed
    detector = cv2.aruco.ArucoDetector(aruco_dictionary(), cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(last, cv2.COLOR_BGR2GRAY))
    found = [] if ids is None else [(int(i), c.reshape(4, 2))
                                    for i, c in zip(ids.ravel(), corners, strict=True)]
    seen = sorted({i for i, _ in found} & set(MARKER_IDS))
    detail = (f"{spec}: {last.shape[1]}x{last.shape[0]}, {fps:.1f} frames/s, "
              f"board markers seen {seen} ({len(seen)} of {len(MARKER_IDS)})")
    sides = [float(np.linalg.norm(c - np.roll(c, 1, axis=0), axis=1).mean())
             for i, c in found if i in MARKER_IDS]
    px_per_mm = float(np.median(sides)) / MARKER_MM if sides else None
    if px_per_mm is not None:
        detail += f", the board at {px_per_mm:.2f} px a mm"
    if len(seen) < len(MARKER_IDS):
        hidden = sorted(set(MARKER_IDS) - set(seen))
        return Check("camera", WARN, detail, f"markers {hidden} not in view: aim the camera so all "
                     "four corners of the board are in the picture, and light them")
    if px_per_mm is not None and px_per_mm < MIN_FRAME_PX_PER_MM:
        return Check("camera", FAIL, detail, f"too few pixels: the board is read from "
                     f"{MIN_FRAME_PX_PER_MM:.2f} px a mm: move the camera closer or use a 720p one or better")
    if marks and px_per_mm is not None and px_per_mm < COUNT_PX_PER_MM:
        return Check("camera", WARN, detail, f"under {COUNT_PX_PER_MM:.2f} px a mm no die's pips nor card's "
                     "code is counted: the tablet asks for every one; move the camera closer or use 1080p")
    if marks and px_per_mm is not None and px_per_mm < MARKS_PX_PER_MM:
        return Check("camera", WARN, detail, f"the dice's pips need about {MARKS_PX_PER_MM:.2f} px a mm to "
                     "be counted: below it the tablet asks for them; move the camera closer or use 1080p")
    if fps < MIN_FPS:
        return Check("camera", WARN, detail, "a slow camera: lower its resolution or use USB 3")
    return Check("camera", OK, detail)


def has_marks(game: str | None) -> bool:
    """Do any of this game's pieces carry marks the camera counts (a die's pips, a card's
    printed code)?  Unknown game: assume so."""
    if not game:
        return True
    from companion.games import load_game

    try:
        rules = load_game(game)
    except ValueError:
        return True
    layout = rules.layout(rules.setup(rules.min_players, None, 0))
    return any(high > 0 for _low, high in layout.marks.values())


def check_serial(port: str | None, timeout: float = 5.0) -> Check:
    from companion.sensors.serial_link import SerialLink

    if not port:
        return Check("device", FAIL, "no serial port configured",
                     "set serial = \"/dev/serial/by-id/...\" in [table] (ls /dev/serial/by-id)")
    link = SerialLink(port, lambda r, u: None, lambda s, p: None).start()
    try:
        answered = link.wait_connected(timeout)
        health = copy.copy(link.health)  # stopping the link marks it unplugged
    finally:
        link.stop()
    if not answered:
        problem = health.problem.split(": [Errno")[0] if "cannot open" in health.problem else health.problem
        return Check("device", FAIL, f"{port}: no hello ({problem})",
                     "plug the table device in (ls /dev/serial/by-id); if it is there but silent, "
                     "flash the firmware (deploy/flash.sh)")
    firmware = getattr(health, "firmware", None)  # reported in the hello by newer firmware
    detail = (f"{port}: hello {health.version!r}, firmware {firmware or health.version or 'not reported'}, "
              f"{health.readers} card readers, {health.seats} seat buttons")
    if not (firmware or health.version):
        return Check("device", WARN, detail, "the firmware does not report its version: reflash it "
                     "with deploy/flash.sh")
    return Check("device", OK, detail)


def check_gpio(mode: Any, pins: Any) -> Check:
    from companion.sensors.gpio import GpioUnavailable, TableGpio, choose_pin_factory

    mode = {True: "pi", False: "off"}.get(mode, mode)
    if mode == "off":
        return Check("gpio", OK, "off (no turn button, status LED or buzzer)")
    try:
        factory = choose_pin_factory(mode)
        TableGpio(lambda: None, pins).close()
    except GpioUnavailable as err:
        return Check("gpio", FAIL, str(err).split(":")[0], str(err).split(":", 1)[1].strip())
    except Exception as err:  # gpiozero's errors: pin in use, no permission...
        return Check("gpio", FAIL, f"pins {pins}: {err}",
                     "is another program using the pins? is the user in the gpio group?")
    if mode == "mock":
        return Check("gpio", WARN, f"pretend pins ({factory}): nothing is wired",
                     'fine for a rehearsal; on the Pi set mode = "pi" in [gpio]')
    return Check("gpio", OK, f"{factory}: button {pins.button}, status LED {pins.status_led}, "
                 f"buzzer {pins.buzzer}")


def check_disk(data_dir: Path) -> Check:
    place = Path(data_dir).resolve()
    while not place.exists():
        place = place.parent
    free_mb = shutil.disk_usage(place).free / 2**20
    writable = os.access(place, os.W_OK)
    detail = f"{data_dir}: {free_mb:,.0f} MB free" + ("" if writable else ", NOT writable")
    if not writable:
        return Check("disk", FAIL, detail, f"give the service's user write access to {place}")
    if free_mb < DISK_FAIL_MB:
        return Check("disk", FAIL, detail, "free some space: the game log needs room to be written")
    if free_mb < DISK_WARN_MB:
        return Check("disk", WARN, detail, "little space left; old logs can be archived")
    return Check("disk", OK, detail)


def check_broker(settings: Any, timeout: float = 5.0) -> Check:
    """The venue's broker as the table will meet it: connect, subscribe, publish, receive."""
    from companion.venue.probe import probe_broker

    found = probe_broker(settings, timeout)
    return Check("broker", OK if found.ok else FAIL, found.detail, found.fix)


def run_checks(profile_dir: Path | None, camera: str | None, serial: str | None, gpio: str | None,
               seconds: float = 2.0, serial_timeout: float = 5.0, mqtt: Any = None) -> list[Check]:
    from companion.sensors.gpio import GpioPins

    checks = []
    check, profile = check_profile(profile_dir)
    checks.append(check)
    settings = profile.service_settings() if profile else {}
    checks.append(check_camera(camera or settings.get("camera"), seconds, has_marks(settings.get("game"))))
    checks.append(check_serial(serial or settings.get("serial"), serial_timeout))
    checks.append(check_gpio(gpio or settings.get("gpio", "pi"), settings.get("gpio_pins", GpioPins())))
    checks.append(check_disk(settings.get("data_dir", Path("companion-data"))))
    mqtt = mqtt or settings.get("mqtt")
    if mqtt is not None:
        checks.append(check_broker(mqtt))
    return checks


@click.command()
@click.option("--profile", "profile_dir", type=click.Path(path_type=Path), default=None,
              help="The table profile folder to check.")
@click.option("--camera", default=None, help="Check this camera instead of the profile's.")
@click.option("--serial", default=None, help="Check this serial port instead of the profile's.")
@click.option("--gpio", type=click.Choice(["pi", "mock", "off"]), default=None)
@click.option("--seconds", type=float, default=2.0, show_default=True,
              help="How long to read the camera to measure its frame rate.")
@click.option("--device-timeout", type=float, default=5.0, show_default=True,
              help="How long to wait for the table device's hello.")
@mqtt_options
def doctor(profile_dir: Path | None, camera: str | None, serial: str | None, gpio: str | None,
           seconds: float, device_timeout: float, **opts: Any) -> None:
    """Check the camera, table device, GPIO, profile, disk and broker; say what to fix."""
    mqtt = mqtt_from_options(opts)  # --mqtt-url instead of the profile's [mqtt]
    checks = run_checks(profile_dir, camera, serial, gpio, seconds, device_timeout, mqtt)
    for check in checks:
        for line in check.lines():
            click.echo(line)
    failed = [c.part for c in checks if c.status == FAIL]
    warned = [c.part for c in checks if c.status == WARN]
    if failed:
        click.echo(f"not ready: fix {', '.join(failed)}" + (f" (and look at {', '.join(warned)})"
                                                           if warned else ""))
        raise SystemExit(1)
    click.echo("ready" + (f", with warnings for {', '.join(warned)}" if warned else ""))
