"""The bench's lockstep camera: the camera loop takes the frames the players' delays give,
and no others, so a game takes the same frames on an idle machine as on a loaded one."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion.service import ServiceConfig
from companion.sim.camera.source import FrameGate
from companion.sim.runner import SimulatedTable
from companion.sim.stickers import StickerSheet


class CountingSource:
    """A camera that counts the frames read from it."""

    def __init__(self) -> None:
        self.reads = 0
        self.closed = False

    def read(self) -> np.ndarray:
        self.reads += 1
        return np.zeros((4, 4, 3), np.uint8)

    def close(self) -> None:
        self.closed = True


class Loop:
    """A camera loop as the service's: read a frame, act on it, read the next; ``acted``
    counts the frames acted on (the table handed what was seen)."""

    running: list[Loop] = []

    def __init__(self, source: Any) -> None:
        self.source = source
        self.acted = 0
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        Loop.running.append(self)
        self.thread.start()

    def run(self) -> None:
        while not self.stop:
            frame = self.source.read()
            assert frame is not None
            self.acted += 1


@pytest.fixture(autouse=True)
def loops_stopped() -> Iterator[None]:
    """Every loop a test started is stopped after it: a loop left reading a released gate runs
    flat out for the rest of the worker's tests (it made the suite's last vision tests 40 times
    slower: 65 s for a test of 1.6 s)."""
    yield
    for loop in Loop.running:
        loop.stop = True
        gate = loop.source if isinstance(loop.source, FrameGate) else None
        if gate is not None:
            gate.release()  # a loop waiting on the gate for a frame is let go to see it must stop
        loop.thread.join(timeout=60)
        assert not loop.thread.is_alive()
    Loop.running.clear()


def test_the_gate_lets_through_the_frames_granted_and_waits_until_they_are_acted_on() -> None:
    camera = CountingSource()
    gate = FrameGate(camera)
    loop = Loop(gate)
    assert gate.advance(0, timeout=60)  # the loop is waiting: nothing was let through
    assert (camera.reads, loop.acted) == (0, 0)
    assert gate.advance(5, timeout=60)
    assert (camera.reads, loop.acted) == (5, 5)  # exactly those, each acted on
    assert gate.advance(3, timeout=60)
    assert (camera.reads, loop.acted, gate.taken, gate.granted) == (8, 8, 8, 8)
    assert gate.taken_in_step is None
    gate.release()  # free again: the loop runs on, as fast as the machine draws
    for _ in range(10_000):  # bounded: a hang guard, the loop reads at once
        if camera.reads > 20:
            break
        threading.Event().wait(0.001)
    loop.stop = True
    loop.thread.join(timeout=60)
    assert not loop.thread.is_alive() and camera.reads > 20
    # the frames of the players' delays are kept apart from those the free camera took
    assert gate.taken_in_step == 8 and gate.taken > 20
    gate.release()  # released again (the runner's stop and its end both release): kept as it was
    assert gate.taken_in_step == 8


def test_a_camera_running_free_rests_before_each_frame_and_a_gated_one_never(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Running free (the demo at speed 0), the synthetic camera never rested: a Swing State demo
    took 1.4 million still frames and starved the players' thread and the tablet's server of
    the interpreter (110 s a game, 70 s resting).  Gated (the bench's players' delays), each
    frame is read the moment it is let through."""
    from companion.sim.camera import source

    rests: list[float] = []
    monkeypatch.setattr(source.time, "sleep", rests.append)
    camera = CountingSource()
    gate = FrameGate(camera)
    loop = Loop(gate)
    assert gate.advance(4, timeout=60)
    assert camera.reads == 4 and rests == []
    loop.stop = True
    gate.release()
    loop.thread.join(timeout=60)
    assert not loop.thread.is_alive()
    free = camera.reads - 4
    assert free >= 1 and rests == [source.FREE_FRAME_REST_S] * free
    assert 0 < source.FREE_FRAME_REST_S <= 1 / 100  # a real camera's pace or quicker


def test_a_negative_advance_is_refused_and_lets_nothing_through() -> None:
    camera = CountingSource()
    gate = FrameGate(camera)
    with pytest.raises(ValueError, match="must not be negative"):
        gate.advance(-1)
    assert gate.granted == 0 and camera.reads == 0


def test_the_gate_reads_through_the_sources_read_as_it_is_now() -> None:
    """A fault layer that wraps the source's read after the gate was put in is read too."""
    camera = CountingSource()
    gate = FrameGate(camera)
    wrapped: list[int] = []
    inner = camera.read

    def faulty_read() -> np.ndarray:
        wrapped.append(1)
        return inner()

    camera.read = faulty_read  # type: ignore[method-assign]
    loop = Loop(gate)
    assert gate.advance(2, timeout=60)
    assert len(wrapped) == 2 and loop.acted == 2
    gate.close()
    assert camera.closed


class PacedTable(SimulatedTable):
    human_pacing = True


