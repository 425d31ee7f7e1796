"""Each calibration step on rendered photos: it writes into the profile, refuses bad input
and measures its result; the printed sheets are true to the geometry's millimetres."""

from __future__ import annotations

import json
import queue
import threading
from pathlib import Path

import cv2
import pytest
from click.testing import CliRunner
from pypdf import PdfReader
from pypdf.generic import ContentStream

from companion.calibration import calibrate
from companion.calibration.rehearsal import (
    TRUE_FX,
    board_photo,
    charuco_photos,
    colours_photo,
    faces_photo,
)
from companion.calibration.sheets import PAPERS
from companion.calibration.steps import (
    CalibrationError,
    calibrate_camera,
    colour_order,
    face_margins,
    fit_board,
    learn_colours,
    learn_faces_checked,
    register_cards,
)
from companion.games import load_game
from companion.games.base import Piece, make_view
from companion.profile import Profile, write_settings
from companion.sensors.serial_link import SerialLink
from companion.sensors.tags import factory_uid
from companion.sim.camera.render import Camera
from companion.sim.device import DeviceEmulator
from companion.vision.colour_profile import ColourProfile
from companion.vision.geometry import MARKER_IDS, MARKER_MM
from companion.vision.reader import BoardReader

POINTS_PER_MM = 72 / 25.4


def layout_of(game: str, players: int):
    rules = load_game(game)
    return rules.layout(rules.setup(players, None, 0))


def profile(tmp_path: Path, game: str, players: int) -> Path:
    folder = tmp_path / "profile"
    result = CliRunner().invoke(calibrate, ["init", "--profile", str(folder), "--game", game,
                                            "--players", str(players)])
    assert result.exit_code == 0, result.output
    return folder


def filled_squares(pdf: Path) -> list[list[tuple[float, float]]]:
    """Per page, the width and height (mm) of every rectangle drawn with 're' then filled."""
    pages = []
    for page in PdfReader(pdf).pages:
        ops = ContentStream(page.get_contents(), page.pdf).operations
        found = []
        for (operands, op), (_, nxt) in zip(ops, ops[1:] + [([], b"")], strict=True):
            if op == b"re" and nxt in (b"f", b"F", b"f*", b"B"):
                found.append((float(operands[2]) / POINTS_PER_MM, float(operands[3]) / POINTS_PER_MM))
        pages.append(found)
    return pages


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_marker_sheets_print_true_size_on_the_paper_they_name(tmp_path: Path, paper: str) -> None:
    folder = profile(tmp_path, "jivecat", 4)
    result = CliRunner().invoke(calibrate, ["markers", "--profile", str(folder), "--paper", paper])
    assert result.exit_code == 0, result.output
    pdf = folder / f"markers-{paper}.pdf"
    reader = PdfReader(pdf)
    width, height = PAPERS[paper]
    for page in reader.pages:
        box = page.mediabox
        size = sorted((float(box.width) / POINTS_PER_MM, float(box.height) / POINTS_PER_MM))
        assert size == pytest.approx(sorted((width, height)), abs=0.05)
    assert len(reader.pages) > 1  # a 680x500 mm board does not fit one page: tiled
    markers = [sq for page in filled_squares(pdf) for sq in page if sq[0] > 10]
    assert len(markers) >= 4  # each corner's marker, whole, on some page
    for w, h in markers:
        assert w == pytest.approx(MARKER_MM, abs=0.01) and h == pytest.approx(MARKER_MM, abs=0.01)
    text = "".join(page.extract_text() for page in reader.pages)
    assert "must measure exactly 100 mm" in text and ("A4 (210 x 297 mm)" in text if paper == "a4"
                                                      else "Letter (8.5 x 11 in" in text)
    charuco = PdfReader(folder / f"charuco-{paper}.pdf")
    assert len(charuco.pages) == 1


def test_camera_step_recovers_the_rendering_camera(tmp_path: Path) -> None:
    photos = charuco_photos(8)
    result = calibrate_camera([(f"p{i}.png", p) for i, p in enumerate(photos)])
    assert result["rms_px"] < 0.5 and result["photos_used"] == 8
    assert result["matrix"][0][0] == pytest.approx(TRUE_FX, rel=0.03)
    blank = photos[0] * 0 + 128
    with pytest.raises(CalibrationError, match="found in 2 of 3 photos.*\n  blank.png: the ChArUco"):
        calibrate_camera([("a", photos[0]), ("b", photos[1]), ("blank.png", blank)])
    folder = profile(tmp_path, "times_square", 2)
    for i, photo in enumerate(photos):
        cv2.imwrite(str(tmp_path / f"c{i}.png"), photo)
    out = CliRunner().invoke(calibrate, ["camera", "--profile", str(folder),
                                         *[str(tmp_path / f"c{i}.png") for i in range(8)]])
    assert out.exit_code == 0 and "reprojection error 0." in out.output
    assert Profile.load(folder).file("lens") == folder / "camera.json"


