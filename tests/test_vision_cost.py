"""The frame cost's yardstick, and the shortcuts that make a changed board cheaper to read
giving what the long way gives."""

from __future__ import annotations

import pytest

from companion.bench.vision import frame_cost


def test_the_frame_cost_names_opencvs_marker_search_on_the_same_frames_and_the_ratio_to_it() -> None:
    figures = frame_cost("times_square", 4)
    assert figures["cpu_ms_detect_markers_p50"] > 0
    assert figures["cpu_ms_changed_board_p50"] > 0
    assert figures["changed_board_to_detect_markers"] == pytest.approx(
        figures["cpu_ms_changed_board_p50"] / figures["cpu_ms_detect_markers_p50"])
