"""The simulated table driving a running service through its physical channels only.

Pieces moved -> rendered camera frames (with an arm reaching over the board
first); cards tapped and seat buttons -> the emulated device on a
pseudo-terminal; the turn button -> gpiozero's mock pin; declarations -> HTTP
POSTs with the table PIN, as a tablet sends them.  Players act at a human pace
drawn from a seeded distribution (:class:`HumanPacing`), never waiting on what
the companion has seen.  With ``human_pacing`` (the bench) they never wait on the
tablet at all: after a tap or a press they take their own seeded human delay, counted
in the camera's frames, and a game's budget is counted in player actions and frames,
never in seconds, so that a loaded machine gives the same games.
"""

from __future__ import annotations

import json
import math
import pickle
import random
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpiozero import Device

from companion.games.base import view_to_json
from companion.service import Service
from companion.sim.camera.source import FrameGate, SyntheticSource
from companion.sim.device import DeviceEmulator
from companion.sim.stickers import StickerSheet
from companion.sim.trace import open_trace
from companion.sim.words import Wording
from companion.sim.world import (
    TABLE_TYPES,
    BoardChange,
    CardTap,
    Declare,
    HandOver,
    PhysicalEvent,
    SeatButton,
    TapOption,
    Tidy,
    TurnButton,
    World,
)
from companion.table import HELD_PRESS_TEXT

HUMAN_PAUSE_S = 0.6  # between two things a player does, at --speed 1
END_WAIT_S = 5.0  # how long players who made the game's last move watch the tablet for the end
GLANCES_AFTER_END = 6  # then how often they mend their last move, the tablet taking nothing
WEDGE_ACTIONS = 40  # player actions with the record unmoved under a standing warning: wedged
RECORD_WAIT_S = 2.0  # the demo's players' glance for a move to show in the history (16 frames)
HANG_GUARD_S = 600.0  # at --speed 0 a wait for the tablet ends after its frames: this at the very most
CAMERA_STOPPED_S = 10.0  # ...or when the camera has taken no frame for this long (none is running)
TABLE_FPS = 8  # the camera's frames a second at a real table: a human delay's length in frames
DEVICE_GUARD_S = 10.0  # a hang guard on the device's delivery (the results never depend on it)
# a hang guard on the tablet's answer over HTTP (the results never depend on it): at a load of
# 13 on two cores a truth game's request waited past 10 s and the game was judged "crashed"
# (Jivecat seed 4, cafe, typical); a service that stopped is still found, in two minutes
TABLET_GUARD_S = 120.0
LOCKSTEP_POLL_S = 0.005  # the emulated firmware's poll with the lockstep camera: a real device's


@dataclass
class RunResult:
    steps: int
    stalls: int
    tablet: dict[str, Any]
    truth: dict[str, Any]
    refusals: list[str] = field(default_factory=list)
    seconds: float = 0.0
    world_finished: bool = False
    stopped: str | None = None
    """Why the players stopped before the game ended: "wedged" (the record did not move for
    :data:`WEDGE_ACTIONS` actions under a standing refusal or warning), "over budget" (the
    actions or frames allowed were used up); None when it ended or the world did."""
    stalled: list[str] = field(default_factory=list)
    """Each stalled step: its number, the events the players made, and the prompts the tablet
    showed after it (so a failed check says what recorded nothing)."""
    questions: int = 0
    """Steps that recorded nothing because the tablet asked which move the table shows,
    offering moves as one tap each (a place the camera cannot read, a choice), answered by a
    tap at the players' next step: not stalls (:func:`asks_a_move`)."""


def asks_a_move(tablet: dict[str, Any]) -> bool:
    """Whether the tablet asks the players which move the table shows: a prompt offering a
    game's move as one tap (not only "the record is right", "read the table again")."""
    return any(isinstance(o, dict) and (o.get("type") not in TABLE_TYPES or o.get("type") == "reads")
               for p in tablet.get("prompts") or []
               if isinstance(p, dict) and p.get("kind") in ("warning", "choice")
               for o in p.get("options") or [])


