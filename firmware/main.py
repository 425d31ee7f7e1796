"""Entry point on the Pico: wire the real parts to the App and loop forever.

Pins (change to suit your board): SPI0 SCK=GP2 MOSI=GP3 MISO=GP4; one chip
select per card reader on GP5.. (seat readers, then the shared reader); seat
buttons on GP14.. to ground with pull-ups; seat LEDs on GP18...
"""

import sys
import time

import app
import machine  # MicroPython only
import mfrc522
import micropython  # MicroPython only

READER_CS = (5, 6, 7, 8, 9, 10, 11)
BUTTON_PINS = (14, 15, 16, 17, 20, 21)
LED_PINS = (18, 19, 22, 26, 27, 28)


class Uart:
    """USB CDC serial as the link to the Pi: non-blocking reads of what has arrived."""

    def __init__(self):
        import select

        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)

    def read(self):
        data = bytearray()
        while self.poller.poll(0):
            data += sys.stdin.buffer.read(1)
        return bytes(data) if data else None

    def write(self, data):
        sys.stdout.buffer.write(data)


def run():
    # Host frames may hold 0x03: with Ctrl-C handling on, USB serial would raise
    # KeyboardInterrupt on the board mid-game.  (Reflash or use the BOOTSEL button to
    # reach the REPL.)
    micropython.kbd_intr(-1)
    spi = machine.SPI(0, baudrate=1_000_000, sck=machine.Pin(2), mosi=machine.Pin(3),
                      miso=machine.Pin(4))
    readers = [mfrc522.MFRC522(spi, machine.Pin(cs, machine.Pin.OUT)) for cs in READER_CS]
    buttons = [machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in BUTTON_PINS]
    leds = [machine.Pin(p, machine.Pin.OUT) for p in LED_PINS]
    device = app.App(Uart(), readers, buttons, leds, time.ticks_ms)
    while True:
        device.poll()
        time.sleep_ms(5)


run()
