"""``companion bench truth``: whole seeded games through the full path, judged by the world.

Each game runs through :func:`companion.sim.demo.run_demo` (rendered frames, the
emulated device on a pty, mock GPIO pins, HTTP).  At the end the world's own
physical truth (``world.truth()``: its scores and winners from its own
bookkeeping of the pieces) is set against what the companion's tablet shows.

Faults are injected only where the physical world meets the companion's inputs,
never inside the companion: the camera (a piece's pips or colour misread, a
piece missing or a phantom one, a hand resting over the board, frames lost),
the device's readers and buttons (a tap that never reaches the reader, a card
laid twice, the device unplugged for a while) and the turn button (pressed
before the pieces are down, or late).  :class:`FaultyTable` is the runner with
those faults between the world and its channels.

Each game lands in one of four bins: ``exact`` (scores and winners right),
``prompted`` (wrong, but the tablet showed a prompt during the game),
``silent`` (wrong and no prompt ever shown) and ``stuck`` (the game never ended
on the tablet, or the world never finished).
"""

from __future__ import annotations

import math
import multiprocessing
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
from tqdm import tqdm

from companion.games import GAMES
from companion.games.base import BoardView, Piece
from companion.sim.runner import SimulatedTable
from companion.sim.world import BoardChange, CardTap, PhysicalEvent, SeatButton, TurnButton

# the smallest configuration of each game (short games; the bench must run in minutes)
SMALLEST: dict[str, tuple[int, str | None]] = {
    "times_square": (2, None),
    "king_of_clubs": (2, "advanced"),
    "baron_voodoo": (2, None),
    "jivecat": (3, None),
    "swing_state": (3, None),
}

# colours a misread may turn a piece into (the palette's ordinary names)
MISREAD_COLOURS = ("red", "blue", "green", "yellow", "white", "black")

PROMPT_KINDS = ("warning", "choice")  # the prompts that ask the players about the table
TRANSIENT_FRAMES = 12  # frames a transient misread lasts (1.5 s at the service's 8 fps)
PLAYERS_WAIT_S = 6.0  # how long players watch the tablet for their move before going on
BUDGET_S = 240.0  # a game's time on the bench: past it, the players stop and it is "stuck"


@dataclass(frozen=True)
class FaultModel:
    """Per-event probabilities of each fault at the physical channels."""

    pip: float = 0.0  # a piece with pips read one off, for a few frames
    colour: float = 0.0  # a piece read as another colour, for a few frames
    missing: float = 0.0  # a piece not seen, for a few frames
    phantom: float = 0.0  # a piece seen that is not there, for a few frames
    persistent: float = 0.0  # a pip misread that stays until the pieces move again
    resting_hand: float = 0.0  # a hand left over the board after a move
    dropout: float = 0.0  # the camera gives no frame for a while
    drop_tap: float = 0.0  # a card laid that the reader never reads
    double_tap: float = 0.0  # a card laid twice
    early_press: float = 0.0  # the button pressed before the pieces are down
    late_press: float = 0.0  # the button pressed after a long pause
    unplug: float = 0.0  # the device silent (unplugged) for a while around a tap or press

    def any(self) -> bool:
        return any(getattr(self, name) > 0 for name in self.__dataclass_fields__)


FAULT_MODELS: dict[str, FaultModel] = {
    "clean": FaultModel(),
    "pips": FaultModel(pip=0.15),
    "colours": FaultModel(colour=0.1),
    "pieces": FaultModel(missing=0.08, phantom=0.08),
    "persistent": FaultModel(persistent=0.03),
    "hands": FaultModel(resting_hand=0.2),
    "dropouts": FaultModel(dropout=0.15),
    "taps": FaultModel(drop_tap=0.08, double_tap=0.08),
    "presses": FaultModel(early_press=0.1, late_press=0.1),
    "unplug": FaultModel(unplug=0.05),
    # every transient fault at once, at modest rates: the default "with faults" row
    "mixed": FaultModel(pip=0.05, colour=0.03, missing=0.03, phantom=0.03, resting_hand=0.05,
                        dropout=0.05, drop_tap=0.03, double_tap=0.03, early_press=0.05,
                        late_press=0.05, unplug=0.02),
}


@dataclass
class FaultLog:
    """What was injected, for the report (and for tests that the channel really was hit)."""

    counts: Counter[str] = field(default_factory=Counter)

    def note(self, kind: str) -> None:
        self.counts[kind] += 1


