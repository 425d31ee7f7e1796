"""Turn what the table shows into the one legal action it implies, or a prompt.

Pure: the running table (:mod:`companion.table`) calls this with the stable
board, the taps since the last applied action and what woke it, then logs what
comes back.  A vision frame never commits a move on its own: a change is
applied only when the game explains it by exactly one legal action.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.games.base import (
    Action,
    BoardView,
    Game,
    MalformedAction,
    Piece,
    Prompt,
    RuleError,
    State,
    Tap,
    Trigger,
    diff_views,
    place_names,
)


@dataclass
class Reconciled:
    """The reconciler's verdict: an action to log (with its new state) or a prompt."""

    action: Action | None = None
    state: State | None = None
    prompt: Prompt | None = None
    refusals: list[str] = field(default_factory=list)


def describe_mismatch(game: Game, state: State, seen: BoardView) -> str:
    """Say in words how the table differs from what the tracker expects."""
    parts = []
    for move in diff_views(game.board_view(state), seen):
        what = f"{move.piece.colour}" + (f" ({move.piece.pips})" if move.piece.pips else "")
        if move.source and move.target:
            parts.append(f"{what} moved {move.source} -> {move.target}")
        elif move.source:
            parts.append(f"{what} missing from {move.source}")
        else:
            parts.append(f"{what} appeared on {move.target}")
    return "; ".join(parts)


def tally_mismatch(game: Game, state: State, seen: BoardView) -> str | None:
    """The score pieces the camera counts that differ from the record, in words; None
    when they agree (or the camera counts none)."""
    on_table = game.tallies(state, seen)
    if not on_table:
        return None
    recorded = game.tallies(state, game.board_view(state))
    parts = [f"{name} {count} on the table, {recorded[name]} in the record"
             for name, count in on_table.items() if name in recorded and recorded[name] != count]
    return "; ".join(parts) or None


def reconcile(
    game: Game, state: State, seen: BoardView, taps: list[Tap], trigger: Trigger
) -> Reconciled:
    """Explain ``seen`` + ``taps`` as one legal action, or say what is wrong."""
    candidates = game.explain(state, seen, taps, trigger)
    legal: dict[str, tuple[Action, State]] = {}
    refusals: list[str] = []
    for action in candidates:
        try:
            new_state = game.apply(state, action)
        except RuleError as err:
            refusals.append(f"{game.describe(state, action)}: {err.reason} (rule: {err.rule})")
            continue
        except MalformedAction as err:
            refusals.append(f"{game.describe(state, action)}: {err}")
            continue
        legal.setdefault(json.dumps(action, sort_keys=True), (action, new_state))
    if len(legal) == 1:
        action, new_state = next(iter(legal.values()))
        return Reconciled(action=action, state=new_state)
    player = game.current_player(state)
    if len(legal) > 1:
        options = [a for a, _ in legal.values()]
        text = "The table fits several moves; choose one: " + " | ".join(
            game.describe(state, a) for a in options
        )
        return Reconciled(prompt=Prompt(text, "choice", player, options))
    if refusals:
        text = "Not allowed: " + "; ".join(refusals) + ". Put the pieces back as they were."
        return Reconciled(prompt=Prompt(text, "warning", player), refusals=refusals)
    if trigger == "button":
        mismatch = describe_mismatch(game, state, seen)
        if mismatch:
            text = f"The table does not match any legal move ({mismatch}). Fix it or declare it."
        else:
            text = "Nothing to record yet: make your move, tap the cards you play, then press."
        return Reconciled(prompt=Prompt(text, "warning", player))
    return Reconciled()


def reread(game: Game, before: State, seen: BoardView, taps: list[Tap]) -> Reconciled:
    """The move ``seen`` shows from ``before``, read as the camera reads a move, or else as
    a press does (a set-up, or a capture the players press for)."""
    verdict = reconcile(game, before, seen, taps, "board")
    return verdict if verdict.action is not None else reconcile(game, before, seen, taps, "button")


NEXT_MOVES_TRIED = 400  # legal next moves tried at most (a hand of hidden cards offers many)


