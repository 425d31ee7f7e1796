"""``companion bench truth``: whole seeded games through the full path, judged by the world.

Each game runs through :func:`companion.sim.demo.run_demo` (rendered frames, the
emulated device on a pty, mock GPIO pins, HTTP), the players and their truth in a
process of their own where the companion's runtime cannot be imported
(:mod:`companion.sim.worldproc`).  Faults are injected only where the physical world
meets the companion's inputs (:mod:`companion.sim.faults`).  Three kinds of players sit
at the table: passive (they answer only what the tablet asks), typical and attentive
(they also notice, at their own rate, a line about their move that reads wrong).

Each game lands in one bin (:mod:`companion.sim.judge`): ``exact`` (scores and winners
right by the world's own count), ``caught`` (wrong, and a warning named the wrong place,
piece, entry or score while it was), ``silent`` (wrong and nothing named it), or why it
did not end: ``wedged`` (the record stood still under a warning, or the players had
nothing more to do), ``over budget`` (actions or camera frames used up), ``crashed``.
Budgets are counted in player actions and camera frames, never in seconds.
"""

from __future__ import annotations

import multiprocessing
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import cv2
from tqdm import tqdm

from companion.games import GAMES, load_game
from companion.sim.faults import (  # noqa: F401 - the bench's fault model, named here too
    FAULT_MODELS,
    PROMPT_KINDS,
    TRANSIENT_FRAMES,
    FaultLog,
    FaultModel,
    FaultyTable,
    perturb_view,
)
from companion.sim.judge import caught, judge, same_scores  # noqa: F401
from companion.sim.world import NOTICE
from companion.sim.worldproc import WorldCrashed

# the smallest configuration of each game (short games; the bench must run in minutes)
SMALLEST: dict[str, tuple[int, str | None]] = {
    "times_square": (2, None),
    "king_of_clubs": (2, "advanced"),
    "baron_voodoo": (2, None),
    "jivecat": (3, None),
    "swing_state": (3, None),
}

MAX_ACTIONS = 600  # the players' actions a game may take on the bench
MAX_FRAMES = 60000  # the camera frames a game may take on the bench: a hundred a player's action
# (the camera keeps step with the players' delays: a long Swing State game takes about 450
# actions at about 35 frames each; a camera running free took 67 an action there, 860 in Times Square)
BINS = ("exact", "caught", "silent", "wedged", "over budget", "crashed")


@dataclass
class GameOutcome:
    game: str
    players: int
    variant: str | None
    seed: int
    faults: str
    verdict: str  # one of BINS
    scores: list[float]
    true_scores: list[float]
    winners: list[int]
    true_winners: list[int]
    steps: int
    frames: int
    sources: dict[str, int]
    named: list[str]
    injected: dict[str, int]
    kind: str = "typical"  # the players: passive, typical, attentive
    seconds: float = 0.0  # for the reader only: no verdict depends on it
    ending: list[str] = field(default_factory=list)
    """What the tablet showed last, for a game that did not end exact: its newest entries and
    the prompts it was showing, so that one stopped game can be told from another."""
    full_reads: int = 0  # frames the camera loop read as new (not found still), till the service stopped
    frames_standing: int = 0  # arm frames it let stand as the last one read (``ARM_FRAMES_SKIPPED``)


