"""Flask application factory for the dashboard and its API.

Watching needs nothing; changing the game needs a paired device (the
``companion_token`` cookie) or the table PIN shown at start-up (header
``X-Table-Pin`` or field ``"pin"``), with wrong guesses limited per client (see
:mod:`companion.web.auth`).  Every refusal is a clear 4xx with a JSON body and
changes nothing.

A change comes only from the dashboard's own pages (issue 42): a POST must be
``application/json`` (which a page elsewhere cannot send without the browser asking
first) and, when the browser says where it comes from, come from this origin: ``Origin``
equal to this server's, else ``Sec-Fetch-Site`` ``same-origin`` or ``none``.  A page on
the Pi's address at another port is another origin, though the same site: its forms
and beacons carry the paired tablet's cookie, and are refused here.
"""

from __future__ import annotations

import json
import logging
import queue
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify, redirect, render_template, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import HTTPException

from companion.games.base import MalformedAction, RuleError
from companion.store import DamagedLog, DuplicateRequest, Event
from companion.table import HISTORY_MAX, HISTORY_SHOWN, NothingToUndo, Table
from companion.vision.palette import PIECE_COLOURS, SURFACE_COLOURS
from companion.web.auth import COOKIE, COOKIE_MAX_AGE_S, Guard, device_name
from companion.web.camera import camera_blueprint
from companion.web.devices import bp as devices_bp
from companion.web.forms import bp as forms_bp
from companion.web.schema import BadRequest, check_action, parse_body, split_request
from companion.web.setup import Switcher, TableRef, TableSwitch
from companion.web.setup import bp as setup_bp

KEEPALIVE_S = 10.0
log = logging.getLogger(__name__)


