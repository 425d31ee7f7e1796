"""``companion calibrate``: what a cafe owner runs once per table, into one table profile.

0. ``init``: the profile folder and its table.toml (game, players).
1. ``markers``: PDF sheets at true size (A4 or Letter): the board's markers, tiled,
   and the ChArUco sheet for the lens.
2. ``camera``: photos of the ChArUco sheet -> camera.json (reprojection error in px).
3. ``board``: a photo of the board -> board.json, the spot map, and board-check.png
   (markers found, homography residual in mm).
4. ``colours``: prints where to put one piece of each colour, then a photo ->
   colours.json (refused if a spot is still the board; colour separation).
5. ``faces``: a photo of a die showing each face -> faces.json (fit margin per face).
6. ``cards``: tap each card when asked -> tags.json; ``--only`` re-registers one card;
   ``tag-sheet``: a printable checklist of the cards and their tags.
See calibration/README.md.
"""

from __future__ import annotations

import json
import queue
from pathlib import Path

import click
import cv2
from tqdm import tqdm

from companion.calibration.sheets import PAPERS, charuco_pdf, marker_pdf, tags_pdf
from companion.calibration.steps import (
    CHARUCO_SQUARE_MM,
    CalibrationError,
    calibrate_camera,
    camera_verdict,
    charuco_board,
    colour_order,
    learn_colours,
    learn_faces,
    learn_faces_checked,
    register_cards,
)
from companion.games import GAMES, load_game
from companion.games.base import Layout, counted
from companion.profile import (
    CONFIG_FILE,
    Profile,
    ProfileError,
    apply_board_map,
    board_map_json,
    example_settings,
    profile_file,
    write_settings,
)
from companion.vision.colour_profile import ColourProfile
from companion.vision.geometry import MARKER_IDS

__all__ = ["calibrate", "learn_colours", "learn_faces"]

PROFILE_OPTION = click.option(
    "--profile", "profile_dir", type=click.Path(file_okay=False, path_type=Path),
    default=Path("table-profile"), show_default=True, help="The table profile folder.")


def _open(profile_dir: Path) -> tuple[Profile, str, Layout]:
    """The profile, its game and the layout calibration works on (the board map if there is one)."""
    try:
        profile = Profile.load(profile_dir)
    except ProfileError as err:
        raise click.ClickException(str(err)) from err
    game_name = profile.get("table", "game")
    if not game_name:
        raise click.ClickException(f"{profile_dir / CONFIG_FILE}: [table] game is not set")
    game = load_game(game_name)
    try:
        state = game.setup(profile.get("table", "players") or game.min_players,
                           profile.get("table", "variant"), 0)
    except ValueError as err:
        raise click.ClickException(f"{profile_dir / CONFIG_FILE}: {err}") from err
    layout = game.layout(state)
    try:
        layout = apply_board_map(layout, profile.file("board"))
    except ValueError as err:
        raise click.ClickException(str(err)) from err
    return profile, game_name, layout


def _photo(path: Path) -> object:
    image = cv2.imread(str(path))
    if image is None:
        raise click.ClickException(f"{path} is not an image (JPEG or PNG)")
    return image


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1))
    tmp.replace(path)


@click.group()
def calibrate() -> None:
    """Set up a table once, into its profile folder: markers, camera, board, colours, faces, cards."""


@calibrate.command()
@PROFILE_OPTION
@click.option("--game", type=click.Choice(sorted(GAMES)), required=True)
@click.option("--players", type=int, default=None)
@click.option("--data", "data_dir", default="data", show_default=True,
              help="Where the game log lives (relative to the profile folder, or absolute).")
@click.option("--pin", default=None, help="The table PIN (6+ digits; a random one when not given).")
def init(profile_dir: Path, game: str, players: int | None, data_dir: str, pin: str | None) -> None:
    """Make the profile folder with a table.toml for GAME (edit it after: camera, serial...).

    It holds a PIN (given, or drawn now: the same at every start) and the data folder."""
    from companion.web.auth import check_pin, random_pin

    if (profile_dir / CONFIG_FILE).exists():
        raise click.ClickException(f"{profile_dir / CONFIG_FILE} exists; edit it, or choose "
                                   "another --profile")
    try:
        pin = check_pin(pin) if pin is not None else random_pin()
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="--pin") from err
    settings = example_settings(game)
    settings["table"].update(pin=pin, data_dir=data_dir)
    if players is not None:
        settings["table"]["players"] = players
    try:
        load_game(game).setup(players or load_game(game).min_players, None, 0)
        for section, values in settings.items():
            write_settings(profile_dir, section, values)
    except (ValueError, ProfileError) as err:
        raise click.ClickException(str(err)) from err
    click.echo(f"wrote {profile_dir / CONFIG_FILE} for {game}: table PIN {pin}, game log in "
               f"{data_dir}; check camera and serial in it, then "
               f"'companion calibrate markers --profile {profile_dir}'")


