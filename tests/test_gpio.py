"""The Pi's GPIO on gpiozero's mock pins: a finger on the button, eyes on the LED."""

from __future__ import annotations

from gpiozero.pins.mock import MockFactory
from waiting import wait_until

from companion.sensors.gpio import GpioPins, TableGpio


def test_pressing_the_turn_button_calls_back(mock_pins: MockFactory) -> None:
    presses: list[int] = []
    gpio = TableGpio(lambda: presses.append(1), GpioPins())
    pin = mock_pins.pin(GpioPins().button)
    pin.drive_low()
    pin.drive_high()
    assert wait_until(lambda: presses == [1])
    gpio.close()


def test_status_led_blinks_while_a_prompt_waits_and_is_off_when_over(mock_pins: MockFactory) -> None:
    gpio = TableGpio(lambda: None)
    led_pin = mock_pins.pin(GpioPins().status_led)
    gpio.show({"over": False, "prompts": [{"kind": "turn"}]})
    assert gpio.mode == "on" and led_pin.state
    gpio.show({"over": False, "prompts": [{"kind": "warning"}]})
    assert gpio.mode == "blink"
    levels: set[bool] = set()
    assert wait_until(lambda: levels.add(bool(led_pin.state)) or levels == {True, False})
    gpio.show({"over": True, "prompts": []})
    assert gpio.mode == "off"
    assert wait_until(lambda: not led_pin.state)
    gpio.close()


def test_buzzer_beeps(mock_pins: MockFactory) -> None:
    gpio = TableGpio(lambda: None)
    pin = mock_pins.pin(GpioPins().buzzer)
    gpio.beep()
    seen: set[bool] = set()
    assert wait_until(lambda: seen.add(bool(pin.state)) or True in seen)
    gpio.close()
