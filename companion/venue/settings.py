"""Where a table or the venue finds its MQTT broker: host, credentials, TLS.

A plain dataclass so a table profile's ``[mqtt]`` section, the ``--mqtt-url``
option and the tests build it the same way; every value is checked here, once,
with a message that names the key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
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
    password: str | None = None
    tls_ca: Path | None = None  # a CA file: turns TLS on
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
        if self.tls_cert is not None and self.tls_ca is None:
            raise MqttSettingsError("mqtt.tls_cert needs mqtt.tls_ca (the broker's CA) for TLS")
        for key in ("tls_ca", "tls_cert", "tls_key"):
            path = getattr(self, key)
            if path is not None and not Path(path).is_file():
                raise MqttSettingsError(f"mqtt.{key}: no such file {str(path)!r}")
        if self.discovery_prefix and not re.match(r"^[A-Za-z0-9_/-]{1,64}$", self.discovery_prefix):
            raise MqttSettingsError(f"mqtt.discovery_prefix: {self.discovery_prefix!r} is not a topic prefix")

    @property
    def tls(self) -> bool:
        return self.tls_ca is not None

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
        known = {f.name for f in fields(cls)} | {"url"}
        unknown = sorted(set(mapping) - known)
        if unknown:
            raise MqttSettingsError(
                f"[mqtt]: unknown setting(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        values = dict(mapping)
        url = values.pop("url", None)
        if url is not None:
            for key, value in _parse_url(url).items():
                values.setdefault(key, value)
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
    if parts.username is not None:
        out["username"] = unquote(parts.username)
        out["password"] = unquote(parts.password or "")
    return out


def configure_client(client: Any, settings: MqttSettings) -> None:
    """Credentials and TLS on a paho client, as the settings say."""
    if settings.username is not None:
        client.username_pw_set(settings.username, settings.password)
    if settings.tls:
        client.tls_set(ca_certs=str(settings.tls_ca),
                       certfile=str(settings.tls_cert) if settings.tls_cert else None,
                       keyfile=str(settings.tls_key) if settings.tls_key else None)
