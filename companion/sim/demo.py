"""``companion demo``: the real service with the simulated table plugged into its inputs."""

from __future__ import annotations

import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin
from tqdm import tqdm

from companion.service import Service, ServiceConfig
from companion.sim.device import DeviceEmulator
from companion.sim.runner import RunResult, SimulatedTable, Tablet
from companion.sim.world import World, load_world
from companion.venue.settings import MqttSettings
from companion.vision.render import Camera
from companion.vision.sources import SyntheticSource


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
) -> RunResult:
    Device.pin_factory = MockFactory(pin_class=MockPWMPin)  # never drive a real Pi's pins
    data_dir = Path(data_dir)
    world_file = data_dir / "world.pickle"
    device = DeviceEmulator().start()
    config = ServiceConfig(
        game=game, players=players, variant=variant, seed=seed, data_dir=data_dir, host=host,
        port=port, pin=pin, serial=device.port, gpio=True, fps=0 if speed == 0 else 8,
        phase_limits=dict(phase_limits or {}), mqtt=mqtt,
    )
    config.resume = world_file.exists()  # the table and its truth resume together, or neither
    service = Service(config)
    record = service.table.record
    world: World
    if config.resume and service.table.history:
        world = pickle.loads(world_file.read_bytes())
    else:
        world_file.unlink(missing_ok=True)
        world = load_world(game, service.table.game, record.players, record.variant, record.seed)
    layout = service.table.game.layout(service.table.state)
    source = SyntheticSource(Camera(layout, seed=seed))
    service.frame_source = source
    service.start()
    if announce is not None:
        announce(service)
    if not device.app:  # pragma: no cover - the emulator always has its app
        raise OSError("device emulator failed")
    if not (service.link and service.link.wait_connected(10)):
        service.stop()
        device.stop()
        raise OSError("the emulated table device did not answer on its pseudo-terminal")
    bar: Any = tqdm(desc="moves", unit="move", disable=not progress, leave=False)
    try:
        # ``tablet(service)`` may give a BrowserTablet: every declaration tapped on the page
        sim = SimulatedTable(service, world, source, device, speed, world_file, bar,
                             tablet(service) if tablet is not None else None)
        return sim.run(max_steps, exit_when_over)
    finally:
        bar.close()
        service.stop()
        device.stop()
