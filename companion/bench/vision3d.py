"""``companion bench vision --renderer 3d``: the reader on the committed physically based frames.

Each frame of ``tests/data/frames3d`` (``companion.sim.camera.frames3d``) is read by a fresh
reader that knows the camera's lens (as ``calibrate camera`` would have measured it), and
judged against its truth: exact (every place read, all right), doubted (no place read wrong,
some named as unclear), refused (no board, with the reason) or silently misread (a place
read confidently and wrong, whatever else the frame did).  Each frame is then read twice more
with fresh sensor noise through a stabiliser: a board it commits that is not the truth is a
wrong commit.  Frames with a hand over the board are tallied apart: for them a hand flagged,
a refusal or a doubt is right.  The tuning and test splits are never pooled.
"""

from __future__ import annotations

import re
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.bench.vision import top_reasons
from companion.games import load_game
from companion.games.base import BoardView, Layout
from companion.sim.camera.frames3d import FRAMES_DIR, Frame3D, committed
from companion.vision.reader import MARKS_PX_PER_MM, BoardReader
from companion.vision.reading import BESIDE, Reading
from companion.vision.stabiliser import Stabiliser

SPLITS = ("tune", "test")
_PX_A_MM = re.compile(r" \(\d+(\.\d+)? px a mm\)")
# a frame's board as the camera resolves it (``reader.MARKS_PX_PER_MM``: a die's pips need
# about that): the test split's cameras stand further off than the tuning split's, and where
# they see a board at less the reader asks for the dice ("marks too small for the camera")
RESOLVED = f"board at {MARKS_PX_PER_MM:g} px a mm or more"
COARSE = f"board at under {MARKS_PX_PER_MM:g} px a mm"
MISREADS_SHOWN = 6  # misread places a game and tilt's cell lists; a split's whole tally lists every one
# (a fresh set's: stop 84 counted 6 misread frames on one set from a list cut at six places)


