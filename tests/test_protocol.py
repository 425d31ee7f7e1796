"""The wire protocol: the firmware's own COBS and CRC match the host's libraries, and
garbled bytes are refused, never acted on."""

from __future__ import annotations

import binascii

import pytest
from cobs import cobs
from hypothesis import given
from hypothesis import strategies as st

from firmware import app as firmware_app
from firmware import protocol


@given(st.binary(max_size=600))
def test_firmware_cobs_matches_the_cobs_package(data: bytes) -> None:
    assert protocol.cobs_encode(data) == cobs.encode(data)
    assert protocol.cobs_decode(cobs.encode(data)) == data


@given(st.binary(max_size=300))
def test_firmware_crc_matches_crc_hqx(data: bytes) -> None:
    assert protocol.crc16(data) == binascii.crc_hqx(data, 0xFFFF)


@given(st.integers(0, 255), st.integers(0, 255), st.binary(max_size=60))
def test_frames_round_trip_and_never_contain_zero(kind: int, seq: int, body: bytes) -> None:
    frame = protocol.encode(kind, seq, body)
    assert frame.endswith(b"\x00") and b"\x00" not in frame[:-1]
    assert protocol.decode(frame[:-1]) == (kind, seq, body)


@given(st.binary(min_size=1, max_size=40), st.data())
def test_any_flipped_byte_is_refused(body: bytes, data: st.DataObject) -> None:
    frame = bytearray(protocol.encode(protocol.TAG, 7, body)[:-1])
    index = data.draw(st.integers(0, len(frame) - 1))
    flip = data.draw(st.integers(1, 255))
    frame[index] ^= flip
    if 0 in frame:
        return  # a zero would split the frame on the wire: the splitter's job, tested below
    with pytest.raises(ValueError):
        protocol.decode(bytes(frame))


def test_splitter_resynchronises_after_noise() -> None:
    splitter = protocol.FrameSplitter(limit=64)
    good = protocol.encode(protocol.BUTTON, 1, b"\x02\x01")
    frames = splitter.feed(b"\xff" * 200 + b"\x00" + good[:5]) + splitter.feed(good[5:])
    assert protocol.decode(frames[-1]) == (protocol.BUTTON, 1, b"\x02\x01")


class FakeUart:
    def __init__(self) -> None:
        self.inbox = b""
        self.sent: list[tuple[int, int, bytes]] = []
        self.splitter = protocol.FrameSplitter()

    def read(self) -> bytes | None:
        data, self.inbox = self.inbox, b""
        return data or None

    def write(self, data: bytes) -> None:
        self.sent += [protocol.decode(f) for f in self.splitter.feed(data)]

    def kinds(self) -> list[int]:
        return [k for k, _, _ in self.sent]


class Reader:
    uid: bytes | None = None

    def read_uid(self) -> bytes | None:
        return self.uid


class Pin:
    def __init__(self) -> None:
        self.level = 1

    def value(self, v: int | None = None) -> int:
        if v is not None:
            self.level = v
        return self.level


def make_app() -> tuple[firmware_app.App, FakeUart, list[Reader], list[Pin], list[Pin], list[int]]:
    clock = [0]
    uart, readers, buttons, leds = FakeUart(), [Reader(), Reader()], [Pin(), Pin()], [Pin(), Pin()]
    device = firmware_app.App(uart, readers, buttons, leds, lambda: clock[0])
    return device, uart, readers, buttons, leds, clock


def test_ping_gets_hello_and_ack_and_led_commands_work() -> None:
    device, uart, _, _, leds, clock = make_app()
    uart.inbox = protocol.encode(protocol.PING, 9) + protocol.encode(protocol.LED, 10, b"\x01\x01")
    device.poll()
    assert protocol.HELLO in uart.kinds()
    assert (protocol.ACK, 10) in [(k, b[0]) for k, _, b in uart.sent if k == protocol.ACK]
    assert leds[1].level == 1 and leds[0].level == 0


def test_garbled_command_is_reported_and_changes_nothing() -> None:
    device, uart, _, _, leds, _ = make_app()
    bad = bytearray(protocol.encode(protocol.LED, 3, b"\x00\x01"))
    bad[2] ^= 0x40
    uart.inbox = bytes(bad)
    device.poll()
    assert uart.kinds() == [protocol.ERROR]
    assert device.led_mode == [protocol.LED_OFF, protocol.LED_OFF]
    uart.inbox = protocol.encode(protocol.LED, 4, b"\x07\x01")  # no LED 7
    device.poll()
    assert uart.kinds()[-1] == protocol.ERROR


def test_a_card_is_reported_once_while_it_lies_there() -> None:
    device, uart, readers, _, _, clock = make_app()
    readers[1].uid = b"\xde\xad\xbe\xef"
    for _ in range(10):
        device.poll()
    tags = [b for k, _, b in uart.sent if k == protocol.TAG]
    assert tags == [b"\x01\xde\xad\xbe\xef"]
    readers[1].uid = None
    for _ in range(firmware_app.ABSENT_POLLS):
        device.poll()
        clock[0] += firmware_app.ABSENT_MS // 2
    readers[1].uid = b"\xde\xad\xbe\xef"
    device.poll()
    assert len({seq for k, seq, _ in uart.sent if k == protocol.TAG}) == 2  # resends share a seq


