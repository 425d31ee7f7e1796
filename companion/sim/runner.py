"""The simulated table driving a running service through its physical channels only.

Pieces moved -> rendered camera frames (with an arm reaching over the board
first); cards tapped and seat buttons -> the emulated device on a
pseudo-terminal; the turn button -> gpiozero's mock pin; declarations -> HTTP
POSTs with the table PIN, as a tablet sends them.  Players act at a human pace
drawn from a seeded distribution (:class:`HumanPacing`), never waiting on what
the companion has seen; after a tap or a press they glance at the tablet
(GET /api/state) for it to move on, as people look for the beep.
"""

from __future__ import annotations

import json
import math
import pickle
import random
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpiozero import Device

from companion.games.base import view_to_json
from companion.sensors.tags import factory_uid
from companion.service import Service
from companion.sim.device import DeviceEmulator
from companion.sim.world import (
    BoardChange,
    CardTap,
    Declare,
    HandOver,
    PhysicalEvent,
    SeatButton,
    TurnButton,
    World,
)
from companion.vision.sources import SyntheticSource

HUMAN_PAUSE_S = 0.6  # between two things a player does, at --speed 1


@dataclass
class RunResult:
    steps: int
    stalls: int
    tablet: dict[str, Any]
    truth: dict[str, Any]
    refusals: list[str] = field(default_factory=list)
    seconds: float = 0.0