@calibrate.command()
@PROFILE_OPTION
@click.option("--paper", type=click.Choice(sorted(PAPERS)), default="a4", show_default=True)
def markers(profile_dir: Path, paper: str) -> None:
    """Print the board markers and the ChArUco sheet: PDFs at true size on A4 or Letter."""
    _, game_name, layout = _open(profile_dir)
    title = load_game(game_name).title
    out = profile_dir / f"markers-{paper}.pdf"
    sheet = marker_pdf(layout, title, out, paper)
    skipped = f"; tiles {', '.join(sheet['skipped'])} lie inside the board and are not printed" \
        if sheet["skipped"] else ""
    w, h = sheet["page_mm"]
    click.echo(f"wrote {out}: {sheet['pages']} pages, {paper} {w:.0f}x{h:.0f} mm, canvas tiled "
               f"{sheet['tiles']}{skipped}; markers {sheet['marker_mm']:g} mm")
    if len(sheet["lay_order"]) > 1:
        click.echo(f"Where tiles overlap, lay them in this order, each on top of those before "
                   f"(crosshairs over crosshairs): {' '.join(sheet['lay_order'])}")
    charuco = profile_dir / f"charuco-{paper}.pdf"
    charuco_pdf(charuco_board(), CHARUCO_SQUARE_MM, charuco, paper)
    click.echo(f"wrote {charuco}: the sheet for 'calibrate camera' ({CHARUCO_SQUARE_MM:g} mm squares)")
    click.echo("Print at 100% ('Actual size', never 'Fit to page'); the scale bar on every page "
               "must measure 100 mm. Tape each marker with its dashed line on the board's edge.")


