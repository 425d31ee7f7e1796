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


# The suite's longest tests (whole games through every channel, the venue through a broker
# restart, the reader's hand paths; measured in CPU seconds with both workers busy) start
# first: the two workers then share out the many short tests after them, instead of one
# worker meeting a two-minute game when the other has nothing left to do.
LONGEST_FIRST = (
    "tests/test_demo.py::test_demo_plays_to_the_end_through_every_channel",
    "tests/test_venue_integration.py::test_three_tables_live_on_the_venue_page_through_a_broker_restart",
    "tests/test_vision.py::test_a_piece_a_pixel_from_the_change_is_read_once_after_a_hand",
    "tests/test_truth.py::test_bench_truth_plays_whole_games_through_the_full_path",
    "tests/test_truth.py::test_players_tap_the_correction_of_a_roll_the_camera_misread",
    "tests/test_browser.py::test_the_record_is_right_is_a_line_of_the_history_with_nothing_to_undo",
    "tests/test_venue_screen.py::test_a_mixed_evening_on_the_room_screen",
    "tests/test_vision_conditions.py::test_the_board_round_an_arm_is_read_and_what_it_hides_named",
    "tests/test_vision.py::test_reading_only_what_changed_says_what_a_first_look_says",
    "tests/test_vision_render3d.py::test_no_committed_frame_is_read_with_a_place_confidently_wrong",
    "tests/test_demo.py::test_a_demo_killed_between_recording_and_checkpoint_resumes_in_step",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Longest first (in the order above), the rest as collected; every worker sorts alike."""
    def rank(item: pytest.Item) -> int:
        name = item.nodeid.split("[")[0]
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)
    items.sort(key=rank)
