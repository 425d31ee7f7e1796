"""Render rehearsal photos for the calibration steps (no camera, no table needed).

    python calibration/render_photos.py --game jivecat --players 4 --out photos/

writes charuco-NN.png (for 'calibrate camera'), board.png (for 'calibrate board'),
colours.png (for 'calibrate colours') and, with --faces, faces.png.
"""

from __future__ import annotations

from pathlib import Path

import click

from companion.calibration.rehearsal import write_photos
from companion.games import GAMES, load_game


@click.command()
@click.option("--game", type=click.Choice(sorted(GAMES)), required=True)
@click.option("--players", type=int, default=None)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("photos"))
@click.option("--faces", is_flag=True, help="Also a photo of six dice for 'calibrate faces'.")
def main(game: str, players: int | None, out: Path, faces: bool) -> None:
    rules = load_game(game)
    layout = rules.layout(rules.setup(players or rules.min_players, None, 0))
    for path in write_photos(layout, out, faces):
        click.echo(f"wrote {path}")


if __name__ == "__main__":
    main()