class StrictJSON(DefaultJSONProvider):
    """Strict JSON out: a non-finite number is a bug to surface, never invalid JSON sent."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        kwargs.setdefault("allow_nan", False)
        return super().dumps(obj, **kwargs)


def dumps(obj: Any) -> str:
    """Strict JSON for the event stream (the same rule as every response)."""
    return json.dumps(obj, allow_nan=False)


def storage_error(err: sqlite3.OperationalError) -> tuple[int, str]:
    """507 when the disk is full, 503 for any other trouble writing the log."""
    text = str(err).lower()
    if "full" in text:
        return 507, "the table's disk is full: nothing was recorded; free space and retry"
    return 503, f"the log cannot be written just now ({err}); nothing was recorded"


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
    app.register_blueprint(devices_bp)
    app.json = StrictJSON(app)
    if test_config:
        app.config.update(test_config)
    keepalive = float(app.config.get("KEEPALIVE_S", KEEPALIVE_S))
    tokens = None if table.log.path == ":memory:" else Path(table.log.path).parent / "devices.json"
    guard: Guard = app.config.get("GUARD") or Guard(pin, tokens)
    app.extensions["guard"] = guard

    def client() -> str:
        return request.remote_addr or "unknown"

    def is_paired() -> bool:
        return guard.paired(request.cookies.get(COOKIE))

    def may_change(req: Any) -> bool:
        """The set-up, clock and forms routes ask the same as POST /api/actions: a paired
        device, or the PIN in ``X-Table-Pin`` under the same per-client limits."""
        if guard.paired(req.cookies.get(COOKIE)):
            return True
        given = req.headers.get("X-Table-Pin")
        return isinstance(given, str) and guard.check_pin(client(), given).ok

    app.config.setdefault("TABLE_AUTHORISED", may_change)

    def set_token(response: Response, token: str | None = None) -> Response:
        token = token or guard.new_token(device_name(request.headers.get("User-Agent")))
        response.set_cookie(COOKIE, token, max_age=COOKIE_MAX_AGE_S,
                            httponly=True, samesite="Strict", path="/")
        return response

    @app.before_request
    def same_origin_changes() -> tuple[Response, int] | None:
        """Refuse a change from another origin (see the module's docstring)."""
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return None
        if request.mimetype != "application/json":
            return error(415, "send changes as application/json")
        origin = request.headers.get("Origin")
        if origin is not None:
            if origin.rstrip("/") != request.host_url.rstrip("/"):
                return error(403, "changes come only from this dashboard's own pages")
        elif request.headers.get("Sec-Fetch-Site", "none") not in ("same-origin", "none"):
            return error(403, "changes come only from this dashboard's own pages")
        return None

    @app.get("/api/whoami")
    def whoami() -> Response:
        """Whether this device is paired; a paired device's cookie is renewed (months from
        its last use, so a tablet in use never unpairs itself)."""
        token = request.cookies.get(COOKIE)
        if not guard.paired(token):
            return jsonify({"paired": False})
        return set_token(jsonify({"paired": True}), token)

    @app.post("/api/pair")
    def pair() -> tuple[Response, int]:
        try:
            body = parse_body(request.get_data(cache=False))
        except BadRequest as err:
            return error(400, str(err))
        verdict = guard.check_pin(client(), body.get("pin"))
        if not verdict.ok:
            return jsonify(verdict.body()), verdict.status
        return set_token(jsonify({"ok": True})), 200

    @app.get("/pair")
    def pair_by_code() -> Response | tuple[Response, int]:
        verdict = guard.use_code(client(), request.args.get("code"))
        if not verdict.ok:
            return jsonify(verdict.body()), verdict.status
        return set_token(redirect("/"))

    @app.get("/api/pairing")
    def pairing() -> tuple[Response, int]:
        if not is_paired():
            return error(403, "only a paired device may show the pairing code")
        return jsonify({"url": f"{request.host_url}pair?code={guard.code}",
                        "expires_in": int(guard.code_expires_in())}), 200

    def error(status: int, message: str, **extra: Any) -> tuple[Response, int]:
        return jsonify({"ok": False, "error": message, **extra}), status

    @app.get("/")
    def dashboard() -> str:
        return render_template("dashboard.html", title=table.game.title)

    def count(name: str, default: int | None) -> int | None:
        raw = request.args.get(name)
        if raw is None:
            return default
        if not raw.isdigit() or len(raw) > 6:
            raise BadRequest(f"{name} must be a whole number")
        return min(int(raw), HISTORY_MAX)

    @app.get("/api/state")
    def state() -> Response | tuple[Response, int]:
        try:
            shown = count("history", HISTORY_SHOWN)
        except BadRequest as err:
            return error(400, str(err))
        return jsonify(table.public(shown))

    @app.get("/api/history")
    def history() -> Response | tuple[Response, int]:
        """Older history a page at a time: ``?before=SEQ&limit=N`` (oldest first)."""
        try:
            before = count("before", None)
            limit = count("limit", HISTORY_SHOWN) or HISTORY_SHOWN
        except BadRequest as err:
            return error(400, str(err))
        entries, more = table.history_page(before, limit)
        return jsonify({"entries": entries, "more": more, "history_total": len(table.history)})

    @app.get("/api/layout")
    def layout() -> Response:
        lay = table.game.layout(table.state)
        return jsonify({
            "width": lay.width, "height": lay.height,
            # (a place's sets of colours, ``takes`` and the like, as sorted lists)
            "spots": [{k: sorted(v) if isinstance(v, frozenset) else v for k, v in asdict(s).items()}
                      for s in lay.spots],
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
        """The live stream on a WSGI server (tests, the Flask client); the service serves
        it natively async instead (companion.web.server), holding no thread per client."""
        def stream() -> Iterator[str]:
            q: queue.Queue[tuple[str, str]] = queue.Queue(maxsize=200)

            def watcher(event: str, data: str) -> None:
                try:
                    q.put_nowait((event, data))
                except queue.Full:  # a stalled client resyncs from a full state
                    q.queue.clear()
                    q.put_nowait(("resync", ""))

            first = table.watch(watcher)
            try:
                yield f"event: state\ndata: {first}\n\n"
                while True:
                    try:
                        event, data = q.get(timeout=keepalive)
                    except queue.Empty:
                        yield ": keepalive\n\n"  # lets a gone client free its thread
                        continue
                    if event == "resync":
                        event, data = "state", dumps(table.public())
                    yield f"event: {event}\ndata: {data}\n\n"
            finally:
                table.unwatch(watcher)

        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return Response(stream(), mimetype="text/event-stream", headers=headers)

    @app.post("/api/actions")
    def actions() -> tuple[Response, int]:
        try:
            body = parse_body(request.get_data(cache=False))
        except BadRequest as err:
            return error(400, str(err))
        if not is_paired():
            given = request.headers.get("X-Table-Pin") or body.get("pin")
            if not isinstance(given, str):
                return error(403, "pair this device, or give the table PIN (shown at "
                             "start-up), to change the game")
            verdict = guard.check_pin(client(), given)
            if not verdict.ok:
                return jsonify(verdict.body()), verdict.status
        try:
            action, request_id = split_request(body)
            check_action(table.game, action)
        except BadRequest as err:
            return error(400, str(err))
        with table._lock:  # the duplicate check and the change are one step
            if request_id is not None and (done := table.request(request_id)) is not None:
                return duplicate(*done)
            try:
                entry = table.declare(action, "tablet", request_id)
            except MalformedAction as err:
                return error(400, str(err))
            except RuleError as err:
                return error(409, err.reason, rule=err.rule)
            except NothingToUndo as err:
                return error(409, str(err))
            except DuplicateRequest:
                done = table.request(request_id or "")
                return duplicate(*done) if done else duplicate(table.record.id, None)
            return jsonify({"ok": True, "entry": entry.to_json() if entry else None,
                            "state": table.public()}), 200

    def duplicate(game_id: int, event: Event | None) -> tuple[Response, int]:
        """Already applied: once, answered with the event's game (an earlier, finished one
        when the retry came after the restart that began the next game)."""
        entry = table.entry(event.seq) if event and game_id == table.record.id else None
        return jsonify({"ok": True, "duplicate": True, "game_id": game_id,
                        "entry": entry.to_json() if entry else None,
                        "state": table.public()}), 200

    messages = {404: "no such page or API route", 405: "method not allowed on this route",
                413: "request body too large"}

    @app.errorhandler(Exception)
    def any_error(err: Exception) -> tuple[Response, int]:
        """Every error answers JSON: never Flask's HTML page."""
        if isinstance(err, HTTPException):
            code = err.code or 500
            return error(code, messages.get(code, err.description or err.name))
        if isinstance(err, RecursionError):
            return error(400, "request nested too deep")
        if isinstance(err, sqlite3.OperationalError):
            code, message = storage_error(err)
            log.error("log write failed: %s", err)
            return error(code, message)
        if isinstance(err, DamagedLog):
            return error(503, str(err))
        log.exception("unexpected error serving %s %s", request.method, request.path)
        return error(500, "internal error; the companion's console log has the details")

    return app
