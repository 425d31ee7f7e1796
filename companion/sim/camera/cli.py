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


@click.command("render3d")
@click.option("--game", type=click.Choice(sorted(GAMES)), default=None,
              help="One game's frames of the committed plan (default: every game).")
@click.option("--split", type=click.Choice(["tune", "test"]), default=None,
              help="Only this split's frames (its lamps, plastics and camera sides).")
@click.option("--boards", type=int, default=3, show_default=True, help="Boards per game, split and tilt.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where the frames go (default: the committed set, tests/data/frames3d).")
@click.option("--samples", type=int, default=2, show_default=True, help="Cycles samples a pixel (denoised).")
@click.option("--size", type=click.Choice(["1280x720", "960x540", "640x360", "320x180"]), default="1280x720",
              show_default=True)
@click.option("--threads", type=int, default=2, show_default=True)
@click.option("--limit", type=int, default=None, help="Stop after this many new frames.")
@click.option("--grid", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Render nothing: write frames already made beside the flat camera's (a PNG).")
@click.option("--fresh", is_flag=True,
              help="Only the scenes of --boards that the committed plan has not (boards the reader was "
                   "never tuned on, to check it with bench vision --renderer 3d --frames-dir); needs --out.")
def render3d_frames(game: str | None, split: str | None, boards: int, out: Path | None, samples: int,
                    size: str, threads: int, limit: int | None, grid: Path | None, fresh: bool) -> None:
    """Render the physically based frames of the plan that are not on disk yet (Blender's
    Cycles; about a minute a frame on two cores, a 640x480 one a few seconds; needs the
    render3d extra)."""
    from companion.sim.camera.frames3d import (
        FRAMES_DIR,
        committed,
        comparison_grid,
        fresh_plan,
        plan,
        render_spec,
    )

    if grid is not None:
        shown: list = []  # four frames of four games, the steepest tilts first, both splits
        frames = sorted(committed(out or FRAMES_DIR, split), key=lambda f: (-f.tilt, f.split != "test"))
        for f in frames:
            if game in (None, f.game) and f.game not in {g.game for g in shown} and len(shown) < 4:
                shown.append(f)
        try:
            image = comparison_grid(sorted(shown, key=lambda f: f.tilt))
            cv2.imwrite(str(grid), image, [cv2.IMWRITE_PNG_COMPRESSION, 9])
        except ValueError as err:
            raise click.ClickException(str(err)) from err
        click.echo(f"wrote {grid}")
        return

    if fresh and (out is None or out.resolve() == FRAMES_DIR.resolve()):
        raise click.ClickException("--fresh frames are a check, not the committed set: give --out")
    try:
        import bpy  # noqa: F401  (only to say plainly that it is missing)
    except ImportError as err:
        raise click.ClickException(f"Blender as a module is not installed ({err}): "
                                   "pip install --no-deps bpy==5.0.1 zstandard requests cython") from err
    root = out or FRAMES_DIR
    width, height = (int(v) for v in size.split("x"))
    made = 0
    for spec in fresh_plan(boards) if fresh else plan({"tune": boards, "test": boards}):
        if (game and spec.game != game) or (split and spec.split != split) or spec.path(root).exists():
            continue
        if limit is not None and made >= limit:
            break
        path = render_spec(spec, root, threads, samples=samples, width=width, height=height)
        made += 1
        click.echo(f"wrote {path}")
    click.echo(f"{made} new frames in {root}", err=True)