def test_board_step_measures_the_fit_and_refuses_a_hidden_marker(tmp_path: Path) -> None:
    layout = layout_of("jivecat", 4)
    photo = board_photo(layout)
    fit = fit_board(layout, photo)
    assert fit.markers == len(MARKER_IDS) and fit.max_residual_mm < 1.0
    covered = photo.copy()
    cv2.rectangle(covered, (0, 0), (400, 250), (60, 80, 95), -1)  # a marker under a coaster
    with pytest.raises(CalibrationError, match=rf"[0-9] of {len(MARKER_IDS)} markers found \(not seen: 0"):
        fit_board(layout, covered)
    folder = profile(tmp_path, "jivecat", 4)
    cv2.imwrite(str(tmp_path / "board.png"), photo)
    out = CliRunner().invoke(calibrate, ["board", "--profile", str(folder), str(tmp_path / "board.png")])
    assert out.exit_code == 0, out.output
    assert f"markers found: {len(MARKER_IDS)} of {len(MARKER_IDS)}; homography residual" in out.output
    data = json.loads((folder / "board.json").read_text())
    assert data["game"] == "jivecat" and len(data["spots"]) == len(layout.spots)
    assert (folder / "board-check.png").exists()
    # the photo shows the empty board: the reader learns this table's own print from it
    assert "learnt the empty board into" in out.output
    learnt = cv2.imread(str(folder / "empty.png"))
    from companion.profile import Profile
    from companion.vision.reader import BoardReader

    mapped = BoardReader(layout)
    mapped.use_empty(learnt)  # the right size for this board map
    assert Profile.load(folder).service_settings()["empty"] == folder / "empty.png"


def test_board_step_learns_no_empty_board_from_a_photo_with_pieces(tmp_path: Path) -> None:
    layout = layout_of("times_square", 2)
    folder = profile(tmp_path, "times_square", 2)
    cv2.imwrite(str(tmp_path / "pieces.png"), colours_photo(layout))
    out = CliRunner().invoke(calibrate, ["board", "--profile", str(folder), str(tmp_path / "pieces.png")])
    assert out.exit_code == 0, out.output  # the board map is still made from it
    assert "empty board not learnt (pieces stand on" in out.output
    assert (folder / "board.json").exists() and not (folder / "empty.png").exists()


def test_colours_step_prints_the_order_first_and_refuses_the_empty_board(tmp_path: Path) -> None:
    layout = layout_of("times_square", 2)
    folder = profile(tmp_path, "times_square", 2)
    cv2.imwrite(str(tmp_path / "empty.png"), board_photo(layout))
    cv2.imwrite(str(tmp_path / "pieces.png"), colours_photo(layout))
    out = CliRunner().invoke(calibrate, ["colours", "--profile", str(folder)],
                             input=f"{tmp_path / 'empty.png'}\n")
    order = colour_order(layout)
    first = next(iter(order))
    assert out.output.index(f"{first:8} on {order[first]}") < out.output.index("the photo's path")
    assert out.exit_code == 1 and "this photo shows the empty board" in out.output
    assert not (folder / "colours.json").exists()
    out = CliRunner().invoke(calibrate, ["colours", "--profile", str(folder), str(tmp_path / "pieces.png"),
                                         "--empty", str(tmp_path / "empty.png")])
    assert out.exit_code == 0, out.output
    assert "colour separation: closest pair" in out.output
    learnt = ColourProfile.load(folder / "colours.json")
    # a board read with the learnt colours, under another camera
    # (each colour on another place than the photo's, one that takes it: a figure off
    # Champagne Charlie's strip, which only he walks)
    used = set(order.values())
    elsewhere = {c: [s.id for s in layout.spots if s.may_hold(c) and s.id not in used] for c in order}
    view = make_view({elsewhere[c][3 + i]: [Piece(c, 0)] for i, c in enumerate(order)})
    reader = BoardReader(layout, learnt, colours=tuple(order))
    assert reader.read(Camera(layout, seed=9).frame(view)).view == view


def test_colours_step_names_a_missing_piece(tmp_path: Path) -> None:
    layout = layout_of("jivecat", 4)
    order = colour_order(layout)
    missing = list(order)[2]
    view = make_view({spot: [Piece(c, 0)] for c, spot in order.items() if c != missing})
    with pytest.raises(CalibrationError, match=f"{missing} on {order[missing]}"):
        learn_colours(layout, Camera(layout, seed=3).frame(view), order)


