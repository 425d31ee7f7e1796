"""Faults where the physical table meets the companion's inputs, never inside the companion.

Transient ones (a piece misread for a few frames, a hand left over the board, frames lost,
a tap missed, the device unplugged for a moment) and the ones a cafe has all evening: one
place misread every time it is seen, a piece knocked into the neighbouring place, the
camera bumped a few centimetres, a cup left on the board, the light drifting, a lamp's hot
spot over a place or three all evening, a card tapped on the wrong seat's reader, a press
forgotten or made twice.  :class:`FaultyTable` is the
runner with them between the world and its channels; every duration is counted in the
camera's frames, never in seconds.
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from companion.games.base import BoardView, Piece
from companion.sim.camera.conditions import gains_table
from companion.sim.runner import SimulatedTable
from companion.sim.world import BoardChange, CardTap, PhysicalEvent, SeatButton, TurnButton

PROMPT_KINDS = ("warning", "choice")  # the prompts that ask the players about the table
TRANSIENT_FRAMES = 12  # frames a transient misread lasts (1.5 s at the service's 8 fps)
UNPLUG_FRAMES = 12  # frames the device stays unplugged
CUP_FRAMES = 8 * 60 * 3  # a cup left on the board for three minutes
DRIFT_FRAMES = 8 * 60 * 20  # the light's drift from the game's start to its full change
LAMP_SPREAD = (1.0, 2.2)  # a lamp's hot spot spreads over this many of its place's half-widths (sigma)
LAMP_STRENGTH = (150.0, 230.0)  # and lifts its middle by this much: the print and the pieces there wash out
MOVED_KEPT = 6  # frames kept as bumped, cupped and lit, by what the camera drew (three noise fields, twice)


@dataclass(frozen=True)
class FaultModel:
    """Per-event probabilities of each fault at the physical channels (per game for the
    ones a game has once: a sticky place, a bump, a cup, a drifting light)."""

    pip: float = 0.0  # a piece with pips read one off, for a few frames
    colour: float = 0.0  # a piece read as another of the game's colours, for a few frames
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
    # a cafe's
    sticky: float = 0.0  # per game: one place misread (pips or colour) every time it is seen
    knock: float = 0.0  # per move: a piece knocked into the neighbouring place until next touched
    bump: float = 0.0  # per game: the camera bumped 2-5 cm at some point of the game
    cup: float = 0.0  # per game: a cup left on the board for minutes
    drift: float = 0.0  # per game: the light drifting darker and warmer over the evening
    lamp: float = 0.0  # per game: a lamp's hot spot over a place or three, all evening
    wrong_seat: float = 0.0  # per tap on a seat's reader: laid on the neighbour's
    forget_press: float = 0.0  # per press: never made
    double_press: float = 0.0  # per press: made twice

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
    # an evening at a cafe: the persistent, correlated faults, with a few transient ones
    "cafe": FaultModel(pip=0.02, colour=0.02, resting_hand=0.05, dropout=0.02, drop_tap=0.02,
                       sticky=0.3, knock=0.02, bump=0.2, cup=0.2, drift=0.5, wrong_seat=0.03,
                       forget_press=0.02, double_press=0.02),
    # a lamp's reflection over a few places all evening, washing out what lies there in every
    # frame (the players see the table as it is), with the cafe's light drift and a few transients
    "lamp": FaultModel(pip=0.02, colour=0.02, resting_hand=0.05, dropout=0.02, drift=0.5, lamp=1.0),
}


@dataclass
class FaultLog:
    """What was injected, for the report (and for tests that the channel really was hit)."""

    counts: Counter[str] = field(default_factory=Counter)
    trace: Any = None  # a :class:`~companion.sim.trace.Trace` when one is asked for

    def note(self, kind: str) -> None:
        self.counts[kind] += 1
        if self.trace is not None:
            self.trace.line(f"fault: {kind}")


def perturb_view(view: BoardView, model: FaultModel, rng: random.Random, log: FaultLog,
                 colours: tuple[str, ...] = ()) -> tuple[BoardView, bool]:
    """The board as a faulty camera would read it; (view, persistent?).  A colour misread
    turns a piece into another of ``colours`` (the game's own)."""
    pieces = [(spot, i) for spot, stack in view.items() for i in range(len(stack))]
    with_pips = [(spot, i) for spot, i in pieces if view[spot][i].pips > 0]
    out = {spot: list(stack) for spot, stack in view.items()}
    persistent = bool(with_pips) and rng.random() < model.persistent
    if persistent or (with_pips and rng.random() < model.pip):  # a die read a pip off
        spot, i = rng.choice(with_pips)
        piece = out[spot][i]
        out[spot][i] = Piece(piece.colour, max(1, piece.pips + rng.choice((-1, 1))))
        log.note("persistent" if persistent else "pip")
    if pieces and rng.random() < model.colour:
        spot, i = rng.choice(pieces)
        piece = out[spot][i]
        others = [c for c in colours if c != piece.colour]
        if others:
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


def misread_piece(piece: Piece, delta: int, colours: tuple[str, ...]) -> Piece:
    """How a place misread all evening shows its piece: its pips ``delta`` off, or (a piece
    without pips) the next of the game's colours."""
    if piece.pips > 0:
        return Piece(piece.colour, max(1, piece.pips + delta))
    others = [c for c in colours if c != piece.colour]
    return Piece(others[delta % len(others)], piece.pips) if others else piece


def neighbour(spots: dict[str, tuple[float, float]], spot: str) -> str | None:
    """The place nearest ``spot`` (by the centres of their printed rectangles)."""
    if spot not in spots or len(spots) < 2:
        return None
    x, y = spots[spot]
    return min((s for s in spots if s != spot), key=lambda s: (spots[s][0] - x) ** 2 + (spots[s][1] - y) ** 2)


class CafeCamera:
    """The camera's own faults over a game: a bump, a cup, the light's drift (frames)."""

    def __init__(self, model: FaultModel, rng: random.Random, log: FaultLog, camera: Any) -> None:
        self.log = log
        self.camera = camera
        self.bump_at = rng.randint(200, 1500) if rng.random() < model.bump else None
        self.bump_mm = (rng.uniform(20, 50) * rng.choice((-1, 1)), rng.uniform(-15, 15))
        self.cup_at = rng.randint(100, 1200) if rng.random() < model.cup else None
        self.cup_spot = rng.random()
        self.drift = rng.uniform(0.15, 0.3) if rng.random() < model.drift else 0.0
        # (drawn only by a model with a lamp: the other models' games draw as they always did)
        self.lamp: tuple[float, float, float] | None = None  # its place (a share of the list), size, power
        if model.lamp and rng.random() < model.lamp:
            self.lamp = (rng.random(), rng.uniform(*LAMP_SPREAD), rng.uniform(*LAMP_STRENGTH))
        self._lamp_lift: np.ndarray | None = None  # the light it adds to each pixel (it never moves)
        self.frames = 0
        self.cup_lifted = False  # the players took the cup away
        # the frames as bumped, cupped and lit, by what the camera drew, which of the first two
        # were on and the light's table: a still table is a few frames over and over, and
        # warping each again cost more than reading it (a bump lasts the rest of the game, the
        # light's drift changes its table at most frames for 20 minutes, then stays)
        self._moved: dict[tuple, np.ndarray] = {}

    def cup_on(self) -> bool:
        """Whether the cup stands on the board now (the players see it too)."""
        return self.cup_at is not None and not self.cup_lifted \
            and self.cup_at <= self.frames < self.cup_at + CUP_FRAMES

    def _spot(self, share: float) -> Any:
        """The layout's place at ``share`` of its list (the cup's, the lamp's), None without one."""
        spots = list(getattr(getattr(self.camera, "layout", None), "spots", ()))
        return spots[int(share * len(spots))] if spots else None

    def cup_place(self) -> str | None:
        """The place the cup stands on (the layout's), None without a layout."""
        spot = self._spot(self.cup_spot)
        return None if spot is None else spot.id

    def _px_per_mm(self) -> float:
        homography = getattr(self.camera, "homography", None)
        scale = getattr(self.camera, "px_per_mm", 2.0)
        if homography is None:
            return scale
        points = np.array([[[0.0, 0.0]], [[100.0 * scale, 0.0]]], np.float32)
        a, b = cv2.perspectiveTransform(points, homography)[:, 0]
        return float(np.hypot(*(b - a))) / 100.0

    def apply(self, frame: np.ndarray, drawn: tuple | None = None) -> np.ndarray:
        """The frame as the cafe's camera gives it; ``drawn``: what the camera drew it from
        (the same for two frames only when they are the same, pixel for pixel), or None."""
        self.frames += 1
        n = self.frames
        bumped = self.bump_at is not None and n >= self.bump_at
        if bumped and n == self.bump_at:
            self.log.note("bump")
        cup = self.cup_on()
        if cup and n == self.cup_at:
            self.log.note("cup")
        table = None
        if self.drift:
            if n == 1:
                self.log.note("drift")
            part = min(1.0, n / DRIFT_FRAMES) * self.drift
            light = np.array([1.0 - part, 1.0 - 0.7 * part, 1.0 - 0.3 * part], np.float32)  # BGR: warmer
            table = gains_table(light)
        if self.lamp is not None and n == 1:
            self.log.note("lamp")
        if not bumped and not cup and table is None and self.lamp is None:
            return frame
        key = None if drawn is None else (drawn, bumped, cup, None if table is None else table.tobytes())
        out = self._moved.get(key) if key is not None else None
        if out is None:
            out = self._bumped(frame) if bumped else frame
            out = self._cup(out) if cup else out
            out = self._lamp(out) if self.lamp is not None else out
            out = cv2.LUT(out, table) if table is not None else out
            if key is not None:
                out.flags.writeable = False  # handed out as kept: read-only, so never drawn on
                self._moved[key] = out
                while len(self._moved) > MOVED_KEPT:
                    del self._moved[next(iter(self._moved))]
        return out

    def _spot_centre(self, share: float) -> tuple[tuple[float, float], float] | None:
        """The frame point of the layout's place at ``share`` of its list, and its larger side
        in frame px; None without a layout and a homography."""
        spot = self._spot(share)
        if spot is None or getattr(self.camera, "homography", None) is None:
            return None
        scale = getattr(self.camera, "px_per_mm", 2.0)
        point = np.array([[[(spot.x + spot.w / 2) * scale, (spot.y + spot.h / 2) * scale]]], np.float32)
        x, y = cv2.perspectiveTransform(point, self.camera.homography)[0, 0]
        return (float(x), float(y)), max(spot.w, spot.h) * self._px_per_mm()

    def lamp_place(self) -> str | None:
        """The place the lamp's hot spot is centred on (the layout's), None without one."""
        spot = None if self.lamp is None else self._spot(self.lamp[0])
        return None if spot is None else spot.id

    def _lamp(self, frame: np.ndarray) -> np.ndarray:
        """The lamp's reflection over its place and round it: soft, washing colour out to white
        (as the flat camera's glare, centred on a place and as wide as a place or two)."""
        h, w = frame.shape[:2]
        if self._lamp_lift is None or self._lamp_lift.shape[:2] != (h, w):
            assert self.lamp is not None
            share, spread, strength = self.lamp
            at = self._spot_centre(share)
            (cx, cy), sigma = ((w / 2, h / 2), 40.0) if at is None else (at[0], spread * at[1] / 2)
            ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
            lift = strength * np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * sigma * sigma))
            self._lamp_lift = lift.astype(np.float32)[..., None]
        return np.clip(frame.astype(np.float32) + self._lamp_lift, 0, 255).astype(np.uint8)

    def _bumped(self, frame: np.ndarray) -> np.ndarray:
        """The frame as the camera bumped ``bump_mm`` sees it."""
        k = self._px_per_mm()
        shift = np.float32([[1, 0, self.bump_mm[0] * k], [0, 1, self.bump_mm[1] * k]])
        return cv2.warpAffine(frame, shift, (frame.shape[1], frame.shape[0]), borderMode=cv2.BORDER_REPLICATE)

    def _cup(self, frame: np.ndarray) -> np.ndarray:
        """A white cup seen from above, 8 cm across, with its dark coffee, on one place."""
        h, w = frame.shape[:2]
        at = self._spot_centre(self.cup_spot)
        centre = (w // 2, h // 2) if at is None else (int(at[0][0]), int(at[0][1]))
        radius = max(4, int(40 * self._px_per_mm()))
        frame = frame.copy()
        cv2.circle(frame, centre, radius, (236, 240, 242), -1, cv2.LINE_AA)
        cv2.circle(frame, centre, int(radius * 0.78), (30, 45, 70), -1, cv2.LINE_AA)
        return frame


class FaultyTable(SimulatedTable):
    """The simulated table with faults between the world and the companion's inputs.

    The camera faults live in the frame source (what it shows and whether it gives
    a frame at all, and the frame itself), the tap and press faults at the emulated
    device's and the mock pin's inputs; the companion is never touched."""

    human_pacing = True  # players act at a human pace, never waiting on what the companion saw

    def __init__(self, *args: Any, faults: FaultModel, fault_seed: int, log: FaultLog,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.faults = faults
        self.fault_rng = random.Random(fault_seed)
        self.fault_log = log
        if self.trace is not None:
            log.trace = self.trace
        self.tablets: list[dict[str, Any]] = []  # the tablet after each action, for the judge
        self._guard = threading.Lock()
        self._dropout = 0
        self._unplugged = 0
        self._restore: tuple[int, BoardView] | None = None
        self._knocked: BoardView | None = None  # the board as the camera sees it with a piece knocked
        self.hand_until = 0  # the camera frame until which a player's hand rests on the board
        source = self.source
        camera = getattr(source, "camera", None)
        layout = getattr(camera, "layout", None)
        self.colours: tuple[str, ...] = tuple(sorted(getattr(layout, "pieces", {}) or {}))
        self.spots = {s.id: (s.x + s.w / 2, s.y + s.h / 2) for s in getattr(layout, "spots", ())}
        rng = self.fault_rng
        self.sticky: str | None = None
        self.sticky_delta = rng.choice((-1, 1))
        self.wants_sticky = rng.random() < faults.sticky
        self.cafe = CafeCamera(faults, rng, log, camera)
        real_show, real_read = source.show, source.read

        def show(view: BoardView) -> None:
            view = self._sticky(view)
            seen, persistent = perturb_view(view, self.faults, self.fault_rng, self.fault_log, self.colours)
            with self._guard:
                self._restore = None if (persistent or seen == view) else (TRANSIENT_FRAMES, view)
                if self.fault_rng.random() < self.faults.dropout:
                    self._dropout = TRANSIENT_FRAMES
                    self.fault_log.note("dropout")
            real_show(seen)
            if self.fault_rng.random() < self.faults.resting_hand:
                source.hand_over(3 * TRANSIENT_FRAMES, resting=True)  # the hand stays after the move
                self.hand_until = self.frames_taken + 3 * TRANSIENT_FRAMES
                self.fault_log.note("resting_hand")

        def read() -> Any:
            with self._guard:
                if self._unplugged > 0:
                    self._unplugged -= 1
                    if self._unplugged == 0:
                        self.device._lock.release()
                if self._dropout > 0:
                    self._dropout -= 1
                    self.frames_taken += 1  # a lost frame still takes the camera's time
                    return None
                if self._restore is not None:
                    left, truth = self._restore
                    self._restore = (left - 1, truth) if left > 1 else None
                    if left <= 1:
                        real_show(truth)
            frame = real_read()
            if frame is None or not isinstance(frame, np.ndarray):
                return frame
            return self.cafe.apply(frame, getattr(camera, "drawn", None))

        source.show = show  # type: ignore[method-assign]
        source.read = read  # type: ignore[method-assign]

    def _sticky(self, view: BoardView) -> BoardView:
        """The place misread all evening, chosen the first time a piece stands somewhere."""
        if self.sticky is None and self.wants_sticky and view:
            self.sticky = self.fault_rng.choice(sorted(view))
            self.fault_log.note("sticky")
        if self.sticky is None or self.sticky not in view:
            return view
        stack = view[self.sticky]
        out = dict(view)
        out[self.sticky] = (*stack[:-1], misread_piece(stack[-1], self.sticky_delta, self.colours))
        return out

    def _knock(self, view: BoardView) -> BoardView:
        """A piece knocked into the neighbouring place as the hand withdraws."""
        pieces = [spot for spot in sorted(view) if view[spot]]
        if not pieces:
            return view
        spot = self.fault_rng.choice(pieces)
        target = neighbour(self.spots, spot)
        if target is None:
            return view
        out = {s: list(stack) for s, stack in view.items()}
        piece = out[spot].pop()
        out.setdefault(target, []).append(piece)
        self.fault_log.note("knock")
        return {s: tuple(stack) for s, stack in out.items() if stack}

    def glance(self) -> None:
        """The players look at their table before the tablet: a piece knocked aside, a cup
        on a place, as it lies (told only when that changes)."""
        off: dict[str, Any] = {}
        if self._knocked is not None:
            off["knocked"] = self._knocked
        if self.cafe.cup_on():
            off["cup"] = self.cafe.cup_place()
        if self.frames_taken < self.hand_until:
            off["hand"] = True  # their own hand, still resting on the board after the move
        if off != getattr(self, "_told", {}):
            self._told = off
            look = getattr(self.world, "look_at_table", None)
            if look is not None:
                look(off or None)

    def tidy(self) -> None:
        """The cup is taken off the board and a hand resting on it lifted (a knocked piece is
        put back by the players' next laying of the table)."""
        if self.cafe.cup_on():
            self.cafe.cup_lifted = True
            self.fault_log.note("cup_lifted")
        if self.frames_taken < self.hand_until:
            self.source.hand_over(0)
            self.hand_until = 0
            self.fault_log.note("hand_lifted")

    def observe(self, tablet: dict[str, Any]) -> None:
        """The judge's record of the game: the tablet after each action, with the world's
        truth then (its board and its own count of the scores)."""
        self.tablets.append({"tablet": tablet, "board": self.world.judged_board(),
                             "scores": self.world.truth().get("scores")})

    def _unplug(self) -> None:
        """The device goes silent for :data:`UNPLUG_FRAMES` frames: its loop stops polling."""
        with self._guard:
            if self._unplugged:
                return
            self.device._lock.acquire()
            self._unplugged = UNPLUG_FRAMES
        self.fault_log.note("unplug")

    def deliver(self, event: PhysicalEvent, before: dict[str, Any] | None = None) -> None:
        rng, model = self.fault_rng, self.faults
        if isinstance(event, BoardChange):
            # a new move lays the table anew: a piece knocked before is put right with it
            self._knocked = None
            if rng.random() < model.knock:
                knocked = self._knock(event.view)
                self._knocked = knocked if knocked != event.view else None
                event = BoardChange(knocked)
            if rng.random() < model.early_press:
                # the player presses while the arm is still over the board: the pieces land after
                self.source.hand_over(4)
                self.source.show(event.view)
                self.fault_log.note("early_press")
                return
        if isinstance(event, (CardTap, SeatButton)) and rng.random() < model.unplug:
            self._unplug()
        if isinstance(event, CardTap):
            if rng.random() < model.drop_tap:
                self.fault_log.note("drop_tap")
                return  # the card missed the reader; the player did not notice
            if event.seat is not None and getattr(self.world, "players", 1) > 1 \
                    and rng.random() < model.wrong_seat:
                event = CardTap(event.card, (event.seat + 1) % self.world.players)
                self.fault_log.note("wrong_seat")
            if rng.random() < model.double_tap:
                reader = self.shared_reader if event.seat is None else event.seat
                self.device.lay_card(reader, self.card_uid(event.card))
                self.fault_log.note("double_tap")
        if isinstance(event, (TurnButton, SeatButton)):
            if rng.random() < model.forget_press:
                self.fault_log.note("forget_press")
                return  # the player thought they had pressed
            if rng.random() < model.late_press:
                self.human_wait(1.5)
                self.fault_log.note("late_press")
            if rng.random() < model.double_press:
                # two presses at once, as a bouncing finger makes them: no camera frame between
                # them (the camera is held off while they are made: at the bench's full speed a
                # still board's frames cost next to nothing, so even 20 ms would be frames), and
                # the players' wait comes after both
                with self._guard:
                    self.press_now(event)
                    self.press_now(event)
                self.fault_log.note("double_press")
                self.after_hand(lambda _tablet: True)
                self.pause(0.5)
                return
        super().deliver(event, before)

    def card_uid(self, card: str) -> bytes:
        """The tag UID a card carries, as the runner lays it (the world's own stickers)."""
        return self.stickers.uid(card)
