"""The Pi's GPIO on gpiozero's mock pins: a finger on the button, eyes on the LED."""

from __future__ import annotations

import time

from gpiozero.pins.mock import MockFactory

from companion.sensors.gpio import GpioPins, TableGpio


def test_pressing_the_turn_button_calls_back(mock_pins: MockFactory) -> None:
    presses: list[int] = []
    gpio = TableGpio(lambda: presses.append(1), GpioPins())
    pin = mock_pins.pin(GpioPins().button)
    pin.drive_low()
    pin.drive_high()
    time.sleep(0.05)
    assert presses == [1]
    gpio.close()


def test_status_led_blinks_while_a_prompt_waits_and_is_off_when_over(mock_pins: MockFactory) -> None:
    gpio = TableGpio(lambda: None)
    led_pin = mock_pins.pin(GpioPins().status_led)
    gpio.show({"over": False, "prompts": [{"kind": "turn"}]})
    assert gpio.mode == "on" and led_pin.state
    gpio.show({"over": False, "prompts": [{"kind": "warning"}]})
    assert gpio.mode == "blink"
    levels = set()
    for _ in range(40):
        levels.add(bool(led_pin.state))
        time.sleep(0.02)
    assert levels == {True, False}
    gpio.show({"over": True, "prompts": []})
    time.sleep(0.05)
    assert gpio.mode == "off" and not led_pin.state
    gpio.close()


def test_buzzer_beeps(mock_pins: MockFactory) -> None:
    gpio = TableGpio(lambda: None)
    pin = mock_pins.pin(GpioPins().buzzer)
    gpio.beep()
    seen = set()
    for _ in range(30):
        seen.add(bool(pin.state))
        time.sleep(0.01)
    assert True in seen
    gpio.close()
