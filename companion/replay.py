"""Replay a script of actions through the tracker, as the tablet would declare them.

A script is JSON lines: each an action exactly as ``POST /api/actions`` takes
it (or ``{"action": ...}``); a first line ``{"meta": {...}}`` may set players,
variant, seed and ``house_rules`` (id -> choice; the options given to the command win).
The same Table code path runs (undo and corrections too),
on a log in memory.  A line the rules refuse is a result (reported, exit 0); a line that
is not an action at all (not JSON, not an object, a malformed action) is counted in
``malformed`` and makes ``companion replay`` exit non-zero.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from companion.games.base import MalformedAction, RuleError
from companion.table import NothingToUndo, Table


@dataclass
class ReplayOutcome:
    report: list[str]
    final: dict[str, Any]
    applied: int
    refused: int
    malformed: list[int]
    """Line numbers that were not actions at all."""


def run_replay(game: str, lines: list[str], players: int | None = None,
               variant: str | None = None, seed: int = 0, progress: Any = None,
               house_rules: dict[str, str] | None = None) -> ReplayOutcome:
    meta: dict[str, Any] = {}
    body = list(enumerate(lines, 1))
    for index, (_, line) in enumerate(body):
        if line.strip():
            try:
                first = json.loads(line)
            except json.JSONDecodeError:
                break
            if isinstance(first, dict) and isinstance(first.get("meta"), dict):
                meta = first["meta"]
                body = body[index + 1:]
            break
    table = Table.open(game, None, players if players is not None else meta.get("players"),
                       variant or meta.get("variant"), int(meta.get("seed", seed)), resume=False,
                       house_rules=dict(meta.get("house_rules") or {}) | dict(house_rules or {}))
    report: list[str] = []
    applied = refused = 0
    malformed: list[int] = []
    for number, line in body:
        if progress is not None:
            progress.update(1)
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as err:
            report.append(f"line {number}: malformed: not JSON ({err.msg})")
            malformed.append(number)
            continue
        if not isinstance(data, dict):
            report.append(f"line {number}: malformed: an action is a JSON object, not "
                          f"{type(data).__name__}")
            malformed.append(number)
            continue
        action = data.get("action", data) if isinstance(data, dict) and "type" not in data else data
        try:
            entry = table.declare(action, "replay")
        except RuleError as err:
            report.append(f"line {number}: refused: {err.reason} (rule: {err.rule})")
            refused += 1
            continue
        except MalformedAction as err:
            report.append(f"line {number}: malformed: {err}")
            malformed.append(number)
            continue
        except NothingToUndo as err:
            report.append(f"line {number}: refused: {err}")
            refused += 1
            continue
        applied += 1
        text = entry.text if entry else "undo of the newest action"
        report.append(f"line {number}: applied: {text}")
    final = table.public()
    final["state"] = table.state
    return ReplayOutcome(report, final, applied, refused, malformed)
