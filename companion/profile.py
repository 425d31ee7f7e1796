"""The table profile: one folder holding everything a table needs to be set up once.

    table.toml    settings: [table] game and service, [gpio] pins, [seats]
    camera.json   lens intrinsics              (companion calibrate camera)
    board.json    board map: spots in mm       (companion calibrate board)
    colours.json  piece colours                (companion calibrate colours)
    faces.json    die-face icons               (companion calibrate faces)
    tags.json     card tags                    (companion calibrate cards)

``SCHEMA`` is the one place listing the sections and keys of ``table.toml``; a
new section (say ``[mqtt]``) is one more entry there.  Loading checks every key
and reports each bad one on its own line; nothing is half-loaded.  Calibration
writes into the folder through :func:`write_settings` and :func:`profile_file`.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import tomli_w

from companion.games import GAMES
from companion.games.base import Layout

CONFIG_FILE = "table.toml"
FILES: dict[str, str] = {
    "lens": "camera.json",
    "board": "board.json",
    "colours": "colours.json",
    "faces": "faces.json",
    "tags": "tags.json",
    "empty": "empty.png",
}
"""The calibration files of a profile, by the ServiceConfig field they set."""

FILE_STEPS: dict[str, str] = {
    "lens": "companion calibrate camera (optional: only for wide-angle lenses)",
    "board": "companion calibrate board",
    "colours": "companion calibrate colours",
    "faces": "companion calibrate faces (only for dice with icons, e.g. Baron Voodoo)",
    "tags": "companion calibrate cards (optional: the factory tag sheet applies until then)",
    "empty": "companion calibrate board, from a photo of the empty board (optional: hands and "
             "shadows are then found against this table's own print)",
}
REQUIRED_FILES = ("board", "colours")
GPIO_MODES = ("pi", "mock", "off")


class ProfileError(ValueError):
    """A profile that cannot be used; ``problems`` holds one message per bad key or file."""

    def __init__(self, where: str, problems: list[str]) -> None:
        self.where = where
        self.problems = problems
        super().__init__(f"{where}:\n" + "\n".join(f"  - {p}" for p in problems))


# ---------------------------------------------------------------------- the schema
@dataclass(frozen=True)
class Key:
    """One setting: what it holds, as a checker that returns the value or raises ValueError."""

    convert: Callable[[Any], Any]
    help: str
    example: Any = None


def _integer(low: int, high: int) -> Callable[[Any], int]:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"must be a whole number from {low} to {high}")
        if not low <= value <= high:
            raise ValueError(f"must be from {low} to {high}")
        return value
    return check


def _number(low: float) -> Callable[[Any], float]:
    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("must be a number")
        if value <= low:
            raise ValueError(f"must be above {low:g}")
        return float(value)
    return check


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("must be a non-empty string in quotes")
    return value


def _choice(options: tuple[str, ...]) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if value not in options:
            raise ValueError(f"must be one of {', '.join(options)}")
        return value
    return check


def _pin(value: Any) -> str:
    if not isinstance(value, str) or not value.isdigit() or len(value) < 6:
        raise ValueError('must be 6 or more digits in quotes, e.g. "482193"')
    return value


def _camera(value: Any) -> str:
    text = _text(value)
    kind = text.partition(":")[0]
    if kind not in ("camera", "video", "folder", "picamera"):
        raise ValueError("must be camera:N, picamera:N, video:PATH or folder:PATH")
    return text


def _gpio(value: Any) -> str:
    if value is True:
        return "pi"
    if value is False:
        return "off"
    return _choice(GPIO_MODES)(value)


def _phase_limits(value: Any) -> dict[str, float]:
    if not isinstance(value, dict):
        raise ValueError("must be a table of phase = seconds")
    out = {}
    for name, seconds in value.items():
        try:
            out[name] = _number(0)(seconds)
        except ValueError as err:
            raise ValueError(f"{name}: {err}") from None
    return out


def _path(value: Any) -> str:
    return _text(value)


SCHEMA: dict[str, dict[str, Key]] = {
    "table": {
        "game": Key(_choice(tuple(sorted(GAMES))), "which game this table plays", "jivecat"),
        "players": Key(_integer(1, 8), "number of players (the game's least if absent)", 4),
        "variant": Key(_text, "variant name (see 'companion games')"),
        "seed": Key(_integer(0, 2**31), "seed for set-up shuffles the companion makes", 0),
        "data_dir": Key(_path, "where the game log lives (relative to the profile)",
                        "/var/lib/table-companion"),
        "host": Key(_text, "address to listen on; 0.0.0.0 lets tablets on the network in", "0.0.0.0"),
        "port": Key(_integer(0, 65535), "dashboard port", 8000),
        "pin": Key(_pin, "table PIN for changes from the tablet (random if absent)", "482193"),
        "camera": Key(_camera, "camera:N, picamera:N, video:PATH or folder:PATH", "camera:0"),
        "serial": Key(_text, "the table device's serial port",
                      "/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode-if00"),
        "fps": Key(_number(0), "camera frames read per second", 8.0),
        "stable_frames": Key(_integer(1, 100), "frames a board must hold before it counts", 3),
        "phase_limits": Key(_phase_limits, "seconds per phase; absent: no limit", {}),
        # paths to calibration files kept elsewhere; by default the profile's own files
        "colours": Key(_path, "colour profile file (default: the profile's colours.json)"),
        "tags": Key(_path, "card tag file (default: the profile's tags.json)"),
        "faces": Key(_path, "die-face file (default: the profile's faces.json)"),
        "lens": Key(_path, "camera intrinsics file (default: the profile's camera.json)"),
        "board": Key(_path, "board map file (default: the profile's board.json)"),
        "empty": Key(_path, "the learnt empty board (default: the profile's empty.png)"),
    },
    "gpio": {
        "mode": Key(_gpio, 'pi: the Pi\'s pins; mock: no pins (rehearsal off a Pi); off: no GPIO', "pi"),
        "button": Key(_integer(0, 27), "BCM pin of the turn button (to ground)", 17),
        "status_led": Key(_integer(0, 27), "BCM pin of the status LED", 27),
        "buzzer": Key(_integer(0, 27), "BCM pin of the buzzer", 22),
    },
    "seats": {
        "shared_reader": Key(_integer(0, 15), "the device's card reader not tied to a seat", 6),
    },
    "mqtt": {  # publish to a venue's broker (docs/mqtt.md); the whole section is checked again
        "url": Key(_text, "mqtt://[USER@]HOST[:PORT], or mqtts:// (TLS, the broker verified)",
                   "mqtt://broker.local:1883"),
        "host": Key(_text, "the broker's address (or give url)"),
        "port": Key(_integer(1, 65535), "the broker's port", 1883),
        "venue": Key(_text, "the venue's name in the topic tree", "cafe"),
        "table": Key(_text, "this table's name in the topic tree", "t3"),
        "username": Key(_text, "broker user name"),
        "password": Key(_text, "broker password"),
        "password_file": Key(_path, "a file whose first line is the broker password"),
        "tls_ca": Key(_path, "the broker's CA file (turns TLS on; default: the system's CAs)"),
        "tls_cert": Key(_path, "client certificate (with tls_key)"),
        "tls_key": Key(_path, "client key"),
        "keepalive": Key(_integer(5, 3600), "seconds between keepalives", 15),
        "discovery_prefix": Key(_text, 'Home Assistant discovery prefix; "" turns it off',
                                "homeassistant"),
    },
}
"""Every section and key of table.toml.  Add a section here and it is read, checked and written."""

PATH_KEYS = ("data_dir", "colours", "tags", "faces", "lens", "board", "empty")


def validate(data: dict[str, Any], where: str) -> dict[str, dict[str, Any]]:
    """Checked settings by section; raises ProfileError listing every bad key at once."""
    problems: list[str] = []
    out: dict[str, dict[str, Any]] = {}
    for section, values in data.items():
        keys = SCHEMA.get(section)
        if keys is None:
            problems.append(f"[{section}]: unknown section (known: {', '.join(SCHEMA)})")
            continue
        if not isinstance(values, dict):
            problems.append(f"{section} = ...: must be a [{section}] section")
            continue
        out[section] = {}
        for key, value in values.items():
            if key not in keys:
                problems.append(f"[{section}] {key}: unknown key (known: {', '.join(keys)})")
                continue
            try:
                out[section][key] = keys[key].convert(value)
            except ValueError as err:
                problems.append(f"[{section}] {key} = {value!r}: {err}")
    if problems:
        raise ProfileError(where, problems)
    return out


def read_toml(path: Path) -> dict[str, dict[str, Any]]:
    """A settings file, checked."""
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as err:
        raise ProfileError(str(path), [f"not valid TOML: {err}"]) from None
    except OSError as err:
        raise ProfileError(str(path), [f"cannot read: {err.strerror}"]) from None
    return validate(data, str(path))


def write_settings(folder: Path, section: str, values: dict[str, Any]) -> None:
    """Set keys in the profile's table.toml (checked first; the file changes only if all are good)."""
    path = Path(folder) / CONFIG_FILE
    current = read_toml(path) if path.exists() else {}
    merged = {**current, section: {**current.get(section, {}), **values}}
    validate(merged, str(path))
    Path(folder).mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(tomli_w.dumps(merged))
    tmp.replace(path)


