"""Picamera2 as an optional camera source: a clear message without it, BGR frames with it."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from companion.vision.sources import PicameraSource, open_source


def test_without_picamera2_the_message_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import fails as on a laptop
    with pytest.raises(OSError, match="apt install python3-picamera2.*--system-site-packages"):
        open_source("picamera:0")
    with pytest.raises(ValueError, match="whole number"):
        open_source("picamera:front")


class FakePicamera2:
    """Stands in for picamera2.Picamera2 (only on a Pi): records what the source asks of it."""

    instances: list[FakePicamera2] = []

    def __init__(self, index: int) -> None:
        self.index = index
        self.calls: list[str] = []
        self.configured: dict | None = None
        FakePicamera2.instances.append(self)

    def create_video_configuration(self, main: dict) -> dict:
        return {"main": main}

    def configure(self, config: dict) -> None:
        self.configured = config

    def start(self) -> None:
        self.calls.append("start")

    def capture_array(self, stream: str) -> np.ndarray:
        frame = np.zeros((720, 1280, 4), np.uint8)  # XBGR8888-like: four channels
        frame[..., 0] = 10
        frame[..., 2] = 200
        return frame

    def stop(self) -> None:
        self.calls.append("stop")

    def close(self) -> None:
        self.calls.append("close")


def test_with_picamera2_frames_come_as_opencv_bgr(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    source = open_source("picamera:1")
    assert isinstance(source, PicameraSource)
    camera = FakePicamera2.instances[-1]
    assert camera.index == 1 and camera.configured == {"main": {"size": (1280, 720), "format": "RGB888"}}
    frame = source.read()
    assert frame is not None and frame.shape == (720, 1280, 3) and frame.flags["C_CONTIGUOUS"]
    assert frame[0, 0].tolist() == [10, 0, 200]
    source.close()
    assert camera.calls == ["start", "stop", "close"]
