"""The wire protocol between the table device (Pico) and the Pi, MicroPython-safe.

One frame on the wire = COBS(payload) + b"\\x00".  payload = type (1 byte),
sequence (1 byte), body length (1 byte), body, CRC-16/CCITT-FALSE (2 bytes,
big-endian) over type + sequence + length + body.  The length byte makes a frame
that lost bytes fail even when what is left happens to pass the CRC.  A zero byte
never occurs inside an encoded frame, so a reader that joins mid-stream or loses a
byte resynchronises at the next zero.
The full description is in firmware/PROTOCOL.md.

This file runs on the Pico (MicroPython has neither ``cobs`` nor
``binascii.crc_hqx``) and under CPython on the host side of the tests, where it
is checked against the ``cobs`` package and ``binascii.crc_hqx``.
"""

# message types, device -> host
HELLO = 0x01
HEARTBEAT = 0x02
ACK = 0x03
TAG = 0x10
BUTTON = 0x11
ERROR = 0x7F
# message types, host -> device
LED = 0x20
PING = 0x21
RECEIVED = 0x22  # the host acknowledges a device message by its seq

NAMES = {
    HELLO: "hello", HEARTBEAT: "heartbeat", ACK: "ack", TAG: "tag", BUTTON: "button",
    ERROR: "error", LED: "led", PING: "ping", RECEIVED: "received",
}
RELIABLE = (TAG, BUTTON)
"""Device messages kept and resent until the host says RECEIVED (a player's act)."""

VERSION = "tc-2.0"
"""Firmware and protocol version, carried in HELLO (2.0: length byte, RECEIVED, boot id)."""

READERS_MAX = 7  # readers 0-5 at the seats, 6 the shared one
SEATS_MAX = 6
UID_MIN = 4
UID_MAX = 10

LED_OFF = 0
LED_ON = 1
LED_BLINK = 2

MAX_PAYLOAD = 64  # type + seq + length + body
MAX_BODY = MAX_PAYLOAD - 3
MAX_FRAME = MAX_PAYLOAD + 2 + (MAX_PAYLOAD + 2) // 254 + 1  # COBS of payload + CRC


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE (poly 0x1021), the same as binascii.crc_hqx(data, 0xFFFF)."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc


def cobs_encode(data):
    """Consistent Overhead Byte Stuffing: the output has no zero byte."""
    out = bytearray()
    block = bytearray()
    for byte in data:
        if byte == 0:
            out.append(len(block) + 1)
            out += block
            block = bytearray()
        else:
            block.append(byte)
            if len(block) == 254:
                out.append(255)
                out += block
                block = bytearray()
    out.append(len(block) + 1)
    out += block
    return bytes(out)


def cobs_decode(data):
    """Inverse of cobs_encode; raises ValueError on a malformed block."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ValueError("zero byte inside a COBS frame")
        end = i + code
        if end > n:
            raise ValueError("COBS block runs past the frame")
        out += data[i + 1:end]
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


def encode(msg_type, seq, body=b""):
    """One frame ready for the wire, delimiter included."""
    body = bytes(body)
    if len(body) > MAX_BODY:
        raise ValueError("payload too long")
    payload = bytes([msg_type & 0xFF, seq & 0xFF, len(body)]) + body
    crc = crc16(payload)
    return cobs_encode(payload + bytes([crc >> 8, crc & 0xFF])) + b"\x00"


def decode(frame):
    """(type, seq, body) from one frame without its delimiter; ValueError if garbled."""
    if len(frame) > MAX_FRAME:
        raise ValueError("frame too long")
    payload = cobs_decode(frame)
    if len(payload) < 5:
        raise ValueError("frame too short")
    if len(payload) > MAX_PAYLOAD + 2:
        raise ValueError("frame too long")
    if payload[2] != len(payload) - 5:
        raise ValueError("length mismatch")
    crc = (payload[-2] << 8) | payload[-1]
    if crc16(payload[:-2]) != crc:
        raise ValueError("checksum mismatch")
    return payload[0], payload[1], bytes(payload[3:-2])


def ticks_diff(new, old):
    """new - old on MicroPython's wrapping tick counter (period 2**30), as time.ticks_diff."""
    return ((new - old + 0x20000000) & 0x3FFFFFFF) - 0x20000000


class FrameSplitter:
    """Collect bytes, yield complete frames (without the zero delimiter)."""

    def __init__(self, limit=MAX_FRAME):
        self.buffer = bytearray()
        self.limit = limit
        self.dropping = False

    def feed(self, data):
        frames = []
        for byte in data:
            if byte == 0:
                if self.buffer and not self.dropping:
                    frames.append(bytes(self.buffer))
                self.buffer = bytearray()
                self.dropping = False
            elif not self.dropping:
                self.buffer.append(byte)
                if len(self.buffer) > self.limit:  # line noise: drop until the next zero
                    self.buffer = bytearray()
                    self.dropping = True
        return frames
