"""``companion vision``: check the camera path by hand, on your own photos.

``read`` prints what the reader sees in a picture as JSON (every position with
its confidence, the doubtful ones with their reason) and writes the picture
annotated; ``render`` draws a game state as the synthetic camera sees it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import cv2

from companion.games import GAMES, load_game
from companion.games.base import Layout


def game_layout(game_name: str, players: int | None) -> tuple[Any, Any, Layout]:
    game = load_game(game_name)
    state = game.setup(players or game.min_players, None, 0)
    return game, state, game.layout(state)


@click.group()
def vision() -> None:
    """Check the camera path: read a photo, render a state."""


@vision.command("read")
@click.option("--game", type=click.Choice(sorted(GAMES)), required=True)
@click.option("--players", type=int, default=None)
@click.option("--colours", type=click.Path(exists=True, path_type=Path), default=None,
              help="The colour profile from 'calibrate colours'.")
@click.option("--lens", type=click.Path(exists=True, path_type=Path), default=None,
              help="The lens profile from 'calibrate camera'.")
@click.option("--faces", type=click.Path(exists=True, path_type=Path), default=None)
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Where to write the annotated picture (default: IMAGE-read.png beside it).")
@click.argument("image", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def read_image(game: str, players: int | None, colours: Path | None, lens: Path | None,
               faces: Path | None, out: Path | None, image: Path) -> None:
    """Read the board in a photo (PNG/JPEG): JSON on stdout, an annotated picture beside it."""
    from companion.vision.annotate import annotate
    from companion.vision.colour_profile import ColourProfile
    from companion.vision.faces import FaceTemplates
    from companion.vision.reader import BoardReader

    frame = cv2.imread(str(image), cv2.IMREAD_COLOR)
    if frame is None:
        raise click.ClickException(f"{image} is not a picture OpenCV can read")
    rules, _, layout = game_layout(game, players)
    players = players or rules.min_players

    def reader_for(layout: Layout) -> Any:
        try:
            return BoardReader(
                layout, ColourProfile.load(colours) if colours else ColourProfile.default(),
                colours=tuple(sorted(set(layout.pieces) | set(layout.shapes))) or None,
                faces=FaceTemplates.load(faces) if faces else None, lens=lens)
        except (ValueError, KeyError, OSError) as err:
            raise click.ClickException(str(err)) from err

    reader = reader_for(layout)
    reading = reader.read(frame)
    result = reading_json(reader, reading)
    hint = _players_hint(rules, players, reading, lambda n: reader_for(game_layout(game, n)[2]).read(frame))
    if hint:
        result["hint"] = hint
        click.echo(hint, err=True)
    click.echo(json.dumps(result, indent=1))
    out = out or image.with_name(f"{image.stem}-read.png")
    cv2.imwrite(str(out), annotate(frame, reader, reading))
    click.echo(f"wrote {out}", err=True)


LAYOUT_DOUBT_SHARE = 0.25  # more of the places than this doubtful: is it the layout for this board?


def _players_hint(rules: Any, players: int, reading: Any, read_as: Any) -> str:
    """When much of a found board is doubtful, the player count whose layout explains the
    picture far better (half the doubts or fewer), said as the option to run with: a board
    laid out for three players read as one for two leaves most places unexplained, and the
    reason is not "glare?" at each of them."""
    if reading.view is None or reading.hand:
        return ""
    doubts = len(reading.doubtful)
    spots = len(reading.confidence) or 1
    if doubts <= LAYOUT_DOUBT_SHARE * spots:
        return ""
    best, fewest = players, doubts
    for n in rules.player_counts():
        if n == players:
            continue
        other = read_as(n)
        if other.view is not None and len(other.doubtful) <= fewest / 2:
            best, fewest = n, len(other.doubtful)
    if best == players:
        return ""
    return (f"{doubts} places doubtful as laid out for {players} players, {fewest} as laid out for "
            f"{best}: is this a {best}-player game? Run with --players {best}.")


def reading_json(reader: Any, reading: Any) -> dict[str, Any]:
    """A reading as plain JSON: every spot with pieces or doubt, with confidences."""
    positions: dict[str, Any] = {}
    view = reading.view or {}
    for spot in reader.layout.spots:
        pieces = view.get(spot.id, ())
        if not pieces and spot.id not in reading.doubtful:
            continue
        entry: dict[str, Any] = {"label": reader.spot_label(spot.id),
                                 "pieces": [[p.colour, p.pips] for p in pieces],
                                 "confidence": round(float(reading.confidence.get(spot.id, 0.0)), 2)}
        if spot.id in reading.doubtful:
            entry["doubt"] = reading.doubtful[spot.id]
        positions[spot.id] = entry
    return {
        "board_found": reading.view is not None,
        "usable": reading.usable,
        "problem": reading.problem or None,
        "hand": reading.hand,
        "empty_positions_confidence": 1.0 if reading.view is not None else 0.0,
        "positions": positions,
        "doubtful": {s: {"label": reader.spot_label(s), "reason": why}
                     for s, why in sorted(reading.doubtful.items())},
    }