def play_one(game: str, seed: int, faults: str, kind: str = "typical",
             max_steps: int = MAX_ACTIONS, max_frames: int = MAX_FRAMES,
             world_class: str | None = None) -> GameOutcome:
    """One seeded game of ``game`` in its smallest configuration through the full path,
    stopped when it has taken ``max_steps`` of the players' actions or ``max_frames``
    camera frames ("over budget") or the record stood still under a warning ("wedged").

    OpenCV runs on one thread here, as in the vision benches: what a game costs the shared
    machine is its CPU, and OpenCV's second thread only adds its hand-overs to it (the same
    readings; some 4 % less CPU over an arm sweep's frames)."""
    from companion.sim import demo

    cv2.setNumThreads(1)
    players, variant = SMALLEST[game]
    model = FAULT_MODELS[faults]
    log = FaultLog()
    tables: list[FaultyTable] = []

    def make_table(*args: Any, **kwargs: Any) -> FaultyTable:
        table = FaultyTable(*args, faults=model, fault_seed=seed * 7919 + 17, log=log, **kwargs)
        table.max_frames = max_frames
        table.world.set_temperament(kind)
        tables.append(table)
        return table

    started = time.monotonic()

    def stopped(why: str, err: BaseException) -> GameOutcome:
        frames = tables[0].frames_taken if tables else 0
        return GameOutcome(game, players, variant, seed, faults, why, [], [], [], [], 0, frames, {},
                           [], dict(log.counts), kind, round(time.monotonic() - started, 1),
                           [f"error: {err}"])

    with tempfile.TemporaryDirectory(prefix="bench-truth-") as tmp:
        try:
            result = demo.run_demo(game, players, variant, seed, port=0, host="127.0.0.1",
                                   data_dir=Path(tmp), pin="111111", speed=0, exit_when_over=True,
                                   max_steps=max_steps, progress=False, table_class=make_table,
                                   world_class=world_class)
        except WorldCrashed as err:
            return stopped("crashed", err)
        except (OSError, TimeoutError) as err:  # the service stopped answering
            return stopped("crashed", err)
    table = tables[0]
    tablet = result.tablet
    # the frames the players' delays gave: after the game the camera runs free till the
    # service stops, as many frames as the machine draws in that time (load, not the game)
    gate = getattr(table, "gate", None)
    frames = table.frames_taken if gate is None or gate.taken_in_step is None else gate.taken_in_step
    rules = load_game(game)
    layout = rules.layout(rules.start(players, variant, seed, None))
    named = caught(table.tablets, layout)
    verdict = judge(tablet, result.truth, named, result.stopped, result.world_finished)
    vision = getattr(getattr(table, "service", None), "vision", None)
    sources = Counter(h["source"] for h in tablet.get("history", []) if not h.get("undone"))
    return GameOutcome(
        game=game, players=players, variant=variant, seed=seed, faults=faults, verdict=verdict,
        scores=list(tablet.get("scores") or []), true_scores=list(result.truth.get("scores") or []),
        winners=list(tablet.get("winner") or []), true_winners=list(result.truth.get("winners") or []),
        steps=result.steps, frames=frames, sources=dict(sources), named=named[:5],
        injected=dict(log.counts), kind=kind, seconds=round(time.monotonic() - started, 1),
        ending=[] if verdict == "exact" else ending(tablet, result.world_finished),
        full_reads=getattr(vision, "full_reads", 0), frames_standing=getattr(vision, "frames_standing", 0),
    )


def ending(tablet: dict[str, Any], world_finished: bool) -> list[str]:
    """The tablet's last three entries and its prompts at the end, and whether the players'
    game was over."""
    entries = [h for h in tablet.get("history") or [] if isinstance(h, dict)][-3:]
    return [
        *(f"#{h.get('seq')}{' (undone)' if h.get('undone') else ''} [{h.get('source')}] "
          f"{h.get('text')}" for h in entries),
        *(f"{p.get('kind')}: {p.get('text')}" for p in tablet.get("prompts") or []
          if isinstance(p, dict)),
        f"the players' game {'was' if world_finished else 'was not'} over",
    ]


Plan = tuple[str, str, str, int]  # game, fault model, players, seed


def _played(plan: list[Plan], jobs: int) -> Iterator[tuple[Plan, GameOutcome]]:
    """Each (game, fault model, players, seed) of ``plan`` with its outcome, as the games
    end: one after another, or ``jobs`` at once in spawned processes (not forked: a game's
    threads and mock pins start clean in each worker)."""
    if jobs <= 1:
        for game, fault, kind, seed in plan:
            yield (game, fault, kind, seed), play_one(game, seed, fault, kind)
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = {pool.submit(play_one, game, seed, fault, kind): (game, fault, kind, seed)
                   for game, fault, kind, seed in plan}
        for future in as_completed(futures):
            yield futures[future], future.result()