def perturb_view(view: BoardView, model: FaultModel, rng: random.Random,
                 log: FaultLog) -> tuple[BoardView, bool]:
    """The board as a faulty camera would read it; (view, persistent?)."""
    pieces = [(spot, i) for spot, stack in view.items() for i in range(len(stack))]
    with_pips = [(spot, i) for spot, i in pieces if view[spot][i].pips > 0]
    out = {spot: list(stack) for spot, stack in view.items()}
    persistent = False
    if with_pips and rng.random() < model.persistent:
        spot, i = rng.choice(with_pips)
        piece = out[spot][i]
        out[spot][i] = Piece(piece.colour, max(1, piece.pips + rng.choice((-1, 1))))
        log.note("persistent")
        persistent = True
    elif with_pips and rng.random() < model.pip:
        spot, i = rng.choice(with_pips)
        piece = out[spot][i]
        out[spot][i] = Piece(piece.colour, max(1, piece.pips + rng.choice((-1, 1))))
        log.note("pip")
    if pieces and rng.random() < model.colour:
        spot, i = rng.choice(pieces)
        piece = out[spot][i]
        others = [c for c in MISREAD_COLOURS if c != piece.colour]
        out[spot][i] = Piece(rng.choice(others), piece.pips)
        log.note("colour")
    if pieces and rng.random() < model.missing:
        spot, i = rng.choice(pieces)
        if i < len(out[spot]):
            del out[spot][i]
            log.note("missing")
    if pieces and len(view) > 1 and rng.random() < model.phantom:
        spot, i = rng.choice(pieces)
        target = rng.choice([s for s in view if s != spot])
        out[target].append(view[spot][i])
        log.note("phantom")
    return {spot: tuple(stack) for spot, stack in out.items() if stack}, persistent


