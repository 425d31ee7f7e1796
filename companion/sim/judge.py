"""The bench's judge: did the record end right, and if not, did the tablet say what was wrong?

A game whose record ended wrong is "caught" only when, at some moment while the record
was wrong, the tablet showed a warning naming a wrong thing: a place whose pieces the
record has wrong (its id or its label), a piece there (the colour or what the colour
means at this table), an entry recorded since the record went wrong ("#12" or its words),
or the score when the scores were wrong.  Routine choice prompts ("who holds Handsome
Hal") never count.  Otherwise it is "silent".  The judge reads the tablet's JSON (it is no
player) and the world's own truth: its board and its own count of the scores.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from companion.games.base import Layout, view_to_json

SCORE_WORDS = re.compile(r"\b(score|scores|points?|VP|votes?|V)\b", re.IGNORECASE)


def same_scores(a: list[Any], b: list[Any]) -> bool:
    return len(a) == len(b) and all(math.isclose(float(x), float(y)) for x, y in zip(a, b, strict=True))


def ended_right(tablet: dict[str, Any], truth: dict[str, Any]) -> bool:
    return (same_scores(tablet.get("scores") or [], truth.get("scores") or [])
            and sorted(tablet.get("winner") or []) == sorted(truth.get("winners") or []))


def wrong_things(tablet: dict[str, Any], board: Any, scores: list[Any] | None,
                 layout: Layout | None) -> set[str]:
    """What the record has wrong at one moment, as words a warning could name: the places
    (ids and labels) and pieces (colours and their meaning) where the tablet's board is not
    the table, and "score" when its scores are not the world's count."""
    wrong: set[str] = set()
    drawn = tablet.get("board")
    if board is not None and isinstance(drawn, dict):
        real = view_to_json(board)
        labels = {s.id: s.label for s in layout.spots} if layout is not None else {}
        meaning = dict(layout.pieces) if layout is not None else {}
        for spot in set(real) | set(drawn):
            if real.get(spot) != drawn.get(spot):
                wrong.update(w for w in (spot, labels.get(spot)) if w)
                for stack in (real.get(spot) or [], drawn.get(spot) or []):
                    for piece in stack:
                        colour = piece[0] if isinstance(piece, (list, tuple)) else str(piece)
                        wrong.update(w for w in (colour, meaning.get(colour)) if w)
    if scores is not None and not same_scores(tablet.get("scores") or [], scores):
        wrong.add("score")
    return wrong


def names_any(text: str, wrong: Iterable[str]) -> bool:
    """Whether a warning's words name one of the wrong things."""
    for thing in wrong:
        if thing == "score":
            if SCORE_WORDS.search(text):
                return True
        elif re.search(rf"(?<![\w-]){re.escape(thing)}(?![\w-])", text, re.IGNORECASE):
            return True
    return False


def warnings(tablet: dict[str, Any]) -> list[str]:
    return [str(p.get("text", "")) for p in tablet.get("prompts") or []
            if isinstance(p, dict) and p.get("kind") == "warning"]


def caught(observations: list[dict[str, Any]], layout: Layout | None) -> list[str]:
    """The warnings that named a wrong thing while the record was wrong (empty: none did).

    Each observation is the tablet after one of the players' actions with the world's truth
    then (``board``, ``scores``).  Entries recorded since the record last was right count as
    wrong things too, by their number and their words."""
    named: list[str] = []
    since: int | None = None  # history_total when the record was last right
    for seen in observations:
        tablet = seen["tablet"]
        wrong = wrong_things(tablet, seen.get("board"), seen.get("scores"), layout)
        total = int(tablet.get("history_total") or 0)
        if not wrong:
            since = total
            continue
        history = [h for h in tablet.get("history") or [] if isinstance(h, dict)]
        first = total - len(history)
        for i, entry in enumerate(history, first):
            if since is not None and i >= since:
                wrong.add(f"#{entry.get('move', entry.get('seq'))}")  # as the history numbers it
                if entry.get("text"):
                    wrong.add(str(entry["text"]))
        for text in warnings(tablet):
            if names_any(text, wrong) or any(w.startswith("#") and w in text for w in wrong):
                named.append(text)
    return named


def judge(tablet: dict[str, Any], truth: dict[str, Any], named: list[str], stopped: str | None,
          world_finished: bool = True) -> str:
    """The bin a game falls in: exact, caught (wrong, and a warning named what while it was),
    silent (wrong, nothing named it), or why it did not end: wedged, over budget, crashed."""
    if stopped in ("wedged", "over budget", "crashed"):
        return stopped
    if not tablet.get("over") or not world_finished:
        return "wedged"
    if ended_right(tablet, truth):
        return "exact"
    return "caught" if named else "silent"