def bench_truth(games: list[str], faults: list[str], count: int, first_seed: int = 1,
                progress: Callable[[GameOutcome], None] | None = None, jobs: int = 1,
                kinds: list[str] | None = None) -> dict[str, Any]:
    """Every (game, players, fault model) for ``count`` seeds: the bins, the share of the
    record declared on the tablet and each game's detail.  ``jobs`` > 1 plays that many
    games at once, each in its own process (its own service, port, pins and data folder)."""
    kinds = kinds or ["typical"]
    plan = [(game, fault, kind, seed) for game in games for kind in kinds for fault in faults
            for seed in range(first_seed, first_seed + count)]
    done: dict[Plan, GameOutcome] = {}
    for key, outcome in _played(plan, jobs):
        done[key] = outcome
        if progress is not None:
            progress(outcome)
    rows: list[dict[str, Any]] = []
    outcomes: list[GameOutcome] = []
    for game in games:
        for kind in kinds:
            for fault in faults:
                bins: Counter[str] = Counter()
                sources: Counter[str] = Counter()
                stops: list[str] = []
                for seed in range(first_seed, first_seed + count):
                    outcome = done[game, fault, kind, seed]
                    outcomes.append(outcome)
                    bins[outcome.verdict] += 1
                    sources.update(outcome.sources)
                    if outcome.verdict in ("wedged", "over budget", "crashed"):
                        stops.append(f"seed {seed} {outcome.verdict}")
                players, variant = SMALLEST[game]
                total = sum(sources.values()) or 1
                rows.append({
                    "game": game, "players": players, "variant": variant, "faults": fault,
                    "kind": kind, "games": count, **{k: bins[k] for k in BINS},
                    "declared": round(sources.get("tablet", 0) / total, 3),
                    "sources": {k: round(v / total, 3) for k, v in sorted(sources.items())},
                    "stopped": stops,
                })
    return {"rows": rows, "games": [o.__dict__ for o in outcomes]}


def _table(rows: list[dict[str, Any]]) -> str:
    head = (f"{'game':<14} {'players':<9} {'faults':<10} {'games':>5} {'exact':>5} {'caught':>6} "
            f"{'silent':>6} {'wedged':>6} {'budget':>6} {'crash':>5} {'declared':>8}")
    lines = [head]
    for r in rows:
        lines.append(f"{r['game']:<14} {r['kind']:<9} {r['faults']:<10} {r['games']:>5} {r['exact']:>5} "
                     f"{r['caught']:>6} {r['silent']:>6} {r['wedged']:>6} {r['over budget']:>6} "
                     f"{r['crashed']:>5} {r['declared']:>8.0%}")
    return "\n".join(lines)


@click.command("truth")
@click.option("--game", "game_names", type=click.Choice(sorted(GAMES)), multiple=True,
              help="A game (repeat for several); every game when not given.")
@click.option("--faults", "fault_names", type=click.Choice(sorted(FAULT_MODELS)), multiple=True,
              help="A fault model (repeat for several); clean and cafe when not given.")
@click.option("--players", "kinds", type=click.Choice(list(NOTICE)), multiple=True,
              help="Which players (repeat for several): passive ones answer only what the "
                   "tablet asks; typical when not given.")
@click.option("--games", "count", type=click.IntRange(1, 1000), default=1, show_default=True,
              help="Seeded games per game, players and fault model.")
@click.option("--seed", "first_seed", type=int, default=1, show_default=True)
@click.option("--jobs", type=click.IntRange(1, 16), default=1, show_default=True,
              help="Games played at once, each in its own process (at most one per core).")
@click.option("--json", "as_json", is_flag=True)
def bench_truth_command(game_names: tuple[str, ...], fault_names: tuple[str, ...],
                        kinds: tuple[str, ...], count: int, first_seed: int, jobs: int,
                        as_json: bool) -> None:
    """Whole games through the full path with faults at the physical channels, judged by the
    world's own truth: exact, caught, silently wrong, or wedged, over budget, crashed."""
    import json

    games = list(game_names) or list(SMALLEST)
    faults = list(fault_names) or ["clean", "cafe"]
    players = list(kinds) or ["typical"]
    bar = tqdm(total=len(games) * len(faults) * len(players) * count, desc="games", unit="game",
               leave=False)

    def show(o: GameOutcome) -> None:
        bar.update(1)
        bar.set_postfix_str(f"{o.game} seed {o.seed} {o.kind} {o.faults}: {o.verdict}")
        # on stderr with --json too: a long run stopped early keeps what it played
        bar.write(f"  {o.game} seed {o.seed} {o.kind} {o.faults}: {o.verdict} "
                  f"({o.scores} vs {o.true_scores}, {o.steps} actions, {o.frames} frames, "
                  f"injected {o.injected})", file=sys.stderr)
        for line in o.ending:
            bar.write(f"    {line}", file=sys.stderr)

    with bar:
        figures = bench_truth(games, faults, count, first_seed, show, jobs, players)
    click.echo(json.dumps(figures, sort_keys=True) if as_json else _table(figures["rows"]))
