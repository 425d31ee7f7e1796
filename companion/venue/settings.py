"""Where a table or the venue finds its MQTT broker: host, credentials, TLS.

A plain dataclass so a table profile's ``[mqtt]`` section, the ``--mqtt-url``
option and the tests build it the same way; every value is checked here, once,
with a message that names the key.

TLS cannot fall back: ``mqtts://`` (or ``tls = true``, or a CA file) turns it on, the
broker's certificate and name are then always verified (against the CA file, else the
system's CAs) and a broker that fails the check gets nothing, not even the user name.
A password comes from the profile or a file (``password_file``), never the command line.
"""

from __future__ import annotations

import re
import ssl
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""Venue and table names become MQTT topic levels and Home Assistant ids: no '/', '+', '#'."""


class MqttSettingsError(ValueError):
    """A broker setting that cannot work; the message names the key."""


@dataclass(frozen=True)
class MqttSettings:
    """A table's (or the venue's) broker, and where the table sits in the topic tree."""

    host: str = "127.0.0.1"
    port: int = 1883
    venue: str = "venue"
    table: str = "table"
    username: str | None = None
    password: str | None = field(default=None, repr=False)  # never in a log line
    tls: bool = False  # TLS with the broker verified (mqtts://); a tls_ca turns it on too
    tls_ca: Path | None = None  # the broker's CA file (else the system's CAs)
    tls_cert: Path | None = None  # a client certificate (with tls_key)
    tls_key: Path | None = None
    keepalive: int = 15
    discovery_prefix: str = "homeassistant"  # Home Assistant's MQTT discovery prefix; "" = off

    def __post_init__(self) -> None:
        if not isinstance(self.host, str) or not self.host.strip():
            raise MqttSettingsError("mqtt.host: give the broker's host name or address")
        if not isinstance(self.port, int) or isinstance(self.port, bool) or not 1 <= self.port <= 65535:
            raise MqttSettingsError(f"mqtt.port: {self.port!r} is not a TCP port (1-65535)")
        for key in ("venue", "table"):
            value = getattr(self, key)
            if not isinstance(value, str) or not NAME.match(value):
                raise MqttSettingsError(
                    f"mqtt.{key}: {value!r} must be 1-64 letters, digits, '-' or '_' "
                    "(it becomes a topic level)")
        if (self.username is None) != (self.password is None):
            raise MqttSettingsError("mqtt.username and mqtt.password go together: give both or neither")
        if not isinstance(self.keepalive, int) or isinstance(self.keepalive, bool) \
                or not 5 <= self.keepalive <= 3600:
            raise MqttSettingsError(f"mqtt.keepalive: {self.keepalive!r} seconds, use 5-3600")
        if (self.tls_cert is None) != (self.tls_key is None):
            raise MqttSettingsError("mqtt.tls_cert and mqtt.tls_key go together: give both or neither")
        if not isinstance(self.tls, bool):
            raise MqttSettingsError(f"mqtt.tls: {self.tls!r}, use true or false")
        if self.tls_ca is not None or self.tls_cert is not None:
            object.__setattr__(self, "tls", True)  # a CA or a client certificate means TLS
        for key in ("tls_ca", "tls_cert", "tls_key"):
            path = getattr(self, key)
            if path is not None and not Path(path).is_file():
                raise MqttSettingsError(f"mqtt.{key}: no such file {str(path)!r}")
        if self.discovery_prefix and not re.match(r"^[A-Za-z0-9_/-]{1,64}$", self.discovery_prefix):
            raise MqttSettingsError(f"mqtt.discovery_prefix: {self.discovery_prefix!r} is not a topic prefix")

    @property
    def base(self) -> str:
        """This table's root in the topic tree: ``companion/<venue>/<table>``."""
        return f"companion/{self.venue}/{self.table}"

    @classmethod
    def from_mapping(cls, mapping: dict[str, Any]) -> MqttSettings:
        """Build from a profile's ``[mqtt]`` section; unknown keys are refused by name.

        ``url = "mqtt://user:pass@host:port"`` (or ``mqtts://``) may stand for host, port and
        credentials.
        """
        if not isinstance(mapping, dict):
            raise MqttSettingsError("[mqtt] must be a table of settings")
        known = {f.name for f in fields(cls)} | {"url", "password_file"}
        unknown = sorted(set(mapping) - known)
        if unknown:
            raise MqttSettingsError(
                f"[mqtt]: unknown setting(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        values = dict(mapping)
        url = values.pop("url", None)
        if url is not None:
            for key, value in _parse_url(url).items():
                values.setdefault(key, value)
        password_file = values.pop("password_file", None)
        if password_file is not None:
            if values.get("password"):
                raise MqttSettingsError("mqtt.password and mqtt.password_file: give one of them")
            values["password"] = read_secret(password_file, "mqtt.password_file")
        for key in ("tls_ca", "tls_cert", "tls_key"):
            if values.get(key) is not None:
                values[key] = Path(values[key])
        return cls(**values)

    @classmethod
    def from_url(cls, url: str, **more: Any) -> MqttSettings:
        """``mqtt://[user:pass@]host[:port]`` plus any other settings by keyword."""
        return cls.from_mapping({"url": url, **more})


def _parse_url(url: Any) -> dict[str, Any]:
    if not isinstance(url, str):
        raise MqttSettingsError(f"mqtt.url: {url!r} is not a URL")
    parts = urlsplit(url)
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
        raise MqttSettingsError(f"mqtt.url: {url!r}: use mqtt://host[:port] (or mqtts:// with tls_ca)")
    try:
        port = parts.port
    except ValueError:
        raise MqttSettingsError(f"mqtt.url: {url!r} has a bad port") from None
    out: dict[str, Any] = {"host": parts.hostname,
                           "port": port or (8883 if parts.scheme == "mqtts" else 1883)}
    if parts.scheme == "mqtts":
        out["tls"] = True
    if parts.username is not None:
        out["username"] = unquote(parts.username)
        if parts.password is not None:
            out["password"] = unquote(parts.password)
    return out


def read_secret(path: Any, key: str) -> str:
    """A password from a file (its first line): kept out of ``ps`` and the shell's history."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, TypeError) as err:
        raise MqttSettingsError(f"{key}: cannot read {str(path)!r}: {err}") from None
    secret = text.splitlines()[0].strip() if text.strip() else ""
    if not secret:
        raise MqttSettingsError(f"{key}: {str(path)!r} is empty")
    return secret


def password_in_url(url: str) -> bool:
    """Whether a URL given on the command line carries a password (it would show in ``ps``)."""
    try:
        return urlsplit(url).password is not None
    except ValueError:
        return False


def configure_client(client: Any, settings: MqttSettings) -> None:
    """Credentials and TLS on a paho client, as the settings say.

    With TLS the certificate must chain to the CA file (or a system CA) and name the host;
    paho sends CONNECT (user name, password) only after that handshake succeeded.
    """
    if settings.username is not None:
        client.username_pw_set(settings.username, settings.password)
    if settings.tls:
        client.tls_set(ca_certs=str(settings.tls_ca) if settings.tls_ca else None,  # None: system CAs
                       certfile=str(settings.tls_cert) if settings.tls_cert else None,
                       keyfile=str(settings.tls_key) if settings.tls_key else None,
                       cert_reqs=ssl.CERT_REQUIRED)
        client.tls_insecure_set(False)  # the broker's name is checked too
