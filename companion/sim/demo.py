"""``companion demo``: the real service with the simulated table plugged into its inputs."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin
from tqdm import tqdm

from companion.games import load_game
from companion.service import Service, ServiceConfig
from companion.sim.camera.render import Camera, lamp_cast, varied_paints
from companion.sim.camera.source import FrameGate, SyntheticSource
from companion.sim.device import DeviceEmulator
from companion.sim.owner import calibrate_table
from companion.sim.runner import RunResult, SimulatedTable, Tablet
from companion.sim.stickers import StickerSheet
from companion.sim.worldproc import WorldProcess
from companion.venue.settings import MqttSettings

TABLE_FPS = 8.0  # the camera's frames a second at a real table's pace (speed above 0)
TABLE_POLL_MS = 5.0  # and the device's firmware polling its readers and buttons
OVER_POLL_MS = 50.0  # the emulated firmware once the game is over: nobody taps, it need not spin


class DemoInterrupted(Exception):
    """Ctrl-C before the game ended; ``result`` is the table as it stood."""

    def __init__(self, result: RunResult) -> None:
        super().__init__("interrupted")
        self.result = result


def run_demo(
    game: str,
    players: int | None,
    variant: str | None,
    seed: int,
    port: int,
    host: str,
    data_dir: Path,
    pin: str | None,
    speed: float,
    exit_when_over: bool,
    max_steps: int = 5000,
    phase_limits: dict[str, float] | None = None,
    announce: Callable[[Service], None] | None = None,
    progress: bool = True,
    mqtt: MqttSettings | None = None,
    tablet: Callable[[Service], Tablet] | None = None,
    on_over: Callable[[RunResult], None] | None = None,
    table_class: Callable[..., SimulatedTable] = SimulatedTable,
    world_class: str | None = None,
) -> RunResult:
    """Play the game; ``on_over`` hears the result as soon as it ends.  Without
    ``exit_when_over`` the dashboard then stays up until Ctrl-C.  Ctrl-C before the end
    raises DemoInterrupted with the table as it stood.  ``table_class`` builds the simulated
    table (``companion bench truth`` passes one that injects faults at the channels);
    ``world_class`` ("module:Class") plays another world than the game's own."""
    Device.pin_factory = MockFactory(pin_class=MockPWMPin)  # never drive a real Pi's pins
    data_dir = Path(data_dir)
    world_file = data_dir / "world.pickle"
    # at speed 0 the firmware times a debounce or a lifted card at 1 ms polls (the players wait
    # on it, not on a clock); with nothing to time it sleeps until the host, a card or a button wakes it
    device = DeviceEmulator(poll_ms=1.0 if speed == 0 else TABLE_POLL_MS).start()
    # the deck's stickers, registered as an owner would: the companion reads only tags.json
    data_dir.mkdir(parents=True, exist_ok=True)
    stickers = StickerSheet(game, load_game(game).card_ids(), seed)
    config = ServiceConfig(
        game=game, players=players, variant=variant, seed=seed, data_dir=data_dir, host=host,
        port=port, pin=pin, serial=device.port, gpio=True, fps=0 if speed == 0 else TABLE_FPS,
        phase_limits=dict(phase_limits or {}), mqtt=mqtt,
        tags=stickers.register(data_dir / "tags.json"),
    )
    # The table and its truth resume together.  The world file is written before the first
    # event reaches the companion, so an unfinished game without one has logged nothing and
    # is resumed with a fresh world; one with events but no world cannot be matched again.
    config.resume = True
    service = Service(config)
    if not world_file.exists() and service.table.log.events(service.table.record.id):
        service.table.log.close()
        config.resume = False
        service = Service(config)
    record = service.table.record
    # the players and their truth run in a process of their own, where the companion's
    # runtime cannot be imported: they reach it only through the channels below
    world = WorldProcess(game, record.players, record.variant, record.seed, world_class)
    # the camera looks at the table as the rules set it up (its own rules object), never at
    # the companion's tracker: the two share nothing but the configuration players chose
    house_rules = (record.options or {}).get("house_rules")
    rules = load_game(game)
    table_layout = rules.layout(rules.start(record.players, record.variant, record.seed, house_rules))
    # this copy of the game has its own plastics, print and lamp
    camera = Camera(table_layout, seed=seed, paints=varied_paints(seed), cast=lamp_cast(seed))
    # the owner calibrates the reader on photos of this table before the first move
    owners = calibrate_table(game, table_layout, camera, data_dir / "profile")
    service.config.board, service.config.empty, service.config.colours = \
        owners.board, owners.empty, owners.colours
    source = SyntheticSource(camera)
    # at speed 0 the camera takes no frame before the players' time gives one (the bench's
    # lockstep camera): running free while the device said hello it took as many frames as the
    # machine drew, and the reader fits the light every 8 frames counted from its first, so a
    # game's readings hung on the load.  A table that does not keep step lets it run free.
    gate = FrameGate(source) if speed == 0 else None
    service.frame_source = gate if gate is not None else source
    # on a terminal only (None: tqdm asks); a pipe or the journal gets no bar lines
    bar: Any = tqdm(desc="moves", unit="move", disable=None if progress else True, leave=False)
    started = time.monotonic()
    refusals: list[str] = []
    service.start()
    stall_s = service.watchdog.stall_s if service.watchdog is not None else None
    if gate is not None and service.watchdog is not None:
        service.watchdog.stall_s = math.inf  # no frame is due before the players begin
    try:
        try:  # Ctrl-C from here on, even while the device is still connecting, stops cleanly
            if announce is not None:
                announce(service)
            if not device.app:  # pragma: no cover - the emulator always has its app
                raise OSError("device emulator failed")
            if not (service.link and service.link.wait_connected(10)):
                raise OSError("the emulated table device did not answer on its pseudo-terminal")
            # ``tablet(service)`` may give a BrowserTablet: every declaration tapped on the page
            sim = table_class(service, world, source, device, speed, world_file, bar,
                              tablet(service) if tablet is not None else None, stickers=stickers)
            refusals = sim.refusals
            if gate is not None and getattr(sim, "gate", None) is not gate:
                gate.release()  # the players do not keep step with the camera: it runs free
                if service.watchdog is not None and stall_s is not None:
                    service.watchdog.stall_s = stall_s
            result = sim.run(max_steps, exit_when_over=True)
        except KeyboardInterrupt:
            bar.close()
            raise DemoInterrupted(RunResult(bar.n, 0, service.table.public(), world.truth(),
                                            refusals, time.monotonic() - started)) from None
        bar.close()  # before anything is printed: no bar left frozen above the result
        if on_over is not None:
            on_over(result)
        if not exit_when_over:
            # nobody plays as fast as it can go any more: the camera goes back to a real table's
            # pace and the emulated firmware to a slow poll, rather than spin until Ctrl-C
            if service.vision is not None:
                service.vision.pace(TABLE_FPS)
            device.poll_s = OVER_POLL_MS / 1000
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass
        return result
    finally:
        bar.close()
        service.stop()
        device.stop()
        world.close()
