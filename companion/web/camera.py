"""``GET /api/camera.jpg``: the latest camera frame with what the reader saw drawn on it.

Green: pieces read where the tracked board has them; red: where the camera and
the tracked board disagree; orange: places the camera cannot see clearly.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, Response, jsonify

CameraGetter = Callable[[], bytes | None]


def camera_blueprint(camera: CameraGetter | None) -> Blueprint:
    bp = Blueprint("camera", __name__)

    @bp.get("/api/camera.jpg")
    def camera_jpeg() -> Response | tuple[Response, int]:
        if camera is None:
            return jsonify({"ok": False, "error": "this table has no camera"}), 404
        data = camera()
        if data is None:
            return jsonify({"ok": False, "error": "no camera frame yet"}), 503
        return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})

    return bp
