"""``scripts/frames3d_places.py``, the place-by-place check every 3D mend is measured by (stop 97:
the tools had lived outside the repository and went with a machine), on one kept frame: its
places read as the tests pin them, a reading compared with itself changes nothing, and a place
moved from wrong to asked is counted so."""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path

from committed_frames import KEPT_DIR

_SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "frames3d_places.py"
_spec = importlib.util.spec_from_file_location("frames3d_places", _SCRIPT)
assert _spec is not None and _spec.loader is not None
places = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(places)


def test_a_kept_frame_read_place_by_place_and_compared(tmp_path: Path) -> None:
    out = tmp_path / "read.json"
    assert places.main(["read", str(out), str(KEPT_DIR), "--only", "jivecat-t20-b79"]) == 0
    found = json.loads(out.read_text())
    (key,) = found
    frame = found[key]
    assert key.endswith("test/jivecat-t20-b79")
    assert places.state(frame, "C11") == "asked"  # (stop 97's white chip, ``test_vision_hotspot``)
    assert places.state(frame, "C18") == "right" and frame["places"]["C18"] == ["yellow:0", "yellow:0"]
    assert places.wrong_frames(found) == []
    assert places.compare(found, found) == ({}, [])
    before = copy.deepcopy(found)
    del before[key]["doubt"]["C11"]
    before[key]["places"]["C11"] = ["", "white:0"]  # as main read it before the mend
    moves, lines = places.compare(before, found)
    assert moves == {("wrong", "asked"): 1}
    assert lines == [f"{key} C11: wrong -> asked ['', 'white:0'] glare?"]
    assert places.wrong_frames(before) == [f"{key} C11 read nothing, truth white:0"]


def test_what_truly_hides_a_kept_frames_places(tmp_path: Path) -> None:
    """``hidden``: a place is hidden where the frame is clipped white wide enough for one of its
    pieces, or a hand covers it; near a clipped patch it may be asked.  Stop 97's white chip
    (C11) lies beside a hot spot too narrow to hide it: it may be asked, and the frame is
    judged exact round what hides it only if every other place is read."""
    from companion.bench.vision3d import frame_layout
    from companion.sim.camera.frames3d import committed

    out = tmp_path / "read.json"
    assert places.main(["read", str(out), str(KEPT_DIR), "--only", "jivecat-t20-b79"]) == 0
    found = json.loads(out.read_text())
    frames = {f.path.stem: f for f in committed(KEPT_DIR, "test")}
    chip = frames["jivecat-t20-b79"]
    unseen, touched = places.hidden_places(chip, frame_layout(chip.game, int(chip.truth["players"]))[0])
    assert not unseen and "C11" in touched and "C18" not in touched
    (frame,) = found.values()
    counts = places.hidden(found, [KEPT_DIR])["test"]
    assert counts["frames"] == 1 and counts["exact"] == 0
    assert counts["exact round what hides"] == (not set(frame["doubt"]) - touched)
    hand = frames["baron_voodoo-t20-b49-hand"]
    unseen, touched = places.hidden_places(hand, frame_layout(hand.game, int(hand.truth["players"]))[0])
    assert set(hand.truth["hand"]["covered"]) <= unseen <= touched