class NextMoves:
    """The legal moves from one state of the record and the state each makes, worked out once.

    A press the table cannot explain tries every next move more than one way (a misread
    before the next move, two moves with a press forgotten), and so does the press after it
    on the same record: listing them applies each move, which is most of a search's cost.
    Held for the state object it was asked about (the record's own, which stands until the
    record moves); another state is worked out afresh."""

    def __init__(self) -> None:
        self._state: State | None = None
        self._moves: list[tuple[Action, State | None]] = []
        self._complete = False
        self._listed: Iterator[Action] = iter(())
        self._moved: MovedPieces | None = None
        self._kept: dict[Hashable, Any] = {}  # what was worked out from these moves (``remembered``)
        self.applied = 0  # moves applied to work them out, for a count of a search's steps

    def of(self, game: Game, state: State, limit: int) -> list[tuple[Action, State | None]]:
        """Up to ``limit`` + 1 legal moves from ``state`` (one more than ``limit`` says there
        are more), each with the state it makes (None when the rules refuse it after all)."""
        if self._state is not state:
            self._state, self._moves, self._complete, self._moved = state, [], False, None
            self._kept = {}
            self._listed = iter(game.legal_actions(state))
        while not self._complete and len(self._moves) <= limit:
            action = next(self._listed, None)
            if action is None:
                self._complete = True
                break
            try:
                self.applied += 1
                self._moves.append((action, game.apply(state, action)))
            except (RuleError, MalformedAction):
                self._moves.append((action, None))
        return self._moves[:limit + 1]

    def remembered(self, state: State, key: Hashable) -> Any:
        """What was kept for ``key`` from ``state``'s moves (``keep``), or None."""
        return self._kept.get(key) if self._state is state else None

    def keep(self, state: State, key: Hashable, value: Any) -> None:
        """Keep ``value``, worked out from ``state``'s moves alone, till the record moves: a
        doubted place is asked again, frame after frame, with the same reading and the same
        record (Baron Voodoo's set-up rolled at random, red 3s never read: 653 readings of the
        table's contents worked out, 220 of them different, nearly all of a game's cost)."""
        if self._state is state:
            self._kept[key] = value

    def moved(self, game: Game, state: State, limit: int) -> MovedPieces:
        """What the next moves (``of``) change on the board, seen from ``state``'s own view.
        A doubted place is asked what it may hold for every frame it stays doubted, and
        each asks every next move's board: worked out once (a Baron Voodoo set-up's 48 dice
        made each ask view every move's board again, most of a doubted evening's cost)."""
        moves = self.of(game, state, limit)
        if self._moved is None or self._moved.moves != len(moves):
            record = game.board_view(state)
            stacks: dict[tuple[Piece, ...], None] = {}  # (ordered: the moves' order)
            places: set[str] = set()
            changes: set[frozenset[tuple[str, tuple[Piece, ...]]]] = set()
            for _, after in moves:
                if after is None:
                    continue
                board = game.board_view(after)
                changed = frozenset(changed_places(record, board))
                changes.add(frozenset((spot, tuple(board.get(spot, ()))) for spot in changed))
                for spot in changed:
                    places.add(spot)
                    stacks.setdefault(tuple(board.get(spot, ())), None)
            self._moved = MovedPieces(len(moves), record, list(stacks), frozenset(places), frozenset(changes))
        return self._moved


@dataclass(frozen=True)
class MovedPieces:
    """The next moves from a state, as the board shows them: the state's own view, every
    content a move gives a place it changes (once each, in the moves' order), and the
    places some move changes."""

    moves: int  # how many next moves were looked at
    record: BoardView
    stacks: list[tuple[Piece, ...]]
    places: frozenset[str]
    changes: frozenset[frozenset[tuple[str, tuple[Piece, ...]]]] = frozenset()  # what each move lays where

    def unseen_within(self, hidden: frozenset[str], shown: Mapping[str, tuple[Piece, ...]]) -> frozenset[str]:
        """The ``hidden`` places changed by a move that the table may show made: one that lays
        every place the camera reads otherwise than the record as ``shown`` has it (the rest of
        it not laid yet: the night's point card, taken once its last Move is seen).  A move
        made under a lamp's reflection, a card turned up there, changes nothing else."""
        found: set[str] = set()
        for change in self.changes:
            laid = dict(change)
            if laid.keys() & hidden and all(laid.get(p) == stack for p, stack in shown.items()):
                found |= laid.keys() & hidden
        return frozenset(found)


