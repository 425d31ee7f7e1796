"""The device's main loop, independent of the hardware it runs on.

Runs on the Pico with real MFRC522 readers, buttons and LEDs (see main.py),
and under CPython with fake ones: in the tests and in the device emulator that
the simulated table talks to over a pseudo-terminal.  Written for MicroPython:
no dataclasses, no typing, no f-string formatting specifiers the port lacks.
"""

try:
    from firmware import protocol
except ImportError:  # on the Pico the files sit side by side
    import protocol

try:
    from time import ticks_diff  # MicroPython: the tick counter wraps
except ImportError:
    ticks_diff = protocol.ticks_diff

try:
    from random import getrandbits
except ImportError:  # a MicroPython build without random
    def getrandbits(bits):
        return 0

VERSION = protocol.VERSION
HEARTBEAT_MS = 1000
RESEND_MS = 300  # a TAG or BUTTON the host has not said RECEIVED to goes again
OUTBOX = 96  # unacknowledged messages kept (the oldest is dropped beyond this): a round of
# cards laid with the cable out; under the host's window of 128 seqs, so every resend is known
DEBOUNCE_MS = 30
ABSENT_POLLS = 3  # a card must be gone this many polls before the same card counts again ...
ABSENT_MS = 250  # ... and this long: a reader that misses a card lying on it for a few polls
# (RF noise; a card left in READY state ignores the next REQA) must not count it twice


class App:
    """One device: ``readers`` (objects with read_uid() -> bytes or None), ``buttons``
    (objects with value() -> 0 pressed / 1 released, pulled up), ``leds`` (objects with
    value(v)), ``uart`` (read() -> bytes or None, write(bytes)), ``ticks_ms`` a clock that
    may wrap (compared with ``ticks_diff`` only).

    A TAG or BUTTON stays in the outbox, resent every RESEND_MS and after each PING,
    until the host answers RECEIVED with its seq: a card laid while no host listens (a
    replug, the port not yet reopened) still arrives; the host drops repeats by seq and
    the boot id in HELLO."""

    def __init__(self, uart, readers, buttons, leds, ticks_ms):
        self.uart = uart
        self.readers = readers
        self.buttons = buttons
        self.leds = leds
        self.ticks_ms = ticks_ms
        self.splitter = protocol.FrameSplitter()
        self.seq = 0
        self.reliable_seq = 0
        self.last_uid = [None] * len(readers)
        self.absent = [0] * len(readers)
        self.absent_since = [0] * len(readers)
        self.button_state = [1] * len(buttons)
        self.button_since = [0] * len(buttons)
        self.led_mode = [protocol.LED_OFF] * len(leds)
        self.last_heartbeat = ticks_ms()
        self.last_resend = self.last_heartbeat
        self.bad_frames = 0
        self.outbox = []  # [seq, frame] awaiting RECEIVED
        self.dropped = 0
        self.boot_id = getrandbits(16) or (ticks_ms() & 0xFFFF) or 1

    def send(self, msg_type, body=b""):
        if msg_type in protocol.RELIABLE:
            # a counter of their own: the host's window of recent seqs sees no other kind
            self.reliable_seq = (self.reliable_seq + 1) & 0xFF
            frame = protocol.encode(msg_type, self.reliable_seq, body)
            if len(self.outbox) >= OUTBOX:
                self.outbox.pop(0)
                self.dropped += 1
            self.outbox.append([self.reliable_seq, frame])
            if len(self.outbox) == 1:  # resend it a full RESEND_MS from now
                self.last_resend = self.ticks_ms()
        else:
            self.seq = (self.seq + 1) & 0xFF
            frame = protocol.encode(msg_type, self.seq, body)
        self.uart.write(frame)

    def resend(self):
        for item in self.outbox:
            self.uart.write(item[1])

    def hello(self):
        self.send(protocol.HELLO, bytes([len(self.readers), len(self.buttons),
                                         self.boot_id >> 8, self.boot_id & 0xFF])
                  + VERSION.encode())

    def poll(self):
        """One pass of the loop: host commands, readers, buttons, LEDs, heartbeat."""
        now = self.ticks_ms()
        data = self.uart.read()
        if data:
            for frame in self.splitter.feed(data):
                self.handle(frame)
        for i, reader in enumerate(self.readers):
            uid = reader.read_uid()
            if uid:
                self.absent[i] = 0
                if uid != self.last_uid[i]:
                    self.last_uid[i] = uid
                    self.send(protocol.TAG, bytes([i]) + uid)
            else:
                if self.absent[i] == 0:
                    self.absent_since[i] = now
                self.absent[i] += 1
                if self.absent[i] >= ABSENT_POLLS and ticks_diff(now, self.absent_since[i]) >= ABSENT_MS:
                    self.last_uid[i] = None
        for i, button in enumerate(self.buttons):
            level = button.value()
            if level != self.button_state[i]:
                if self.button_since[i] == 0:
                    self.button_since[i] = now or 1
                elif ticks_diff(now, self.button_since[i]) >= DEBOUNCE_MS:
                    self.button_state[i] = level
                    self.button_since[i] = 0
                    self.send(protocol.BUTTON, bytes([i, 1 if level == 0 else 0]))
            else:
                self.button_since[i] = 0
        blink_on = (now // 250) % 2 == 0
        for i, led in enumerate(self.leds):
            mode = self.led_mode[i]
            led.value(1 if mode == protocol.LED_ON or (mode == protocol.LED_BLINK and blink_on) else 0)
        if self.outbox and ticks_diff(now, self.last_resend) >= RESEND_MS:
            self.last_resend = now
            self.resend()
        if ticks_diff(now, self.last_heartbeat) >= HEARTBEAT_MS:
            self.last_heartbeat = now
            self.send(protocol.HEARTBEAT, bytes([(now >> 24) & 0xFF, (now >> 16) & 0xFF,
                                                 (now >> 8) & 0xFF, now & 0xFF]))

    def handle(self, frame):
        try:
            msg_type, seq, body = protocol.decode(frame)
        except ValueError as err:
            self.bad_frames += 1
            self.send(protocol.ERROR, str(err).encode()[:40])
            return
        if msg_type == protocol.RECEIVED:
            if body:
                self.outbox = [item for item in self.outbox if item[0] != body[0]]
            return  # never acknowledged itself: no ping-pong
        if msg_type == protocol.PING:
            self.hello()
            self.resend()
        elif msg_type == protocol.LED:
            if len(body) < 2 or body[0] >= len(self.leds) or body[1] > protocol.LED_BLINK:
                self.send(protocol.ERROR, b"bad led command")
                return
            self.led_mode[body[0]] = body[1]
        else:
            self.send(protocol.ERROR, b"unknown message")
            return
        self.send(protocol.ACK, bytes([seq]))