class FaultyTable(SimulatedTable):
    """The simulated table with faults between the world and the companion's inputs.

    The camera faults live in the frame source (what it shows and whether it gives
    a frame at all), the tap and press faults at the emulated device's and the mock
    pin's inputs; the companion is never touched.
    """

    human_pacing = True  # players act at a human pace, never waiting on what the companion saw

    def __init__(self, *args: Any, faults: FaultModel, fault_seed: int, log: FaultLog,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.faults = faults
        self.fault_rng = random.Random(fault_seed)
        self.fault_log = log
        self.prompts_seen: list[str] = []
        self._guard = threading.Lock()
        self._dropout = 0
        self._restore: tuple[int, BoardView] | None = None
        source = self.source
        real_show, real_read, real_state = source.show, source.read, self.tablet.state

        def show(view: BoardView) -> None:
            seen, persistent = perturb_view(view, self.faults, self.fault_rng, self.fault_log)
            with self._guard:
                self._restore = None if (persistent or seen == view) else (TRANSIENT_FRAMES, view)
                if self.fault_rng.random() < self.faults.dropout:
                    self._dropout = TRANSIENT_FRAMES
                    self.fault_log.note("dropout")
            real_show(seen)
            if self.fault_rng.random() < self.faults.resting_hand:
                source.hand_over(3 * TRANSIENT_FRAMES)  # the hand stays after the move
                self.fault_log.note("resting_hand")

        def read() -> Any:
            with self._guard:
                if self._dropout > 0:
                    self._dropout -= 1
                    self.frames_taken += 1  # a lost frame still takes the camera's time
                    return None
                if self._restore is not None:
                    left, truth = self._restore
                    self._restore = (left - 1, truth) if left > 1 else None
                    if left <= 1:
                        real_show(truth)
            return real_read()

        def state(*args: Any, **kwargs: Any) -> dict[str, Any]:
            current = real_state(*args, **kwargs)
            for prompt in current.get("prompts", []):
                if prompt.get("kind") not in PROMPT_KINDS:
                    continue  # whose turn it is, a chore: not a question about the table
                text = str(prompt.get("text", prompt))
                if not self.prompts_seen or self.prompts_seen[-1] != text:
                    self.prompts_seen.append(text)
            return current

        source.show = show  # type: ignore[method-assign]
        source.read = read  # type: ignore[method-assign]
        self.tablet.state = state  # type: ignore[method-assign]

    def wait_for(self, check: Any, timeout: float = 20.0) -> dict[str, Any]:
        """Players glance at the tablet for a few seconds, then go on (or answer it)."""
        return super().wait_for(check, min(timeout, PLAYERS_WAIT_S))

    def _unplug_for(self, seconds: float) -> None:
        """The device goes silent: its loop stops polling its readers and buttons."""
        lock = self.device._lock
        lock.acquire()
        self.fault_log.note("unplug")
        threading.Timer(seconds, lock.release).start()

    def deliver(self, event: PhysicalEvent, before: dict[str, Any] | None = None) -> None:
        rng, model = self.fault_rng, self.faults
        if isinstance(event, BoardChange) and rng.random() < model.early_press:
            # the player presses while the arm is still over the board: the pieces land after
            self.source.hand_over(4)
            self.source.show(event.view)
            self.fault_log.note("early_press")
            return
        if isinstance(event, (CardTap, SeatButton)) and rng.random() < model.unplug:
            self._unplug_for(1.5)
        if isinstance(event, CardTap):
            if rng.random() < model.drop_tap:
                self.fault_log.note("drop_tap")
                return  # the card missed the reader; the player did not notice
            if rng.random() < model.double_tap:
                reader = self.shared_reader if event.seat is None else event.seat
                self.device.lay_card(reader, self.card_uid(event.card))
                self.fault_log.note("double_tap")
        if isinstance(event, TurnButton):
            if rng.random() < model.late_press:
                time.sleep(1.5)
                self.fault_log.note("late_press")
        super().deliver(event, before)

    def card_uid(self, card: str) -> bytes:
        """The tag UID a card carries, as the runner lays it (the world's own stickers)."""
        return self.stickers.uid(card)


@dataclass
class GameOutcome:
    game: str
    players: int
    variant: str | None
    seed: int
    faults: str
    verdict: str  # exact | prompted | silent | stuck
    scores: list[float]
    true_scores: list[float]
    winners: list[int]
    true_winners: list[int]
    steps: int
    seconds: float
    sources: dict[str, int]
    prompts: list[str]
    injected: dict[str, int]
    ending: list[str] = field(default_factory=list)
    """What the tablet showed last, for a game that did not end exact: its newest entries and
    the prompts it was showing, so that a stuck game in a long run can be told apart."""


def same_scores(a: list[Any], b: list[Any]) -> bool:
    return len(a) == len(b) and all(math.isclose(float(x), float(y)) for x, y in zip(a, b, strict=True))


def judge(tablet: dict[str, Any], truth: dict[str, Any], prompts: list[str],
          world_finished: bool) -> str:
    """The bin a game falls in, from the tablet's end state and the world's truth."""
    if not tablet.get("over") or not world_finished:
        return "stuck"
    right = (same_scores(tablet.get("scores") or [], truth.get("scores") or [])
             and sorted(tablet.get("winner") or []) == sorted(truth.get("winners") or []))
    if right:
        return "exact"
    return "prompted" if prompts else "silent"


def play_one(game: str, seed: int, faults: str, max_steps: int = 1500,
             budget_s: float = BUDGET_S) -> GameOutcome:
    """One seeded game of ``game`` in its smallest configuration through the full path,
    stopped as "stuck" when it has not ended within ``budget_s`` seconds."""
    from companion.sim import demo

    players, variant = SMALLEST[game]
    model = FAULT_MODELS[faults]
    log = FaultLog()
    tables: list[FaultyTable] = []

    def make_table(*args: Any, **kwargs: Any) -> FaultyTable:
        table = FaultyTable(*args, faults=model, fault_seed=seed * 7919 + 17, log=log, **kwargs)
        table.deadline = started + budget_s
        tables.append(table)
        return table

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-truth-") as tmp:
        try:
            result = demo.run_demo(game, players, variant, seed, port=0, host="127.0.0.1",
                                   data_dir=Path(tmp), pin="111111", speed=0, exit_when_over=True,
                                   max_steps=max_steps, progress=False, table_class=make_table)
        except (OSError, TimeoutError) as err:  # the service stopped answering: a stuck game
            return GameOutcome(game, players, variant, seed, faults, "stuck", [], [], [], [], 0,
                               round(time.monotonic() - started, 1), {}, [f"error: {err!r}"],
                               dict(log.counts))
    table = tables[0]
    tablet = result.tablet
    finished = table.world.finished()
    verdict = judge(tablet, result.truth, table.prompts_seen, finished)
    sources = Counter(h["source"] for h in tablet.get("history", []))
    return GameOutcome(
        game=game, players=players, variant=variant, seed=seed, faults=faults,
        verdict=verdict,
        scores=list(tablet.get("scores") or []), true_scores=list(result.truth.get("scores") or []),
        winners=list(tablet.get("winner") or []), true_winners=list(result.truth.get("winners") or []),
        steps=result.steps, seconds=round(time.monotonic() - started, 1), sources=dict(sources),
        prompts=table.prompts_seen[:20], injected=dict(log.counts),
        ending=[] if verdict == "exact" else ending(tablet, finished),
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


def _played(plan: list[tuple[str, str, int]], budget_s: float,
            jobs: int) -> Iterator[tuple[tuple[str, str, int], GameOutcome]]:
    """Each (game, fault model, seed) of ``plan`` with its outcome, as the games end: one
    after another, or ``jobs`` at once in spawned processes (not forked: a game's threads
    and mock pins start clean in each worker)."""
    if jobs <= 1:
        for game, fault, seed in plan:
            yield (game, fault, seed), play_one(game, seed, fault, budget_s=budget_s)
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = {pool.submit(play_one, game, seed, fault, budget_s=budget_s): (game, fault, seed)
                   for game, fault, seed in plan}
        for future in as_completed(futures):
            yield futures[future], future.result()


def bench_truth(games: list[str], faults: list[str], count: int, first_seed: int = 1,
                progress: Callable[[GameOutcome], None] | None = None,
                budget_s: float = BUDGET_S, jobs: int = 1) -> dict[str, Any]:
    """Every (game, fault model) for ``count`` seeds: the bins, sources and each game's detail.
    ``jobs`` > 1 plays that many games at once, each in its own process (its own service,
    port, pins and data folder), so a sample large enough to show a share can be run."""
    plan = [(game, fault, seed) for game in games for fault in faults
            for seed in range(first_seed, first_seed + count)]
    done: dict[tuple[str, str, int], GameOutcome] = {}
    for key, outcome in _played(plan, budget_s, jobs):
        done[key] = outcome
        if progress is not None:
            progress(outcome)
    rows: list[dict[str, Any]] = []
    outcomes: list[GameOutcome] = []
    for game in games:
        for fault in faults:
            bins: Counter[str] = Counter()
            sources: Counter[str] = Counter()
            for seed in range(first_seed, first_seed + count):
                outcome = done[game, fault, seed]
                outcomes.append(outcome)
                bins[outcome.verdict] += 1
                sources.update(outcome.sources)
            players, variant = SMALLEST[game]
            total = sum(sources.values()) or 1
            rows.append({
                "game": game, "players": players, "variant": variant, "faults": fault,
                "games": count, **{k: bins[k] for k in ("exact", "prompted", "silent", "stuck")},
                "sources": {k: round(v / total, 3) for k, v in sorted(sources.items())},
            })
    return {"rows": rows, "games": [o.__dict__ for o in outcomes]}


def _table(rows: list[dict[str, Any]]) -> str:
    head = (f"{'game':<14} {'faults':<10} {'games':>5} {'exact':>5} {'prompt':>6} {'silent':>6} "
            f"{'stuck':>5}  sources")
    lines = [head]
    for r in rows:
        shares = " ".join(f"{k} {v:.0%}" for k, v in r["sources"].items())
        lines.append(f"{r['game']:<14} {r['faults']:<10} {r['games']:>5} {r['exact']:>5} "
                     f"{r['prompted']:>6} {r['silent']:>6} {r['stuck']:>5}  {shares}")
    return "\n".join(lines)


@click.command("truth")
@click.option("--game", "game_names", type=click.Choice(sorted(GAMES)), multiple=True,
              help="A game (repeat for several); every game when not given.")
@click.option("--faults", "fault_names", type=click.Choice(sorted(FAULT_MODELS)), multiple=True,
              help="A fault model (repeat for several); clean and mixed when not given.")
@click.option("--games", "count", type=click.IntRange(1, 1000), default=1, show_default=True,
              help="Seeded games per game and fault model.")
@click.option("--seed", "first_seed", type=int, default=1, show_default=True)
@click.option("--budget", "budget_s", type=click.FloatRange(10), default=BUDGET_S,
              show_default=True, help="Seconds a game may take; past them it counts as stuck.")
@click.option("--jobs", type=click.IntRange(1, 16), default=1, show_default=True,
              help="Games played at once, each in its own process (at most one per core).")
@click.option("--json", "as_json", is_flag=True)
def bench_truth_command(game_names: tuple[str, ...], fault_names: tuple[str, ...], count: int,
                        first_seed: int, budget_s: float, jobs: int, as_json: bool) -> None:
    """Whole games through the full path with faults at the physical channels, judged by the
    world's own truth: exact, wrong with a prompt, silently wrong, stuck."""
    import json

    games = list(game_names) or list(SMALLEST)
    faults = list(fault_names) or ["clean", "mixed"]
    bar = tqdm(total=len(games) * len(faults) * count, desc="games", unit="game", leave=False)

    def show(o: GameOutcome) -> None:
        bar.update(1)
        bar.set_postfix_str(f"{o.game} seed {o.seed} {o.faults}: {o.verdict}")
        # on stderr with --json too: a long run stopped early keeps what it played
        bar.write(f"  {o.game} seed {o.seed} {o.faults}: {o.verdict} "
                  f"({o.scores} vs {o.true_scores}, {o.steps} steps, {o.seconds}s, "
                  f"injected {o.injected})", file=sys.stderr)
        for line in o.ending:
            bar.write(f"    {line}", file=sys.stderr)

    with bar:
        figures = bench_truth(games, faults, count, first_seed, show, budget_s, jobs)
    click.echo(json.dumps(figures, sort_keys=True) if as_json else _table(figures["rows"]))
