"""Flask application factory for the dashboard and its API.

Watching needs nothing; changing the game needs the table PIN shown at
start-up (header ``X-Table-Pin`` or field ``"pin"``).  Every refusal is a clear
4xx with a JSON body and changes nothing.
"""

from __future__ import annotations

import hmac
import json
import queue
from collections.abc import Callable, Iterator
from dataclasses import asdict
from typing import Any

from flask import Flask, Response, jsonify, render_template, request

from companion.games.base import MalformedAction, RuleError
from companion.table import NothingToUndo, Table
from companion.vision.palette import PIECE_COLOURS, SURFACE_COLOURS
from companion.web.camera import camera_blueprint
from companion.web.forms import bp as forms_bp
from companion.web.setup import Switcher, TableRef, TableSwitch
from companion.web.setup import bp as setup_bp

KEEPALIVE_S = 10.0


def _hex(bgr: tuple[int, int, int]) -> str:
    b, g, r = bgr
    return f"#{r:02x}{g:02x}{b:02x}"


def create_app(table: Table | TableRef, pin: str, test_config: dict[str, Any] | None = None,
               switcher: Switcher | None = None, *,
               camera: Callable[[], bytes | None] | None = None) -> Flask:
    app = Flask(__name__)
    table = table if isinstance(table, TableRef) else TableRef(table)  # set-up swaps the game
    app.config.update(JSON_SORT_KEYS=False, MAX_CONTENT_LENGTH=64 * 1024, TABLE=table,
                      TABLE_PIN=pin, TABLE_SETUP=switcher or TableSwitch(table, table.options))
    app.register_blueprint(forms_bp)
    app.register_blueprint(setup_bp)
    app.register_blueprint(camera_blueprint(camera))
    if test_config:
        app.config.update(test_config)
    keepalive = float(app.config.get("KEEPALIVE_S", KEEPALIVE_S))

    def error(status: int, message: str, **extra: Any) -> tuple[Response, int]:
        return jsonify({"ok": False, "error": message, **extra}), status

    @app.get("/")
    def dashboard() -> str:
        return render_template("dashboard.html", title=table.game.title)

    @app.get("/api/state")
    def state() -> Response:
        return jsonify(table.public())

    @app.get("/api/layout")
    def layout() -> Response:
        lay = table.game.layout(table.state)
        return jsonify({
            "width": lay.width, "height": lay.height,
            "spots": [asdict(s) for s in lay.spots],
            "pieces": lay.pieces, "shapes": lay.shapes,
            "colours": {k: _hex(v) for k, v in {**PIECE_COLOURS, **SURFACE_COLOURS}.items()},
        })

    @app.get("/api/legal")
    def legal() -> Response:
        with table._lock:
            actions = table.game.legal_actions(table.state)
        return jsonify({"count": len(actions), "actions": actions[:500],
                        "truncated": len(actions) > 500, "can_undo": table.public()["can_undo"]})

    @app.get("/api/events")
    def events() -> Response:
        def stream() -> Iterator[str]:
            q = table.subscribe()
            try:
                yield f"event: state\ndata: {json.dumps(table.public())}\n\n"
                while True:
                    try:
                        snapshot = q.get(timeout=keepalive)
                    except queue.Empty:
                        yield ": keepalive\n\n"  # lets a gone client free its thread
                        continue
                    yield f"event: state\ndata: {json.dumps(snapshot)}\n\n"
            finally:
                table.unsubscribe(q)

        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return Response(stream(), mimetype="text/event-stream", headers=headers)

    @app.post("/api/actions")
    def actions() -> tuple[Response, int]:
        body = request.get_json(silent=True)
        if not isinstance(body, dict):
            return error(400, "the body must be a JSON object: an action, or {\"action\": ...}")
        given = request.headers.get("X-Table-Pin") or body.get("pin")
        if not isinstance(given, str) or not hmac.compare_digest(given, pin):
            return error(403, "the table PIN is required to change the game (shown at start-up)")
        # a bare action has its "type"; otherwise the action is wrapped as {"action": ...}
        if "type" in body:
            action = {k: v for k, v in body.items() if k != "pin"}
        else:
            action = body.get("action")
        try:
            entry = table.declare(action, "tablet")
        except MalformedAction as err:
            return error(400, str(err))
        except RuleError as err:
            return error(409, err.reason, rule=err.rule)
        except NothingToUndo as err:
            return error(409, str(err))
        return jsonify({"ok": True, "entry": entry.to_json() if entry else None,
                        "state": table.public()}), 200

    @app.errorhandler(404)
    def not_found(_err: Exception) -> tuple[Response, int]:
        return error(404, "no such page or API route")

    @app.errorhandler(405)
    def wrong_method(_err: Exception) -> tuple[Response, int]:
        return error(405, "method not allowed on this route")

    @app.errorhandler(413)
    def too_large(_err: Exception) -> tuple[Response, int]:
        return error(413, "request body too large")

    return app