class Tablet:
    """A player's view of the dashboard over HTTP."""

    def __init__(self, url: str, pin: str) -> None:
        self.url = url
        self.pin = pin

    def state(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.url}/api/state", timeout=10) as response:
            return json.loads(response.read())

    def declare(self, action: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        request = urllib.request.Request(
            f"{self.url}/api/actions", data=json.dumps({"action": action}).encode(),
            headers={"Content-Type": "application/json", "X-Table-Pin": self.pin}, method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"{}")


class HumanPacing:
    """How long people take, drawn from a seeded distribution (not from the companion)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def press_delay(self) -> float:
        """Seconds from the hand leaving to the button: median 0.7 s, 0.5 to 2.5 s."""
        return min(2.5, max(0.5, self.rng.lognormvariate(math.log(0.7), 0.5)))

    def linger_frames(self) -> int:
        """Frames the hand stays over the board around a move (mostly brief, sometimes long)."""
        return 3 + int(self.rng.expovariate(1 / 3))


class SimulatedTable:
    """The world's events onto the channels.  ``human_pacing`` False (the demo's default): after
    moving pieces the players wait until the tablet shows the board ("seen") before the next
    thing; Jivecat's worlds still need it (a tap or a second change right after a move is not
    yet coped with).  True (``companion bench truth``): a seeded human delay instead, never
    looking at what the companion has seen."""

    human_pacing = False

    def __init__(self, service: Service, world: World, source: SyntheticSource,
                 device: DeviceEmulator, speed: float = 1.0, world_file: Path | None = None,
                 progress: Any = None, tablet: Tablet | None = None) -> None:
        self.service = service
        self.world = world
        self.source = source
        self.device = device
        self.speed = speed
        # the PIN read off the start-up screen; a BrowserTablet taps the page instead of POSTing
        self.tablet = tablet or Tablet(service.url, service.pin)
        self.world_file = world_file
        self.progress = progress
        self.refusals: list[str] = []
        self.button_pin = Device.pin_factory.pin(service.config.gpio_pins.button)
        self.shared_reader = service.config.shared_reader
        self.pacing = HumanPacing(random.Random(service.config.seed * 31 + 7))
        self.frames_taken = 0
        source.read = self._count_frames(source.read)  # type: ignore[method-assign]

    def human_wait(self, seconds: float, after_frames: int = 0) -> None:
        """A human delay on the table's own clock: the hand's ``after_frames`` then ``seconds``
        more, counted in the frames the camera takes at 8 a second (at --speed 0 the camera
        runs as fast as it can, so time is its frames), or slept at --speed > 0."""
        if self.speed > 0:
            time.sleep(seconds / self.speed)
            return
        until = self.frames_taken + after_frames + round(seconds * 8)
        deadline = time.monotonic() + 10.0
        while self.frames_taken < until and time.monotonic() < deadline:
            time.sleep(0.005)

    def _count_frames(self, read: Any) -> Any:
        """The camera's frames, counted: the world's clock when the demo runs at full speed."""
        def counted() -> Any:
            self.frames_taken += 1
            return read()
        return counted

    def pause(self, factor: float = 1.0) -> None:
        if self.speed > 0:
            time.sleep(HUMAN_PAUSE_S * factor / self.speed)

    def wait_for(self, check: Any, timeout: float = 20.0) -> dict[str, Any]:
        """Poll the tablet until ``check(state)`` holds (bounded)."""
        deadline = time.monotonic() + timeout
        state = self.tablet.state()
        while not check(state) and time.monotonic() < deadline:
            time.sleep(0.02)
            state = self.tablet.state()
        return state

    # ------------------------------------------------------------------ channels
    def deliver(self, event: PhysicalEvent) -> None:
        before = self.tablet.state()
        marker = (len(before["history"]), json.dumps(before["prompts"]), len(before["taps"]))

        def moved_on(s: dict[str, Any]) -> bool:
            return (len(s["history"]), json.dumps(s["prompts"]), len(s["taps"])) != marker

        if isinstance(event, BoardChange):
            # an arm reaches in, moves the pieces, lingers a while, withdraws; the player then
            # presses at a human pace, never waiting on what the companion has seen
            linger = self.pacing.linger_frames()
            self.source.hand_over(linger)
            self.source.show(event.view)
            if self.human_pacing:
                self.human_wait(self.pacing.press_delay(), after_frames=linger)
            else:  # the demo's default still waits for the tablet to show the board: see below
                target = view_to_json(event.view)
                if before.get("seen") != target:
                    self.wait_for(lambda s: s.get("seen") == target)
        elif isinstance(event, HandOver):
            self.source.hand_over(event.frames)
        elif isinstance(event, CardTap):
            reader = self.shared_reader if event.seat is None else event.seat
            self.device.lay_card(reader, bytes.fromhex(factory_uid(self.world.game.name, event.card)))
            self.wait_for(moved_on, 30.0)
        elif isinstance(event, SeatButton):
            self.device.press(event.seat)
            self.wait_for(moved_on, 30.0)
        elif isinstance(event, TurnButton):
            self.button_pin.drive_low()
            time.sleep(0.03)
            self.button_pin.drive_high()
            self.wait_for(moved_on, 30.0)
        elif isinstance(event, Declare):
            status, body = self.tablet.declare(event.action)
            if status != 200:
                self.refusals.append(f"{event.action}: {status} {body.get('error')}")
        else:  # pragma: no cover
            raise TypeError(f"unknown physical event {event!r}")
        self.pause(0.5)

    # ------------------------------------------------------------------ the game
    def run(self, max_steps: int = 5000, exit_when_over: bool = True) -> RunResult:
        started = time.monotonic()
        resumed = self.world_file is not None and self.world_file.exists()
        if not resumed:
            for event in self.world.start():
                self.deliver(event)
        else:
            # the physical table is as the players left it: the camera sees it again
            board = self.world.board()
            if board is not None:
                self.deliver(BoardChange(board))
        steps = stalls = 0
        while steps < max_steps and not self.world.finished():
            tablet = self.tablet.state()
            events = self.world.step(tablet)
            if not events:
                break
            for event in events:
                self.deliver(event)
            steps += 1
            after = self.tablet.state()
            if len(after["history"]) == len(tablet["history"]):
                stalls += 1
            self._save_world()
            if self.progress is not None:
                self.progress.update(1)
            self.pause()
        final = self.wait_for(lambda s: s["over"], 5.0) if self.world.finished() else self.tablet.state()
        if self.world_file is not None and final["over"] and self.world_file.exists():
            self.world_file.unlink()
        if not exit_when_over:
            while True:
                time.sleep(3600)
        return RunResult(steps, stalls, final, self.world.truth(), self.refusals,
                         time.monotonic() - started)

    def _save_world(self) -> None:
        """The world's truth (hands, decks) persists beside, never inside, the companion's data."""
        if self.world_file is not None:
            tmp = self.world_file.with_suffix(".tmp")
            tmp.write_bytes(pickle.dumps(self.world))
            tmp.replace(self.world_file)
