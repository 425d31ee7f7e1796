"""The service wired to its parts: the device's taps and seats reach the table, unknown
tags are refused with a prompt, seat LEDs follow the turn, the camera feeds the board."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from waiting import wait_until as wait_briefly

from companion.sensors.tags import factory_uid
from companion.service import Service, ServiceConfig
from companion.sim.camera.render import Camera
from companion.sim.camera.source import SyntheticSource
from companion.sim.device import DeviceEmulator

wait_until = partial(wait_briefly, timeout=10.0)  # a service under load catches up slower


@pytest.fixture
def running(tmp_path: Path) -> Iterator[tuple[Service, DeviceEmulator, SyntheticSource]]:
    device = DeviceEmulator().start()
    config = ServiceConfig(game="times_square", players=2, data_dir=tmp_path, port=0, pin="999999",
                           serial=device.port, fps=20)
    service = Service(config)
    source = SyntheticSource(Camera(service.table.game.layout(service.table.state), seed=2))
    source.show(service.table.game.board_view(service.table.state))
    service.frame_source = source
    service.start()
    assert service.link is not None and service.link.wait_connected(10)
    yield service, device, source
    service.stop()
    device.stop()


def test_device_and_camera_reach_the_table(running) -> None:  # noqa: ANN001
    service, device, source = running
    table = service.table
    assert wait_until(lambda: table.seen == table.game.board_view(table.state))
    table.declare(table.game.legal_actions(table.state)[0])  # the set-up, declared
    seat = table.game.current_player(table.state)
    assert wait_until(lambda: device.led(seat) == 1 and device.led(1 - seat) == 0)
    card = table.game.card_ids()[0]
    device.lay_card(seat, bytes.fromhex(factory_uid("times_square", card)))
    assert wait_until(lambda: [t.card for t in table.taps] == [card])
    assert table.taps[0].seat == seat
    device.lay_card(2, bytes.fromhex("00112233"))
    assert wait_until(lambda: "Unknown card tag 00112233" in table.public()["prompts"][0]["text"])
    assert len(table.taps) == 1  # the unknown tag changed nothing
    history = len(table.history)
    device.press(seat)  # nothing moved on the board: the table says so and records nothing
    assert wait_until(lambda: any(p["text"].startswith(("Nothing to record", "The table does not"))
                                  for p in table.public()["prompts"]))
    assert len(table.history) == history


def test_a_hand_over_the_board_is_shown_and_commits_nothing(running) -> None:  # noqa: ANN001
    service, _, source = running
    table = service.table
    assert wait_until(lambda: table.seen is not None)
    source.hand_over(400)
    assert wait_until(lambda: any("Hand over the board" in p["text"]
                                  for p in table.public()["prompts"]))
    source.hand_over(0)
    assert wait_until(lambda: not any("Hand over" in p["text"] for p in table.public()["prompts"]))
    assert table.history == []


class HangingSource:
    """A camera whose read blocks (a stuck driver) until released."""

    def __init__(self, inner: SyntheticSource) -> None:
        import threading

        self.inner = inner
        self.released = threading.Event()
        self.released.set()

    def read(self):  # noqa: ANN201
        self.released.wait()
        return self.inner.read()

    def close(self) -> None:
        self.released.set()


def test_a_camera_read_that_blocks_is_shown_then_cleared(tmp_path: Path) -> None:
    """Issue 13, defect 8: a 12 s hang showed nothing before the watchdog."""
    config = ServiceConfig(game="times_square", players=2, data_dir=tmp_path, port=0,
                           pin="999999", gpio=False, fps=20, camera_stall_s=0.5)
    service = Service(config)
    inner = SyntheticSource(Camera(service.table.game.layout(service.table.state), seed=2))
    inner.show(service.table.game.board_view(service.table.state))
    source = HangingSource(inner)
    service.frame_source = source
    service.start()
    try:
        assert service.vision is not None
        assert wait_until(lambda: service.vision.frames > 2)
        assert service.watchdog is not None
        stalls = service.watchdog.stalls  # a first read slower than 0.5 s on a loaded machine
        source.released.clear()  # the next read hangs
        stuck = "given no picture"
        assert wait_until(lambda: any(stuck in p["text"] for p in service.table.public()["prompts"]))
        source.released.set()
        assert wait_until(lambda: not any(stuck in p["text"]
                                          for p in service.table.public()["prompts"]))
        assert service.watchdog.stalls >= stalls + 1
    finally:
        service.stop()


def test_serve_reads_against_the_learnt_empty_board(tmp_path: Path) -> None:
    """The profile's empty.png (calibrate board) is the reader's empty board; one from
    another board map is set aside with a warning, and the drawn layout serves."""
    import cv2

    from companion.vision.reader import BoardReader

    probe = Service(ServiceConfig(game="times_square", players=2, data_dir=tmp_path / "a", port=0,
                                  pin="999999", gpio=False))
    layout = probe.table.game.layout(probe.table.state)
    camera = Camera(layout, seed=2)
    learner = BoardReader(layout)
    learner.learn_empty(camera.frame({}))
    probe.table.log.close()
    good, wrong = tmp_path / "empty.png", tmp_path / "other.png"
    cv2.imwrite(str(good), learner.empty_board)
    cv2.imwrite(str(wrong), learner.empty_board[:-10])
    for path, learnt in ((good, True), (wrong, False)):
        config = ServiceConfig(game="times_square", players=2, data_dir=tmp_path / path.stem, port=0,
                               pin="999999", gpio=False, fps=20, empty=path)
        service = Service(config)
        source = SyntheticSource(camera)
        source.show(service.table.game.board_view(service.table.state))
        service.frame_source = source
        service.start()
        try:
            assert service.vision is not None
            assert (service.vision.reader.empty_board is not None) is learnt
            assert wait_until(lambda s=service: s.vision.frames > 2)
        finally:
            service.stop()
