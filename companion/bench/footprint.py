"""``companion bench footprint``: what the companion costs a Raspberry Pi, each part in its own process.

Four figures, each measured on a fresh ``python -m companion`` child so that nothing the
bench itself imported counts:

- the service (``companion serve``) with a camera at 8 fps on a still board: its peak
  resident memory and its share of one core over a fixed number of frames' time;
- ``companion demo --speed 0 --exit-when-over``: its peak resident memory;
- ``companion --help``: the CPU seconds it takes (what every command pays to start);
- a demo that keeps serving after its game is over: its share of one core while it waits.

Peak memory is the child's own ``ru_maxrss`` (``os.wait4``); CPU is its user and system
time from ``/proc/PID/stat``.  Both are Linux's, which is what a Pi runs; psutil would give
the same two numbers for one more dependency.  Figures, not pass/fail: the targets of
issue 38 are printed beside them.
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import cv2

from companion.games import load_game
from companion.sim.camera.render import Camera

FPS = 8.0
STILL_FRAMES = 3  # a still board's frames differ only by the sensor's noise
TARGETS = {  # issue 38: a footprint fit for a Pi
    "service_peak_rss_mb": 150.0,
    "service_cpu_pct_of_core": 5.0,
    "demo_peak_rss_mb": 250.0,
    "help_cpu_s": 0.3,
    "after_game_cpu_pct_of_core": 5.0,  # a real table's pace (8 fps on a still board), no spinning
}
PARTS = ("service", "demo", "help", "after_game")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
HANG_GUARD_S = 600.0  # a child that takes longer to start or stop than this has hung


@dataclass
class Exited:
    """What a finished child cost: its exit code, CPU seconds, wall seconds, peak memory."""

    code: int
    cpu_s: float
    wall_s: float
    peak_rss_mb: float


def companion_command(*args: str) -> list[str]:
    """The companion as a user starts it, on the Python running the bench."""
    return [sys.executable, "-m", "companion", *args]


def _env() -> dict[str, str]:
    env = dict(os.environ, PYTHONUNBUFFERED="1")  # lines the bench waits for arrive at once
    env.pop("PYTHONTRACEMALLOC", None)
    return env


def start(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=_env(), start_new_session=True)


def finish(proc: subprocess.Popen[str], began: float, hang_guard_s: float) -> Exited:
    """Wait for the child and take its rusage; a child past ``hang_guard_s`` is killed."""
    guard = threading.Timer(hang_guard_s, proc.kill)
    guard.start()
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    finally:
        guard.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Exited(proc.returncode, usage.ru_utime + usage.ru_stime, time.monotonic() - began,
                  usage.ru_maxrss / 1024)


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of a running process (fields 14 and 15 of /proc/PID/stat)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def cpu_share(pid: int, seconds: float) -> float:
    """Percent of one core the process used over the next ``seconds``."""
    c0, t0 = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return 100 * (cpu_seconds(pid) - c0) / (time.monotonic() - t0)


def wait_for_line(stream: IO[str], needle: str, lines: list[str], hang_guard_s: float) -> str:
    """Read the child's output until a line holds ``needle``; the line, or OSError at its end."""
    found: list[str] = []

    def reader() -> None:
        for line in stream:
            lines.append(line)
            if needle in line:
                found.append(line)
                return

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    thread.join(hang_guard_s)
    if not found:
        raise OSError(f"no {needle!r} from the child; it said:\n{''.join(lines[-20:])}")
    return found[0]


def drain(stream: IO[str], lines: list[str]) -> threading.Thread:
    """Keep reading a child's output so that it never blocks on a full pipe."""
    thread = threading.Thread(target=lambda: lines.extend(stream), daemon=True)
    thread.start()
    return thread


