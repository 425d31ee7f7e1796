"""The strict edge of the API: what a request body may hold before the table sees it.

Bad input gets a clear message and changes nothing: bodies that are not JSON,
non-finite numbers (``NaN``, ``Infinity``), unbounded strings or nesting,
unknown top-level keys and fields a game's action does not carry.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from companion.games.base import Game

MAX_DEPTH = 8
MAX_STRING = 200
MAX_ITEMS = 100
REQUEST_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
ENVELOPE_KEYS = frozenset({"pin", "request_id"})
"""Keys beside an action in a request body: they are the request's, not the action's."""


class BadRequest(ValueError):
    """A request body refused at the edge (answered 400 with this message)."""


def _refuse_constant(name: str) -> Any:
    raise BadRequest(f"non-finite number {name} refused: numbers must be finite")


def parse_body(data: bytes) -> dict[str, Any]:
    """A JSON object from the raw body, refusing NaN/Infinity and deep nesting."""
    try:
        body = json.loads(data.decode("utf-8"), parse_constant=_refuse_constant)
    except BadRequest:
        raise
    except RecursionError:
        raise BadRequest(f"JSON nested too deep (at most {MAX_DEPTH} levels)") from None
    except (ValueError, UnicodeDecodeError) as err:
        raise BadRequest(f"the body is not JSON: {err}") from None
    if not isinstance(body, dict):
        raise BadRequest('the body must be a JSON object: an action, or {"action": ...}')
    check_value(body, "body")
    return body


def check_value(value: Any, where: str, depth: int = 0) -> None:
    """Bound strings, lists and nesting; refuse non-finite numbers (anywhere)."""
    if depth > MAX_DEPTH:
        raise BadRequest(f"{where}: nested too deep (at most {MAX_DEPTH} levels)")
    if isinstance(value, float) and not math.isfinite(value):
        raise BadRequest(f"{where}: non-finite number refused")
    if isinstance(value, str) and len(value) > MAX_STRING:
        raise BadRequest(f"{where}: string longer than {MAX_STRING} characters")
    if isinstance(value, (list, dict)) and len(value) > MAX_ITEMS:
        raise BadRequest(f"{where}: more than {MAX_ITEMS} items")
    if isinstance(value, list):
        for i, item in enumerate(value):
            check_value(item, f"{where}[{i}]", depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            if len(key) > MAX_STRING:
                raise BadRequest(f"{where}: key longer than {MAX_STRING} characters")
            check_value(item, f"{where}.{key}", depth + 1)


def split_request(body: dict[str, Any]) -> tuple[Any, str | None]:
    """(action, request_id) from a body: a bare action beside ``pin``/``request_id``, or
    ``{"action": ..., "pin": ..., "request_id": ...}``."""
    request_id = body.get("request_id")
    if request_id is not None and (not isinstance(request_id, str)
                                   or not REQUEST_ID.fullmatch(request_id)):
        raise BadRequest('"request_id" must be 1-64 characters of A-Z a-z 0-9 _ -')
    if "type" in body:
        return {k: v for k, v in body.items() if k not in ENVELOPE_KEYS}, request_id
    unknown = sorted(set(body) - ENVELOPE_KEYS - {"action"})
    if unknown:
        raise BadRequest(f"unknown top-level key(s) {', '.join(unknown)}: a body is an action,"
                         ' or {"action": ..., "request_id": ...}')
    if "action" not in body:
        raise BadRequest('no action: send an action with its "type", or {"action": ...}')
    return body["action"], request_id


def check_action(game: Game, action: Any, where: str = "action") -> None:
    """The action's fields against the game's schema (when it describes one for the type)."""
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise BadRequest(f'{where}: an action is a JSON object with a string "type"')
    kind = action["type"]
    if kind == "undo":
        allowed: frozenset[str] | None = frozenset({"type", "seq", "through"})
    elif kind == "forget_taps":
        allowed = frozenset({"type", "card"})
    elif kind == "correct":
        allowed = frozenset({"type", "action", "seq", "entry"})
        check_action(game, action.get("action"), f"{where}.action")
    else:
        allowed = game.action_fields().get(kind)
    if kind == "undo" and "through" in action and (
            not isinstance(action["through"], int) or isinstance(action["through"], bool)):
        raise BadRequest(f'{where}: "through" is the number of the oldest move to take back')
    if kind in ("undo", "correct") and "seq" in action and (
            not isinstance(action["seq"], int) or isinstance(action["seq"], bool)):
        raise BadRequest(f'{where}: "seq" is the number of the move meant (the newest one)')
    if kind == "correct" and "entry" in action and (
            not isinstance(action["entry"], int) or isinstance(action["entry"], bool)):
        raise BadRequest(f'{where}: "entry" is the number of the move to correct')
    if allowed is not None:
        unknown = sorted(set(action) - allowed)
        if unknown:
            raise BadRequest(f"{where}: field(s) {', '.join(unknown)} not part of a "
                             f"{kind!r} action (it takes {', '.join(sorted(allowed))})")
