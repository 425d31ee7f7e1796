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
import itertools
import json
import os
import re
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


STEP_LIMIT = 8
"""The most options one step of a form offers: more are split into parts or groups."""


def _bracketed(label: str, part: int) -> str:
    """The ``part``-th comma-separated item in brackets: "Bribe (green, 2 V)", 1 -> "2 V"."""
    inner = label.split("(", 1)[1].split(")", 1)[0] if "(" in label else ""
    items = [x.strip() for x in inner.split(",")]
    return items[part] if part < len(items) and items[part] else ""


def _last_word(label: str) -> str:
    words_ = label.replace("(", " ").replace(")", " ").split()
    return words_[-1] if words_ else ""


def _natural(label: str) -> list[Any]:
    """Sort key that puts "Zombie 2" before "Zombie 10"."""
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", label)]


def _runs(labels: list[str], limit: int) -> list[str]:
    """Labels in as few runs as keep each within ``limit``, in natural order, each run named
    by the first and last label's difference from the rest ("Zombie 1 – 6")."""
    order = sorted(range(len(labels)), key=lambda i: _natural(labels[i]))
    runs = -(-len(labels) // limit)
    size = -(-len(labels) // runs)
    common = os.path.commonprefix(labels)
    common = common[:common.rfind(" ") + 1] if " " in common else ""
    names = [""] * len(labels)
    for start in range(0, len(order), size):
        run = order[start:start + size]
        first, last = labels[run[0]][len(common):], labels[run[-1]][len(common):]
        if not common:
            first, last = first[:1].upper(), last[:1].upper()
        name = first if first == last else f"{first} – {last}"
        for i in run:
            names[i] = f"{common}{name}".strip()
    return names


def group_labels(labels: list[str], limit: int = STEP_LIMIT) -> list[list[str]]:
    """For a long list of values, the groups a player narrows it by, as each value's path
    of group names: by the word the labels start with (a card's kind, "Zombie"), an item
    in brackets (a colour, "purple"; a value, "2 V"), the last word, else runs in order
    ("A – C"); a group still too long is grouped again.  A list of at most ``limit``
    values needs no groups."""
    if len(labels) <= limit:
        return [[] for _ in labels]
    keys_by: list[Any] = [lambda t: t.split()[0] if t.split() else ""]
    keys_by += [lambda t: (_bracketed(t, 0).split() or [""])[0]]  # a colour: "(purple Steal)"
    keys_by += [lambda t, j=j: _bracketed(t, j) for j in range(3)] + [_last_word]
    best: tuple[int, list[str]] | None = None
    for key in keys_by:
        keys = [key(label) for label in labels]
        counts = [keys.count(k) for k in dict.fromkeys(keys)]
        if 2 <= len(counts) <= limit and all(keys) and (best is None or max(counts) < best[0]):
            best = (max(counts), keys)
    keys = best[1] if best is not None else _runs(labels, limit)
    paths = [[k] for k in keys]
    for k in dict.fromkeys(keys):
        members = [i for i, x in enumerate(keys) if x == k]
        if len(members) > limit:
            for i, sub in zip(members, group_labels([labels[i] for i in members], limit), strict=True):
                paths[i] += sub
    return paths


def _split_parts(game: Game, state: State, action_type: str, field: str,
                 actions: list[Action]) -> list[Action] | None:
    """A combination with too many choices ("2, 2, 3, 3" of the Nightclubs), as one field
    per part (``values.0`` ... ``values.3``) so players pick one part at a time; where the
    game takes the parts in any order, every order is offered (the cards as laid out).
    None when the field is not a fixed-length list or has few values."""
    values = [a.get(field) for a in actions]
    if not values or not all(isinstance(v, list) for v in values):
        return None
    length = len(values[0])
    distinct = {json.dumps(v, sort_keys=True) for v in values}
    if length < 2 or len(distinct) <= STEP_LIMIT or any(len(v) != length for v in values):
        return None
    rows = list(actions)
    scalar = all(not isinstance(x, (list, dict)) for v in values for x in v)
    if scalar:
        sample = dict(actions[0])
        sample[field] = list(reversed(actions[0][field]))
        if sample[field] != actions[0][field] and game.is_legal(state, sample):
            seen: set[str] = set()
            rows = []
            for action in actions:
                for order in itertools.permutations(action[field]):
                    key = json.dumps([action.get(k) for k in sorted(action) if k != field] + [order])
                    if key not in seen:
                        seen.add(key)
                        rows.append({**action, field: list(order)})
    out = []
    for action in rows:
        split = {k: v for k, v in action.items() if k != field}
        split.update({f"{field}.{i}": part for i, part in enumerate(action[field])})
        out.append(split)
    return out


def part_label(game: Game, state: State, action_type: str, field: str, label: str, index: int,
               sample: Any) -> str:
    """The name of one part of a combination: the game's (``part_label``), else "Label 2"."""
    named = getattr(game, "part_label", None)
    if callable(named):
        text = named(state, action_type, field, index, sample)
        if text:
            return str(text)
    return f"{label} {index + 1}"


def build_forms(game: Game, state: State) -> dict[str, Any]:
    """Group the legal actions by type, in the form's field order, labels sent once; a
    combination with many choices is split into its parts and a long list of values comes
    with groups (``group``: the path of group names), so no step offers more than about
    :data:`STEP_LIMIT` options."""
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
        field_labels = {f.name: f.label for f in form.fields}
        parts_of: dict[str, tuple[str, int]] = {}
        for name in sorted(present - {f.name for f in form.fields if f.many}):
            split = _split_parts(game, state, action_type, name, actions)
            if split is None:
                continue
            sample = actions[0][name]
            base = field_labels.get(name) or words(name)
            at = named.index(name) if name in named else len(named)
            parts = [f"{name}.{i}" for i in range(len(sample))]
            named[at:at + 1] = parts
            for i, part in enumerate(parts):
                parts_of[part] = (name, i)
                field_labels[part] = part_label(game, state, action_type, name, base, i, sample[i])
            actions = split
            present = {k for a in actions for k in a if k != "type"}
        fields = [f for f in named if f in present]
        fields += sorted(present - set(fields), key=lambda f: (f != "player", f))
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
                    if f in parts_of:  # one part, in the words the game has for the whole
                        label = label_value(game, state, action_type, parts_of[f][0], [offered])
                        label = re.sub(r"^1: ", "", label)  # its place is in the part's name
                    else:
                        label = label_value(game, state, action_type, f, offered)
                    values[f].append({"v": offered, "label": label})
                row.append(index[f][key])
            rows.append(row)
        for f in fields:
            for value, path in zip(values[f], group_labels([v["label"] for v in values[f]]), strict=True):
                if path:
                    value["group"] = path
        types.append({
            "type": action_type, "label": form.label, "hint": form.hint,
            "declared": form.declared, "described": action_type in described,
            "fields": [{"name": f, "label": field_labels.get(f) or words(f), "values": values[f],
                        "many": f in many, **({"part_of": parts_of[f][0], "part": parts_of[f][1]}
                                              if f in parts_of else {})} for f in fields],
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
    if body["clock"] == "pause" and table.game.outcome(table.state) is not None:
        return refuse(409, "The game is over: its clocks have stopped, there is nothing to pause.")
    try:
        (table.pause if body["clock"] == "pause" else table.resume)("tablet")
    except ClockError as err:
        return refuse(409, str(err))
    return jsonify({"ok": True, "paused": table.paused}), 200