def stop(proc: subprocess.Popen[str], began: float) -> Exited:
    """Ctrl-C the child, as a user would, and take what it cost."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
    return finish(proc, began, HANG_GUARD_S)


# --------------------------------------------------------------------------- the parts
def still_board_frames(folder: Path, game_name: str, players: int, seed: int) -> None:
    """PNG frames of the game's starting board, as a still camera sees it: the same board
    under fresh sensor noise each frame."""
    game = load_game(game_name)
    state = game.setup(players, None, seed)
    camera = Camera(game.layout(state), seed=seed)
    view = game.board_view(state)
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(STILL_FRAMES):
        cv2.imwrite(str(folder / f"frame{i:02d}.png"), camera.frame(view))


def service(frames: int, game: str, players: int, workdir: Path) -> dict[str, Any]:
    """``companion serve`` on a folder of still frames at 8 fps: peak memory and CPU share."""
    still_board_frames(workdir / "frames", game, players, 0)
    config = workdir / "table.toml"
    config.write_text(
        f'[table]\ngame = "{game}"\nplayers = {players}\nhost = "127.0.0.1"\nport = 0\n'
        f'camera = "folder:{workdir / "frames"}"\nfps = {FPS}\ndata_dir = "{workdir / "data"}"\n'
        '[gpio]\nmode = "off"\n')
    began = time.monotonic()
    proc = start(companion_command("serve", "--config", str(config), "--no-gpio"))
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        url = wait_for_line(proc.stdout, "Dashboard: ", lines, HANG_GUARD_S).split()[1]
        drain(proc.stdout, lines)
        _wait_for_first_frame(url, HANG_GUARD_S)
        share = cpu_share(proc.pid, frames / FPS)
    finally:
        exited = stop(proc, began)
    return {"service_peak_rss_mb": exited.peak_rss_mb, "service_cpu_pct_of_core": share,
            "service_frames": frames, "service_fps": FPS, "service_game": game}


def _wait_for_first_frame(url: str, hang_guard_s: float) -> None:
    """The camera loop has read a frame once the dashboard's camera picture exists."""
    deadline = time.monotonic() + hang_guard_s
    while True:
        try:
            with urllib.request.urlopen(f"{url}/api/camera.jpg", timeout=10) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise OSError(f"no camera frame from {url} within {hang_guard_s:.0f} s")
        time.sleep(0.2)


def demo(game: str, workdir: Path) -> dict[str, Any]:
    """A whole demo game at speed 0, to its end: peak memory and time."""
    began = time.monotonic()
    proc = start(companion_command("demo", "--game", game, "--speed", "0", "--exit-when-over",
                                   "--port", "0", "--data", str(workdir / "demo")))
    lines: list[str] = []
    assert proc.stdout is not None
    drain(proc.stdout, lines)
    exited = finish(proc, began, 6 * HANG_GUARD_S)
    if exited.code != 0:
        raise OSError(f"the demo exited with {exited.code}:\n{''.join(lines[-20:])}")
    return {"demo_peak_rss_mb": exited.peak_rss_mb, "demo_cpu_s": exited.cpu_s,
            "demo_wall_s": exited.wall_s, "demo_game": game}


def help_cost(runs: int = 3) -> dict[str, Any]:
    """``companion --help``: the median of a few runs' CPU seconds."""
    costs: list[Exited] = []
    for _ in range(runs):
        began = time.monotonic()
        proc = start(companion_command("--help"))
        assert proc.stdout is not None
        lines: list[str] = []
        drain(proc.stdout, lines)
        costs.append(finish(proc, began, HANG_GUARD_S))
    return {"help_cpu_s": statistics.median(c.cpu_s for c in costs),
            "help_wall_s": statistics.median(c.wall_s for c in costs)}


def after_game(game: str, idle_s: float, workdir: Path) -> dict[str, Any]:
    """A demo at speed 0 that keeps serving once its game is over: its CPU while it waits."""
    began = time.monotonic()
    proc = start(companion_command("demo", "--game", game, "--speed", "0", "--port", "0",
                                   "--data", str(workdir / "after")))
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        wait_for_line(proc.stdout, "The dashboard stays up", lines, 6 * HANG_GUARD_S)
        drain(proc.stdout, lines)
        time.sleep(1.0)  # the game's last writes settle
        share = cpu_share(proc.pid, idle_s)
    finally:
        stop(proc, began)
    return {"after_game_cpu_pct_of_core": share, "after_game_sampled_s": idle_s}


def footprint_benchmark(parts: tuple[str, ...] = PARTS, frames: int = 120, idle_s: float = 10.0,
                        game: str = "jivecat", players: int = 3) -> dict[str, Any]:
    """The figures of the parts asked for, each from its own child process."""
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="companion-footprint-") as tmp:
        workdir = Path(tmp)
        if "help" in parts:
            figures.update(help_cost())
        if "service" in parts:
            figures.update(service(frames, game, players, workdir))
        if "demo" in parts:
            figures.update(demo(game, workdir))
        if "after_game" in parts:
            figures.update(after_game(game, idle_s, workdir))
    return figures


def format_footprint(figures: dict[str, Any]) -> str:
    """The figures beside their targets, one a line."""
    width = max(len(k) for k in figures)
    out = []
    for key, value in figures.items():
        shown = f"{value:.2f}" if isinstance(value, float) else str(value)
        target = f"  (target <= {TARGETS[key]:g})" if key in TARGETS else ""
        out.append(f"{key:<{width}}  {shown}{target}")
    return "\n".join(out)