def test_faces_step_reports_a_margin_per_face_and_refuses_twins(tmp_path: Path) -> None:
    layout = layout_of("baron_voodoo", 2)
    placements = {s.id: n for n, s in enumerate(layout.spots[:6], 1)}
    result = learn_faces_checked(layout, faces_photo(layout), placements)
    assert sorted(result.margins) == [1, 2, 3, 4, 5, 6]
    assert min(result.margins.values()) > 0.1
    twins = make_view({s: [Piece("yellow", 2 if n in (2, 3) else n)] for s, n in placements.items()})
    with pytest.raises(CalibrationError, match=r"faces \[2, 3\] cannot be told apart"):
        learn_faces_checked(layout, Camera(layout, seed=1).frame(twins), placements)
    assert face_margins(result.faces) == result.margins


def tapper(device: DeviceEmulator, uids: dict[str, bytes], asked: queue.Queue[str]) -> threading.Thread:
    """A person at the table: waits for a card's name, then lays that card on reader 6."""
    def run() -> None:
        while (card := asked.get()) is not None:
            if card in uids:
                device.lay_card(6, uids[card])
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_cards_register_over_the_emulated_device_and_one_can_be_redone(tmp_path: Path) -> None:
    game = load_game("king_of_clubs")
    cards = game.card_ids()[:3]
    device = DeviceEmulator().start()
    taps: queue.Queue[str] = queue.Queue()
    link = SerialLink(device.port, lambda r, uid: taps.put(uid), lambda s, p: None).start()
    asked: queue.Queue[str | None] = queue.Queue()
    uids = {c: bytes.fromhex(factory_uid("x", c)) for c in cards[:2]}  # the third card is lost
    person = tapper(device, uids, asked)
    said: list[str] = []
    try:
        assert link.wait_connected(5)
        mapping, missed = register_cards(taps, cards, {}, 1.5, said.append, asked.put)
    finally:
        asked.put(None)
        person.join(5)
        link.stop()
    assert mapping == {uids[cards[0]].hex(): cards[0], uids[cards[1]].hex(): cards[1]}
    assert missed == [cards[2]] and f"  no tap for {cards[2]}: skipped" in said

    # the missed card, found under the bar, registered alone through the command
    folder = profile(tmp_path, "king_of_clubs", 2)
    write_settings(folder, "table", {"serial": device.port})
    (folder / "tags.json").write_text(json.dumps({"king_of_clubs": mapping}))
    found = bytes.fromhex("0badcafe")
    stop = threading.Event()

    def keep_tapping() -> None:  # laid on the reader again and again until the command is done
        while not stop.is_set():
            device.lay_card(6, found)
            stop.wait(0.3)

    person = threading.Thread(target=keep_tapping, daemon=True)
    person.start()
    try:
        out = CliRunner().invoke(calibrate, ["cards", "--profile", str(folder), "--only", cards[2],
                                             "--timeout", "8"])
    finally:
        stop.set()
        person.join(5)
        device.stop()
    assert out.exit_code == 0, out.output
    assert "1 of 1 cards registered now, 3 of" in out.output
    saved = json.loads((folder / "tags.json").read_text())["king_of_clubs"]
    assert saved == mapping | {"0badcafe": cards[2]}
    bad = CliRunner().invoke(calibrate, ["cards", "--profile", str(folder), "--only", "no-such-card"])
    assert bad.exit_code == 1 and "not cards of king_of_clubs: no-such-card" in bad.output


def test_the_tag_sheet_lists_every_card_with_its_tag(tmp_path: Path) -> None:
    folder = profile(tmp_path, "jivecat", 3)
    cards = load_game("jivecat").card_ids()
    (folder / "tags.json").write_text(json.dumps({"jivecat": {"0badcafe": cards[0]}}))
    out = CliRunner().invoke(calibrate, ["tag-sheet", "--profile", str(folder), "--paper", "letter"])
    assert out.exit_code == 0, out.output
    assert f"{len(cards)} cards on" in out.output and "1 registered" in out.output
    reader = PdfReader(folder / "tags-letter.pdf")
    box = reader.pages[0].mediabox
    assert (float(box.width), float(box.height)) == pytest.approx((612, 792))
    text = "\n".join(page.extract_text() for page in reader.pages)
    assert f"{cards[0]}\n0badcafe\nregistered" in text
    assert f"{cards[1]}\n{factory_uid('jivecat', cards[1])}\nfactory sheet" in text
    assert all(card in text for card in cards)


def test_colours_are_asked_for_where_the_rules_put_them() -> None:
    """``calibrate colours`` asks for each colour on a free place that takes it (``Spot.takes``):
    Baron Voodoo's score marker on its track, not on grid cell A1; one place a colour."""
    layout = layout_of("baron_voodoo", 2)
    order = colour_order(layout)
    assert order["black"].startswith("track") and order["orange"].startswith("offer")
    assert all(layout.spot(spot).may_hold(colour) for colour, spot in order.items())
    assert len(set(order.values())) == len(order) == len(set(layout.pieces) | set(layout.shapes))