def profile_file(folder: Path, name: str) -> Path:
    """Where a calibration step writes its file in the profile (``name`` a key of FILES)."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    return Path(folder) / FILES[name]


# ---------------------------------------------------------------------- loading
@dataclass
class Profile:
    """A loaded table profile (or a lone settings file, for ``serve --config``)."""

    folder: Path
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def load(cls, folder: str | Path) -> Profile:
        folder = Path(folder)
        if not folder.is_dir():
            raise ProfileError(str(folder), ["not a folder: make one with "
                                             "'companion calibrate init --profile DIR --game GAME'"])
        path = folder / CONFIG_FILE
        if not path.exists():
            raise ProfileError(str(folder), [f"no {CONFIG_FILE}: make one with "
                                             "'companion calibrate init --profile DIR --game GAME'"])
        profile = cls(folder, read_toml(path))
        profile.check_files()
        return profile

    @classmethod
    def from_file(cls, path: str | Path) -> Profile:
        """A single TOML settings file; relative paths in it are relative to its folder."""
        path = Path(path)
        profile = cls(path.parent, read_toml(path))
        profile.check_files()
        return profile

    def get(self, section: str, key: str, default: Any = None) -> Any:
        return self.settings.get(section, {}).get(key, default)

    def file(self, name: str) -> Path | None:
        """A calibration file: the path [table] names, else the profile's own file if present."""
        named = self.get("table", name)
        if named:
            return self._resolve(named)
        own = self.folder / FILES[name]
        return own if own.exists() else None

    def _resolve(self, value: str) -> Path:
        path = Path(value).expanduser()
        return path if path.is_absolute() else self.folder / path

    def check_files(self) -> None:
        """Every calibration file named or present must parse; each bad one is reported."""
        problems = []
        for name in FILES:
            path = self.file(name)
            if path is None:
                continue
            if not path.exists():
                problems.append(f"[table] {name} = {str(path)!r}: no such file")
                continue
            if path.suffix == ".png":  # an image (the learnt empty board): the reader checks it
                continue
            try:
                json.loads(path.read_text())
            except (OSError, ValueError) as err:
                problems.append(f"{path.name}: not a readable JSON file ({err})")
        board = self.file("board")
        if board is not None and board.exists() and not problems:
            try:
                read_board_map(board, self.get("table", "game"))
            except ValueError as err:
                problems.append(str(err))
        if problems:
            raise ProfileError(str(self.folder), problems)

    def missing(self) -> list[tuple[str, str]]:
        """Calibration files not there yet, with the step that makes each."""
        return [(FILES[n], FILE_STEPS[n]) for n in FILES if self.file(n) is None]

    def service_settings(self) -> dict[str, Any]:
        """ServiceConfig keyword arguments from this profile (only what it sets)."""
        from companion.sensors.gpio import GpioPins

        table = dict(self.settings.get("table", {}))
        out: dict[str, Any] = {k: v for k, v in table.items() if k not in PATH_KEYS}
        if "data_dir" in table:
            out["data_dir"] = self._resolve(table["data_dir"])
        for name in FILES:
            path = self.file(name)
            if path is not None:
                out[name] = path
        gpio = self.settings.get("gpio", {})
        if "mode" in gpio:
            out["gpio"] = gpio["mode"]
        pins = {k: v for k, v in gpio.items() if k != "mode"}
        if pins:
            out["gpio_pins"] = replace(GpioPins(), **pins)
        if "shared_reader" in self.settings.get("seats", {}):
            out["shared_reader"] = self.settings["seats"]["shared_reader"]
        if self.settings.get("mqtt"):
            from companion.venue.settings import MqttSettings, MqttSettingsError

            mqtt = dict(self.settings["mqtt"])
            for key in ("tls_ca", "tls_cert", "tls_key", "password_file"):
                if key in mqtt:
                    mqtt[key] = self._resolve(mqtt[key])
            try:
                out["mqtt"] = MqttSettings.from_mapping(mqtt)
            except MqttSettingsError as err:
                raise ProfileError(str(self.folder), [str(err)]) from err
        return out


