"""The ``companion`` command: serve, demo, replay, bench, calibrate.

Every command imports what it needs when it runs: ``companion --help`` (and a command's
own start) pays for click and the game names, not for OpenCV, Flask or the simulated
table.  The commands kept in other modules are listed in ``LAZY`` with their one-line
help and imported only when run or asked for their own help.
"""

from __future__ import annotations

import importlib
import json
import logging
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import click
from click.utils import make_default_short_help

from companion.games import GAMES, load_game
from companion.venue.cli import mqtt_from_options, mqtt_options

GAME_CHOICE = click.Choice(sorted(GAMES))


class LazyGroup(click.Group):
    """A click group whose listed subcommands are imported only when one is run.

    ``lazy`` maps a name to ``("module:attribute", one-line help)``; the attribute is a
    click command, or a function that returns one.  The help lists those lines without
    importing anything (a test holds them equal to the commands' own).
    """

    def __init__(self, *args: Any, lazy: dict[str, tuple[str, str]] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            self.add_command(self.load(cmd_name), cmd_name)
        return super().get_command(ctx, cmd_name)

    def load(self, name: str) -> click.Command:
        """Import a lazy subcommand."""
        module, _, attribute = self.lazy[name][0].partition(":")
        found = getattr(importlib.import_module(module), attribute)
        command = found if isinstance(found, click.Command) else found()
        if not isinstance(command, click.Command):
            raise TypeError(f"{self.lazy[name][0]} is not a click command")
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max((len(n) for n in names), default=0)
        rows = []
        for name in names:
            if name in self.lazy and name not in self.commands:
                rows.append((name, make_default_short_help(self.lazy[name][1], limit)))
                continue
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _vision_commands() -> click.Command:
    """``companion vision``: the reader's commands, and the world's camera on the same group."""
    from companion.sim.camera.cli import render3d_frames, render_state
    from companion.vision.cli import vision

    vision.add_command(render_state)
    vision.add_command(render3d_frames)
    return vision


LAZY_MAIN = {
    "calibrate": ("companion.calibration:calibrate",
                  "Set up a table once, into its profile folder: markers, camera, board, colours, "
                  "faces, cards."),
    "emulate": ("companion.emulate:emulate",
                "The table device emulated on a pseudo-terminal: tap cards and press buttons by typing."),
    "doctor": ("companion.doctor:doctor",
               "Check the camera, table device, GPIO, profile, disk and broker; say what to fix."),
    "venue": ("companion.venue.cli:venue",
              "The room's big screen: every table live from the broker, and the league."),
    "vision": ("companion.cli:_vision_commands", "Check the camera path: read a photo, render a state."),
}
LAZY_BENCH = {
    "venue": ("companion.venue.cli:bench_venue",
              "Tables through one broker: latency to the venue page, and a broker crash (SIGKILL) with "
              "the venue or the tables back first: events and results lost, messages a table sends a "
              "minute."),
    "truth": ("companion.sim.truth:bench_truth_command",
              "Whole games through the full path with faults at the physical channels, judged by the "
              "world's own truth: exact, caught, silently wrong, or wedged, over budget, crashed."),
}


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


@click.group(cls=LazyGroup, lazy=LAZY_MAIN)
@click.option("-v", "--verbose", is_flag=True, help="Log more.")
def main(verbose: bool) -> None:
    """Table Companion: the referee and scorekeeper beside your board game."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    from companion.logsummary import install

    install()  # a repeating warning is counted per minute, not written thousands of times


@main.command()
def games() -> None:
    """List the games, their player counts and variants."""
    for name in GAMES:
        game = load_game(name)
        counts = ", ".join(map(str, game.player_counts()))
        click.echo(f"{name:14} {game.title:34} {counts} players  "
                   f"variants: {', '.join(game.variants)}")


def reachable_urls(host: str, port: int) -> list[str]:
    """Where a tablet can open the dashboard: for a server on every address (0.0.0.0, ::),
    the machine's address on the network and its mDNS name, never 0.0.0.0 itself."""
    import socket

    from companion.web.setup import lan_address

    if host not in ("0.0.0.0", "::", ""):
        return [f"http://{host}:{port}"]
    urls = []
    lan = lan_address()
    if lan and not lan.startswith("127."):
        urls.append(f"http://{lan}:{port}")
    name = socket.gethostname()
    if name and name != "localhost":
        urls.append(f"http://{name}.local:{port}")
    return urls + [f"http://127.0.0.1:{port}"]


def _return_freed_memory() -> None:
    """Let glibc give the camera loop's freed scratch arrays back to the system.

    By default glibc keeps large freed blocks in its heaps, one heap per thread that ever
    allocated, and grows its threshold for mapping a block on its own: after the reader's
    first frames some 20 MB of a Pi's memory stay resident unused.  Blocks above 128 KiB
    are then mapped and unmapped on their own, a heap's free top goes back past 128 KiB, and
    the threads share two heaps (what MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_ and
    MALLOC_ARENA_MAX set from the environment).  Off glibc: nothing.
    """
    import ctypes

    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return
    m_trim_threshold, m_mmap_threshold, m_arena_max = -1, -3, -8  # <malloc.h>
    mallopt(m_arena_max, 2)
    mallopt(m_mmap_threshold, 128 * 1024)
    mallopt(m_trim_threshold, 128 * 1024)  # a large block freed at start-up had raised it


def _banner(service: Any) -> None:
    urls = reachable_urls(service.config.host, service.port)
    click.echo(f"Dashboard: {urls[0]}   table PIN: {service.pin}")
    if len(urls) > 1:
        click.echo(f"  also: {'  '.join(urls[1:])}")
    if urls[0].startswith("http://127.0.0.1") and service.config.host in ("0.0.0.0", "::"):
        click.echo("  no network address found: is this machine on the table's network?")
    minutes = max(1, round(service.guard.code_expires_in() / 60))
    click.echo(f"Pair a tablet (open once on it, within {minutes} min): "
               f"{urls[0]}/pair?code={service.guard.code}")
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
    _return_freed_memory()  # before anything heavy is imported
    from companion.profile import service_config
    from companion.service import Service
    from companion.store import DamagedLog

    mqtt = mqtt_from_options(opts)  # --mqtt-url wins over the profile's [mqtt]
    given = {name for name in opts
             if ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT}
    stopping = threading.Event()

    def terminate(signum: int, frame: Any) -> None:  # systemctl stop sends SIGTERM; Ctrl-C
        stopping.set()  # no exception raised mid-start or mid-stop: every stop is clean, exit 0

    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGINT, terminate)
    try:
        config = service_config(profile_dir, config_file, opts, given, parse_limits(opts["phase_limits"]))
        if mqtt is not None:
            config.mqtt = mqtt
        if opts["new_game"]:
            config.resume = False
        for warning in missing_calibration(config):
            click.echo(f"warning: {warning}", err=True)
        service = Service(config)
    except (ValueError, OSError, TypeError, DamagedLog) as err:
        raise click.ClickException(str(err)) from err
    ignored = ignored_on_resume(service, config, given)
    if ignored:
        service.table.log.close()
        raise click.ClickException(ignored)
    try:
        service.start()
    except (ValueError, OSError, TypeError) as err:
        service.stop()  # what started before the failure stops cleanly: no thread left behind
        raise click.ClickException(str(err)) from err
    _banner(service)
    try:
        while not stopping.wait(1):
            pass
        click.echo("stopping")
    finally:
        service.stop()