@calibrate.command()
@PROFILE_OPTION
@click.argument("photos", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
def camera(profile_dir: Path, photos: tuple[Path, ...]) -> None:
    """Lens intrinsics from 10-20 photos of the ChArUco sheet -> camera.json."""
    _open(profile_dir)
    images = [(p.name, cv2.imread(str(p))) for p in photos]
    try:
        result = calibrate_camera(images)
    except CalibrationError as err:
        raise click.ClickException(str(err)) from err
    out = profile_file(profile_dir, "lens")
    _write_json(out, result)
    for line in result["photos_rejected"]:
        click.echo(f"  not used: {line}")
    click.echo(f"wrote {out}: reprojection error {result['rms_px']:.3f} px from "
               f"{result['photos_used']} of {len(photos)} photos ({camera_verdict(result['rms_px'])})")


@calibrate.command()
@PROFILE_OPTION
@click.argument("photo", type=click.Path(exists=True, path_type=Path))
def board(profile_dir: Path, photo: Path) -> None:
    """Map the board from a photo: board.json (spots in mm) and board-check.png to look at."""
    from companion.calibration.steps import board_check_picture, fit_board

    _, game_name, layout = _open(profile_dir)
    image = _photo(photo)
    try:
        fit = fit_board(layout, image)
    except CalibrationError as err:
        raise click.ClickException(str(err)) from err
    quality = {"markers": fit.markers, "residual_mm": round(fit.residual_mm, 3),
               "max_residual_mm": round(fit.max_residual_mm, 3), "photo": photo.name}
    out = profile_file(profile_dir, "board")
    _write_json(out, board_map_json(game_name, layout, quality))
    check = profile_dir / "board-check.png"
    cv2.imwrite(str(check), board_check_picture(layout, image, fit))
    verdict = "good" if fit.max_residual_mm < 1.0 else \
        "poor: a marker is not flat or not where the sheet put it; retape it and retake the photo"
    click.echo(f"markers found: {fit.markers} of {len(MARKER_IDS)}; "
               f"homography residual {fit.residual_mm:.2f} mm mean, "
               f"{fit.max_residual_mm:.2f} mm worst ({verdict})")
    click.echo(f"wrote {out} ({len(layout.spots)} spots) and {check}: every red box should sit on its "
               f"printed space; if one does not, correct its [x, y, w, h] in {out.name} and run this again")
    _learn_empty(profile_dir, game_name, layout, out, image)


def _learn_empty(profile_dir: Path, game_name: str, layout: Layout, board_file: Path,
                 image: object) -> None:
    """The same photo, when it shows the empty board, teaches the reader this table's print."""
    from companion.vision.reader import BoardReader

    colours_file = profile_file(profile_dir, "colours")
    profile = ColourProfile.load(colours_file) if colours_file.exists() else ColourProfile.default()
    mapped = apply_board_map(layout, board_file)
    piece_colours = tuple(sorted(set(mapped.pieces) | set(mapped.shapes))) or None
    reader = BoardReader(mapped, profile, colours=piece_colours)
    try:
        reading = reader.learn_empty(image)
    except ValueError as err:
        click.echo(f"empty board not learnt ({err}); the drawn layout serves until you run this "
                   "step with a photo of the empty board")
        return
    empty = profile_file(profile_dir, "empty")
    cv2.imwrite(str(empty), reader.empty_board)
    differ = len(reading.doubtful)
    click.echo(f"learnt the empty board into {empty}: hands and shadows are found against this "
               f"table's own print ({counted(differ, 'place')} "
               f"{'differs' if differ == 1 else 'differ'} from the drawn {game_name} layout)")


@calibrate.command()
@PROFILE_OPTION
@click.argument("photo", required=False, type=click.Path(exists=True, path_type=Path))
@click.option("--empty", "empty_photo", type=click.Path(exists=True, path_type=Path), default=None,
              help="A photo of the empty board from the same place, to compare each spot with.")
def colours(profile_dir: Path, photo: Path | None, empty_photo: Path | None) -> None:
    """Learn piece colours: put one piece of each colour where told, then give the photo."""
    _, _, layout = _open(profile_dir)
    placements = colour_order(layout)
    if not placements:
        raise click.ClickException("this game has no coloured pieces to learn")
    click.echo("Put one piece of each colour on these spots (the board map's first spots):")
    for colour, spot in placements.items():
        meaning = layout.pieces.get(colour, "")
        click.echo(f"  {colour:8} on {spot}" + (f"   ({meaning})" if meaning else ""))
    if photo is None:
        photo = click.prompt("Then photograph the board with the table camera; the photo's path",
                             type=click.Path(exists=True, dir_okay=False, path_type=Path))
    image = _photo(photo)
    empty = _photo(empty_photo) if empty_photo else None
    try:
        result = learn_colours(layout, image, placements, empty)
    except CalibrationError as err:
        raise click.ClickException(str(err)) from err
    out = profile_file(profile_dir, "colours")
    result.profile.save(out)
    if len(placements) > 1:
        click.echo(f"colour separation: closest pair {result.closest[0]}/{result.closest[1]} "
                   f"delta E {result.separation:.1f} (10 or more tells them apart; 25+ is comfortable)")
    weakest = min(result.from_board, key=result.from_board.get)
    click.echo(f"nearest to the board: {weakest} delta E {result.from_board[weakest]:.1f}")
    click.echo(f"wrote {out}")


@calibrate.command()
@PROFILE_OPTION
@click.argument("photo", required=False, type=click.Path(exists=True, path_type=Path))
@click.option("--faces", "count", type=int, default=6, show_default=True,
              help="How many faces: face N lies on the N-th spot of the board map.")
def faces(profile_dir: Path, photo: Path | None, count: int) -> None:
    """Learn die-face icons: a die showing face 1 on the first spot, face 2 on the second..."""
    profile, _, layout = _open(profile_dir)
    if not 2 <= count <= len(layout.spots):
        raise click.ClickException(f"--faces must be from 2 to {len(layout.spots)}")
    placements = {spot.id: n for n, spot in enumerate(layout.spots[:count], 1)}
    click.echo("Lay one die on each of these spots, showing the face named:")
    for spot, n in placements.items():
        click.echo(f"  face {n} on {spot}")
    if photo is None:
        photo = click.prompt("Then photograph the board; the photo's path",
                             type=click.Path(exists=True, dir_okay=False, path_type=Path))
    colours_file = profile.file("colours")
    colours_profile = ColourProfile.load(colours_file) if colours_file else None
    try:
        result = learn_faces_checked(layout, _photo(photo), placements, colours_profile)
    except CalibrationError as err:
        raise click.ClickException(str(err)) from err
    out = profile_file(profile_dir, "faces")
    result.faces.save(out)
    worst = min(result.margins, key=result.margins.get)
    click.echo("fit margin per face (1 - best fit to another face; higher is safer): "
               + ", ".join(f"{f}: {m:.2f}" for f, m in sorted(result.margins.items())))
    click.echo(f"wrote {out}: weakest face {worst} (margin {result.margins[worst]:.2f})")


@calibrate.command()
@PROFILE_OPTION
@click.option("--only", "only", multiple=True, metavar="CARD",
              help="Register just this card again (repeatable); the others are kept.")
@click.option("--missing", is_flag=True, help="Register only the cards not registered yet.")
@click.option("--timeout", type=float, default=30.0, show_default=True,
              help="Seconds to wait for each tap before skipping the card.")
def cards(profile_dir: Path, only: tuple[str, ...], missing: bool, timeout: float) -> None:
    """Register card tags: tap each card on any reader when its name is shown -> tags.json."""
    from companion.sensors.serial_link import SerialLink
    from companion.sensors.tags import TagRegistry

    profile, game_name, _ = _open(profile_dir)
    port = profile.get("table", "serial")
    if not port:
        raise click.ClickException(f"{profile_dir / CONFIG_FILE}: [table] serial is not set")
    ids = load_game(game_name).card_ids()
    if not ids:
        raise click.ClickException(f"{game_name} has no tagged cards")
    out = profile_file(profile_dir, "tags")
    existing: dict[str, str] = (json.loads(out.read_text()).get(game_name, {}) if out.exists() else {})
    unknown = [c for c in only if c not in ids]
    if unknown:
        raise click.ClickException(f"not cards of {game_name}: {', '.join(unknown)}")
    wanted = list(only) if only else [c for c in ids if c not in existing.values()] if missing else ids
    if not wanted:
        click.echo(f"every card of {game_name} is registered in {out}")
        return
    taps: queue.Queue[str] = queue.Queue()
    link = SerialLink(port, lambda reader, uid: taps.put(uid), lambda seat, pressed: None).start()
    try:
        if not link.wait_connected(10):
            raise click.ClickException(f"no table device answered on {port}: {link.health.problem}")
        kept = {uid: card for uid, card in existing.items() if card not in wanted}
        new, missed = register_cards(taps, wanted, kept, timeout, tqdm.write)
    finally:
        link.stop()
    TagRegistry.save(out, game_name, kept | new)
    click.echo(f"wrote {out}: {len(new)} of {len(wanted)} cards registered now, "
               f"{len(kept | new)} of {len(ids)} in all")
    if missed:
        click.echo("not registered: " + ", ".join(missed) + "; tap them again with "
                   + " ".join(f"--only {c}" for c in missed[:5]))


@calibrate.command("tag-sheet")
@PROFILE_OPTION
@click.option("--paper", type=click.Choice(sorted(PAPERS)), default="a4", show_default=True)
def tag_sheet(profile_dir: Path, paper: str) -> None:
    """Print a checklist of every card and its tag (registered, or the factory sheet's)."""
    from companion.sensors.tags import factory_uid

    profile, game_name, _ = _open(profile_dir)
    game = load_game(game_name)
    ids = game.card_ids()
    if not ids:
        raise click.ClickException(f"{game_name} has no tagged cards")
    tags = profile.file("tags")
    registered = json.loads(tags.read_text()).get(game_name, {}) if tags else {}
    by_card = {card: uid for uid, card in registered.items()}
    rows = [(card, by_card[card], "registered") if card in by_card
            else (card, factory_uid(game_name, card), "factory sheet") for card in ids]
    out = profile_dir / f"tags-{paper}.pdf"
    sheet = tags_pdf(game.title, rows, out, paper)
    click.echo(f"wrote {out}: {sheet['rows']} cards on {sheet['pages']} pages ({paper}), "
               f"{len(by_card)} registered, {len(ids) - len(by_card)} from the factory sheet")