def paced_table(speed: float, vision: bool = True) -> tuple[PacedTable, SimpleNamespace]:
    Device.pin_factory = MockFactory(pin_class=MockPWMPin)
    source = CountingSource()
    service = SimpleNamespace(config=ServiceConfig(game="times_square"), url="http://x", pin="1",
                              vision=SimpleNamespace(source=source) if vision else None,
                              watchdog=SimpleNamespace(stall_s=3.0),
                              link=SimpleNamespace(heartbeat_timeout_s=3.5))
    world = SimpleNamespace(game=SimpleNamespace(name="times_square"))
    device = SimpleNamespace(poll_s=0.001)
    table = PacedTable(service, world, source, device, speed, None, None,  # type: ignore[arg-type]
                       SimpleNamespace(), stickers=StickerSheet("times_square", ["T01"], 1))
    return table, service


def test_players_at_a_human_pace_on_the_bench_get_the_lockstep_camera() -> None:
    table, service = paced_table(speed=0)
    assert isinstance(table.gate, FrameGate) and service.vision.source is table.gate
    assert service.watchdog.stall_s == math.inf  # a pause of the harness is no stuck camera
    assert service.link.heartbeat_timeout_s == math.inf  # nor a silent device
    assert table.device.poll_s == 0.005  # the firmware at a real device's pace, not spinning
    loop = Loop(service.vision.source)
    table.human_wait(1.0, after_frames=3)  # the hand's 3 frames and a second at 8 frames a second
    assert loop.acted == 11 and table.frames_taken == 11
    table.human_wait(0.5)
    assert loop.acted == 15 and table.frames_taken == 15
    loop.stop = True
    table.gate.release()
    loop.thread.join(timeout=60)


@pytest.mark.parametrize("speed, vision", [(1.0, True), (0, False)])
def test_a_table_at_a_real_pace_or_without_a_camera_loop_has_no_gate(speed: float, vision: bool) -> None:
    table, service = paced_table(speed, vision)
    assert table.gate is None and service.watchdog.stall_s == 3.0 and table.device.poll_s == 0.001
    assert service.link.heartbeat_timeout_s == 3.5


def test_a_taps_message_reaches_the_table_before_the_next_frame() -> None:
    """The device's firmware holds a message until the host says it received it, and the host
    hands it to the table under its delivery lock: the barrier waits for both."""
    table, service = paced_table(speed=0)
    outbox = [[1, b"TAG"]]
    table.device.app = SimpleNamespace(outbox=outbox)
    delivering = threading.Lock()
    service.link = SimpleNamespace(_deliver=delivering)
    handed: list[str] = []
    delivering.acquire()  # the host took the message: RECEIVED sent, the table being told

    def host() -> None:
        outbox.clear()  # the firmware heard RECEIVED
        handed.append("tap")  # the table is told, then the lock goes
        delivering.release()

    threading.Timer(0.05, host).start()
    table.device_delivered()
    assert handed == ["tap"] and not outbox and not delivering.locked()


class WatchedOutbox(list):
    """A firmware outbox that counts how often it is looked at."""

    looks = 0

    def __len__(self) -> int:
        WatchedOutbox.looks += 1
        return super().__len__()


def test_an_unplugged_device_is_not_waited_for() -> None:
    table, service = paced_table(speed=0)
    table.device.app = SimpleNamespace(outbox=WatchedOutbox([[1, b"TAG"]]))
    table._unplugged = 5  # type: ignore[attr-defined]  # the fault layer's unplugged cable
    service.link = SimpleNamespace(_deliver=threading.Lock())
    table.device_delivered()  # nothing is delivered until it is plugged in: not waited for
    assert WatchedOutbox.looks == 0
    table._unplugged = 0  # type: ignore[attr-defined]
    table.device.app.outbox.clear()
    table.device_delivered()  # plugged in: the outbox is looked at
    assert WatchedOutbox.looks > 0


@pytest.mark.timeout(300)
def test_the_same_seed_plays_the_same_game_however_slow_the_devices_hello(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Jivecat typical seed 7 went another way at #93 in one run of three: the camera ran free
    from the service's start until the players sat down, while the emulated device said hello,
    taking as many frames as the machine drew in that time (none on an idle machine, 43,291 in
    the second the device took here on main).  What it saw then (an empty board committed, the
    light fitted once more) shifted the reader's refits for the whole game.  The camera now
    takes no frame before the players' time gives one: a slow hello changes nothing."""
    from companion.sensors.serial_link import SerialLink
    from companion.sim import truth

    real_wait = SerialLink.wait_connected
    delay = [0.0]

    def slow_hello(link: SerialLink, timeout: float) -> bool:  # a loaded machine's late hello
        time.sleep(delay[0])
        return real_wait(link, timeout)

    before: list[int] = []

    class Counting(truth.FaultyTable):
        def __init__(self, service: Any, *args: Any, **kwargs: Any) -> None:
            before.append(service.vision.frames)  # read before the players sat down
            super().__init__(service, *args, **kwargs)

    monkeypatch.setattr(SerialLink, "wait_connected", slow_hello)
    monkeypatch.setattr(truth, "FaultyTable", Counting)
    games = []
    for delay[0] in (0.0, 1.0):
        games.append(truth.play_one("times_square", 1, "clean", "typical", max_steps=4))
    assert before == [0, 0]
    quick, slow = games
    assert (slow.frames, slow.steps, slow.ending, slow.sources) == \
        (quick.frames, quick.steps, quick.ending, quick.sources)
