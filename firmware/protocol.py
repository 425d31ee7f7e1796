"""The wire protocol between the table device (Pico) and the Pi, MicroPython-safe.

One frame on the wire = COBS(payload) + b"\\x00".  payload = type (1 byte),
sequence (1 byte), body, CRC-16/CCITT-FALSE (2 bytes, big-endian) over type +
sequence + body.  A zero byte never occurs inside an encoded frame, so a
reader that joins mid-stream or loses a byte resynchronises at the next zero.
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

NAMES = {
    HELLO: "hello", HEARTBEAT: "heartbeat", ACK: "ack", TAG: "tag", BUTTON: "button",
    ERROR: "error", LED: "led", PING: "ping",
}

LED_OFF = 0
LED_ON = 1
LED_BLINK = 2

MAX_PAYLOAD = 64


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
    payload = bytes([msg_type & 0xFF, seq & 0xFF]) + bytes(body)
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("payload too long")
    crc = crc16(payload)
    return cobs_encode(payload + bytes([crc >> 8, crc & 0xFF])) + b"\x00"


def decode(frame):
    """(type, seq, body) from one frame without its delimiter; ValueError if garbled."""
    payload = cobs_decode(frame)
    if len(payload) < 4:
        raise ValueError("frame too short")
    if len(payload) > MAX_PAYLOAD + 2:
        raise ValueError("frame too long")
    crc = (payload[-2] << 8) | payload[-1]
    if crc16(payload[:-2]) != crc:
        raise ValueError("checksum mismatch")
    return payload[0], payload[1], payload[2:-2]


class FrameSplitter:
    """Collect bytes, yield complete frames (without the zero delimiter)."""

    def __init__(self, limit=256):
        self.buffer = bytearray()
        self.limit = limit

    def feed(self, data):
        frames = []
        for byte in data:
            if byte == 0:
                if self.buffer:
                    frames.append(bytes(self.buffer))
                self.buffer = bytearray()
            else:
                self.buffer.append(byte)
                if len(self.buffer) > self.limit:  # line noise: drop and resync at next zero
                    self.buffer = bytearray()
        return frames
