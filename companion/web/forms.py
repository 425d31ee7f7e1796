"""The tablet's forms: what may be declared now, grouped by type, labelled in the game's words.

``GET /api/forms`` answers, for the current state (or, with ``?correct=1``, the state a
correction of the newest action starts from), every legal action type (described ones from
``Game.action_forms()`` first, declared before sensed; undescribed legal types after them
with their name in words) and the legal actions themselves, compact: per type the fields,
per field its distinct values with their labels (each label sent once), and each action as
a row of indexes into those values.  A ``many`` field's values are single items the page
lets the players toggle together (a row holds the one item it names, or -1 for none).
The page narrows the rows field by field, so only
what is legal now can be tapped.  The tracker's legal actions never hold a hidden card
the table has not seen, so nothing hidden is sent.

Also the clocks' pause and resume (``POST /api/clock``), which need the table PIN.
"""

from __future__ import annotations

import hmac
import json
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from companion.games.base import Action, ActionForm, Game, State

bp = Blueprint("forms", __name__)


def words(name: str) -> str:
    """An internal name in words: ``end_turn`` -> "End turn"."""
    text = str(name).replace("_", " ").replace("-", " ").strip()
    return text[:1].upper() + text[1:]


def label_value(game: Game, state: State, action_type: str, field: str, value: Any) -> str:
    """The game's label of a value; lists, booleans and nothing said in words, never as data."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    label = game.value_label(state, action_type, field, value)
    if isinstance(value, (list, dict)) and label == str(value):  # the game has no words for it
        if isinstance(value, list):
            return ", ".join(label_value(game, state, action_type, field, v) for v in value) or "none"
        return "; ".join(f"{words(k)} {label_value(game, state, action_type, k, v)}"
                         for k, v in value.items())
    return label


def state_key(history: list[Any]) -> str:
    """Which state the forms were built for: the newest effective history entry (a new
    action has a new seq; an undo steps back to the previous one).  The page computes the
    same from the history it shows and refetches the forms when it changes."""
    effective = [h.seq for h in history if not h.undone]
    return str(effective[-1] if effective else 0)


def build_forms(game: Game, state: State) -> dict[str, Any]:
    """Group the legal actions by type, in the form's field order, labels sent once."""
    described = game.action_forms()
    legal = game.legal_actions(state) if game.outcome(state) is None else []
    by_type: dict[str, list[Action]] = {}
    for action in legal:
        by_type.setdefault(str(action.get("type")), []).append(action)

    def order(t: str) -> tuple[int, int, str]:
        form = described.get(t)
        if form is None:
            return (1, 0, t)  # undescribed: after the described declarations
        return (0 if form.declared else 2, list(described).index(t), t)

    types = []
    for action_type in sorted(by_type, key=order):
        actions = by_type[action_type]
        form = described.get(action_type) or ActionForm(action_type, words(action_type))
        named = [f.name for f in form.fields]
        present = {k for a in actions for k in a if k != "type"}
        fields = [f for f in named if f in present]
        fields += sorted(present - set(fields), key=lambda f: (f != "player", f))
        field_labels = {f.name: f.label for f in form.fields}
        # a "many" field is offered item by item, when every legal value is one item or none
        many = {f.name for f in form.fields if f.many and f.name in present
                and all(isinstance(a.get(f.name, []), list) and len(a.get(f.name, [])) <= 1
                        for a in actions)}
        values: dict[str, list[dict[str, Any]]] = {f: [] for f in fields}
        index: dict[str, dict[str, int]] = {f: {} for f in fields}
        rows = []
        for action in actions:
            row = []
            for f in fields:
                value = action.get(f)
                if f not in action or (f in many and not value):
                    row.append(-1)
                    continue
                offered = value[0] if f in many else value
                key = json.dumps(offered, sort_keys=True)
                if key not in index[f]:
                    index[f][key] = len(values[f])
                    values[f].append({"v": offered,
                                      "label": label_value(game, state, action_type, f, offered)})
                row.append(index[f][key])
            rows.append(row)
        types.append({
            "type": action_type, "label": form.label, "hint": form.hint,
            "declared": form.declared, "described": action_type in described,
            "fields": [{"name": f, "label": field_labels.get(f) or words(f), "values": values[f],
                        "many": f in many} for f in fields],
            "rows": rows,
        })
    return {"types": types, "count": len(legal)}


def authorised() -> bool:
    """The table PIN in ``X-Table-Pin``, or whatever check the app installed for its cookie."""
    check = current_app.config.get("TABLE_AUTHORISED")
    if callable(check):
        return bool(check(request))
    given = request.headers.get("X-Table-Pin", "")
    return hmac.compare_digest(given.encode(), str(current_app.config.get("TABLE_PIN", "")).encode())


def refuse(status: int, message: str) -> tuple[Response, int]:
    return jsonify({"ok": False, "error": message}), status


@bp.get("/api/forms")
def forms() -> Response | tuple[Response, int]:
    table = current_app.config["TABLE"]
    entry = request.args.get("entry", "")  # an earlier move by its number: the moves since stand
    if entry and not entry.isdigit():
        return refuse(400, '"entry" is the number of the move to correct')
    correcting = request.args.get("correct") in ("1", "true") or bool(entry)
    with table._lock:
        if entry:
            state = table.state_before(int(entry))
        else:
            state = table.state_before_newest() if correcting else table.state
        if state is None:
            return refuse(409, f"move {entry} is not in the record (undone, or never made)"
                          if entry else "nothing to correct")
        body = build_forms(table.game, state)
        body["key"] = state_key(table.history)
        body["correct"] = correcting
    return jsonify(body)


@bp.post("/api/clock")
def clock() -> tuple[Response, int]:
    from companion.table import ClockError

    table = current_app.config["TABLE"]
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or body.get("clock") not in ("pause", "resume") \
            or set(body) - {"clock", "request_id"}:
        return refuse(400, 'the body is {"clock": "pause"} or {"clock": "resume"}')
    if not authorised():
        return refuse(403, "the table PIN is required to pause or resume the clocks")
    try:
        (table.pause if body["clock"] == "pause" else table.resume)("tablet")
    except ClockError as err:
        return refuse(409, str(err))
    return jsonify({"ok": True, "paused": table.paused}), 200