def example_settings(game: str) -> dict[str, dict[str, Any]]:
    """A new profile's table.toml: the examples of the keys a table usually sets."""
    table = {k: SCHEMA["table"][k].example for k in ("host", "port", "camera", "serial", "fps")}
    return {"table": {"game": game, **table},
            "gpio": {k: key.example for k, key in SCHEMA["gpio"].items()},
            "seats": {"shared_reader": SCHEMA["seats"]["shared_reader"].example}}


# ---------------------------------------------------------------------- profile -> service
FLAG_KEYS = ("game", "players", "variant", "seed", "port", "host", "pin", "camera", "serial",
             "colours", "tags", "faces", "data_dir")


def service_config(profile_dir: Path | None, config_file: Path | None, flags: dict[str, Any],
                   given: set[str], phase_limits: dict[str, float]) -> Any:
    """The ServiceConfig for ``serve``: the profile (or a lone config file), then the flags
    that were given on the command line, and only those."""
    import dataclasses
    import logging

    from companion.config import ServiceConfig

    if profile_dir is not None and config_file is not None:
        raise ValueError("give --profile DIR or --config FILE, not both")
    settings: dict[str, Any] = {}
    if profile_dir is not None:
        settings = Profile.load(profile_dir).service_settings()
    elif config_file is not None:
        settings = Profile.from_file(config_file).service_settings()
    for key in FLAG_KEYS:
        if key in given and flags.get(key) is not None:
            value = flags[key]
            settings[key] = Path(value) if key in PATH_KEYS else value
    if "gpio_mode" in given and flags.get("gpio_mode"):
        settings["gpio"] = flags["gpio_mode"]
    if "no_gpio" in given and flags.get("no_gpio"):
        settings["gpio"] = "off"
    settings["phase_limits"] = settings.get("phase_limits", {}) | phase_limits
    settings.setdefault("data_dir", Path("companion-data"))
    known = {f.name for f in dataclasses.fields(ServiceConfig)}
    for key in sorted(set(settings) - known):  # e.g. lens before the reader can use it
        logging.getLogger(__name__).warning("%s is in the profile but this build cannot use it", key)
        del settings[key]
    return ServiceConfig(**settings)