def misread_before_next(game: Game, before: State, recorded: Action, after: State,
                        seen: BoardView, next_moves: NextMoves | None = None) -> Prompt | None:
    """The move the camera recorded last was misread, and the next move is already made.

    The set-up's 48 dice recorded with one die read a pip off, and the first capture
    made before the next frames read it right: no legal move explains the table, because
    the record is wrong where the capture never went.  When exactly one reading of the
    recorded move (the table as it stands at the places the next move left alone, the
    rest as that move laid it) is another legal move of the same kind, and after it one
    legal next move shows exactly the table, the players are asked to correct the
    recorded move; the next move is then recorded from the table as usual.  ``None`` for
    anything else (several readings, nothing legal, a difference where the next move
    went)."""
    touched = changed_places(game.board_view(before), game.board_view(after))
    laid = game.board_view(after)
    table = game.without_score_places(seen)
    readings: dict[str, tuple[Action, Action]] = {}
    for tried, (move, made) in enumerate((next_moves or NextMoves()).of(game, after, NEXT_MOVES_TRIED)):
        if tried >= NEXT_MOVES_TRIED:
            return None  # too many to be sure there is only one
        if made is None:
            continue
        expected = game.board_view(made)
        residual = {p for p in changed_places(expected, seen) if not game.score_place(p)}
        if not residual or not residual <= touched or residual & changed_places(laid, expected):
            continue
        view = {p: pieces for p, pieces in laid.items() if p not in residual}
        view.update({p: seen[p] for p in residual if seen.get(p)})
        verdict = reread(game, before, view, [])
        if verdict.action is None or verdict.state is None or \
                verdict.action.get("type") != recorded.get("type") or \
                json.dumps(verdict.action, sort_keys=True) == json.dumps(recorded, sort_keys=True):
            continue
        try:
            shown = game.board_view(game.apply(verdict.state, move))
        except (RuleError, MalformedAction):
            continue
        if game.without_score_places(shown) == table:
            readings.setdefault(json.dumps(verdict.action, sort_keys=True), (verdict.action, move))
    if len(readings) != 1:
        return None
    reading, move = next(iter(readings.values()))
    corrected = game.apply(before, reading)
    labels = place_names(game, after)
    where = ", ".join(labels.get(p, p) for p in sorted(changed_places(laid, game.board_view(corrected))))
    shows, was = game.describe(before, reading), game.describe(before, recorded)
    since = game.describe(corrected, move)
    text = (f"{where} reads otherwise now than when {was} was recorded, and {since} has been made"
            if shows == was else
            f"{where} reads otherwise now. The table shows {shows}, then {since}, but {was} was "
            "recorded")
    text += ". If the table is right, correct it: the move made since is recorded next."
    return Prompt(text, "choice", game.current_player(after), [{"type": "correct", "action": reading}])


def changed_places(before: BoardView, after: BoardView) -> set[str]:
    """The places whose pieces differ between two views (a piece moved, or read anew): those
    where a piece left or came in :func:`diff_views`' pairing, that is, whose pieces differ as
    a multiset (compared directly: a search compares thousands of views)."""
    out = set()
    for place in before.keys() | after.keys():
        old, new = before.get(place, ()), after.get(place, ())
        if old != new and sorted(old) != sorted(new):
            out.add(place)
    return out


@dataclass(frozen=True)
class RecordedMove:
    """A standing move of the record with the states around it (for :func:`reconsider_earlier`)."""

    seq: int
    action: Action
    source: str
    before: State
    after: State


