"""The host opens the emulated device's pseudo-terminal with pyserial, as a real port."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from waiting import wait_until

from companion.sensors.serial_link import LinkHealth, SerialLink
from companion.sim.device import DeviceEmulator
from firmware import protocol


class Recorder:
    def __init__(self) -> None:
        self.tags: list[tuple[int, str]] = []
        self.buttons: list[tuple[int, bool]] = []
        self.health: list[LinkHealth] = []
        self.lock = threading.Lock()

    def tag(self, reader: int, uid: str) -> None:
        self.tags.append((reader, uid))

    def button(self, seat: int, pressed: bool) -> None:
        self.buttons.append((seat, pressed))


def test_taps_buttons_and_leds_cross_the_pty() -> None:
    device = DeviceEmulator().start()
    rec = Recorder()
    link = SerialLink(device.port, rec.tag, rec.button).start()
    try:
        assert link.wait_connected(5)
        assert link.health.version == protocol.VERSION == link.health.firmware and link.health.readers == 7
        device.lay_card(3, bytes.fromhex("0a0b0c0d"))
        assert wait_until(lambda: rec.tags == [(3, "0a0b0c0d")])
        device.press(2)
        assert wait_until(lambda: rec.buttons == [(2, True), (2, False)])
        link.set_led(1, protocol.LED_ON)
        assert wait_until(lambda: device.led(1) == 1)
    finally:
        link.stop()
        device.stop()


def test_garbled_bytes_are_counted_and_ignored() -> None:
    device = DeviceEmulator().start()
    rec = Recorder()
    link = SerialLink(device.port, rec.tag, rec.button).start()
    try:
        assert link.wait_connected(5)
        frame = bytearray(protocol.encode(protocol.TAG, 1, b"\x00\x01\x02\x03\x04"))
        frame[3] ^= 0x10
        os.write(device.master, bytes(frame) + b"\x37\x91\x00")
        assert wait_until(lambda: link.health.bad_frames >= 2)
        assert rec.tags == []
        device.lay_card(0, b"\x01\x02\x03\x04")  # the link still works afterwards
        assert wait_until(lambda: rec.tags == [(0, "01020304")])
    finally:
        link.stop()
        device.stop()


def test_unplug_then_replug_reconnects(tmp_path: Path) -> None:
    """The port path is a symlink, as /dev/serial/by-id is on a Pi; replugging repoints it."""
    port = tmp_path / "ttyTABLE"
    first = DeviceEmulator().start()
    port.symlink_to(first.port)
    rec = Recorder()
    states: list[bool] = []
    link = SerialLink(str(port), rec.tag, rec.button, lambda h: states.append(h.connected),
                      retry_s=0.2).start()
    second = None
    try:
        assert link.wait_connected(5)
        first.stop()  # unplugged
        assert wait_until(lambda: not link.health.connected, 5)
        assert "unplugged" in link.health.problem or "cannot open" in link.health.problem
        second = DeviceEmulator().start()
        port.unlink()
        port.symlink_to(second.port)
        assert wait_until(lambda: link.health.connected and bool(link.health.version), 8)
        second.lay_card(1, b"\xaa\xbb\xcc\xdd")
        assert wait_until(lambda: rec.tags[-1:] == [(1, "aabbccdd")])
        assert link.health.reconnects >= 1
    finally:
        link.stop()
        if second is not None:
            second.stop()


def test_loop_url_parses_frames_without_a_device() -> None:
    rec = Recorder()
    link = SerialLink("loop://", rec.tag, rec.button).start()
    try:
        assert wait_until(lambda: link._reader is not None and link._reader.alive)
        # loop:// sends our own bytes back: a tag frame written is a tag frame read
        link.send(protocol.TAG, b"\x05\x11\x22\x33\x44")
        assert wait_until(lambda: rec.tags == [(5, "11223344")])
    finally:
        link.stop()


# --- issue 13, defect 10: the host checks every field and bounds its buffer -----------------
def _frame(kind: int, seq: int, body: bytes) -> bytes:
    return protocol.encode(kind, seq, body)[:-1]


def test_out_of_range_tags_and_buttons_are_refused() -> None:
    rec = Recorder()
    link = SerialLink("loop://", rec.tag, rec.button)
    link._on_frame(_frame(protocol.HELLO, 1, b"\x07\x06\x00\x01" + protocol.VERSION.encode()))
    assert link.health.firmware == protocol.VERSION
    for body in (b"\x70\xde\xad\xbe\xef", b"\x07\xde\xad\xbe\xef", b"\x01\xde\xad\xbe",
                 b"\x01" + bytes(11)):
        link._on_frame(_frame(protocol.TAG, 9, body))
    for body in (b"\x06\x01", b"\x01\x02", b"\x01"):
        link._on_frame(_frame(protocol.BUTTON, 9, body))
    assert rec.tags == [] and rec.buttons == []
    assert link.health.bad_frames == 7
    link._on_frame(_frame(protocol.TAG, 9, b"\x06\xde\xad\xbe\xef"))
    link._on_frame(_frame(protocol.TAG, 9, b"\x06\xde\xad\xbe\xef"))  # a resend
    assert rec.tags == [(6, "deadbeef")] and link.health.duplicates == 1


def test_packetizer_is_bounded_and_linear() -> None:
    from companion.sensors.serial_link import _FrameProtocol

    class CountedBuffer(bytearray):
        """The packetizer's buffer, counting the bytes each search for a zero looks at."""
        scanned = 0

        def find(self, *args: object) -> int:  # type: ignore[override]
            CountedBuffer.scanned += len(self)
            return super().find(*args)  # type: ignore[arg-type]

    rec = Recorder()
    link = SerialLink("loop://", rec.tag, rec.button)
    packets = _FrameProtocol(link)
    packets.buffer = CountedBuffer()
    chunk = b"\x05" * 4096
    fed = 0
    for _ in range(8 * 256):  # 8 MiB without a zero
        packets.data_received(chunk)
        fed += len(chunk)
        assert len(packets.buffer) <= protocol.MAX_FRAME
    packets.data_received(b"\x05\x00" + protocol.encode(protocol.TAG, 3, b"\x01\x01\x02\x03\x04"))
    assert rec.tags == [(1, "01020304")]
    # linear: each byte looked at about once (a growing buffer searched again from its start,
    # as before, looked at about 8.6 GB: 37 s of CPU), counted, not timed
    assert CountedBuffer.scanned <= 2 * fed, CountedBuffer.scanned


