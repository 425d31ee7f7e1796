"""Shared fixtures: mock GPIO pins per test, a Times Square table, a running service."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin
from hypothesis import HealthCheck, settings

os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")

# no verdict on the wall clock: Hypothesis neither times an example (deadline) nor fails a
# test whose examples it finds slow to make (a machine busy with other work is no bug)
settings.register_profile("no-clock", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("no-clock")


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