def missing_calibration(config: Any) -> list[str]:
    """What a camera needs from calibration that the profile does not have (serve still starts)."""
    if not config.camera:
        return []
    out = []
    if config.board is None or not Path(config.board).exists():
        out.append("no board.json: the camera reads the game's default board map, not your "
                   "copy's (companion calibrate board)")
    if config.colours is None or not Path(config.colours).exists():
        out.append("no colours.json: pieces are told apart by the built-in colours, not your "
                   "table's light (companion calibrate colours)")
    return out


def ignored_on_resume(service: Any, config: Any, given: set[str]) -> str | None:
    """A game was resumed, yet the command line asked for another shape of game: say so
    (nothing changed) instead of ignoring it."""
    if not config.resume:
        return None
    record = service.table.record
    clashes = [f"--{name} {getattr(config, name)} (the game has {running})"
               for name, running in (("players", record.players), ("variant", record.variant),
                                     ("seed", record.seed))
               if name in given and getattr(config, name) != running]
    if not clashes:
        return None
    return (f"an unfinished game {record.id} was resumed from {config.data_dir}, so "
            f"{', '.join(clashes)} cannot apply: finish it on the dashboard, or add --new-game")


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

    path = data_dir / "companion.sqlite"
    if not path.is_file():  # never create a database where there was none
        raise click.ClickException(f"no event log in {data_dir} (no companion.sqlite): nothing "
                                   "to truncate; give the folder serve's --data used")
    try:
        db = sqlite3.connect(f"file:{path}?mode=rw", uri=True, isolation_level=None)
        try:
            if db.execute("SELECT 1 FROM game WHERE id=?", (game_id,)).fetchone() is None:
                raise click.ClickException(f"the log in {data_dir} has no game {game_id}: "
                                           "nothing dropped")
            db.execute("PRAGMA journal_mode=WAL")
            dropped = db.execute("DELETE FROM event WHERE game_id=? AND seq>=?",
                                 (game_id, from_seq)).rowcount
        finally:
            db.close()
    except (sqlite3.DatabaseError, DamagedLog) as err:
        raise click.ClickException(f"cannot change the log: {err}") from err
    if not dropped:
        raise click.ClickException(f"game {game_id} has no event from seq {from_seq} on: "
                                   "nothing dropped")
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
    _return_freed_memory()  # before anything heavy is imported
    from companion.sim.demo import DemoInterrupted, run_demo

    mqtt = mqtt_from_options(opts)
    data_dir = opts["data_dir"] or Path("companion-data") / f"demo-{opts['game']}"
    printed: list[Any] = []

    def terminate(signum: int, frame: Any) -> None:
        """SIGTERM stops the demo as Ctrl-C does: the result printed, exit status 0.  Only
        the first signal counts: a second one must not interrupt the clean stop."""
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)

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
        click.echo(f"Stopped before the game ended; the same --data {data_dir} resumes it.")
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
    from tqdm import tqdm

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
    if outcome.malformed:
        shown = ", ".join(map(str, outcome.malformed[:10])) + (" ..." if len(outcome.malformed) > 10 else "")
        raise click.ClickException(f"{len(outcome.malformed)} malformed line(s) skipped (line {shown}): "
                                   "each line must be one action as JSON")