# ---------------------------------------------------------------------- the board map
def board_map_json(game: str, layout: Layout, quality: dict[str, Any]) -> dict[str, Any]:
    """The board map file: every spot's rectangle in mm from the board's top-left corner."""
    return {
        "game": game,
        "note": "Spot rectangles in mm from the top-left corner of the board's printed area. "
                "Correct x/y/w/h where board-check.png shows a box off its printed space.",
        "width_mm": layout.width,
        "height_mm": layout.height,
        "spots": {s.id: [s.x, s.y, s.w, s.h] for s in layout.spots},
        "quality": quality,
    }


def read_board_map(path: Path, game: str | None) -> dict[str, tuple[float, float, float, float]]:
    """Spot rectangles from a board map, checked (numbers, inside the board, the right game)."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as err:
        raise ValueError(f"{Path(path).name}: not a readable board map ({err})") from None
    problems = []
    if game is not None and data.get("game") != game:
        problems.append(f"made for {data.get('game')!r}, this table plays {game!r}: "
                        "run 'companion calibrate board' again")
    width, height = data.get("width_mm", 0), data.get("height_mm", 0)
    spots: dict[str, tuple[float, float, float, float]] = {}
    for spot_id, rect in (data.get("spots") or {}).items():
        if (not isinstance(rect, list) or len(rect) != 4
                or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in rect)):
            problems.append(f"spot {spot_id}: must be [x, y, w, h] in mm")
            continue
        x, y, w, h = (float(v) for v in rect)
        if w <= 0 or h <= 0 or x < 0 or y < 0 or x + w > width + 0.5 or y + h > height + 0.5:
            problems.append(f"spot {spot_id} = {rect}: must lie inside the {width}x{height} mm board")
            continue
        spots[spot_id] = (x, y, w, h)
    if not spots and not problems:
        problems.append("no spots")
    if problems:
        raise ValueError(f"{Path(path).name}: " + "; ".join(problems))
    return spots


def apply_board_map(layout: Layout, path: Path | None) -> Layout:
    """The game's layout with spot rectangles corrected by the table's board map."""
    if path is None:
        return layout
    spots = read_board_map(path, None)
    unknown = sorted(set(spots) - {s.id for s in layout.spots})
    if unknown:
        raise ValueError(f"{Path(path).name}: spots {unknown[:5]} are not on this game's board")
    return replace(layout, spots=tuple(
        replace(s, x=spots[s.id][0], y=spots[s.id][1], w=spots[s.id][2], h=spots[s.id][3])
        if s.id in spots else s for s in layout.spots))


__all__ = ["CONFIG_FILE", "FILES", "SCHEMA", "Profile", "ProfileError", "apply_board_map",
           "example_settings", "read_board_map", "validate", "write_settings"]