def reconsider_earlier(game: Game, moves: list[RecordedMove], state: State,
                       seen: BoardView) -> Prompt | None:
    """The table contradicts a card laid moves ago that no move changes since: ask, never
    change.

    A Nightclub read 3 for a 2 when it was laid, with the players placing and revealing
    since: the newest move is not the one misread, and the reveal order the record follows
    is wrong from there on.  When every place that differs from the record is one of the
    game's :meth:`~companion.games.base.Game.fixed_places`, the newest move that touched them
    was read by the camera, the table read anew at those places (the rest as that move
    found it) explains exactly one *other* legal move of the same kind, and every move
    since is still legal after it, the players are asked; choosing it replaces that move
    and keeps the ones after it (``{"type": "correct", "entry": seq}``).  ``None`` for
    anything else."""
    fixed = game.fixed_places(state)
    if not fixed or not moves:
        return None
    differ = {p for p in changed_places(game.board_view(state), seen) if not game.score_place(p)}
    if not differ or not differ <= fixed:
        return None
    for index in range(len(moves) - 1, -1, -1):
        move = moves[index]
        touched = changed_places(game.board_view(move.before), game.board_view(move.after))
        if not differ & touched:
            continue
        if not differ <= touched or move.source not in ("camera", "table"):
            return None  # the newest move there is not one the camera read
        view = {p: pieces for p, pieces in game.board_view(move.before).items()
                if p not in touched}
        view.update({p: seen[p] for p in touched if seen.get(p)})
        verdict = reconcile(game, move.before, view, [], "board")
        if verdict.action is None or verdict.state is None or \
                verdict.action.get("type") != move.action.get("type") or \
                json.dumps(verdict.action, sort_keys=True) == json.dumps(move.action,
                                                                         sort_keys=True):
            return None
        after = verdict.state
        for later in moves[index + 1:]:
            try:
                after = game.apply(after, later.action)
            except (RuleError, MalformedAction):
                return None  # the moves since would not stand: not a question to offer
        since = len(moves) - 1 - index
        labels = place_names(game, state)
        where = ", ".join(labels.get(place, place) for place in sorted(differ))
        text = (f"{where} reads otherwise now. "
                f"The table shows {game.describe(move.before, verdict.action)}, but "
                f"{game.describe(move.before, move.action)} was recorded"
                + (f" {since} move{'s' if since > 1 else ''} ago" if since else "")
                + ". If the table is right, correct it"
                + (": the moves since stand." if since else "."))
        return Prompt(text, "choice", game.current_player(state),
                      [{"type": "correct", "action": verdict.action, "entry": move.seq}])
    return None


def reconsider(game: Game, before: State, recorded: Action, after: State, seen: BoardView,
               taps: list[Tap], trigger: Trigger = "board",
               next_moves: NextMoves | None = None) -> Prompt | None:
    """The table now contradicts the move the camera recorded last: ask, never change.

    A reading the camera was sure of can still be a passing misread (a die's pips, a
    card's value) that the next frames show otherwise.  When the places that now differ
    from the record are only places that move touched, and the table as it stands explains,
    from the state before it, exactly one *other* legal move of the same kind (the same
    roll, reveal or placement with another value), the players are asked whether
    that was the move; choosing it records a correction.  ``None`` when the table shows
    anything else (a new move under way elsewhere, nothing legal, several readings)."""
    # score pieces (counted against the record on their own) are no reading of a move
    differ = {p for p in changed_places(game.board_view(after), seen) if not game.score_place(p)}
    touched = changed_places(game.board_view(before), game.board_view(after))
    if not differ:
        return None
    if not differ <= touched:
        # trying every legal next move is worth it only when the players say a move is
        # made and the table explains none (a press), not on every board mid-move
        return misread_before_next(game, before, recorded, after, seen, next_moves) \
            if trigger == "button" else None
    verdict = reread(game, before, seen, taps)
    if verdict.action is None or verdict.action.get("type") != recorded.get("type") or \
            json.dumps(verdict.action, sort_keys=True) == json.dumps(recorded, sort_keys=True):
        return None  # the same move read anew, or nothing: another kind of move is no re-reading
    text = (f"The table now shows {game.describe(before, verdict.action)}, but "
            f"{game.describe(before, recorded)} was recorded. If the table is right, "
            "correct it.")
    return Prompt(text, "choice", game.current_player(before),
                  [{"type": "correct", "action": verdict.action}])
