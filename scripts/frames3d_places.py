#!/usr/bin/env python3
"""Held-out physically based frames, place by place (issue 40): the loop every mend is checked by.

A mend is judged by what it changes on frames it was not made on, place by place: a wrong place
asked is the point, a right place asked is its cost, and a place newly read wrong undoes it.
``companion bench vision --renderer 3d`` tallies frames; this keeps every place, so two trees'
readings can be compared.  The held-out frames themselves are rendered outside the repository
(about a minute each), so render them where they will outlive the session.

  render ROOT LO HI        the test split's boards LO..HI-1, every game and tilt, and their hand
                           frames, into ROOT/test (``frames3d.render_spec``; needs the render3d extra)
  read OUT ROOT [ROOT...]  read every frame under the roots cold, the lens known, as the bench does;
                           each place's reading, truth and doubt into OUT (JSON); ``--only STEM``
  compare A B              what changed from A to B, place by place: right / asked / wrong / refused

Run it with the tree under test first on ``PYTHONPATH`` (``PYTHONPATH=$TREE python
scripts/frames3d_places.py read ...``) to compare two checkouts with one venv.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any


def render(root: Path, lo: int, hi: int) -> None:
    from companion.sim.camera.frames3d import plan, render_spec

    specs = [s for s in plan({"tune": 0, "test": hi}, more=False, falloff=False, track=False, side=False,
                             vga=False) if s.split == "test" and lo <= s.board < hi]
    for spec in specs:
        if not spec.path(root).exists():
            print(render_spec(spec, root, 2), flush=True)


def _shown(pieces: tuple) -> str:
    return " ".join(f"{p.colour}:{p.pips}" for p in pieces)


def read(out: Path, roots: list[Path], only: set[str]) -> dict[str, Any]:
    import cv2

    from companion.bench.vision3d import frame_layout
    from companion.sim.camera.frames3d import committed
    from companion.vision.reader import BoardReader

    cv2.setNumThreads(1)
    found: dict[str, Any] = {}
    for root in roots:
        for frame in committed(root):
            if only and frame.path.stem not in only:
                continue
            layout, colours = frame_layout(frame.game, int(frame.truth["players"]))
            reading = BoardReader(layout, colours=colours, lens=frame.lens).read(frame.image())
            view = reading.view
            places = {} if view is None else {
                s.id: [_shown(view.get(s.id, ())), _shown(frame.view.get(s.id, ()))] for s in layout.spots}
            found[f"{root}:{frame.split}/{frame.path.stem}"] = {
                "places": places, "doubt": dict(reading.doubtful or {}), "hand": bool(reading.hand),
                "problem": reading.problem}
    out.write_text(json.dumps(found))
    return found


def state(frame: dict[str, Any], spot: str) -> str:
    """A place's outcome: refused (no board), asked, right or wrong."""
    if frame["problem"] or not frame["places"]:
        return "refused"
    if spot in frame["doubt"]:
        return "asked"
    got, truth = frame["places"][spot]
    return "right" if got == truth else "wrong"


def compare(a: dict[str, Any], b: dict[str, Any]) -> tuple[Counter, list[str]]:
    """How the frames both hold moved, place by place, and a line for each place that moved."""
    moves: Counter = Counter()
    lines: list[str] = []
    for key in sorted(set(a) & set(b)):
        spots = set(a[key]["places"]) | set(b[key]["places"]) | set(a[key]["doubt"]) | set(b[key]["doubt"])
        for spot in sorted(spots):
            was, now = state(a[key], spot), state(b[key], spot)
            if was != now or (was == "wrong" and a[key]["places"][spot] != b[key]["places"][spot]):
                moves[(was, now)] += 1
                lines.append(f"{key} {spot}: {was} -> {now} {b[key]['places'].get(spot)} "
                             f"{b[key]['doubt'].get(spot, '')}")
    return moves, lines


def wrong_frames(found: dict[str, Any]) -> list[str]:
    """The frames with a place read confidently wrong, each with those places."""
    return [f"{key} " + ", ".join(f"{s} read {p[0] or 'nothing'}, truth {p[1] or 'nothing'}"
                                  for s, p in frame["places"].items() if state(frame, s) == "wrong")
            for key, frame in sorted(found.items())
            if any(state(frame, s) == "wrong" for s in frame["places"])]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("render")
    r.add_argument("root", type=Path)
    r.add_argument("lo", type=int)
    r.add_argument("hi", type=int)
    d = sub.add_parser("read")
    d.add_argument("out", type=Path)
    d.add_argument("roots", type=Path, nargs="+")
    d.add_argument("--only", action="append", default=[], help="just this frame (its name), repeatable")
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    args = parser.parse_args(argv)
    if args.command == "render":
        render(args.root, args.lo, args.hi)
    elif args.command == "read":
        found = read(args.out, args.roots, set(args.only))
        wrong = wrong_frames(found)
        for line in wrong:
            print("wrong:", line)
        print(f"{len(found)} frames, {len(wrong)} with a place wrong")
    else:
        moves, lines = compare(json.loads(args.a.read_text()), json.loads(args.b.read_text()))
        print("\n".join(lines))
        print("changes:", {f"{was} -> {now}": n for (was, now), n in sorted(moves.items())} or "none")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
