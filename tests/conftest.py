"""Shared fixtures: mock GPIO pins per test, a Times Square table, a running service."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from committed_frames import SHARED_DIR
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin
from hypothesis import HealthCheck, settings

os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")
_SHARED_KEY = pytest.StashKey[str]()

# no verdict on the wall clock: Hypothesis neither times an example (deadline) nor fails a
# test whose examples it finds slow to make (a machine busy with other work is no bug)
settings.register_profile("no-clock", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("no-clock")


def pytest_configure(config: pytest.Config) -> None:
    """A directory every worker of this session shares (``committed_frames.SHARED_DIR``: the
    committed 3D frames' readings), made by the process that starts the workers, which
    inherit its environment; removed when the session ends."""
    if hasattr(config, "workerinput") or SHARED_DIR in os.environ:
        return
    shared = tempfile.mkdtemp(prefix="companion-tests-")
    os.environ[SHARED_DIR] = shared
    config.stash[_SHARED_KEY] = shared


def pytest_unconfigure(config: pytest.Config) -> None:
    shared = config.stash.get(_SHARED_KEY, None)
    if shared is not None:
        shutil.rmtree(shared, ignore_errors=True)
        os.environ.pop(SHARED_DIR, None)


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


# The suite's longest tests, longest first (seconds a call with both workers busy, stop 79's
# run: whole games through every channel, the 3D frames read per game and split, the venue
# through a broker restart, whole games tapped in the browser, the reader's hand paths).
# Workers are dealt tests one at a time in this order (``--dist loadgroup``, scripts/test.sh):
# the long ones spread over both workers first, and the many short ones fill in after them,
# so that neither worker meets a two-minute game when the other has nothing left to do.
LONGEST_FIRST = (
    "tests/test_demo.py::test_demo_plays_to_the_end_through_every_channel",  # 52, 30, 29, 26, 13 (stop 104)
    "tests/test_vision_render3d.py::test_no_committed_frame_is_read_with_a_place_confidently_wrong",  # 80 ..
    "tests/test_doubted_die.py::test_baron_voodoo_a_die_with_more_contents_than_taps_is_asked_by_its_colour_then_its_face",
    "tests/test_venue_integration.py::test_three_tables_live_on_the_venue_page_through_a_broker_restart",
    "tests/test_browser.py::test_a_whole_game_declared_by_tapping_the_page",  # 26, 26, 20, 11, 8
    "tests/games/test_jivecat.py::test_playouts_keep_the_invariants",
    "tests/test_vision.py::test_a_piece_a_pixel_from_the_change_is_read_once_after_a_hand",
    "tests/test_venue_screen.py::test_a_mixed_evening_on_the_room_screen",
    "tests/test_vision_conditions.py::test_the_board_round_an_arm_is_read_and_what_it_hides_named",
    "tests/test_vision.py::test_reading_only_what_changed_says_what_a_first_look_says",  # 19, 18, 12, 12, 6
    "tests/test_truth.py::test_bench_truth_plays_whole_games_through_the_full_path",
    "tests/test_sim_lockstep.py::test_the_same_seed_plays_the_same_game_however_slow_the_devices_hello",
    "tests/test_doubted_die.py::test_baron_voodoo_a_die_never_read_at_a_random_set_up_is_asked_by_its_face",
    "tests/test_demo.py::test_a_demo_killed_between_recording_and_checkpoint_resumes_in_step",
    "tests/test_vision_ordinary.py::test_the_palest_arm_over_a_piece_beside_one_read_is_no_empty_rest_of_its_place",
    "tests/test_serial_link.py::test_taps_while_unplugged_and_before_the_reconnect_arrive_exactly_once",
    "tests/games/test_jivecat.py::test_random_legal_actions_never_crash",
    "tests/test_vision_die_top.py::test_no_taller_column_stands_where_another_dies_top_was_read",
    "tests/test_truth.py::test_a_doubled_tap_lays_the_card_twice",
    "tests/test_truth.py::test_players_tap_the_correction_of_a_roll_the_camera_misread",
    "tests/test_browser.py::test_the_record_is_right_is_a_line_of_the_history_with_nothing_to_undo",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Longest first (in the order above), the rest as collected; every worker sorts alike."""
    def rank(item: pytest.Item) -> int:
        name = item.nodeid.split("[")[0]
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)
    items.sort(key=rank)
