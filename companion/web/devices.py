"""Paired tablets an owner can see and unpair (issue 42), for the set-up page.

Listing and unpairing ask what every change asks: a paired device or the table PIN.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request

from companion.web.auth import COOKIE, Guard
from companion.web.forms import authorised, refuse

bp = Blueprint("devices", __name__)


def _guard() -> Guard:
    return current_app.extensions["guard"]


@bp.get("/api/devices")
def devices() -> Response | tuple[Response, int]:
    """The paired devices, oldest first; ``this`` marks the asking device."""
    if not authorised():
        return refuse(403, "pair this device, or give the table PIN, to see paired devices")
    guard = _guard()
    mine = guard.device(request.cookies.get(COOKIE))
    return jsonify({"devices": [{**d.public(), "this": mine is not None and d.id == mine.id}
                                for d in guard.devices()]})


@bp.post("/api/devices/unpair")
def unpair() -> Response | tuple[Response, int]:
    """``{"id": "..."}``: that device must pair again (with the PIN or a new code)."""
    if not authorised():
        return refuse(403, "pair this device, or give the table PIN, to unpair a device")
    body = request.get_json(silent=True)
    device_id = body.get("id") if isinstance(body, dict) else None
    if not isinstance(device_id, str) or not device_id:
        return refuse(400, 'give the device to unpair as {"id": "..."}')
    if not _guard().unpair(device_id):
        return refuse(404, f"no paired device {device_id!r}")
    return jsonify({"ok": True, "unpaired": device_id})
