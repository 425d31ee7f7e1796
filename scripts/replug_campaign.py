#!/usr/bin/env python3
"""Unplug/replug campaign (issue 13, defect 9): taps made while the cable is out, and
between the replug and the host reopening the port, arrive exactly once.

Issue 42: taps made while the link stays up arrive exactly once too.

Each cycle: lay UP cards with the link up (the last ones just before the cable is pulled);
unplug; lay TAPS cards while unplugged; replug (a new pty, the by-id symlink repointed, as
udev does); lay one more card before the host has reopened the port; wait for the link.
Counted: taps made, arrived, lost, duplicated.

Usage: scripts/replug_campaign.py [--cycles 30] [--taps 3] [--up 30]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.sensors.serial_link import SerialLink  # noqa: E402
from companion.sim.device import DeviceEmulator  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cycles", type=int, default=30)
    parser.add_argument("--taps", type=int, default=3, help="taps while unplugged")
    parser.add_argument("--up", type=int, default=30, help="taps while the link is up")
    parser.add_argument("--busy-host", type=float, default=0.0, metavar="SECONDS",
                        help="the host takes this long over every 5th tap (a loaded Pi)")
    options = parser.parse_args()
    arrived: list[str] = []
    made: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        port = Path(folder) / "ttyTABLE"
        device = DeviceEmulator().start()
        port.symlink_to(device.port)
        def on_tag(reader: int, uid: str) -> None:
            arrived.append(uid)
            if options.busy_host and len(arrived) % 5 == 0:
                time.sleep(options.busy_host)

        link = SerialLink(str(port), on_tag, lambda seat, pressed: None, retry_s=0.5).start()
        began = time.monotonic()
        try:
            if not link.wait_connected(10):
                raise SystemExit("no link")
            for cycle in range(options.cycles):
                for tap in range(options.up):
                    uid = bytes([cycle // 256, cycle % 256, 0x80 + tap, 0xA5])
                    made.append(uid.hex())
                    device.lay_card(tap % 7, uid, hold_s=0.0)
                device.unplug()
                deadline = time.monotonic() + 10
                while link.health.connected and time.monotonic() < deadline:
                    time.sleep(0.01)
                for tap in range(options.taps + 1):
                    if tap == options.taps:  # replugged, the host not there yet
                        port.unlink()
                        port.symlink_to(device.replug())
                    uid = bytes([cycle // 256, cycle % 256, tap, 0x5A])
                    made.append(uid.hex())
                    device.lay_card(tap % 7, uid)
                deadline = time.monotonic() + 15
                while len(set(arrived) & set(made)) < len(made) and time.monotonic() < deadline:
                    time.sleep(0.02)
            time.sleep(1.0)  # late resends would show up as duplicates here
        finally:
            link.stop()
            device.stop()
    print(json.dumps({
        "cycles": options.cycles, "taps_made": len(made),
        "taps_with_link_up": options.up * options.cycles, "arrived": len(arrived),
        "lost": len(set(made) - set(arrived)),
        "duplicated": len(arrived) - len(set(arrived)),
        "resends_dropped_by_host": link.health.duplicates,
        "reconnects": link.health.reconnects, "seconds": round(time.monotonic() - began, 1),
    }))


if __name__ == "__main__":
    main()
