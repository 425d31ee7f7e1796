"""Where frames come from, picked by a spec string the way pyserial picks a port by URL.

``camera:0`` (a USB camera through OpenCV), ``picamera:0`` (a Pi camera module
through Picamera2, only on a Pi: an optional import), ``video:PATH`` (a recorded
video), ``folder:PATH`` (a folder of still images, in name order, looping).  The simulated
table's camera is the world's (``companion.sim.camera.source``), not one of these.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import cv2
import numpy as np


class FrameSource(Protocol):
    def read(self) -> np.ndarray | None: ...

    def close(self) -> None: ...


class OpenCVSource:
    """A camera or a video file through cv2.VideoCapture."""

    def __init__(self, target: int | str) -> None:
        self.capture = cv2.VideoCapture(target)
        if not self.capture.isOpened():
            raise OSError(f"cannot open camera or video {target!r}")

    def read(self) -> np.ndarray | None:
        ok, frame = self.capture.read()
        return frame if ok else None

    def close(self) -> None:
        self.capture.release()


class PicameraSource:
    """A Raspberry Pi camera module through Picamera2 (libcamera), BGR frames like OpenCV's.

    Picamera2 comes from Raspberry Pi OS (``apt install python3-picamera2``) and is seen
    by a venv made with ``--system-site-packages``; it is imported only when asked for.
    """

    def __init__(self, index: int = 0, size: tuple[int, int] = (1280, 720)) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError:
            raise OSError("picamera:N needs Picamera2: on Raspberry Pi OS run "
                          "'sudo apt install python3-picamera2' and make the venv with "
                          "--system-site-packages (deploy/install.sh does both)") from None
        try:
            self.camera = Picamera2(index)
            # "RGB888" is libcamera's name for B,G,R byte order: what OpenCV calls BGR
            config = self.camera.create_video_configuration(main={"size": size, "format": "RGB888"})
            self.camera.configure(config)
            self.camera.start()
        except (IndexError, RuntimeError) as err:
            raise OSError(f"cannot open Pi camera {index}: {err}") from err

    def read(self) -> np.ndarray | None:
        try:
            frame = self.camera.capture_array("main")
        except RuntimeError:
            return None
        if frame is None or frame.ndim != 3:
            return None
        return np.ascontiguousarray(frame[..., :3])

    def close(self) -> None:
        self.camera.stop()
        self.camera.close()


class FolderSource:
    """Still images from a folder, in name order, round and round.

    Each image is decoded once and its frame handed out again on every later turn (read-only,
    so no reader can change it for the next), as long as the decoded frames fit in
    ``cache_mb``; the images past that are decoded at each read, so a long recording costs
    time, not memory.  Decoding a 1280x720 PNG costs more than reading a still board.
    """

    CACHE_MB = 64.0  # about 22 frames of 1280x720

    def __init__(self, folder: str | Path, cache_mb: float = CACHE_MB) -> None:
        self.paths = sorted(p for p in Path(folder).iterdir()
                            if p.suffix.lower() in (".png", ".jpg", ".jpeg", ".bmp"))
        if not self.paths:
            raise OSError(f"no images in {folder}")
        self.index = 0
        self.decodes = 0  # images decoded so far (once each while they fit in the cache)
        self._decoded: dict[int, np.ndarray] = {}
        self._room = int(cache_mb * 2**20)

    def read(self) -> np.ndarray | None:
        at = self.index % len(self.paths)
        self.index += 1
        frame = self._decoded.get(at)
        if frame is not None:
            return frame
        frame = cv2.imread(str(self.paths[at]))
        self.decodes += 1
        if frame is not None and frame.nbytes <= self._room:
            frame.flags.writeable = False
            self._decoded[at] = frame
            self._room -= frame.nbytes
        return frame

    def close(self) -> None:
        self._decoded.clear()


def open_source(spec: str) -> FrameSource:
    """A frame source from ``camera:N``, ``picamera:N``, ``video:PATH`` or ``folder:PATH``."""
    kind, _, arg = spec.partition(":")
    if kind in ("camera", "picamera"):
        if not (arg or "0").isdigit():
            raise ValueError(f"{spec!r}: the camera number must be a whole number, e.g. {kind}:0")
        index = int(arg or 0)
        return OpenCVSource(index) if kind == "camera" else PicameraSource(index)
    if kind == "video":
        return OpenCVSource(arg)
    if kind == "folder":
        return FolderSource(arg)
    raise ValueError(f"unknown camera source {spec!r}: use camera:N, picamera:N, video:PATH or folder:PATH")
