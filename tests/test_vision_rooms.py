"""The camera's modules each hold one room: a module of ``companion/vision`` past 600 lines holds
several (``pips.py`` held four at 735: the peaks, the checks that a peak is a mark, a die's
layout, a lamp's reflection on a face)."""

from __future__ import annotations

from pathlib import Path

VISION = Path(__file__).resolve().parents[1] / "companion" / "vision"
MODULE_LINES = 600


def test_no_module_of_the_camera_holds_several_rooms() -> None:
    lines = {path.name: len(path.read_text().splitlines()) for path in sorted(VISION.glob("*.py"))}
    assert {"pips.py", "mark_peaks.py", "mark_shapes.py", "die_layout.py", "pip_reflections.py"} <= set(lines)
    assert {name: n for name, n in lines.items() if n > MODULE_LINES} == {}


def test_the_mark_counters_rooms_stand_on_the_peaks_not_on_the_counting() -> None:
    """The rooms under ``pips.py`` never import it back (the counting stands on them)."""
    for name in ("mark_peaks.py", "mark_shapes.py", "die_layout.py", "pip_reflections.py"):
        assert "companion.vision.pips" not in (VISION / name).read_text(), name
