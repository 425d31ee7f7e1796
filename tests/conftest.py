"""Shared fixtures: mock GPIO pins per test, a Times Square table, a running service."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin

os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")


@pytest.fixture(autouse=True)
def mock_pins() -> Iterator[MockFactory]:
    """A fresh mock pin factory per test, reset after (else GPIOPinInUse)."""
    factory = MockFactory(pin_class=MockPWMPin)
    Device.pin_factory = factory
    yield factory
    factory.reset()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"
