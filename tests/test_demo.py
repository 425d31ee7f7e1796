"""The demo's whole path: rendered frames, the device on a pty, mock GPIO, HTTP. The
simulated table's own result and the companion's must agree."""

from __future__ import annotations

from pathlib import Path

from companion.sim.demo import run_demo


def test_times_square_demo_plays_to_the_end_through_every_channel(tmp_path: Path) -> None:
    result = run_demo("times_square", 2, None, seed=4, port=0, host="127.0.0.1",
                      data_dir=tmp_path, pin="1111", speed=0, exit_when_over=True,
                      max_steps=400, progress=False)
    tablet = result.tablet
    assert tablet["over"], tablet["prompts"]
    assert sorted(tablet["winner"]) == sorted(result.truth["winners"])
    assert result.stalls == 0 and result.refusals == []
    sources = {h["source"] for h in tablet["history"]}
    assert "table" in sources  # moves recorded from the board + taps + the GPIO button
    assert not (tmp_path / "world.pickle").exists()  # a finished game leaves no world behind
