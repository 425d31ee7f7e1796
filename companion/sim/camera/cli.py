"""``companion vision render``: a state drawn as the simulated table's flat camera sees it.

It sits with the world's cameras, not with the reader; ``companion.cli`` hangs it on the
``vision`` group beside ``vision read``.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
import cv2

from companion.games import GAMES
from companion.games.base import view_from_json, view_to_json
from companion.vision.cli import game_layout


@click.command("render")
@click.option("--game", type=click.Choice(sorted(GAMES)), required=True)
@click.option("--players", type=int, default=None)
@click.option("--state", "state_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="A game state as JSON, or a board view {spot: [[colour, pips]]}.")
@click.option("--seed", type=int, default=0, show_default=True, help="Camera pose and light.")
@click.option("--topdown", is_flag=True, help="The board straight from above instead of a camera frame.")
@click.option("--out", type=click.Path(path_type=Path), default=Path("render.png"), show_default=True)
def render_state(game: str, players: int | None, state_file: Path | None, seed: int, topdown: bool,
                 out: Path) -> None:
    """Draw a state (default: the set-up) as the synthetic camera sees it."""
    from companion.sim.camera.render import Camera, render_topdown

    rules, state, layout = game_layout(game, players)
    view = rules.board_view(state)
    if state_file is not None:
        try:
            data = json.loads(state_file.read_text())
            spot_ids = {s.id for s in layout.spots}
            if isinstance(data, dict) and data and set(data) <= spot_ids:
                view = view_from_json(data)
            else:
                view = rules.board_view(data)
                layout = rules.layout(data)
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            raise click.ClickException(f"{state_file}: not a state or board view of {game}: {err}") from err
    image = render_topdown(layout, view) if topdown else Camera(layout, seed=seed).frame(view)
    cv2.imwrite(str(out), image)
    click.echo(json.dumps(view_to_json(view)))
    click.echo(f"wrote {out}", err=True)
