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
  hidden OUT ROOT [ROOT...] of a reading (``read``'s OUT), what truly hides each place: the frame
                           clipped white where a piece of the place could lie wholly, or a hand's
                           cover; per split the frames exact round it (the flat bench's judgement
                           under glare and an arm) and the doubts at places nothing hides

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


CLIPPED = 250  # every channel at least this: the frame clipped white (``bench.vision.CLIPPED``)
TOUCHED_MM = 8  # a place this near a clipped patch may be asked (``bench.vision.TOUCHED_MM``)


def hidden_places(frame: Any, layout: Any) -> tuple[set[str], set[str]]:
    """The places a committed frame truly hides, and those it may: where the frame is clipped
    white wide enough for a piece of the place to lie wholly in it (the board plane through
    the truth camera), or the hand covers (``covered``); those within ``TOUCHED_MM`` of a
    clipped patch, or partly under the hand, may be asked too."""
    import cv2
    import numpy as np

    from companion.sim.camera.render3d import Pinhole
    from companion.vision.board_print import piece_slots
    from companion.vision.geometry import MARGIN_MM, canvas_size_mm

    camera = Pinhole.from_json(frame.truth["camera"])
    w, h = (int(np.ceil(v)) for v in canvas_size_mm(layout))
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64) + 0.5
    px = camera.project(np.c_[xs.ravel(), ys.ravel(), np.zeros(xs.size)]).reshape(h, w, 2).astype(np.float32)
    clipped = (frame.image() >= CLIPPED).all(axis=2).astype(np.uint8)
    board = cv2.remap(clipped, px[..., 0], px[..., 1], cv2.INTER_NEAREST)
    depth = cv2.distanceTransform(board, cv2.DIST_L2, 3)
    near = cv2.dilate(board, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * TOUCHED_MM + 1,) * 2))
    hidden, touched = set(), set()
    for spot in layout.spots:
        y0, x0 = int(spot.y + MARGIN_MM), int(spot.x + MARGIN_MM)
        rect = (slice(y0, max(y0 + 1, int(spot.y + spot.h + MARGIN_MM))),
                slice(x0, max(x0 + 1, int(spot.x + spot.w + MARGIN_MM))))
        if depth[rect].max() >= piece_slots(4, spot.w, spot.h)[0][2]:
            hidden.add(spot.id)
        if near[rect].any():
            touched.add(spot.id)
    hand = frame.truth.get("hand") or {}
    hidden |= set(hand.get("covered", ()))
    return hidden, touched | hidden | set(hand.get("partly_covered", ()))


def hidden(found: dict[str, Any], roots: list[Path]) -> dict[str, Counter]:
    """Per split (and apart, its hand frames), the frames of a reading judged round what truly
    hides them: exact, exact round it (every hidden place asked, every place nothing touches
    read, none wrong), and the doubts at places nothing hides or touches, by reason."""
    from companion.bench.vision3d import _reason, frame_layout
    from companion.sim.camera.frames3d import committed

    tally: dict[str, Counter] = {}
    for root in roots:
        for frame in committed(root):
            seen = found.get(f"{root}:{frame.split}/{frame.path.stem}")
            if seen is None:
                continue
            layout, _colours = frame_layout(frame.game, int(frame.truth["players"]))
            unseen, touched = hidden_places(frame, layout)
            counts = tally.setdefault(f"{frame.split}{' hand' if frame.hand else ''}", Counter())
            counts["frames"] += 1
            counts["frames with a hidden place"] += bool(unseen)
            if seen["problem"] or not seen["places"]:
                counts["refused"] += 1
                continue
            asked = set(seen["doubt"])
            if any(state(seen, s) == "wrong" for s in seen["places"]):
                counts["a place wrong"] += 1
                continue
            counts["exact"] += not asked
            counts["exact round what hides"] += unseen <= asked and not asked - touched
            for spot in asked - touched:
                counts["asked where nothing hides: " + _reason(seen["doubt"][spot])] += 1
    return tally


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
    u = sub.add_parser("hidden")
    u.add_argument("reading", type=Path)
    u.add_argument("roots", type=Path, nargs="+")
    args = parser.parse_args(argv)
    if args.command == "render":
        render(args.root, args.lo, args.hi)
    elif args.command == "read":
        found = read(args.out, args.roots, set(args.only))
        wrong = wrong_frames(found)
        for line in wrong:
            print("wrong:", line)
        print(f"{len(found)} frames, {len(wrong)} with a place wrong")
    elif args.command == "hidden":
        for split, counts in sorted(hidden(json.loads(args.reading.read_text()), args.roots).items()):
            print(f"{split}: " + ", ".join(f"{k} {n}" for k, n in counts.most_common()))
    else:
        moves, lines = compare(json.loads(args.a.read_text()), json.loads(args.b.read_text()))
        print("\n".join(lines))
        print("changes:", {f"{was} -> {now}": n for (was, now), n in sorted(moves.items())} or "none")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