@main.group(cls=LazyGroup, lazy=LAZY_BENCH)
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
@click.option("--renderer", type=click.Choice(["flat", "3d"]), default="flat", show_default=True,
              help="3d: the committed physically based frames (tests/data/frames3d), per game and tilt.")
@click.option("--frames-dir", type=click.Path(file_okay=False, exists=True, path_type=Path), default=None,
              help="With --renderer 3d: the frames there instead (vision render3d --fresh --out DIR).")
@click.option("--changes", type=int, default=30, show_default=True, help="With --latency.")
@click.option("--seed", type=int, default=100, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def bench_vision(game: str | None, frames: int, players: int | None, conditions: bool,
                 only: tuple[str, ...], sequences: int, latency: bool, renderer: str, frames_dir: Path | None,
                 changes: int, seed: int, as_json: bool) -> None:
    """The board reader: frame cost, accuracy under real-world conditions, latency."""
    from companion.bench import vision as vb

    if renderer == "3d":
        from companion.bench.vision3d import format_3d, renderer3d_benchmark
        from companion.sim.camera.frames3d import FRAMES_DIR

        result = renderer3d_benchmark(frames_dir or FRAMES_DIR, games=[game] if game else None)
        if not any(s["all"]["frames"] + s["hand_frames"]["frames"] for s in result["splits"].values()):
            raise click.ClickException(f"no physically based frames in {frames_dir or FRAMES_DIR}")
        click.echo(json.dumps(result, sort_keys=True) if as_json else format_3d(result))
        return
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


FOOTPRINT_PARTS = ("service", "demo", "help", "after_game")  # companion.bench.footprint.PARTS


@bench.command("footprint")
@click.option("--only", "parts", multiple=True, type=click.Choice(FOOTPRINT_PARTS),
              help="Just these parts (repeatable); default: all four.")
@click.option("--frames", type=click.IntRange(8, 10000), default=120, show_default=True,
              help="The service's camera frames (at 8 a second) its CPU is measured over.")
@click.option("--idle", "idle_s", type=click.FloatRange(1, 600), default=10.0, show_default=True,
              help="Seconds a demo's CPU is sampled after its game is over.")
@click.option("--game", type=GAME_CHOICE, default="jivecat", show_default=True)
@click.option("--players", type=int, default=3, show_default=True,
              help="Players of the service's still board.")
@click.option("--json", "as_json", is_flag=True)
def bench_footprint(parts: tuple[str, ...], frames: int, idle_s: float, game: str, players: int,
                    as_json: bool) -> None:
    """What the companion costs a Pi: memory, CPU, start-up; each part in its own process."""
    from companion.bench.footprint import footprint_benchmark, format_footprint

    try:
        figures = footprint_benchmark(parts or FOOTPRINT_PARTS, frames, idle_s, game, players)
    except OSError as err:
        raise click.ClickException(str(err)) from err
    click.echo(json.dumps(figures, sort_keys=True) if as_json else format_footprint(figures))


def _print_bench(figures: dict[str, Any], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(figures, sort_keys=True))
        return
    width = max(len(k) for k in figures)
    for key, value in figures.items():
        shown = f"{value:.2f}" if isinstance(value, float) else str(value)
        click.echo(f"{key:<{width}}  {shown}")
