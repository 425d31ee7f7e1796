"""A footprint fit for a Pi: what the companion loads, keeps and reads, and the bench that says so.

Figures are the bench's to print; these tests check what the figures rest on (nothing heavy
imported for ``--help``, a folder decoded once, a dropped reader freed at once) and that the
bench runs and reports its fields, never how fast anything was.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import weakref
from pathlib import Path

import click
import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from companion.bench.footprint import PARTS, TARGETS, footprint_benchmark
from companion.bench.vision import game_layout, make_reader
from companion.cli import FOOTPRINT_PARTS, LAZY_BENCH, LAZY_MAIN, LazyGroup, bench, main
from companion.games import load_game
from companion.sim.camera.render import Camera
from companion.vision.pipeline import VisionLoop
from companion.vision.sources import FolderSource

HEAVY = ("cv2", "numpy", "flask", "uvicorn", "paho", "reportlab", "gpiozero", "serial",
         "companion.games.jivecat", "companion.service", "companion.sim", "companion.vision")


def still_board(tmp_path: Path, frames: int = 2) -> tuple[Path, list[np.ndarray]]:
    game = load_game("jivecat")
    state = game.setup(3, None, 0)
    camera = Camera(game.layout(state), seed=1)
    folder = tmp_path / "frames"
    folder.mkdir()
    drawn = [camera.frame(game.board_view(state)) for _ in range(frames)]
    for i, frame in enumerate(drawn):
        cv2.imwrite(str(folder / f"f{i}.png"), frame)
    return folder, drawn


def test_help_imports_nothing_heavy() -> None:
    script = ("import sys\nfrom companion.cli import main\n"
              "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
              f"print(sorted(m for m in sys.modules if m.startswith({HEAVY!r})))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                         timeout=600)  # a hang guard
    listed, loaded = out.stdout.rsplit("\n", 2)[-2], out.stdout
    assert "Commands:" in loaded and "calibrate" in loaded and "vision" in loaded
    assert listed == "[]", f"--help imported {listed}"


def test_every_lazy_command_is_listed_with_its_own_help() -> None:
    for group, table in ((main, LAZY_MAIN), (bench, LAZY_BENCH)):
        assert isinstance(group, LazyGroup)
        for name, (_, summary) in table.items():
            command = group.load(name)
            assert isinstance(command, click.Command)
            assert summary == command.get_short_help_str(10_000), name
    assert FOOTPRINT_PARTS == PARTS


def test_a_lazy_command_runs_when_asked() -> None:
    result = CliRunner().invoke(main, ["vision", "--help"])
    assert result.exit_code == 0, result.output
    assert "read" in result.output and "render" in result.output


def test_a_folder_is_decoded_once_and_its_frames_cannot_be_changed(tmp_path: Path) -> None:
    folder, drawn = still_board(tmp_path)
    source = FolderSource(folder)
    frames = [source.read() for _ in range(5)]
    assert source.decodes == 2
    assert frames[0] is frames[2] is frames[4] and frames[1] is frames[3]
    assert np.array_equal(frames[0], cv2.imread(str(folder / "f0.png")))
    assert not frames[0].flags.writeable
    tight = FolderSource(folder, cache_mb=0)  # nothing fits: decoded at every read
    for _ in range(5):
        assert tight.read() is not None
    assert tight.decodes == 5


class _Table:
    """The little of a table the camera loop talks to."""

    def __init__(self) -> None:
        self.notices: dict[str, object] = {}
        self.boards: list[object] = []

    def notice(self, key: str, prompt: object) -> None:
        self.notices[key] = prompt

    def board_seen(self, board: object) -> None:
        self.boards.append(board)

    def board_doubted(self, view: object, doubtful: object) -> None:
        self.notices["doubted"] = doubtful

    def frame_taken(self) -> None:
        self.frames_taken = getattr(self, "frames_taken", 0) + 1


def test_the_same_frozen_frame_is_read_once(tmp_path: Path) -> None:
    folder, _ = still_board(tmp_path, frames=1)
    layout, colours, _ = game_layout("jivecat", 3)
    reader = make_reader(layout, colours)
    reads: list[int] = []
    real_read = reader.read

    def counting_read(frame: np.ndarray | None) -> object:
        reads.append(1)
        return real_read(frame)

    reader.read = counting_read  # type: ignore[method-assign]
    table = _Table()
    loop = VisionLoop(table, FolderSource(folder), reader, fps=0, frames_needed=2)  # type: ignore[arg-type]
    for _ in range(4):
        loop.step()
    assert loop.frames == 4 and len(reads) == 1
    assert len(table.boards) == 1  # the board still settles: the reading counts every frame


def test_a_dropped_reader_is_freed_without_the_cycle_collector() -> None:
    game = load_game("jivecat")
    state = game.setup(3, None, 0)
    layout, colours, _ = game_layout("jivecat", 3)
    camera = Camera(layout, seed=2)
    reader = make_reader(layout, colours)
    for hand in (None, 0.4, None):
        reader.read(camera.frame(game.board_view(state), hand))
    gone = weakref.ref(reader)
    gc.collect()
    gc.disable()
    try:
        del reader
        assert gone() is None
    finally:
        gc.enable()


@pytest.mark.timeout(1800)  # a hang guard: two children start a service, 20-40 s on a quiet machine
def test_the_footprint_bench_reports_its_fields() -> None:
    figures = footprint_benchmark(("help", "service"), frames=8, game="jivecat", players=3)
    for key in ("help_cpu_s", "help_wall_s", "service_peak_rss_mb"):
        assert isinstance(figures[key], float) and figures[key] > 0, key
    # A still board costs so little that a 1 s window at 10 ms ticks can read 0; a share is still a share
    share = figures["service_cpu_pct_of_core"]
    assert isinstance(share, float) and 0 <= share <= 100 * (os.cpu_count() or 1)
    assert figures["service_frames"] == 8 and figures["service_fps"] == 8.0
    assert set(TARGETS) >= {"help_cpu_s", "service_peak_rss_mb", "demo_peak_rss_mb"}


def test_the_footprint_command_prints_json() -> None:
    result = CliRunner().invoke(main, ["bench", "footprint", "--only", "help", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert set(figures) == {"help_cpu_s", "help_wall_s"}
    refused = CliRunner().invoke(main, ["bench", "footprint", "--only", "disk"])
    assert refused.exit_code == 2 and "disk" in refused.output


def test_the_lettering_file_holds_every_board_label_whole() -> None:
    """OpenCV 5's font engine keeps 9 MB resident from the first ``putText``: the board's
    labels come from ``lettering.npz`` instead, each as one whole string (as ``putText``
    spaced it), for every label of every game, variant and player count.  When a layout
    gains a label, ``python -m companion.vision.lettering`` writes it in."""
    from companion.vision.lettering import _atlas, board_labels

    labels = board_labels()
    missing = sorted(text for text in labels if len(text) > 1 and ("label", text) not in _atlas())
    assert len(labels) > 100 and not missing, missing


def test_the_lettering_file_draws_every_board_label_as_put_text_draws_it() -> None:
    """Pasted from the file, a label is what ``putText`` of the OpenCV that wrote it draws
    (within a level of rounding).  Another release may draw Hershey's letters otherwise (5.1:
    a pixel or two wider): the file, not the running OpenCV, is the project's lettering then."""
    from companion.vision.lettering import board_labels, draw_text, drawn_by

    if drawn_by() != cv2.__version__:
        pytest.skip(f"lettering.npz was drawn by OpenCV {drawn_by()}, this is {cv2.__version__}")
    labels = sorted(board_labels())
    differing = {}
    for text in labels:
        for background in ((250, 250, 250), (60, 170, 90)):
            expected = np.full((30, 80, 3), background, np.uint8)
            drawn = expected.copy()
            cv2.putText(expected, text, (4, 20), cv2.FONT_HERSHEY_PLAIN, 0.6, (100, 130, 150), 1, cv2.LINE_AA)
            draw_text(drawn, text, (4, 20), "label", (100, 130, 150))
            if cv2.absdiff(expected, drawn).max() > 1:
                differing[text] = int(cv2.absdiff(expected, drawn).max())
    assert len(labels) > 100 and not differing, differing


def test_reading_and_drawing_a_frame_never_starts_the_font_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader's empty board and the dashboard's annotated picture, words and all, are
    drawn without ``cv2.putText``; text near a picture's edge is clipped, not an error."""
    from companion.vision.annotate import annotate
    from companion.vision.lettering import draw_text

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("cv2.putText was called at run time")

    layout, colours, players = game_layout("baron_voodoo")
    game = load_game("baron_voodoo")
    frame = Camera(layout, seed=3).frame(game.board_view(game.setup(players, None, 0)))
    monkeypatch.setattr(cv2, "putText", refused)
    reader = make_reader(layout, colours)
    reading = reader.read(frame)
    out = annotate(frame, reader, reading, {})
    assert out.shape == frame.shape and not np.array_equal(out, frame)
    edge = np.zeros((20, 20, 3), np.uint8)
    draw_text(edge, "far off to the side ~", (12, 5), "mark", (255, 255, 255))
    assert edge.any() and edge[:, :12].max() == 0
