"""The ``companion`` command: serve, demo, replay, bench, calibrate."""

from __future__ import annotations

import json
import logging
import signal
import sys
import time
from pathlib import Path
from typing import Any

import click
from tqdm import tqdm

from companion.games import GAMES, load_game
from companion.venue.cli import mqtt_from_options, mqtt_options

GAME_CHOICE = click.Choice(sorted(GAMES))


def shared_options(func: Any) -> Any:
    """Options every game shares, on serve and demo alike."""
    options = [
        click.option("--game", type=GAME_CHOICE, default="times_square", show_default=True),
        click.option("--players", type=int, default=None, help="Number of players."),
        click.option("--variant", default=None, help="Variant name (see 'companion games')."),
        click.option("--seed", type=int, default=0, show_default=True),
        click.option("--port", type=int, default=8000, show_default=True),
        click.option("--host", default="127.0.0.1", show_default=True),
        click.option("--data", "data_dir", type=click.Path(path_type=Path), default=None,
                     help="Where the log lives; the same DIR resumes the unfinished game."),
        click.option("--pin", default=None, help="Table PIN (random when not given)."),
        click.option("--phase-limit", "phase_limits", multiple=True, metavar="PHASE=SECONDS",
                     help="A time limit for a phase (e.g. placement=90); off by default."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def parse_limits(items: tuple[str, ...]) -> dict[str, float]:
    limits = {}
    for item in items:
        name, _, seconds = item.partition("=")
        try:
            limits[name] = float(seconds)
        except ValueError:
            raise click.BadParameter(f"{item!r}: use PHASE=SECONDS") from None
    return limits


@click.group()
@click.option("-v", "--verbose", is_flag=True, help="Log more.")
def main(verbose: bool) -> None:
    """Table Companion: the referee and scorekeeper beside your board game."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")


@main.command()
def games() -> None:
    """List the games, their player counts and variants."""
    for name in GAMES:
        game = load_game(name)
        counts = ", ".join(map(str, game.player_counts()))
        click.echo(f"{name:14} {game.title:34} {counts} players  "
                   f"variants: {', '.join(game.variants)}")


def _banner(service: Any) -> None:
    click.echo(f"Dashboard: {service.url}   table PIN: {service.pin}")
    click.echo(f"Pair a tablet (open once on it): {service.pairing_url}")
    click.echo(f"Game: {service.table.game.title} (log: {service.config.data_dir})")


@main.command()
@shared_options
@click.option("--profile", "profile_dir", type=click.Path(path_type=Path), default=None,
              help="The table profile folder (table.toml and the calibration files).")
@click.option("--config", "config_file", type=click.Path(exists=True, path_type=Path),
              help="A lone table.toml (see docs/profile-example/table.toml).")
@click.option("--camera", default=None, help="camera:N, picamera:N, video:PATH or folder:PATH.")
@click.option("--serial", default=None, help="Serial port or pyserial URL of the table device.")
@click.option("--no-gpio", is_flag=True, help="Do not use the Pi's GPIO.")
@click.option("--gpio", "gpio_mode", type=click.Choice(["pi", "mock", "off"]), default=None,
              help="pi: the Pi's pins; mock: pretend pins (rehearsal off a Pi); off: none.")
@click.option("--colours", type=click.Path(path_type=Path), default=None)
@click.option("--tags", type=click.Path(path_type=Path), default=None)
@click.option("--faces", type=click.Path(path_type=Path), default=None)
@mqtt_options
@click.option("--new-game", is_flag=True,
              help="Start a new game instead of resuming the unfinished one.")
@click.pass_context
def serve(ctx: click.Context, profile_dir: Path | None, config_file: Path | None, **opts: Any) -> None:
    """Run the companion on real parts: camera, serial device, GPIO, dashboard.

    Settings come from the profile; an option overrides it only when given.
    """
    from companion.profile import service_config
    from companion.service import Service
    from companion.store import DamagedLog

    mqtt = mqtt_from_options(opts)  # --mqtt-url wins over the profile's [mqtt]
    given = {name for name in opts
             if ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT}
    try:
        config = service_config(profile_dir, config_file, opts, given, parse_limits(opts["phase_limits"]))
        if mqtt is not None:
            config.mqtt = mqtt
        if opts["new_game"]:
            config.resume = False
        service = Service(config)
    except (ValueError, OSError, TypeError, DamagedLog) as err:
        raise click.ClickException(str(err)) from err
    try:
        service.start()
    except (ValueError, OSError, TypeError) as err:
        service.stop()  # what started before the failure stops cleanly: no thread left behind
        raise click.ClickException(str(err)) from err
    _banner(service)

    def terminate(signum: int, frame: Any) -> None:  # systemctl stop sends SIGTERM
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)
    try:
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        click.echo("stopping")
    finally:
        service.stop()


@main.group("log")
def log_group() -> None:
    """Look after the event log (recovering from a damaged row)."""


@log_group.command("truncate")
@click.option("--data", "data_dir", type=click.Path(exists=True, path_type=Path),
              required=True, help="The data directory holding companion.sqlite.")
@click.option("--game", "game_id", type=int, required=True, help="The game's id.")
@click.option("--from", "from_seq", type=int, required=True,
              help="The first event to drop (the damaged one named at start-up).")
@click.confirmation_option(prompt="Drop this event and every later one of the game?")
def log_truncate(data_dir: Path, game_id: int, from_seq: int) -> None:
    """Keep a game's events before FROM and drop the rest (the damaged row onwards)."""
    import sqlite3

    from companion.store import DamagedLog

    try:
        db = sqlite3.connect(data_dir / "companion.sqlite", isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        dropped = db.execute("DELETE FROM event WHERE game_id=? AND seq>=?",
                             (game_id, from_seq)).rowcount
        db.close()
    except (sqlite3.DatabaseError, DamagedLog) as err:
        raise click.ClickException(f"cannot change the log: {err}") from err
    click.echo(f"dropped {dropped} event(s) of game {game_id} from seq {from_seq} on")


@main.command()
@shared_options
@click.option("--speed", type=float, default=1.0, show_default=True,
              help="How fast the simulated players act (0 = as fast as it can go).")
@click.option("--exit-when-over", is_flag=True, help="Stop when the game ends.")
@click.option("--max-steps", type=int, default=5000, show_default=True)
@mqtt_options
def demo(speed: float, exit_when_over: bool, max_steps: int, **opts: Any) -> None:
    """Play a whole game on the simulated table into the live dashboard.

    The result is printed when the game ends, and on Ctrl-C (the table as it stood; exit
    status 0). Exit status 1 only when the game did not end within --max-steps.
    """
    from companion.sim.demo import DemoInterrupted, run_demo

    mqtt = mqtt_from_options(opts)
    data_dir = opts["data_dir"] or Path("companion-data") / f"demo-{opts['game']}"
    printed: list[Any] = []

    def over(result: Any) -> None:
        _print_result(result)
        printed.append(result)
        if not exit_when_over:
            click.echo("The dashboard stays up; Ctrl-C to stop.")

    try:
        result = run_demo(
            game=opts["game"], players=opts["players"], variant=opts["variant"],
            seed=opts["seed"], port=opts["port"], host=opts["host"], data_dir=data_dir,
            pin=opts["pin"], speed=speed, exit_when_over=exit_when_over, max_steps=max_steps,
            phase_limits=parse_limits(opts["phase_limits"]), announce=_banner, on_over=over,
            mqtt=mqtt,
        )
    except DemoInterrupted as stopped:
        _print_result(stopped.result)
        click.echo(f"Stopped with Ctrl-C before the game ended; the same --data {data_dir} resumes it.")
        return
    except (ValueError, OSError, RuntimeError) as err:  # RuntimeError: a DamagedLog
        raise click.ClickException(str(err)) from err
    if not printed:
        _print_result(result)
    if not result.tablet["over"]:
        sys.exit(1)


def _print_result(result: Any) -> None:
    """The game's result as the dashboard shows it, and the simulated table's own."""
    tablet = result.tablet
    names = [p["name"] for p in tablet["players"]]
    if tablet["over"]:
        winners = ", ".join(names[w] for w in tablet["winner"] or []) or "nobody"
        click.echo(f"Game over: True  winner: {winners}  ({tablet['reason']})")
    else:
        click.echo(f"Game over: False  (turn: {tablet.get('turn_name')}, phase: {tablet.get('phase_label')})")
    click.echo(f"Scores: {dict(zip(names, tablet['scores'], strict=True))}")
    click.echo(f"Steps: {result.steps}  not recorded: {result.stalls}  "
               f"refused declarations: {len(result.refusals)}  time: {result.seconds:.1f} s")
    truth = result.truth.get("winners")
    if truth is not None and tablet["over"]:
        agree = sorted(truth) == sorted(tablet["winner"] or [])
        click.echo(f"The simulated table's own result: winners {truth} -> "
                   f"{'companion agrees' if agree else 'COMPANION DISAGREES'}")


@main.command()
@click.option("--game", type=GAME_CHOICE, required=True)
@click.option("--players", type=int, default=None)
@click.option("--variant", default=None)
@click.option("--seed", type=int, default=0)
@click.option("--house-rule", "house_rules", multiple=True, metavar="RULE=CHOICE",
              help="A house rule's choice (see the game's ACTIONS.md); repeatable.")
@click.argument("script", type=click.File("r"))
def replay(game: str, players: int | None, variant: str | None, seed: int,
           house_rules: tuple[str, ...], script: Any) -> None:
    """Feed a .jsonl file of actions (as POST /api/actions takes them) through the tracker.

    Prints, per line, applied or refused with the reason, then the final state as JSON.
    Lines may also be {"meta": {"players": N, "variant": "...", "seed": N,
    "house_rules": {"rule": "choice"}}} first.
    """
    chosen = {}
    for item in house_rules:
        rule, sep, value = item.partition("=")
        if not sep or not rule or not value:
            raise click.BadParameter(f"{item!r}: use RULE=CHOICE", param_hint="--house-rule")
        chosen[rule] = value
    from companion.replay import run_replay

    lines = script.read().splitlines()
    try:
        outcome = run_replay(game, lines, players, variant, seed,
                             progress=tqdm(total=len(lines), disable=len(lines) < 500,
                                           unit="line", file=sys.stderr),
                             house_rules=chosen)
    except ValueError as err:
        raise click.ClickException(str(err)) from err
    for line in outcome.report:
        click.echo(line)
    click.echo(json.dumps(outcome.final, indent=1, sort_keys=True))


@main.group()
def bench() -> None:
    """Benchmarks: each prints a table, or one JSON object with --json."""


@bench.command("vision")
@click.option("--game", type=GAME_CHOICE, default=None,
              help="One game (default: times_square for frame cost, every game for --conditions).")
@click.option("--frames", type=int, default=200, show_default=True,
              help="Frames for the frame cost; per condition and game with --conditions.")
@click.option("--players", type=int, default=None)
@click.option("--conditions", is_flag=True,
              help="Real-world conditions (light, glare, lens, blur, hands, JPEG, tilt, noise).")
@click.option("--only", "only", multiple=True, help="With --conditions: just these conditions.")
@click.option("--sequences", type=int, default=6, show_default=True,
              help="With --conditions: hand sequences per game through the stabiliser.")
@click.option("--latency", is_flag=True, help="Change on the table to dashboard update, end to end.")
@click.option("--changes", type=int, default=30, show_default=True, help="With --latency.")
@click.option("--seed", type=int, default=100, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def bench_vision(game: str | None, frames: int, players: int | None, conditions: bool,
                 only: tuple[str, ...], sequences: int, latency: bool, changes: int, seed: int,
                 as_json: bool) -> None:
    """The board reader: frame cost, accuracy under real-world conditions, latency."""
    from companion.bench import vision as vb

    if conditions:
        games = [game] if game else vb.ALL_GAMES
        try:
            result = vb.conditions_benchmark(games, frames if frames != 200 else 12, seed, sequences,
                                             list(only) or None)
        except KeyError as err:
            raise click.ClickException(str(err)) from err
        click.echo(json.dumps(result, sort_keys=True) if as_json else vb.format_conditions(result))
        return
    if latency:
        _print_bench(vb.latency_benchmark(game or "times_square", changes, seed), as_json)
        return
    _print_bench(vb.frame_cost(game or "times_square", frames, players), as_json)


@bench.command("serial")
@click.option("--taps", type=int, default=200, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def bench_serial(taps: int, as_json: bool) -> None:
    """Tap-to-host latency over the emulated device's pseudo-terminal."""
    from companion.bench.service import serial_benchmark

    _print_bench(serial_benchmark(taps), as_json)


@bench.command("sse")
@click.option("--clients", type=int, default=50, show_default=True)
@click.option("--events", type=int, default=40, show_default=True)
@click.option("--idle", type=int, default=0, show_default=True,
              help="Idle dashboards connected besides (the API's latency is measured).")
@click.option("--moves", type=int, default=0, show_default=True,
              help="History entries on the table first (a long game's snapshot).")
@click.option("--json", "as_json", is_flag=True)
def bench_sse(clients: int, events: int, idle: int, moves: int, as_json: bool) -> None:
    """Push-to-receipt latency of live updates with many dashboards (loopback only)."""
    from companion.bench.service import sse_benchmark

    _print_bench(sse_benchmark(clients, events, idle, moves), as_json)


@bench.command("replay")
@click.option("--game", type=GAME_CHOICE, default="times_square")
@click.option("--games", "count", type=int, default=20, show_default=True)
@click.option("--log-events", type=int, default=0,
              help="Instead: replay a log of this many events (restart and script).")
@click.option("--json", "as_json", is_flag=True)
def bench_replay(game: str, count: int, log_events: int, as_json: bool) -> None:
    """Whole simulated games through the table (headless): games and actions per second."""
    from companion.bench.service import log_replay_benchmark, replay_benchmark

    if log_events:
        _print_bench(log_replay_benchmark(game, log_events), as_json)
        return
    _print_bench(replay_benchmark(game, count), as_json)


def _print_bench(figures: dict[str, Any], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(figures, sort_keys=True))
        return
    width = max(len(k) for k in figures)
    for key, value in figures.items():
        shown = f"{value:.2f}" if isinstance(value, float) else str(value)
        click.echo(f"{key:<{width}}  {shown}")


from companion.calibration import calibrate  # noqa: E402  (registers its commands)

main.add_command(calibrate)
from companion.emulate import emulate  # noqa: E402

main.add_command(emulate)
from companion.doctor import doctor  # noqa: E402

main.add_command(doctor)

from companion.venue.cli import bench_venue, venue  # noqa: E402  (registers its commands)

main.add_command(venue)
bench.add_command(bench_venue)

from companion.vision.cli import vision  # noqa: E402  (registers its commands)

main.add_command(vision)
from companion.sim.camera.cli import render_state  # noqa: E402  (the world's camera, on the same group)

vision.add_command(render_state)

from companion.sim.truth import bench_truth_command  # noqa: E402

bench.add_command(bench_truth_command)