@dataclass
class Tally3D:
    """What one game's frames at one tilt (or any pool of frames) came to."""

    frames: int = 0
    exact: int = 0
    doubted: int = 0
    refused: int = 0
    silent: int = 0
    wrong_commits: int = 0
    places_read: int = 0  # occupied places read confidently and right
    places_occupied: int = 0
    ms: list[float] = field(default_factory=list)
    reasons: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    misreads: list[str] = field(default_factory=list)

    def add(self, other: Tally3D) -> None:
        for name in ("frames", "exact", "doubted", "refused", "silent", "wrong_commits", "places_read",
                     "places_occupied"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.ms += other.ms
        self.misreads += other.misreads
        for k, v in other.reasons.items():
            self.reasons[k] += v

    def figures(self, misreads: int | None = MISREADS_SHOWN) -> dict[str, Any]:
        """The tally's figures, with its first ``misreads`` misread places (all: None)."""
        n = max(1, self.frames)
        return {
            "frames": self.frames, "exact": self.exact, "doubted": self.doubted, "refused": self.refused,
            "silently_misread": self.silent, "wrong_commits": self.wrong_commits,
            "exact_pct": round(100 * self.exact / n, 1), "silent_pct": round(100 * self.silent / n, 2),
            "occupied_places_read_pct": round(100 * self.places_read / max(1, self.places_occupied), 1),
            "read_ms_p50": round(statistics.median(self.ms), 1) if self.ms else None,
            "reasons": top_reasons(self.reasons),
            "misreads": self.misreads[:misreads],
        }


def frame_layout(game_name: str, players: int) -> tuple[Layout, tuple[str, ...] | None]:
    """A committed frame's game's layout for its players, and the colours the reader is told."""
    game = load_game(game_name)
    layout = game.layout(game.setup(players, None, 0))
    return layout, tuple(sorted(set(layout.pieces) | set(layout.shapes))) or None


def _reason(why: str) -> str:
    """A doubt as the bench tallies it: the places beside a doubtful one as one reason, and a
    reason that names the frame's pixels a millimetre without the figure ("marks too small for
    the camera (0.69 px a mm)" and "(0.68 px a mm)" are one reason, not two in the top four)."""
    return "next to a doubtful place" if why.startswith(BESIDE) else _PX_A_MM.sub("", why)[:40]


def judge3d(reading: Reading, truth: BoardView, layout: Layout, hand: bool, tally: Tally3D,
            name: str) -> None:
    """Score one reading against the frame's truth (see the module's docstring)."""
    tally.frames += 1
    occupied = [s.id for s in layout.spots if truth.get(s.id)]
    tally.places_occupied += len(occupied)
    if reading.view is None:
        tally.refused += 1
        tally.reasons["hand" if reading.hand else (reading.problem or "?").split(":")[0][:40]] += 1
        return
    unsure = dict(reading.doubtful or {})
    wrong = [s.id for s in layout.spots
             if s.id not in unsure and reading.view.get(s.id, ()) != truth.get(s.id, ())]
    tally.places_read += sum(1 for s in occupied if s not in unsure and s not in wrong)
    for why in unsure.values():
        tally.reasons["doubt: " + _reason(why)] += 1
    if wrong:
        tally.silent += 1
        tally.misreads += [f"{name} {s}: read {_shown(reading.view.get(s, ()))} "
                           f"truth {_shown(truth.get(s, ()))}" for s in wrong[:3]]
    elif unsure or reading.hand or hand:
        tally.doubted += 1
    else:
        tally.exact += 1


def _shown(pieces: tuple) -> str:
    return " ".join(f"{p.colour}:{p.pips}" for p in pieces) or "nothing"


def _noisy(frame: np.ndarray, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal(frame.shape, dtype=np.float32)  # (float64: a tenth of the bench)
    noise *= 2.0
    noise += frame  # (in place: numpy's clip and three frames of float32 were half its cost)
    np.maximum(noise, 0, out=noise)
    np.minimum(noise, 255, out=noise)
    return noise.astype(np.uint8)


def read_frame(frame3d: Frame3D, tally: Tally3D, lens: bool = True,
               cold: Callable[[Reading], None] | None = None) -> float:
    """Read one committed frame cold, judge it, then through a stabiliser on fresh noise; the
    board's frame pixels a millimetre as the reader located it (0 when it found no board).
    ``cold``: given the cold reading (the tests keep it for those that pin the frame's places)."""
    layout, colours = frame_layout(frame3d.game, int(frame3d.truth["players"]))
    reader = BoardReader(layout, colours=colours, lens=frame3d.lens if lens else None)
    image = frame3d.image()
    t0 = time.thread_time()
    reading = reader.read(image)
    tally.ms.append((time.thread_time() - t0) * 1000)
    if cold is not None:
        cold(reading)
    truth = frame3d.view
    judge3d(reading, truth, layout, frame3d.hand, tally, frame3d.path.stem)
    stab = Stabiliser()
    for k, shown in enumerate((image, _noisy(image, 1), _noisy(image, 2))):
        committed_board = stab.feed(reading if k == 0 else reader.read(shown))
        if committed_board is not None and committed_board != truth:
            tally.wrong_commits += 1
    return reader.frame_px_per_mm


def renderer3d_benchmark(root: Path = FRAMES_DIR, games: list[str] | None = None,
                         lens: bool = True) -> dict[str, Any]:
    """Every committed frame read and judged, per split, game and tilt; hand frames apart."""
    cv2.setNumThreads(1)
    cells: dict[str, dict[str, dict[str, Tally3D]]] = {s: defaultdict(dict) for s in SPLITS}
    hands: dict[str, Tally3D] = {s: Tally3D() for s in SPLITS}
    resolution: dict[str, dict[str, Tally3D]] = {s: {RESOLVED: Tally3D(), COARSE: Tally3D()} for s in SPLITS}
    for frame3d in committed(root):
        if games and frame3d.game not in games:
            continue
        if frame3d.hand:
            read_frame(frame3d, hands[frame3d.split], lens)
            continue
        per_tilt = cells[frame3d.split][frame3d.game]
        tally = per_tilt.setdefault(f"{frame3d.tilt:g}", Tally3D())
        alone = Tally3D()
        px_per_mm = read_frame(frame3d, alone, lens)
        tally.add(alone)
        resolution[frame3d.split][RESOLVED if px_per_mm >= MARKS_PX_PER_MM else COARSE].add(alone)
    out: dict[str, Any] = {"frames_dir": str(root), "lens_known": lens, "splits": {}}
    for split in SPLITS:
        pooled, by_tilt = Tally3D(), defaultdict(Tally3D)
        table: dict[str, dict[str, Any]] = {}
        for game, per_tilt in sorted(cells[split].items()):
            for tilt, tally in sorted(per_tilt.items(), key=lambda kv: float(kv[0])):
                table[f"{game}/{tilt}"] = tally.figures()
                pooled.add(tally)
                by_tilt[tilt].add(tally)
        out["splits"][split] = {
            "by_game_and_tilt": table,
            "by_tilt": {t: by_tilt[t].figures() for t in sorted(by_tilt, key=float)},
            "all": pooled.figures(None),
            "by_resolution": {name: t.figures() for name, t in resolution[split].items()},
            "hand_frames": hands[split].figures(None),
        }
    return out


def format_3d(result: dict[str, Any]) -> str:
    """The benchmark as text tables, one per split."""
    head = f"{'':22} {'frames':>6} {'exact':>5} {'doubt':>5} {'refuse':>6} {'silent':>6} {'wrong':>5} " \
           f"{'exact%':>6} {'places%':>7} {'ms':>6}  top reasons"
    lines = [f"frames in {result['frames_dir']} (lens known: {result['lens_known']}); 'wrong': boards the "
             "stabiliser committed that were not the truth; 'places%': occupied places read right"]

    def row(name: str, f: dict[str, Any]) -> str:
        reasons = ", ".join(f"{k} {v}" for k, v in f["reasons"].items())
        return (f"{name:22} {f['frames']:>6} {f['exact']:>5} {f['doubted']:>5} {f['refused']:>6} "
                f"{f['silently_misread']:>6} {f['wrong_commits']:>5} {f['exact_pct']:>6} "
                f"{f['occupied_places_read_pct']:>7} {str(f['read_ms_p50']):>6}  {reasons}")

    for split, s in result["splits"].items():
        lines += ["", f"{split} split", head]
        lines += [row(name, f) for name, f in s["by_game_and_tilt"].items()]
        lines += [row(f"tilt {t}", f) for t, f in s["by_tilt"].items()]
        lines += [row("all", s["all"]), row("hand frames", s["hand_frames"])]
        lines += [f"  {name}: {f['frames']} frames, {f['exact']} exact ({f['exact_pct']} %), "
                  f"{f['silently_misread']} silently misread, "
                  f"occupied places read {f['occupied_places_read_pct']} %"
                  for name, f in s["by_resolution"].items()]
        for misread in s["all"]["misreads"] + s["hand_frames"]["misreads"]:
            lines.append(f"  misread: {misread}")
    return "\n".join(lines)
