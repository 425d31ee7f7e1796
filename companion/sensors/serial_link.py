"""The Pi's side of the table device link, over pyserial's threaded reader.

Frames are parsed by a :class:`serial.threaded.Packetizer` (zero-delimited
COBS, CRC-16 checked; see firmware/PROTOCOL.md).  A supervisor thread opens the
port, says hello, watches the heartbeat and reopens the port after an unplug.
A garbled frame is counted and reported, never acted on; a flood of them is reported
as a count (the dashboard's notice at most once a second, the log per minute through
:mod:`companion.logsummary`), so a device sending garbage cannot fill the SD card.

A TAG or BUTTON is acted on exactly once: the check of its seq and the act are one step
under a lock, so even a reader thread left over from an unplug (pyserial's
``ReaderThread.stop`` gives up joining after 2 s) cannot deliver a resend a second time.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import serial
import serial.threaded

from firmware import protocol

log = logging.getLogger(__name__)

HEARTBEAT_TIMEOUT_S = 3.5
SEEN_WINDOW = 128  # device seqs remembered to drop a resent TAG or BUTTON
NOTICE_EVERY_S = 1.0  # a stream of garbled frames updates the health at most this often


@dataclass
class LinkHealth:
    connected: bool = False
    version: str = ""
    firmware: str | None = None
    """The firmware version the device said in its HELLO (None before it spoke)."""
    readers: int = 0
    seats: int = 0
    bad_frames: int = 0
    device_errors: int = 0
    last_heartbeat: float = 0.0
    reconnects: int = 0
    duplicates: int = 0
    problem: str = "not connected yet"


class _FrameProtocol(serial.threaded.Packetizer):
    TERMINATOR = b"\x00"

    def __init__(self, link: SerialLink) -> None:
        super().__init__()
        self.link = link
        self.dropping = False

    def data_received(self, data: bytes) -> None:
        """Split at zeros with the buffer bounded: a frame longer than any the protocol
        allows is noise, dropped up to the next zero (linear time, bounded memory)."""
        self.buffer.extend(data)
        while True:
            end = self.buffer.find(self.TERMINATOR)
            if end < 0:
                break
            packet = bytes(self.buffer[:end])
            del self.buffer[:end + 1]
            if self.dropping:
                self.dropping = False
                continue
            if len(packet) > protocol.MAX_FRAME:
                self.link._garbled("frame too long")
                continue
            self.handle_packet(packet)
        if len(self.buffer) > protocol.MAX_FRAME:
            self.buffer.clear()
            if not self.dropping:
                self.dropping = True
                self.link._garbled("frame too long")

    def handle_packet(self, packet: bytes) -> None:
        if not packet:
            return
        try:
            self.link._on_frame(packet)
        except Exception:  # a failing listener must not look like an unplugged device
            log.exception("handling a frame from the device failed")

    def connection_lost(self, exc: BaseException | None) -> None:
        # the unplug path: no traceback, the supervisor reopens the port
        self.transport = None
        self.link._on_lost(exc)


class _ReaderThread(serial.threaded.ReaderThread):
    """pyserial's reader, ending through ``connection_lost`` on any read error: its own
    loop catches only SerialException, and an unplug seen as ``in_waiting``'s OSError
    (EIO) killed the thread with a traceback and no ``connection_lost``, so the link never
    noticed the unplug and never reopened the port."""

    def run(self) -> None:
        try:
            super().run()
        except OSError as err:
            self.alive = False
            protocol_ = self.protocol
            self.protocol = None
            if protocol_ is not None:
                protocol_.connection_lost(err)


class SerialLink:
    """Keeps a link to the table device and turns its frames into callbacks.

    ``on_tag(reader, uid_hex)``, ``on_button(seat, pressed)`` and
    ``on_health(LinkHealth)`` run on the reader thread; keep them short.
    """

    def __init__(
        self,
        url: str,
        on_tag: Callable[[int, str], None],
        on_button: Callable[[int, bool], None],
        on_health: Callable[[LinkHealth], None] = lambda h: None,
        baudrate: int = 115200,
        retry_s: float = 1.0,
    ) -> None:
        self.url = url
        self.on_tag = on_tag
        self.on_button = on_button
        self.on_health = on_health
        self.baudrate = baudrate
        self.retry_s = retry_s
        # a device silent this long is named on the dashboard (a wall-clock judgement: the
        # bench's lockstep table, whose harness may pause for seconds, switches it off)
        self.heartbeat_timeout_s = HEARTBEAT_TIMEOUT_S
        self.health = LinkHealth()
        self._reader: serial.threaded.ReaderThread | None = None
        self._lost = threading.Event()
        self._stop = threading.Event()
        self._seq = 0
        self._thread: threading.Thread | None = None
        self._write_lock = threading.Lock()
        self._boot_id: int | None = None
        self._seen: deque[int] = deque(maxlen=SEEN_WINDOW)
        self._deliver = threading.Lock()  # one act at a time, across reader threads
        self._garbled_noticed = 0.0

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> SerialLink:
        self._thread = threading.Thread(target=self._supervise, name="serial-link", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._lost.set()
        reader = self._reader
        if reader is not None:
            reader.close()
        if self._thread is not None:
            self._thread.join(timeout=3)

    def wait_connected(self, timeout: float = 5.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.health.connected and self.health.version:
                return True
            time.sleep(0.01)
        return False

    def _supervise(self) -> None:
        while not self._stop.is_set():
            try:
                port = serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=0.2)
            except (serial.SerialException, OSError, ValueError) as err:
                self._set(connected=False, problem=f"cannot open {self.url}: {err}")
                self._stop.wait(self.retry_s)
                continue
            self._lost.clear()
            self._reader = _ReaderThread(port, lambda: _FrameProtocol(self))
            self._reader.start()
            try:
                self._reader.connect()
            except RuntimeError as err:  # the port failed (or the link stopped) as it opened
                self._reader = None
                self._set(connected=False, problem=f"{self.url} closed as it opened: {err}")
                self._stop.wait(self.retry_s)
                continue
            self._set(connected=True, problem="waiting for the device to say hello")
            self.send(protocol.PING)
            opened = time.monotonic()
            while not self._stop.is_set() and not self._lost.wait(0.25):
                now = time.monotonic()
                if not self.health.version and now - opened > 1.0:
                    self.send(protocol.PING)  # the hello may have been lost: ask again
                    opened = now
                last = self.health.last_heartbeat
                if self.health.version and last and now - last > self.heartbeat_timeout_s:
                    self._set(problem=f"device silent for {now - last:.0f} s")
            if self._reader is not None and self._reader.alive:
                self._reader.close()
            self._reader = None
            if not self._stop.is_set():
                self.health.reconnects += 1
                self._stop.wait(self.retry_s)

    def _set(self, **changes: object) -> None:
        for key, value in changes.items():
            setattr(self.health, key, value)
        self.on_health(self.health)

    # ------------------------------------------------------------------ traffic
    def send(self, msg_type: int, body: bytes = b"") -> bool:
        """Send one frame; False when the device is not there."""
        reader = self._reader
        if reader is None or not reader.alive:
            return False
        with self._write_lock:
            self._seq = (self._seq + 1) & 0xFF
            try:
                reader.write(protocol.encode(msg_type, self._seq, body))
            except (serial.SerialException, OSError):
                return False
        return True

    def set_led(self, seat: int, mode: int) -> bool:
        return self.send(protocol.LED, bytes([seat, mode]))

    def _on_lost(self, exc: BaseException | None) -> None:
        self._set(connected=False, version="", problem=f"device unplugged ({exc or 'closed'})")
        self._lost.set()

    def _garbled(self, why: str) -> None:
        self.health.bad_frames += 1
        log.warning("ignored a garbled frame from the device: %s", why)
        now = time.monotonic()
        if now - self._garbled_noticed >= NOTICE_EVERY_S:
            self._garbled_noticed = now
            self._set(problem=f"garbled frames ignored ({self.health.bad_frames} so far; "
                      f"the last: {why})")

    def _check(self, msg_type: int, body: bytes) -> str | None:
        """Why a decoded message is out of range, or None: every field checked."""
        readers = self.health.readers or protocol.READERS_MAX
        seats = self.health.seats or protocol.SEATS_MAX
        if msg_type == protocol.HELLO:
            if len(body) < 5 or not 0 < body[0] <= protocol.READERS_MAX \
                    or not 0 < body[1] <= protocol.SEATS_MAX:
                return "hello out of range"
        elif msg_type == protocol.HEARTBEAT and len(body) != 4:
            return "heartbeat of the wrong length"
        elif msg_type == protocol.TAG:
            if len(body) < 1 + protocol.UID_MIN or len(body) > 1 + protocol.UID_MAX:
                return f"tag with a {max(0, len(body) - 1)}-byte UID (4-10 expected)"
            if body[0] >= readers:
                return f"tag from reader {body[0]} (the device has {readers})"
        elif msg_type == protocol.BUTTON:
            if len(body) != 2 or body[0] >= seats or body[1] > 1:
                return "button out of range"
        elif msg_type == protocol.ACK and len(body) != 1:
            return "ack of the wrong length"
        return None

    def _first_time(self, seq: int) -> bool:
        """Acknowledge a TAG or BUTTON; True unless it is a resend already delivered."""
        self.send(protocol.RECEIVED, bytes([seq]))
        if seq in self._seen:
            self.health.duplicates += 1
            return False
        self._seen.append(seq)
        return True

    def _on_frame(self, frame: bytes) -> None:
        try:
            msg_type, seq, body = protocol.decode(frame)
        except ValueError as err:
            self._garbled(str(err))
            return
        why = self._check(msg_type, body)
        if why is not None:
            self._garbled(why)
            return
        if msg_type == protocol.HELLO:
            boot_id = (body[2] << 8) | body[3]
            if boot_id != self._boot_id:  # a rebooted device counts its seqs afresh
                self._boot_id = boot_id
                self._seen.clear()
            version = body[4:].decode(errors="replace")
            self._set(connected=True, readers=body[0], seats=body[1], version=version,
                      firmware=version, problem="", last_heartbeat=time.monotonic())
        elif msg_type == protocol.HEARTBEAT:
            was_silent = self.health.problem.startswith("device silent")
            self.health.last_heartbeat = time.monotonic()
            if was_silent:
                self._set(problem="")
        elif msg_type == protocol.TAG:
            with self._deliver:
                if self._first_time(seq):
                    self.on_tag(body[0], body[1:].hex())
        elif msg_type == protocol.BUTTON:
            with self._deliver:
                if self._first_time(seq):
                    self.on_button(body[0], bool(body[1]))
        elif msg_type == protocol.ERROR:
            self.health.device_errors += 1
            log.warning("device reports: %s", body.decode(errors="replace"))
        elif msg_type == protocol.ACK:
            pass
        else:
            self._garbled(f"unknown message type {msg_type:#x}")