def test_a_card_the_reader_misses_for_a_few_polls_is_not_tapped_twice() -> None:
    """Issue 42: a card lying on a reader that fails to read it for a few polls in a row
    (RF noise, a card in READY state ignoring the next REQA) counted again: taps doubled."""
    device, uart, readers, _, _, clock = make_app()
    card = b"\xde\xad\xbe\xef"
    for missed in range(1, 12):  # the card stays; the reader misses it 1..11 polls running
        readers[0].uid = card
        device.poll()
        clock[0] += 5
        readers[0].uid = None
        for _ in range(missed):
            device.poll()
            clock[0] += 5  # a 5 ms loop: 11 misses are 55 ms
    readers[0].uid = card
    device.poll()
    taps = {(seq, body) for k, seq, body in uart.sent if k == protocol.TAG}  # resends share a seq
    assert taps == {(1, b"\x00" + card)}


def test_button_bounce_shorter_than_debounce_is_ignored() -> None:
    device, uart, _, buttons, _, clock = make_app()
    buttons[0].level = 0
    device.poll()
    clock[0] += 10
    buttons[0].level = 1  # bounced back within 10 ms
    device.poll()
    assert protocol.BUTTON not in uart.kinds()
    buttons[0].level = 0
    device.poll()
    clock[0] += firmware_app.DEBOUNCE_MS + 1
    device.poll()
    assert [b for k, _, b in uart.sent if k == protocol.BUTTON] == [b"\x00\x01"]


def test_heartbeat_every_second() -> None:
    device, uart, _, _, _, clock = make_app()
    for _ in range(5):
        clock[0] += 500
        device.poll()
    assert uart.kinds().count(protocol.HEARTBEAT) == 2


# --- issue 13, defect 10: frames checked by length and range, bounded buffers ---------------
def test_a_frame_missing_its_last_bytes_is_refused_for_every_seq() -> None:
    """Before the length byte, 1 frame in 256 (CRC ending in 0x00) passed cut short."""
    for seq in range(256):
        frame = protocol.encode(protocol.TAG, seq, b"\x01\xde\xad\xbe\xef")[:-1]
        for cut in (1, 2, 3):
            with pytest.raises(ValueError):
                protocol.decode(frame[:-cut])


@given(st.integers(0, 255), st.integers(0, 255), st.binary(max_size=61),
       st.integers(1, 8))
def test_any_shortened_frame_is_refused(kind: int, seq: int, body: bytes, cut: int) -> None:
    frame = protocol.encode(kind, seq, body)[:-1]
    if cut < len(frame):
        with pytest.raises(ValueError):
            protocol.decode(frame[:-cut])


def test_an_overlong_frame_is_refused_before_decoding() -> None:
    with pytest.raises(ValueError, match="too long"):
        protocol.decode(b"\x01" * (protocol.MAX_FRAME + 1))
    with pytest.raises(ValueError):
        protocol.encode(protocol.ERROR, 1, b"x" * (protocol.MAX_BODY + 1))


def test_splitter_drops_the_whole_overlong_frame() -> None:
    splitter = protocol.FrameSplitter()
    good = protocol.encode(protocol.BUTTON, 1, b"\x02\x01")
    frames = splitter.feed(b"\x05" * 10_000 + good[:-1] + b"\x00" + good)
    assert [protocol.decode(f) for f in frames] == [(protocol.BUTTON, 1, b"\x02\x01")]


def test_device_resends_a_tap_until_the_host_says_received() -> None:
    device, uart, readers, _, _, clock = make_app()
    readers[0].uid = b"\x01\x02\x03\x04"
    device.poll()
    for _ in range(10):
        clock[0] += firmware_app.RESEND_MS
        device.poll()
    tags = [(s, b) for k, s, b in uart.sent if k == protocol.TAG]
    assert len(tags) >= 5 and len(set(tags)) == 1  # the same seq, resent
    uart.inbox = protocol.encode(protocol.RECEIVED, 1, bytes([tags[0][0]]))
    device.poll()
    sent = len(uart.sent)
    for _ in range(5):
        clock[0] += firmware_app.RESEND_MS
        device.poll()
    assert protocol.TAG not in [k for k, _, _ in uart.sent[sent:]]
    assert protocol.ACK not in [k for k, _, _ in uart.sent[sent:]]  # RECEIVED is not acked


def test_ping_resends_what_the_host_has_not_received() -> None:
    device, uart, _, buttons, _, clock = make_app()
    buttons[1].level = 0
    device.poll()
    clock[0] += firmware_app.DEBOUNCE_MS + 5
    device.poll()
    assert protocol.BUTTON in uart.kinds()
    uart.sent = []
    uart.inbox = protocol.encode(protocol.PING, 1)
    device.poll()
    kinds = uart.kinds()
    assert kinds.index(protocol.HELLO) < kinds.index(protocol.BUTTON)