def record_of(tablet: dict[str, Any]) -> tuple[Any, ...]:
    """What the record holds, as far as the tablet shows it: its length and which of its
    newest entries stand (an undo or a correction moves it; a glance does not)."""
    return (tablet.get("history_total"),
            tuple((h.get("text"), bool(h.get("undone"))) for h in tablet.get("history") or []
                  if isinstance(h, dict)))


class Tablet:
    """A player's view of the dashboard over HTTP."""

    def __init__(self, url: str, pin: str) -> None:
        self.url = url
        self.pin = pin

    def state(self, history: int = 50) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.url}/api/state?history={history}",
                                    timeout=TABLET_GUARD_S) as response:
            return json.loads(response.read())

    def declare(self, action: dict[str, Any],
                request_id: str | None = None) -> tuple[int, dict[str, Any]]:
        body: dict[str, Any] = {"action": action}
        if request_id is not None:  # a retry after a crash applies nothing twice
            body["request_id"] = request_id
        request = urllib.request.Request(
            f"{self.url}/api/actions", data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "X-Table-Pin": self.pin}, method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=TABLET_GUARD_S) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"{}")


class HumanPacing:
    """How long people take, drawn from a seeded distribution (not from the companion)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def press_delay(self) -> float:
        """Seconds from the hand leaving to the button: median 0.7 s, 0.5 to 2.5 s."""
        return min(2.5, max(0.5, self.rng.lognormvariate(math.log(0.7), 0.5)))

    def think_delay(self) -> float:
        """Seconds between one thing players do and the next (a look round the table, a
        word, the next player's hand reaching in): median 2 s, 1 to 6 s."""
        return min(6.0, max(1.0, self.rng.lognormvariate(math.log(2.0), 0.5)))

    def linger_frames(self) -> int:
        """Frames the hand stays over the board around a move (mostly brief, sometimes long)."""
        return 3 + int(self.rng.expovariate(1 / 3))


class SimulatedTable:
    """The world's events onto the channels.  ``human_pacing`` False (the demo's default): after
    moving pieces the players wait until the tablet shows the board ("seen") before the next
    thing; Jivecat's worlds still need it (a tap or a second change right after a move is not
    yet coped with).  True (``companion bench truth``): a seeded human delay instead, never
    looking at what the companion has seen."""

    human_pacing = False
    answered_reads = False  # the players' last step tapped what a place the camera cannot read holds

    def __init__(self, service: Service, world: World, source: SyntheticSource,
                 device: DeviceEmulator, speed: float = 1.0, world_file: Path | None = None,
                 progress: Any = None, tablet: Tablet | None = None,
                 stickers: StickerSheet | None = None) -> None:
        self.service = service
        self.world = world
        self.source = source
        self.device = device
        self.speed = speed
        # the PIN read off the start-up screen; a BrowserTablet taps the page instead of POSTing
        self.tablet = tablet or Tablet(service.url, service.pin)
        self.world_file = world_file
        # the cards' stickers are the world's own; the companion knows them from tags.json
        self.stickers = stickers or StickerSheet(world.game.name, world.game.card_ids(),
                                                   getattr(world, "seed", 0))
        self.progress = progress
        self.refusals: list[str] = []
        self.button_pin = Device.pin_factory.pin(service.config.gpio_pins.button)
        self.shared_reader = service.config.shared_reader
        self.step = 0
        self.current_request: str | None = None
        self.pacing = HumanPacing(random.Random(service.config.seed * 31 + 7))
        self.frames_taken = 0
        source.read = self._count_frames(source.read)  # type: ignore[method-assign]
        self.gate = self._lockstep()
        self.trace = open_trace("table")  # None unless COMPANION_SIM_TRACE names a file
        if self.trace is not None:
            self.trace.clock = lambda: self.frames_taken
            table = getattr(service, "table", None)
            self.trace.watch(getattr(table, "current", table))

    def _lockstep(self) -> FrameGate | None:
        """With human pacing at --speed 0 (the bench) the camera loop reads through a
        :class:`FrameGate`: it takes the frames the players' delays give and no others, so a
        game takes the same frames on an idle machine as on a loaded one.  The watchdog's
        wall-clock stall is then the harness thinking, not a stuck camera: it is not raised, nor
        the link's wall-clock "device silent" (a warning the players would read, or not, as the
        machine's load had it).
        Nobody waits on the device's round trips for pace any more (the delays are frames):
        its firmware polls at a real device's 5 ms, not spinning at 1 ms all game."""
        vision = getattr(self.service, "vision", None)
        if not (self.human_pacing and self.speed == 0 and vision is not None):
            return None
        current = getattr(vision, "source", None)  # the demo gates the camera from its start
        gate = current if isinstance(current, FrameGate) else FrameGate(self.source)
        vision.source = gate
        watchdog = getattr(self.service, "watchdog", None)
        if watchdog is not None:
            watchdog.stall_s = math.inf
        link = getattr(self.service, "link", None)
        if link is not None and hasattr(link, "heartbeat_timeout_s"):
            link.heartbeat_timeout_s = math.inf  # nor is its pause a silent device
        if isinstance(getattr(self.device, "poll_s", None), float):
            self.device.poll_s = max(self.device.poll_s, LOCKSTEP_POLL_S)
        return gate

    def human_wait(self, seconds: float, after_frames: int = 0) -> None:
        """A human delay on the table's own clock: the hand's ``after_frames`` then ``seconds``
        more, counted in the frames the camera takes at 8 a second, or slept at --speed > 0.
        With the lockstep camera (the bench) exactly those frames are taken and acted on."""
        if self.speed > 0:
            time.sleep(seconds / self.speed)
            return
        frames = after_frames + round(seconds * TABLE_FPS)
        if self.gate is not None:
            self.gate.advance(frames)
            return
        until = self.frames_taken + frames
        deadline = time.monotonic() + CAMERA_STOPPED_S  # (a hang guard: no camera takes frames)
        while self.frames_taken < until and time.monotonic() < deadline:
            time.sleep(0.005)

    def _count_frames(self, read: Any) -> Any:
        """The camera's frames, counted: the world's clock when the demo runs at full speed."""
        def counted() -> Any:
            self.frames_taken += 1
            return read()
        return counted

    def pause(self, factor: float = 1.0) -> None:
        if self.speed > 0:
            time.sleep(HUMAN_PAUSE_S * factor / self.speed)

    def hold_s(self, seconds: float) -> float:
        """How long a hand rests on a reader or a button: as briefly as the firmware
        allows at speed 0 (the device waits until it has read it either way)."""
        return seconds if self.speed > 0 else 0.0

    max_frames: int | None = None
    """The camera frames a game may take (a bench's budget, with the run's ``max_steps``):
    past them the players stop, the game unfinished.  Counted, never timed."""

    def out_of_frames(self) -> bool:
        return self.max_frames is not None and self.frames_taken > self.max_frames

    def observe(self, tablet: dict[str, Any]) -> None:
        """The tablet after each of the players' actions, for a judge watching the game (the
        bench's); the players themselves see only what :meth:`World.act` is given."""

    def wait_for(self, check: Any, timeout: float = 20.0) -> dict[str, Any]:
        """Poll the tablet until ``check(state)`` holds, for ``timeout`` seconds of the
        table's time: slept at --speed > 0; at --speed 0 counted in the camera's frames at 8 a
        second (the camera then runs as fast as the machine lets it, so a loaded machine
        waits as many frames as an idle one, and the result never depends on the load), with
        a wall-clock hang guard only for a camera that stopped (no frame for
        ``CAMERA_STOPPED_S``)."""
        state = self.tablet.state()
        if self.speed > 0:
            deadline = time.monotonic() + timeout
            while not check(state) and time.monotonic() < deadline:
                time.sleep(0.02)
                state = self.tablet.state()
            return state
        deadline = time.monotonic() + HANG_GUARD_S
        frames_until = self.frames_taken + round(timeout * TABLE_FPS)
        seen, seen_at = self.frames_taken, time.monotonic()
        while not check(state) and self.frames_taken < frames_until:
            time.sleep(0.01)
            now = time.monotonic()
            if self.frames_taken != seen:
                seen, seen_at = self.frames_taken, now
                # (asked again once a frame has been taken since: asked every 10 ms, the tablet's
                # state cost the Swing State demo 4,667 requests its companion's threads served)
                state = self.tablet.state()
            elif now - seen_at > CAMERA_STOPPED_S or now > deadline:
                break  # no camera is taking frames (stopped, or none runs): waiting longer is a hang
        return state

    # ------------------------------------------------------------------ channels
    def press_now(self, event: SeatButton | TurnButton) -> None:
        """The button pressed and let go, nothing awaited after it."""
        if isinstance(event, SeatButton):
            self.device.press(event.seat, hold_s=self.hold_s(0.06))
            return
        self.button_pin.drive_low()
        time.sleep(0.03 if self.speed > 0 else 0.01)
        self.button_pin.drive_high()

    def deliver(self, event: PhysicalEvent, before: dict[str, Any] | None = None) -> None:
        if self.trace is not None:
            self.trace.event(event, verb="delivered: ")
        before = before if before is not None else self.tablet.state(history=0)
        marker = (before["history_total"], json.dumps(before["prompts"]), len(before["taps"]))

        def moved_on(s: dict[str, Any]) -> bool:
            return (s["history_total"], json.dumps(s["prompts"]), len(s["taps"])) != marker

        def judged(s: dict[str, Any]) -> bool:
            """The press's outcome shows: not only "press noted", which asks players to wait."""
            return moved_on(s) and not any(p.get("text") == HELD_PRESS_TEXT for p in s["prompts"])

        if isinstance(event, BoardChange):
            # an arm reaches in, moves the pieces, withdraws; with human pacing it lingers a
            # while and the player then presses at a human pace, never waiting on the companion
            linger = self.pacing.linger_frames() if self.human_pacing else (4 if self.speed > 0 else 1)
            self.source.hand_over(linger)
            self.source.show(event.view)
            if self.human_pacing:
                self.human_wait(self.pacing.press_delay(), after_frames=linger)
            else:  # the demo's default still waits for the tablet to show the board: see below
                target = view_to_json(event.view)
                if before.get("seen") != target:
                    self.wait_for(lambda s: s.get("seen") == target)
        elif isinstance(event, HandOver):
            self.source.hand_over(event.frames)
        elif isinstance(event, CardTap):
            reader = self.shared_reader if event.seat is None else event.seat
            self.device.lay_card(reader, self.stickers.uid(event.card), hold_s=self.hold_s(0.05))
            self.after_hand(moved_on)
        elif isinstance(event, (SeatButton, TurnButton)):
            self.press_now(event)
            self.after_hand(judged)
        elif isinstance(event, Declare):
            status, body = self.tablet.declare(event.action, self.current_request)
            if status != 200:
                self.refusals.append(f"{event.action}: {status} {body.get('error')}")
        elif isinstance(event, TapOption):
            # the button that reads so on the tablet now (the page's own data behind it)
            # with its history: a button names an entry by the number printed beside it there
            option = self.wording().find(self.tablet.state(), event.words)
            self.answered_reads = self.answered_reads or (option or {}).get("type") == "reads"
            if option is None:
                self.refusals.append(f"{event.words!r}: no such button now")
            else:
                status, body = self.tablet.declare(option, self.current_request)
                if status != 200:
                    self.refusals.append(f"{event.words!r}: {status} {body.get('error')}")
        elif isinstance(event, Tidy):
            self.tidy()
        else:  # pragma: no cover
            raise TypeError(f"unknown physical event {event!r}")
        self.pause(0.5)

    def wording(self) -> Wording:
        """How the tablet words its buttons for this game (the world's own wording)."""
        wording = getattr(self, "_wording", None)
        if wording is None:
            wording = getattr(self.world, "wording", None)
            wording = wording() if callable(wording) else wording
            self._wording = wording
        assert wording is not None
        return wording

    def tidy(self) -> None:
        """The players clear the board (a table without faults has nothing to clear)."""

    def glance(self) -> None:
        """Before the players look at the tablet: what they see on their own table that they
        did not lay is told to the world (a table without faults shows nothing such)."""

    def after_hand(self, check: Any) -> None:
        """After a tap or a press: with human pacing, the player's own delay (in frames),
        never the tablet's; the demo's players watch the tablet move on instead."""
        if self.human_pacing:
            self.device_delivered()
            self.human_wait(self.pacing.press_delay())
        else:
            # the frames counted below are the table's clock only once the press or tap has
            # reached the table: a still table's frames cost next to nothing, and on a loaded
            # machine the device's thread could fall a few hundred of them behind the camera's
            self.device_delivered(lockstep_only=False)
            self.wait_for(check, 30.0)

    def device_delivered(self, lockstep_only: bool = True) -> None:
        """With the lockstep camera: the device's messages of a tap or a press have reached
        the table before the next frame is taken (its firmware holds each until the host
        says it received it, and the host hands it on under its delivery lock), so that the
        camera's frames and the device's messages meet the table in the same order on any
        machine.  The harness's barrier, not anything the players wait for (the demo's
        players, who watch the tablet, pass it without the lockstep camera too:
        ``lockstep_only`` False)."""
        if (lockstep_only and self.gate is None) or getattr(self, "_unplugged", 0):
            return  # an unplugged device delivers nothing until it is plugged in again
        app = getattr(self.device, "app", None)
        deadline = time.monotonic() + DEVICE_GUARD_S
        while app is not None and app.outbox and time.monotonic() < deadline:
            time.sleep(0.001)
        delivering = getattr(getattr(self.service, "link", None), "_deliver", None)
        if delivering is not None:
            with delivering:  # a message the host took is handed to the table under this lock
                pass

    # ------------------------------------------------------------------ the game
    def run(self, max_steps: int = 5000, exit_when_over: bool = True) -> RunResult:
        """Play to the end, resuming where a checkpoint says the world was.

        The world's truth is saved before each physical event, with the events of its step
        still to come and the companion's ``history_total`` at that moment.  After a kill
        the first pending event is delivered again unless the log shows it was recorded;
        a declaration carries a request id, so the companion applies it at most once."""
        try:
            return self._play(max_steps, exit_when_over)
        finally:
            if self.gate is not None:  # the players are done: the camera runs free to its stop
                self.gate.release()

    def _play(self, max_steps: int, exit_when_over: bool) -> RunResult:
        started = time.monotonic()
        saved = self._load()
        if saved is None:
            self.step = 0
            pending, marker = list(self.world.start()), None
        else:
            self.world, pending, marker, self.step = saved
            # the physical table is as the players left it: the camera sees it again
            board = self.world.board()
            if board is not None:
                self.deliver(BoardChange(board))
        self._deliver_all(pending, marker)
        steps = stalls = questions = after_end = unmoved = 0
        asked: str | None = None  # a step the tablet answered with a question, until the next
        stalled: list[str] = []
        stopped: str | None = None
        total_at_end: int | None = None
        record: tuple[Any, ...] | None = None
        while True:
            if steps >= max_steps or self.out_of_frames():
                stopped = "over budget"
                break
            if self.world.finished():
                # the last move is made: players watch the tablet for the end and, when it
                # does not come (the last press came early, a card missed its reader), mend
                # their last move as at any other point of the game: a few glances at most
                # without the tablet taking anything more (laying moves again takes several)
                if self.human_pacing:
                    self.human_wait(END_WAIT_S / 2)
                    tablet = self.tablet.state()
                else:
                    tablet = self.wait_for(lambda s: s["over"], END_WAIT_S)
                moved = tablet["history_total"] != total_at_end
                total_at_end = tablet["history_total"]
                after_end = 1 if moved else after_end + 1
                if tablet["over"] or after_end > GLANCES_AFTER_END:
                    break
            else:
                tablet = self.tablet.state()
            self.glance()
            if self.trace is not None:
                self.trace.tablet(tablet, words=lambda o, t=tablet: self.wording().option(o, t))
            events = self.world.act(tablet)
            if not events:
                break
            self.step += 1
            self.answered_reads = False  # the players said what a place holds: an answer, no move
            self._deliver_all(events, None, tablet)
            steps += 1
            after = self.tablet.state()
            if not self.human_pacing and after["history_total"] == tablet["history_total"]:
                # the demo's players watch the tablet: a move the camera or a press gave may
                # reach the record a frame after the view showed it (a loaded machine's frames)
                total = tablet["history_total"]
                after = self.wait_for(lambda s, total=total: s["history_total"] != total, RECORD_WAIT_S)
            self.observe(after)
            moved = after["history_total"] != tablet["history_total"]
            if asked is not None:  # the question the last step left: answered, or a stall after all
                questions += moved
                stalls += not moved
                stalled += [] if moved else [asked]
                asked = None
            elif not moved and self.answered_reads:
                questions += 1  # "B at Nightclub 3 shows red (3)": the table read so, nothing to record
            elif not moved and not getattr(self.world, "repeated", False):
                # a step of the game that recorded nothing (a card laid again is none)
                shown = [p.get("text") for p in after.get("prompts") or []]
                if asks_a_move(after):
                    asked = f"step {self.step}: {events} -> {shown}"
                else:
                    stalls += 1
                    stalled.append(f"step {self.step}: {events} -> {shown}")
            now = record_of(after)
            warned = any(p.get("kind") == "warning" for p in after.get("prompts") or [])
            unmoved = unmoved + 1 if now == record and warned else 0
            record = now
            if unmoved >= WEDGE_ACTIONS and not after.get("over"):
                stopped = "wedged"
                break
            if self.progress is not None:
                self.progress.update(1)
            if self.human_pacing:
                self.human_wait(self.pacing.think_delay())
            else:
                self.pause()
        # the record, as far as one page reaches, read before the camera runs free (its frames
        # after the players are done are as many as the machine draws: no result hangs on them)
        final = self.tablet.state(history=500)
        if self.gate is not None:
            self.gate.release()
        if self.world_file is not None and final["over"] and self.world_file.exists():
            self.world_file.unlink()
        if not exit_when_over:
            while True:
                time.sleep(3600)
        if final.get("over"):
            stopped = None
        elif stopped is None:  # the players had nothing more to do, the tablet not at the end
            stopped = "wedged"
        if asked is not None:  # the players stopped with the question unanswered
            stalls += 1
            stalled.append(asked)
        return RunResult(steps, stalls, final, self.world.truth(), self.refusals,
                         time.monotonic() - started, self.world.finished(), stopped, stalled, questions)

    def _deliver_all(self, events: list[PhysicalEvent], resumed_marker: int | None,
                     tablet: dict[str, Any] | None = None) -> None:
        """Checkpoint, then deliver, each event of a step; the first of a resumed step is
        skipped when the log moved past the checkpoint (it was recorded before the kill).

        The last event stays pending until the next step's first checkpoint: if a kill
        comes first, it is delivered again unless the log shows it recorded (a tap that
        only waits for a button is lost with the companion's memory, so it must be)."""
        events = list(events)
        for index, event in enumerate(events):
            before = tablet if index == 0 and tablet is not None else self.tablet.state(history=0)
            total = before["history_total"]
            if index == 0 and resumed_marker is not None and total > resumed_marker \
                    and not isinstance(event, Declare):
                continue
            self.save(events[index:], total)
            # unique across the games of a data folder: a request id names one tap for good
            self.current_request = f"sim-{before.get('game_id')}-{self.step}-{index}"
            self.deliver(event, before)

    def save(self, pending: list[PhysicalEvent], marker: int) -> None:
        """The world's truth (hands, decks) persists beside, never inside, the companion's
        data, with the events of its step not yet known to have been recorded."""
        if self.world_file is not None:
            tmp = self.world_file.with_suffix(".tmp")
            tmp.write_bytes(pickle.dumps({"world": self.world, "pending": pending,
                                          "marker": marker, "step": self.step,
                                          "game_id": self.service.table.record.id}))
            tmp.replace(self.world_file)

    def _load(self) -> tuple[World, list[PhysicalEvent], int, int] | None:
        if self.world_file is None or not self.world_file.exists():
            return None
        saved = pickle.loads(self.world_file.read_bytes())
        if saved.get("game_id") != self.service.table.record.id:
            return None  # the world of another (finished) game: this one starts afresh
        return saved["world"], saved["pending"], saved["marker"], saved["step"]
