"""The emulated device sleeps while nothing happens and still answers at once."""

from __future__ import annotations

import threading
import time

from waiting import wait_until

from companion.sensors.serial_link import SerialLink
from companion.sim.device import DeviceEmulator
from firmware import protocol


class Counted:
    """The firmware's poll, counted (the emulator's loop calls it once a wake-up)."""

    def __init__(self, device: DeviceEmulator) -> None:
        self.calls = 0
        self._poll = device.app.poll
        self._lock = threading.Lock()
        device.app.poll = self  # type: ignore[method-assign]

    def __call__(self) -> None:
        with self._lock:
            self.calls += 1
        self._poll()


def test_an_idle_device_does_not_spin_and_a_change_wakes_it() -> None:
    device = DeviceEmulator(poll_ms=1.0)
    polls = Counted(device)
    device.start()
    tags: list[tuple[int, str]] = []
    link = SerialLink(device.port, lambda r, u: tags.append((r, u)), lambda s, p: None).start()
    try:
        assert link.wait_connected(5)
        assert wait_until(lambda: not device.app.outbox)
        before = polls.calls
        time.sleep(0.5)  # a 1 ms poll made about 500 wake-ups here; a load only makes fewer
        assert polls.calls - before < 50
        # a card laid straight on the reader (no helper waiting on the firmware) wakes the loop
        device.readers[2].uid = bytes.fromhex("01020304")
        assert wait_until(lambda: tags == [(2, "01020304")])
        device.readers[2].uid = None  # lifted: counted absent over polls, then free again
        assert wait_until(lambda: device.app.last_uid[2] is None)
        device.press(4)
        assert wait_until(lambda: device.app.button_state[4] == 1 and not device.app.outbox)  # released
        # a blinking LED still blinks with nothing else to do
        link.set_led(0, protocol.LED_BLINK)
        assert wait_until(lambda: device.led(0) == 1) and wait_until(lambda: device.led(0) == 0)
        assert wait_until(lambda: device.led(0) == 1)
    finally:
        link.stop()
        device.stop()


def test_an_unplugged_device_waits_and_a_replug_wakes_it() -> None:
    device = DeviceEmulator(poll_ms=1.0)
    polls = Counted(device)
    device.start()
    try:
        device.unplug()
        before = polls.calls
        time.sleep(0.3)
        assert polls.calls - before < 30  # no port to wait on: it still sleeps, not spins
        device.readers[0].uid = bytes.fromhex("0a0b0c0d")  # read while unplugged: kept in the outbox
        assert wait_until(lambda: device.app.last_uid[0] == bytes.fromhex("0a0b0c0d"))
        port = device.replug()
        tags: list[tuple[int, str]] = []
        link = SerialLink(port, lambda r, u: tags.append((r, u)), lambda s, p: None).start()
        try:
            assert link.wait_connected(5)
            assert wait_until(lambda: tags == [(0, "0a0b0c0d")])
        finally:
            link.stop()
    finally:
        device.stop()


class Slow:
    """A firmware on a loaded machine: each poll comes 80 ms late."""

    def __init__(self, device: DeviceEmulator) -> None:
        self._poll = device.app.poll
        device.app.poll = self  # type: ignore[method-assign]

    def __call__(self) -> None:
        time.sleep(0.08)
        self._poll()


def test_two_presses_in_a_row_are_two_presses_however_slow_the_firmware() -> None:
    """A double press made at once (the bench's finger bounce) came as one press when the
    firmware had not yet seen the button go up: its debounce is timed on its own clock, and the
    emulator let go 45 ms after the release, seen or not.  How many presses a seat button gave
    hung on the machine's load; a press now returns once the release is registered."""
    device = DeviceEmulator(poll_ms=1.0)
    Slow(device)
    device.start()
    presses: list[int] = []
    link = SerialLink(device.port, lambda r, u: None,
                      lambda seat, pressed: presses.append(seat) if pressed else None).start()
    try:
        assert link.wait_connected(5)
        device.press(1, hold_s=0.0)
        assert device.app.button_state[1] == 1  # the release seen before press() returns
        device.press(1, hold_s=0.0)
        assert wait_until(lambda: presses == [1, 1] and not device.app.outbox)
    finally:
        link.stop()
        device.stop()


class Stalled:
    """A firmware on a machine so loaded that its polls stop for a while: each poll waits
    until ``resume`` is set."""

    def __init__(self, device: DeviceEmulator) -> None:
        self._poll = device.app.poll
        self.resume = threading.Event()
        device.app.poll = self  # type: ignore[method-assign]

    def __call__(self) -> None:
        self.resume.wait()
        self._poll()


def test_a_card_is_held_until_the_reader_beeps_however_long_the_firmware_stalls() -> None:
    """A player holds a card on the reader until it beeps. The emulated player gave up after
    3 s and lifted it unread, so on a loaded machine a card tap was lost that the world's plan
    never lost: the game then hung on the machine's load. It now waits for the read (a guard
    only for a firmware that stopped for good)."""
    device = DeviceEmulator(poll_ms=1.0)
    stall = Stalled(device)
    device.start()
    tags: list[tuple[int, str]] = []
    link = SerialLink(device.port, lambda r, u: tags.append((r, u)), lambda s, p: None)
    try:
        stall.resume.set()
        link.start()
        assert link.wait_connected(5)
        stall.resume.clear()
        threading.Timer(4.0, stall.resume.set).start()  # past the old 3 s
        device.lay_card(2, bytes.fromhex("01020304"), hold_s=0.0)
        assert wait_until(lambda: tags == [(2, "01020304")])
    finally:
        stall.resume.set()
        link.stop()
        device.stop()