# --- issue 13, defect 9: taps made while unplugged arrive exactly once ------------------------
@pytest.mark.parametrize("while_out", [3, 41])  # a few taps, and a whole round with the cable out
def test_taps_while_unplugged_and_before_the_reconnect_arrive_exactly_once(tmp_path: Path,
                                                                          while_out: int) -> None:
    port = tmp_path / "ttyTABLE"
    device = DeviceEmulator().start()
    port.symlink_to(device.port)
    rec = Recorder()
    link = SerialLink(str(port), rec.tag, rec.button, retry_s=0.2).start()
    try:
        assert link.wait_connected(5)
        device.lay_card(0, b"\x01\x00\x00\x01")
        assert wait_until(lambda: len(rec.tags) == 1)
        device.unplug()
        assert wait_until(lambda: not link.health.connected, 5)
        unplugged = [bytes([2, 0, 0, i]) for i in range(while_out)]
        for uid in unplugged:
            device.lay_card(1, uid)  # nobody listening: they wait in the outbox
        device.press(2)
        port.unlink()
        port.symlink_to(device.replug())
        replugged = [bytes([3, 0, 0, i]) for i in range(2)]
        for uid in replugged:  # between the replug and the host reopening the port
            device.lay_card(2, uid)
        assert wait_until(lambda: len(rec.tags) >= 3 + while_out and len(rec.buttons) >= 2, 8)
        time.sleep(1.0)  # resends keep coming until RECEIVED: none may count twice
        assert rec.tags == [(0, "01000001")] + [(1, u.hex()) for u in unplugged] + [
            (2, u.hex()) for u in replugged]
        assert rec.buttons == [(2, True), (2, False)]
        assert device.app.outbox == []
    finally:
        link.stop()
        device.stop()


def test_a_read_error_pyserial_lets_through_still_ends_in_connection_lost() -> None:
    """Issue 42: an unplug seen as ``in_waiting``'s EIO killed pyserial's reader thread with
    a traceback and no ``connection_lost``: the link never reopened (1,015 of 1,020 taps lost
    in ``scripts/replug_campaign.py --busy-host 2.5`` before)."""
    import threading

    import serial.threaded

    from companion.sensors.serial_link import _ReaderThread

    class Unplugged:
        is_open = True
        timeout = 0.1

        @property
        def in_waiting(self) -> int:
            raise OSError(5, "Input/output error")

        def read(self, size: int) -> bytes:
            return b""

        def cancel_read(self) -> None:
            pass

        def close(self) -> None:
            self.is_open = False

    lost: list[BaseException | None] = []
    crashed: list[object] = []

    class Recorder(serial.threaded.Protocol):
        def connection_lost(self, exc: BaseException | None) -> None:
            lost.append(exc)

    previous = threading.excepthook
    threading.excepthook = crashed.append
    try:
        reader = _ReaderThread(Unplugged(), Recorder)
        reader.start()
        reader.join(10)
    finally:
        threading.excepthook = previous
    assert not reader.is_alive() and not crashed
    assert len(lost) == 1 and isinstance(lost[0], OSError)
