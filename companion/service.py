"""The companion service: one table, its inputs, its outputs and the dashboard.

``companion serve`` runs this on real parts (a camera, the serial device, the
Pi's GPIO); ``companion demo`` runs the very same service with the simulated
table plugged into those inputs (a synthetic camera source, the device
emulator's pseudo-terminal, gpiozero's mock pins).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import cv2

from companion.config import ServiceConfig
from companion.games.base import Prompt
from companion.profile import apply_board_map
from companion.sensors.gpio import TableGpio, choose_pin_factory
from companion.sensors.serial_link import LinkHealth, SerialLink
from companion.sensors.tags import TagRegistry
from companion.table import Table, TableOptions
from companion.vision.colour_profile import ColourProfile
from companion.vision.faces import FaceTemplates
from companion.vision.pipeline import VisionLoop
from companion.vision.reader import BoardReader
from companion.vision.sources import FrameSource, open_source
from companion.watchdog import Watchdog
from companion.web.app import create_app
from companion.web.auth import Guard, check_pin, random_pin
from companion.web.server import DashboardServer
from companion.web.setup import TableRef, TableSwitch
from firmware import protocol

log = logging.getLogger(__name__)


class Service:
    def __init__(self, config: ServiceConfig, frame_source: FrameSource | None = None) -> None:
        self.config = config
        self.pin = check_pin(config.pin) if config.pin else random_pin()
        self.guard = Guard(self.pin, Path(config.data_dir) / "devices.json")
        self.table_options = TableOptions(dict(config.phase_limits), config.turn_limit)
        self.table = TableRef(Table.open(
            config.game, config.data_dir, config.players, config.variant, config.seed,
            resume=config.resume, options=self.table_options,
        ))
        self._switch = TableSwitch(self.table, self.table_options)
        self.registry = TagRegistry(config.game, self.table.game.card_ids(), config.tags)
        self.frame_source = frame_source
        self.vision: VisionLoop | None = None
        self.watchdog: Watchdog | None = None
        self.link: SerialLink | None = None
        self.gpio: TableGpio | None = None
        self._server: DashboardServer | None = None
        self._last_leds: dict[int, int] = {}
        self.publisher: Any = None
        self._time_up = False

    @property
    def url(self) -> str:
        return f"http://{self.config.host}:{self.port}"

    @property
    def pairing_url(self) -> str:
        """The one-time URL that pairs a tablet (printed at start-up; a QR code on a paired
        tablet shows the current one)."""
        return f"{self.url}/pair?code={self.guard.code}"

    @property
    def port(self) -> int:
        if self._server is not None:
            return self._server.port
        return self.config.port

    # ------------------------------------------------------------------ start and stop
    def start(self) -> Service:
        cfg = self.config
        if self.frame_source is None and cfg.camera:
            self.frame_source = open_source(cfg.camera)
        self._start_vision()
        if self.frame_source is not None:
            self.watchdog = Watchdog(self._frames_read, self.table.notice,
                                     cfg.camera_stall_s).start()
        if cfg.serial:
            self.link = SerialLink(cfg.serial, self._on_tag, self._on_button, self._on_health).start()
        if cfg.gpio not in (False, "off"):
            choose_pin_factory("mock" if cfg.gpio == "mock" else "pi")
            self.gpio = TableGpio(self._on_turn_button, cfg.gpio_pins)
        self.table.add_listener(self._on_change)
        self._on_change("start", self.table.public())
        if cfg.mqtt is not None:  # the table never waits for the broker: its own thread
            from companion.venue.publish import TablePublisher

            self.publisher = TablePublisher(self.table, cfg.mqtt).start()
            self.table.add_listener(self.publisher)
        self.table.watch_clocks()
        # the getter reads self.vision each time: a game switch rebuilds the camera loop
        app = create_app(self.table, self.pin, {"GUARD": self.guard, "VENUE_LINK": self.publisher},
                         switcher=self,
                         camera=self._camera_jpeg if self.frame_source is not None else None)
        # live updates are served async (no thread per dashboard), the API on its own pool
        self._server = DashboardServer(self.table, app, cfg.host, cfg.port).start()
        self._server.wait_started()
        return self

    def _frames_read(self) -> int:
        """Frames the camera loop has read (the watchdog's pulse; a switch starts a new loop)."""
        return self.vision.frames if self.vision is not None else 0

    def _camera_jpeg(self) -> bytes | None:
        """The latest annotated frame; read through self.vision, which a game switch rebuilds."""
        return self.vision.annotated_jpeg() if self.vision is not None else None

    def _start_vision(self) -> None:
        cfg = self.config
        if self.frame_source is None:
            return
        profile = ColourProfile.load(cfg.colours) if cfg.colours else ColourProfile.default()
        layout = apply_board_map(self.table.game.layout(self.table.state), cfg.board)
        colours = tuple(sorted(set(layout.pieces) | set(layout.shapes))) or None
        faces = FaceTemplates.load(cfg.faces) if cfg.faces else None
        reader = BoardReader(layout, profile, colours=colours, faces=faces, lens=cfg.lens)
        if cfg.empty is not None:
            try:
                reader.use_empty(cv2.imread(str(cfg.empty)))
            except ValueError as err:  # a board map changed since: the drawn layout serves
                log.warning("the learnt empty board %s is not used: %s", cfg.empty, err)
        # the loop gets the running table itself: after a switch it is rebuilt for the new one
        self.vision = VisionLoop(self.table.current, self.frame_source, reader, cfg.fps,
                                 cfg.stable_frames).start()

    # ------------------------------------------------------------------ switching games
    def new_game(self, game: str, players: int, variant: str | None, seed: int,
                 house_rules: dict[str, str] | None, setup: dict[str, Any] | None) -> Table:
        """Set-up on the tablet: log a new game and rebind readers, tags and the dashboard."""
        return self._rebind(lambda: self._switch.new_game(game, players, variant, seed,
                                                          house_rules, setup))

    def resume(self, game_id: int) -> Table:
        """Make an unfinished game of the log the running one again."""
        return self._rebind(lambda: self._switch.resume(game_id))

    def _rebind(self, switch: Any) -> Table:
        if self.vision is not None:
            self.vision.stop()
            self.vision = None
        try:
            table = switch()
        finally:
            self.registry = TagRegistry(self.table.game.name, self.table.game.card_ids(),
                                        self.config.tags)
            self._last_leds.clear()
            self._start_vision()
        self._on_change("game", self.table.public())
        return table

    def _seat(self, kind: str, device: int) -> int:
        """The seat a reader or seat button belongs to (set-up's mapping, else its number)."""
        mapping = (self.table.record.options.get("seats") or {}).get(kind) or {}
        return int(mapping.get(str(device), device))

    def stop(self) -> None:
        if self.watchdog is not None:
            self.watchdog.stop()
        if self.vision is not None:
            self.vision.stop()
        if self.link is not None:
            self.link.stop()
        self.table.close()  # the clock watcher stops before the pins it drives are closed
        if self.gpio is not None:
            self.gpio.close()
        if self._server is not None:
            self._server.close()
        if self.frame_source is not None:
            self.frame_source.close()
        if self.publisher is not None:
            self.publisher.close()
        self.table.log.close()

    # ------------------------------------------------------------------ inputs
    def _on_tag(self, reader: int, uid: str) -> None:
        card = self.registry.card(uid)
        seat = None if reader == self.config.shared_reader else self._seat("readers", reader)
        if card is None:
            self.table.notice("tag", Prompt(
                f"Unknown card tag {uid} on reader {reader}: register it with "
                "'companion calibrate cards' or take it off.", "warning"))
            return
        self.table.notice("tag", None)
        self.table.tap(card, seat)

    def _on_button(self, seat: int, pressed: bool) -> None:
        if pressed:
            self.table.button(self._seat("buttons", seat))

    def _on_turn_button(self) -> None:
        self.table.button(None)

    def _on_health(self, health: LinkHealth) -> None:
        if health.problem:
            self.table.notice("device", Prompt(f"Table device: {health.problem}", "warning"))
            self._last_leds.clear()  # a replugged device starts with its LEDs off
        else:
            self.table.notice("device", None)
            self._on_change("device", self.table.public())

    # ------------------------------------------------------------------ outputs
    def _on_change(self, kind: str, public: dict[str, Any]) -> None:
        """LEDs and buzzer follow the log: called only after a change was stored."""
        time_up = bool(public.get("time_up"))
        if self.gpio is not None:
            self.gpio.show(public)  # a time-up prompt is a warning: the status LED blinks
            if kind == "prompt" and any(p["kind"] == "warning" for p in public["prompts"]):
                self.gpio.beep()
            elif time_up and not self._time_up:
                self.gpio.time_up()
        self._time_up = time_up
        if self.link is not None and self.link.health.connected:
            waiting = any(p["kind"] in ("warning", "choice") for p in public["prompts"])
            for seat in range(len(public["players"])):
                if public["over"]:
                    mode = protocol.LED_BLINK if seat in (public["winner"] or []) else protocol.LED_OFF
                elif seat == public["turn"]:
                    mode = protocol.LED_BLINK if waiting else protocol.LED_ON
                else:
                    mode = protocol.LED_OFF
                if self._last_leds.get(seat) != mode:
                    self._last_leds[seat] = mode
                    self.link.set_led(seat, mode)
