"""The table device emulated on a pseudo-terminal, running the real firmware loop.

``firmware.app.App`` runs here under CPython with fake readers, buttons and
LEDs; its UART is the master side of a pty, and the host opens the slave path
with pyserial exactly as it opens /dev/ttyACM0 on a Pi.  The simulated table
lays a card on a reader or presses a seat button through this object; nothing
else connects the two.
"""

from __future__ import annotations

import os
import threading
import time
import tty

from firmware import app as firmware_app


class FakeReader:
    """A card reader: holds the UID of the card lying on it, if any."""

    def __init__(self) -> None:
        self.uid: bytes | None = None

    def read_uid(self) -> bytes | None:
        return self.uid


class FakeButton:
    """A pulled-up push button: value() is 0 while pressed."""

    def __init__(self) -> None:
        self.level = 1

    def value(self) -> int:
        return self.level


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
    """Runs the firmware loop in a thread; ``port`` is the path the host opens."""

    def __init__(self, readers: int = 7, seats: int = 6, poll_ms: float = 5.0) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self.slave)
        self.port = os.ttyname(self.slave)
        self.readers = [FakeReader() for _ in range(readers)]
        self.buttons = [FakeButton() for _ in range(seats)]
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

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                self.app.poll()
            time.sleep(self.poll_s)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._close_pty()

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

    def replug(self) -> str:
        """Plug the cable back: a new port path (repoint the by-id symlink to it).  What the
        firmware writes before the host reopens the port is lost, as over USB."""
        with self._lock:
            self.master, self.slave = os.openpty()
            tty.setraw(self.master)
            tty.setraw(self.slave)
            self.port = os.ttyname(self.slave)
            self.uart.plug(self.master)
        return self.port

    # --- what the simulated players do --------------------------------------------------
    def lay_card(self, reader: int, uid: bytes, hold_s: float = 0.05) -> None:
        """Lay a card on a reader until the firmware has read it (as a player waits for the
        reader's beep, at most 3 s), then lift it."""
        self.readers[reader].uid = uid
        time.sleep(max(hold_s, 3 * self.poll_s))
        deadline = time.monotonic() + 3.0
        while self.app.last_uid[reader] != uid and time.monotonic() < deadline:
            time.sleep(self.poll_s)
        self.readers[reader].uid = None
        time.sleep((firmware_app.ABSENT_POLLS + 1) * self.poll_s)
        deadline = time.monotonic() + 3.0
        while self.app.last_uid[reader] is not None and time.monotonic() < deadline:
            time.sleep(self.poll_s)

    def press(self, seat: int, hold_s: float = 0.06) -> None:
        """Hold a seat button until the firmware has registered it (at most 3 s)."""
        self.buttons[seat].level = 0
        time.sleep(max(hold_s, firmware_app.DEBOUNCE_MS / 1000 + 3 * self.poll_s))
        deadline = time.monotonic() + 3.0
        while self.app.button_state[seat] != 0 and time.monotonic() < deadline:
            time.sleep(self.poll_s)
        self.buttons[seat].level = 1
        time.sleep(firmware_app.DEBOUNCE_MS / 1000 + 3 * self.poll_s)

    def led(self, seat: int) -> int:
        return self.leds[seat].lit
