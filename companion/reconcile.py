"""Turn what the table shows into the one legal action it implies, or a prompt.

Pure: the running table (:mod:`companion.table`) calls this with the stable
board, the taps since the last applied action and what woke it, then logs what
comes back.  A vision frame never commits a move on its own: a change is
applied only when the game explains it by exactly one legal action.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from companion.games.base import (
    Action,
    BoardView,
    Game,
    MalformedAction,
    Prompt,
    RuleError,
    State,
    Tap,
    Trigger,
    diff_views,
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
