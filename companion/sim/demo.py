"""``companion demo``: the real service with the simulated table plugged into its inputs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin
from tqdm import tqdm

from companion.service import Service, ServiceConfig
from companion.sim.device import DeviceEmulator
from companion.sim.runner import RunResult, SimulatedTable
from companion.sim.world import load_world
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
) -> RunResult:
    Device.pin_factory = MockFactory(pin_class=MockPWMPin)  # never drive a real Pi's pins
    data_dir = Path(data_dir)
    world_file = data_dir / "world.pickle"
    # at speed 0 the firmware polls every millisecond: the players wait on it, not on a clock
    device = DeviceEmulator(poll_ms=1.0 if speed == 0 else 5.0).start()
    config = ServiceConfig(
        game=game, players=players, variant=variant, seed=seed, data_dir=data_dir, host=host,
        port=port, pin=pin, serial=device.port, gpio=True, fps=0 if speed == 0 else 8,
        phase_limits=dict(phase_limits or {}),
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
        sim = SimulatedTable(service, world, source, device, speed, world_file, bar)
        return sim.run(max_steps, exit_when_over)
    finally:
        bar.close()
        service.stop()
        device.stop()
