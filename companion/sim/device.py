"""The table device emulated on a pseudo-terminal, running the real firmware loop.

``firmware.app.App`` runs here under CPython with fake readers, buttons and
LEDs; its UART is the master side of a pty, and the host opens the slave path
with pyserial exactly as it opens /dev/ttyACM0 on a Pi.  The simulated table
lays a card on a reader or presses a seat button through this object; nothing
else connects the two.
"""

from __future__ import annotations

import os
import select
import threading
import time
import tty
from collections.abc import Callable

from firmware import app as firmware_app

PLAYER_PATIENCE_S = 120.0
"""How long a player holds a card or a button for the device to register it: a person waits for
the beep however long it takes, so this guards only a firmware that stopped for good.  (It was
3 s, and on a loaded machine a card was lifted unread that the world's plan never lost.)"""


def _nobody() -> None:
    """No emulator loop to wake (a reader or button on its own)."""


class FakeReader:
    """A card reader: holds the UID of the card lying on it, if any.  Laying or lifting a
    card wakes the emulator's loop (``changed``), as the real firmware's next poll sees it."""

    def __init__(self, changed: Callable[[], None] = _nobody) -> None:
        self._uid: bytes | None = None
        self._changed = changed

    @property
    def uid(self) -> bytes | None:
        return self._uid

    @uid.setter
    def uid(self, uid: bytes | None) -> None:
        self._uid = uid
        self._changed()

    def read_uid(self) -> bytes | None:
        return self._uid


class FakeButton:
    """A pulled-up push button: value() is 0 while pressed.  A press or a release wakes the
    emulator's loop (``changed``)."""

    def __init__(self, changed: Callable[[], None] = _nobody) -> None:
        self._level = 1
        self._changed = changed

    @property
    def level(self) -> int:
        return self._level

    @level.setter
    def level(self, level: int) -> None:
        self._level = level
        self._changed()

    def value(self) -> int:
        return self._level


class FakeLed:
    def __init__(self) -> None:
        self.lit = 0

    def value(self, v: int) -> None:
        self.lit = v


class PtyUart:
    """The firmware's UART over the master side of a pty (non-blocking).

    ``fd`` None is an unplugged cable; ``listening`` False is a port no host has opened
    yet (USB CDC drops what the device writes then): both lose the bytes written."""

    def __init__(self, fd: int) -> None:
        self.fd: int | None = fd
        self.listening = True
        os.set_blocking(fd, False)

    def plug(self, fd: int | None) -> None:
        self.fd = fd
        self.listening = False  # until the host speaks (its PING on opening the port)
        if fd is not None:
            os.set_blocking(fd, False)

    def read(self) -> bytes | None:
        if self.fd is None:
            return None
        try:
            data = os.read(self.fd, 512) or None
        except (BlockingIOError, OSError):
            return None
        if data:
            self.listening = True
        return data

    def write(self, data: bytes) -> None:
        if self.fd is None or not self.listening:
            return  # nobody at the other end: the bytes are lost, as on a real wire
        view = memoryview(data)
        deadline = time.monotonic() + 1.0
        while view and time.monotonic() < deadline:
            try:
                written = os.write(self.fd, view)
                view = view[written:]
            except BlockingIOError:
                time.sleep(0.001)
            except OSError:
                return  # host side gone: bytes fall on the floor, as on a real wire


