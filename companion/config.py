"""What ``companion serve`` can be told: one dataclass, filled by options, a profile or a file.

It lives apart from the service so that the profile (which builds it) and the service
(which runs it) need not import each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from companion.sensors.gpio import GpioPins
from companion.venue.settings import MqttSettings


@dataclass
class ServiceConfig:
    """Everything ``companion serve`` can be told, by options or a TOML config file."""

    game: str = "times_square"
    players: int | None = None
    variant: str | None = None
    seed: int = 0
    data_dir: Path = Path("companion-data")
    host: str = "127.0.0.1"
    port: int = 8000
    pin: str | None = None
    camera: str | None = None  # camera:N, video:PATH, folder:PATH; None: no camera
    serial: str | None = None  # a port (/dev/ttyACM0) or a pyserial URL; None: no device
    shared_reader: int = 6  # the device's reader for cards not tied to a seat
    gpio: bool | str = True  # True/"pi": the Pi's pins; "mock": gpiozero mock pins; False/"off"
    gpio_pins: GpioPins = field(default_factory=GpioPins)
    fps: float = 10.0
    stable_frames: int = 2  # every position confident and unchanged in this many frames
    lens: Path | None = None  # the lens profile 'companion calibrate camera' wrote
    colours: Path | None = None  # calibrated colour profile
    tags: Path | None = None  # registered card tags
    faces: Path | None = None  # learnt die-face icons (companion calibrate faces)
    board: Path | None = None  # the table's board map (companion calibrate board)
    empty: Path | None = None  # the empty board learnt from a photo of it (calibrate board)
    phase_limits: dict[str, float] = field(default_factory=dict)
    turn_limit: float | None = None  # seconds for one player's turn; None: no limit
    resume: bool = True
    mqtt: MqttSettings | None = None  # publish to a venue's broker (companion.venue)
    camera_stall_s: float = 3.0  # no frame read for this long: a warning on the dashboard
