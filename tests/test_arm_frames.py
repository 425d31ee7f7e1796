"""While an arm is over the board the camera loop reads one frame in ``ARM_FRAMES_SKIPPED`` + 1,
as a busy Raspberry Pi does: a board read round a moving arm is never committed, and each
such frame costs a whole board's read.  Counted in the reader's reads, never in seconds."""

from __future__ import annotations

import pytest

from companion.bench.boards import sample_boards
from companion.bench.vision import game_layout, make_reader
from companion.sim.camera.conditions import camera_for
from companion.sim.camera.source import SyntheticSource
from companion.table import Table
from companion.vision import pipeline
from companion.vision.pipeline import ARM_FRAMES_SKIPPED, VisionLoop


def arm_sweep(game: str, skipped: int, arm: int) -> dict[str, object]:
    """A board settled, then an arm over it for ``arm`` frames that moves a piece, then the
    table still again: what the loop read and committed, frame by frame."""
    layout, colours, players = game_layout(game)
    before, after = sample_boards(game, players, 2, 0)[:2]
    assert before != after
    table = Table.open(game, None, players, None, 0, resume=False)
    source = SyntheticSource(camera_for(layout, seed=3))
    loop = VisionLoop(table, source, make_reader(layout, colours), fps=0)
    kept, pipeline.ARM_FRAMES_SKIPPED = pipeline.ARM_FRAMES_SKIPPED, skipped
    try:
        source.show(before)
        for _ in range(4):
            loop.step()
        assert loop.stabiliser.committed == before
        reads, full = loop.reads, loop.full_reads
        source.hand_over(arm)
        source.show(after)  # the arm moves a piece under it
        prompts = []
        for _ in range(arm):
            loop.step()
            prompts.append(loop.prompt(loop._latest[1]) if loop._latest else None)  # type: ignore[index]
        arm_reads, arm_full = loop.reads - reads, loop.full_reads - full
        settled = None
        for frame in range(1, 12):  # the arm is gone: frames until the new board is committed
            loop.step()
            if loop.stabiliser.committed == after:
                settled = frame
                break
    finally:
        pipeline.ARM_FRAMES_SKIPPED = kept
    return {"arm_reads": arm_reads, "arm_full": arm_full, "standing": loop.frames_standing,
            "settled": settled, "prompts": prompts, "frames": loop.frames}


@pytest.mark.parametrize(("game", "arm"), [("swing_state", 12), ("jivecat", 10), ("jivecat", 11)])
def test_an_arm_sweep_is_read_one_frame_in_three_and_the_board_it_left_is_committed_as_soon(game: str,
                                                                                          arm: int) -> None:
    """An arm over the board for ``arm`` frames (a move's reach; 6 on average on the bench)."""
    now = arm_sweep(game, ARM_FRAMES_SKIPPED, arm)
    every = arm_sweep(game, 0, arm)  # the loop as it was: every arm frame read whole
    assert every["arm_reads"] == arm
    read = -(-arm // (ARM_FRAMES_SKIPPED + 1))  # the first arm frame, then one in three
    assert ARM_FRAMES_SKIPPED == 2 and now["arm_reads"] == read  # 4 of 10, 11 or 12
    # every arm frame differs: each one read is a full read; the others stood as the last reading
    assert every["arm_full"] == arm and now["arm_full"] == read and now["standing"] == arm - read
    # every frame was taken (the table's clock), and the tablet said a hand was over the board at each
    assert all(p is not None and p.text.startswith("Hand over the board") for p in now["prompts"])
    # the board the arm left is committed at the same frame as when every arm frame was read:
    # the frame after the arm is read at once, its margin clear (10 and 11: it falls where the
    # loop would have let a frame stand)
    assert every["settled"] is not None and now["settled"] == every["settled"]
    assert now["frames"] == 4 + arm + now["settled"]