class DeviceEmulator:
    """Runs the firmware loop in a thread; ``port`` is the path the host opens.

    The loop polls every ``poll_s`` only while the firmware is timing something (a button
    debounced, a lifted card counted absent); otherwise it sleeps until bytes come from the
    host, a card or a button changes, or its next timed duty (a heartbeat, a resend, an LED's
    blink) is due.  A real Pico polls all the time, but here every poll is a wake-up of a
    Python thread: at 1 ms that was 4 % of a core with nothing happening."""

    def __init__(self, readers: int = 7, seats: int = 6, poll_ms: float = 5.0) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self.slave)
        self.port = os.ttyname(self.slave)
        # a pipe the players' side writes a byte to: the loop waits on it and on the host's bytes
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self.readers = [FakeReader(self.wake) for _ in range(readers)]
        self.buttons = [FakeButton(self.wake) for _ in range(seats)]
        self.leds = [FakeLed() for _ in range(seats)]
        self._start = time.monotonic()
        self.uart = PtyUart(self.master)
        self.app = firmware_app.App(self.uart, self.readers, self.buttons, self.leds,
                                    self.ticks_ms)
        self.poll_s = poll_ms / 1000
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def ticks_ms(self) -> int:
        return int((time.monotonic() - self._start) * 1000)

    def start(self) -> DeviceEmulator:
        self._thread = threading.Thread(target=self._run, name="device-emulator", daemon=True)
        self._thread.start()
        return self

    def wake(self) -> None:
        """Have the loop poll now (an input changed, the cable moved, it is stopping)."""
        try:
            os.write(self._wake_w, b"w")
        except (BlockingIOError, OSError):
            pass  # a byte already waits in the pipe (or it is closed: the loop is gone)

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                self.app.poll()
                wait = self._idle_s()
            self._wait(wait)

    def _idle_s(self) -> float:
        """How long the firmware has nothing to do unless woken: ``poll_s`` while it times
        a button's debounce or a lifted card's absence (each needs polls spread over time),
        else until its next heartbeat, resend or LED blink (never longer than a heartbeat)."""
        app = self.app
        if any(b.value() != state for b, state in zip(self.buttons, app.button_state, strict=True)) or \
                any(r.read_uid() != last for r, last in zip(self.readers, app.last_uid, strict=True)):
            return self.poll_s
        now = self.ticks_ms()
        due = [firmware_app.HEARTBEAT_MS - (now - app.last_heartbeat)]
        if app.outbox:
            due.append(firmware_app.RESEND_MS - (now - app.last_resend))
        if firmware_app.protocol.LED_BLINK in app.led_mode:
            due.append(250 - now % 250)
        return max(self.poll_s, min(due) / 1000)

    def _wait(self, seconds: float) -> None:
        """Sleep up to ``seconds``, waking early for bytes from the host or a :meth:`wake`."""
        fds = [self._wake_r]
        fd = self.uart.fd  # the emulator holds the pty's other side open: no hang-up to spin on
        if fd is not None:
            fds.append(fd)
        try:
            ready, _, _ = select.select(fds, [], [], seconds)
        except (OSError, ValueError):  # the cable was pulled as the wait began: poll again
            time.sleep(self.poll_s)
            return
        if self._wake_r in ready:
            try:
                os.read(self._wake_r, 64)
            except (BlockingIOError, OSError):
                pass

    def stop(self) -> None:
        self._stop.set()
        self.wake()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._close_pty()
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass

    def _close_pty(self) -> None:
        for fd in (self.master, self.slave):
            if fd < 0:
                continue
            try:
                os.close(fd)
            except OSError:
                pass
        self.master = self.slave = -1

    def unplug(self) -> None:
        """Pull the cable: the host's port errors out; the firmware keeps running (on its
        own supply), so cards laid now wait in its outbox."""
        with self._lock:
            self.uart.plug(None)
            self._close_pty()
        self.wake()  # the loop may be waiting on the closed port

    def replug(self) -> str:
        """Plug the cable back: a new port path (repoint the by-id symlink to it).  What the
        firmware writes before the host reopens the port is lost, as over USB."""
        with self._lock:
            self.master, self.slave = os.openpty()
            tty.setraw(self.master)
            tty.setraw(self.slave)
            self.port = os.ttyname(self.slave)
            self.uart.plug(self.master)
        self.wake()
        return self.port

    # --- what the simulated players do --------------------------------------------------
    def lay_card(self, reader: int, uid: bytes, hold_s: float = 0.05) -> None:
        """Lay a card on a reader until the firmware has read it (as a player waits for the
        reader's beep), then lift it."""
        self.readers[reader].uid = uid
        time.sleep(max(hold_s, 3 * self.poll_s))
        deadline = time.monotonic() + PLAYER_PATIENCE_S
        while self.app.last_uid[reader] != uid and time.monotonic() < deadline:
            time.sleep(self.poll_s)
        self.readers[reader].uid = None
        time.sleep((firmware_app.ABSENT_POLLS + 1) * self.poll_s)
        deadline = time.monotonic() + PLAYER_PATIENCE_S
        while self.app.last_uid[reader] is not None and time.monotonic() < deadline:
            time.sleep(self.poll_s)

    def press(self, seat: int, hold_s: float = 0.06) -> None:
        """Hold a seat button until the firmware has registered it, then let it go until it
        has registered that."""
        self.buttons[seat].level = 0
        time.sleep(max(hold_s, firmware_app.DEBOUNCE_MS / 1000 + 3 * self.poll_s))
        deadline = time.monotonic() + PLAYER_PATIENCE_S
        while self.app.button_state[seat] != 0 and time.monotonic() < deadline:
            time.sleep(self.poll_s)
        self.buttons[seat].level = 1
        time.sleep(firmware_app.DEBOUNCE_MS / 1000 + 3 * self.poll_s)
        # let go only once the firmware has seen it go up: a press made next,
        # at once, was otherwise one long press to a firmware a loaded machine left behind
        deadline = time.monotonic() + PLAYER_PATIENCE_S
        while self.app.button_state[seat] != 1 and time.monotonic() < deadline:
            time.sleep(self.poll_s)

    def led(self, seat: int) -> int:
        return self.leds[seat].lit
