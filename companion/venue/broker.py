"""A local Mosquitto for tests, the benchmark and a quick try: started with a config file
we write (loopback only, a free port, persistence in a folder of ours), stopped by its pid.

Persistence is on, as in Debian's own mosquitto.conf: a broker that is stopped and
started again keeps retained messages and the venue's session (QoS 1 messages queued
for it while it was away).
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

MOSQUITTO_PATHS = ("/usr/sbin/mosquitto", "/usr/bin/mosquitto")


def mosquitto_binary() -> str:
    found = shutil.which("mosquitto") or next((p for p in MOSQUITTO_PATHS if Path(p).exists()), None)
    if found is None:
        raise FileNotFoundError("mosquitto is not installed: apt-get install mosquitto "
                                "(scripts/test.sh installs it)")
    return found


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class LocalBroker:
    """One Mosquitto on 127.0.0.1; :meth:`stop` and :meth:`start` again keep its port and data."""

    def __init__(self, folder: Path, port: int | None = None, host: str = "127.0.0.1",
                 users: dict[str, str] | None = None,
                 tls: tuple[Path, Path, Path] | None = None) -> None:
        """``users``: name -> password, and no anonymous clients; ``tls``: (CA, cert, key)."""
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.host = host
        self.port = port or free_port(host)
        self.config = self.folder / "mosquitto.conf"
        lines = [f"listener {self.port} {host}",
                 f"user {pwd.getpwuid(os.geteuid()).pw_name}",  # run as root, it would drop to mosquitto
                 "persistence true",
                 f"persistence_location {self.folder}/",
                 f"log_dest file {self.folder}/mosquitto.log",
                 "max_queued_messages 10000"]
        if users:
            passwords = self.folder / "passwords"
            passwords.write_text("")
            for name, password in users.items():
                subprocess.run(["mosquitto_passwd", "-b", str(passwords), name, password], check=True,
                               capture_output=True)
            passwords.chmod(0o644)  # the broker may run as user mosquitto
            lines += ["allow_anonymous false", f"password_file {passwords}"]
        else:
            lines.append("allow_anonymous true")
        if tls:
            ca, cert, key = tls
            lines += [f"cafile {ca}", f"certfile {cert}", f"keyfile {key}"]
        self.config.write_text("\n".join(lines) + "\n")
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> LocalBroker:
        self.process = subprocess.Popen([mosquitto_binary(), "-c", str(self.config)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                raise OSError(f"mosquitto exited at start ({self.process.returncode}): {err.strip()}")
            try:
                with socket.create_connection((self.host, self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.02)
        self.stop()
        raise OSError(f"mosquitto did not listen on {self.host}:{self.port} within {timeout} s")

    def stop(self, timeout: float = 5.0) -> None:
        """SIGTERM (Mosquitto saves its persistence file), then SIGKILL if it hangs."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stderr:
            self.process.stderr.close()
        self.process = None

    def __enter__(self) -> LocalBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
