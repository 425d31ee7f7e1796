"""Fresh physically based boards: scenes the committed plan has not (``frames3d.fresh_plan``),
rendered apart (``vision render3d --fresh --out DIR``) and read by the 3D bench from there
(``bench vision --renderer 3d --frames-dir DIR``), so the reader is checked on boards it was
never tuned on (stop 83: 50 fresh frames showed 7 with a place read confidently wrong, where
the 60 committed held-out frames showed none)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from companion.cli import main
from companion.sim.camera.frames3d import (
    GAMES3D,
    SPLITS,
    TILTS,
    VGA,
    VGA_BOARDS,
    FrameSpec,
    committed,
    fresh_plan,
    plan,
)


def test_fresh_scenes_are_the_boards_past_the_committed_ones_in_both_splits() -> None:
    assert fresh_plan(3) == []  # the committed plan is three boards a split
    fresh, committed_specs = fresh_plan(4), set(plan())
    assert fresh and not set(fresh) & committed_specs
    plain = [s for s in fresh if not (s.hand or s.more or s.falloff or s.track or s.side or s.vga)]
    every = {(g, split, t) for g in GAMES3D for split in SPLITS for t in TILTS}
    assert {(s.game, s.split, s.tilt) for s in plain} == every
    assert {s.board for s in plain} == {3}
    vga = [s for s in fresh if s.vga]
    assert sorted({s.board for s in vga}) == list(range(VGA_BOARDS, VGA_BOARDS * 4 // 3))
    assert {s.game for s in vga} == set(VGA) and all(isinstance(s, FrameSpec) for s in vga)


def test_fresh_frames_are_never_written_over_the_committed_set() -> None:
    result = CliRunner().invoke(main, ["vision", "render3d", "--fresh", "--boards", "4"])
    assert result.exit_code != 0 and "give --out" in result.output


def test_the_3d_bench_reads_the_frames_of_another_directory(tmp_path: Path) -> None:
    frames = [f for f in committed() if f.split == "tune" and f.path.stem.startswith("times_square-")
              and f.path.stem.endswith("-vga")][:2]
    (tmp_path / "tune").mkdir()
    for f in frames:
        for suffix in (".jpg", ".json"):
            shutil.copy(f.path.with_suffix(suffix), tmp_path / "tune")
    result = CliRunner().invoke(main, ["bench", "vision", "--renderer", "3d", "--frames-dir", str(tmp_path),
                                       "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert figures["frames_dir"] == str(tmp_path)
    assert figures["splits"]["tune"]["all"]["frames"] == 2 and figures["splits"]["test"]["all"]["frames"] == 0
    empty = tmp_path / "nothing"
    empty.mkdir()
    result = CliRunner().invoke(main, ["bench", "vision", "--renderer", "3d", "--frames-dir", str(empty)])
    assert result.exit_code != 0 and "no physically based frames in" in result.output
