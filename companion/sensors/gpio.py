"""The Pi's own pins through gpiozero: the turn button, a status LED and a buzzer.

Pin numbers come from the table profile (``[gpio]`` in table.toml).  gpiozero
picks its pin factory from ``GPIOZERO_PIN_FACTORY``; off a Pi nothing falls back
to mock pins silently: a rehearsal says so (``gpio = "mock"`` / ``--gpio mock``)
or turns GPIO off (``--no-gpio``).  In the demo and the tests the simulated
table "presses" the button by driving the mock pin, as a finger closes the circuit.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass

# gpiozero is imported where pins are asked for: a service with GPIO off never loads it
# (some 3 MB of a Pi's memory, and time at every start)


@dataclass(frozen=True)
class GpioPins:
    button: int = 17
    status_led: int = 27
    buzzer: int = 22


class GpioUnavailable(OSError):
    """The Pi's pins were asked for where there are none."""


PI_MODEL_FILE = "/proc/device-tree/model"


def on_a_pi(model_file: str = PI_MODEL_FILE) -> bool:
    try:
        with open(model_file, "rb") as handle:
            return b"Raspberry Pi" in handle.read()
    except OSError:
        return False


def choose_pin_factory(mode: str, model_file: str = PI_MODEL_FILE) -> str:
    """Set up gpiozero's pins for ``mode`` ("pi" or "mock"); returns what was chosen.

    "pi" needs a Pi, or a factory someone chose on purpose (``GPIOZERO_PIN_FACTORY``,
    or ``Device.pin_factory`` already set, as the demo and the tests do); anything else
    raises GpioUnavailable saying how to choose.
    """
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    if mode == "mock":
        if not isinstance(Device.pin_factory, MockFactory):
            Device.pin_factory = MockFactory(pin_class=MockPWMPin)
        return "mock"
    if mode != "pi":
        raise ValueError(f"unknown GPIO mode {mode!r}: use pi, mock or off")
    if Device.pin_factory is not None:
        return type(Device.pin_factory).__name__
    chosen = os.environ.get("GPIOZERO_PIN_FACTORY")
    if chosen:
        return chosen
    if not on_a_pi(model_file):
        raise GpioUnavailable(
            "this machine is not a Raspberry Pi, so it has no GPIO pins for the turn button, "
            "status LED and buzzer: run with --no-gpio (or gpio mode = \"off\" in table.toml), "
            "or --gpio mock (mode = \"mock\") to rehearse with pretend pins")
    return "pi"


class TableGpio:
    """Turn button (pressed: "record my move"), status LED (blinks while a prompt
    waits, steady while the game runs, off when over) and buzzer (a short beep when a
    move is refused)."""

    def __init__(self, on_press: Callable[[], None], pins: GpioPins | None = None) -> None:
        from gpiozero import LED, Button, Buzzer

        self.pins = pins or GpioPins()
        self.button = Button(self.pins.button, pull_up=True, bounce_time=None)
        self.button.when_pressed = lambda: on_press()
        self.led = LED(self.pins.status_led)
        self.buzzer = Buzzer(self.pins.buzzer)
        self.mode = "off"
        self._lock = threading.Lock()  # gpiozero's blink() is not safe to call from two threads
        self._closed = False  # a late listener (the clock watcher) may call after close()

    def show(self, public: dict) -> None:
        """Set LED and buzzer from the tablet state (called after each logged change)."""
        if public.get("over"):
            mode = "off"
        elif any(p["kind"] in ("warning", "choice") for p in public.get("prompts", [])):
            mode = "blink"
        else:
            mode = "on"
        with self._lock:
            if not self._closed:
                self._set_mode(mode)

    def _set_mode(self, mode: str) -> None:
        if mode != self.mode:
            self.mode = mode
            if mode == "blink":
                self.led.blink(on_time=0.25, off_time=0.25)
            elif mode == "on":
                self.led.on()
            else:
                self.led.off()

    def beep(self) -> None:
        with self._lock:
            if not self._closed:
                self.buzzer.beep(on_time=0.1, off_time=0.1, n=2)

    def time_up(self) -> None:
        """A turn ran out of time: three longer beeps (the LED blinks with the warning)."""
        with self._lock:
            if not self._closed:
                self.buzzer.beep(on_time=0.3, off_time=0.2, n=3)

    def close(self) -> None:
        """Stop blinking and beeping first: off() joins gpiozero's blink thread, which would
        otherwise write to a pin that close() has just released."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for output in (self.led, self.buzzer):
                output.off()
            for device in (self.button, self.led, self.buzzer):
                device.close()
