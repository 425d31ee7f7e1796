# Run by the MicroPython unix port (tests/test_firmware_micropython.py), with firmware/app.py
# and firmware/protocol.py side by side as on the Pico: faults only MicroPython shows
# (missing modules, wrapping ticks, byte handling) fail here.
import time

import app
import protocol


class Uart:
    def __init__(self):
        self.inbox = b""
        self.splitter = protocol.FrameSplitter()
        self.sent = []

    def read(self):
        data = self.inbox
        self.inbox = b""
        return data or None

    def write(self, data):
        for frame in self.splitter.feed(data):
            self.sent.append(protocol.decode(frame))


class Reader:
    uid = None

    def read_uid(self):
        return self.uid


class Pin:
    level = 1

    def value(self, v=None):
        if v is not None:
            self.level = v
        return self.level


frame = protocol.encode(protocol.TAG, 5, b"\x01\xde\xad\xbe\xef")
assert protocol.decode(frame[:-1]) == (protocol.TAG, 5, b"\x01\xde\xad\xbe\xef")
for cut in range(1, len(frame) - 1):
    try:
        protocol.decode(frame[:-1 - cut])
    except ValueError:
        pass
    else:
        raise AssertionError("a frame missing " + str(cut) + " bytes was accepted")
print("frames ok")

now = [time.ticks_add(0, -2500)]  # 2.5 s before the tick counter wraps
uart = Uart()
readers = [Reader(), Reader()]
device = app.App(uart, readers, [Pin(), Pin()], [Pin(), Pin()], lambda: now[0])
for _ in range(60):  # 6 s across the wrap
    now[0] = time.ticks_add(now[0], 100)
    device.poll()
beats = len([m for m in uart.sent if m[0] == protocol.HEARTBEAT])
assert beats >= 5, beats
print("heartbeats across the wrap", beats)

uart.sent = []
readers[1].uid = b"\x01\x02\x03\x04"
device.poll()
tag = [m for m in uart.sent if m[0] == protocol.TAG]
assert len(tag) == 1 and tag[0][2] == b"\x01\x01\x02\x03\x04", tag
for _ in range(5):
    now[0] = time.ticks_add(now[0], 100)
    device.poll()
assert len([m for m in uart.sent if m[0] == protocol.TAG]) >= 2  # resent until received
uart.inbox = protocol.encode(protocol.RECEIVED, 1, bytes([tag[0][1]]))
device.poll()
assert device.outbox == []
uart.inbox = protocol.encode(protocol.PING, 2)
device.poll()
hello = [m for m in uart.sent if m[0] == protocol.HELLO][-1]
assert hello[2][4:] == protocol.VERSION.encode()
print("outbox ok", protocol.VERSION)
