"""``companion doctor``'s broker check: connect, subscribe, publish, and get it back.

One short-lived paho client with the table's own settings (credentials, TLS), so what
the doctor says is what the table's publisher will meet: refused certificates, wrong
passwords, an unreachable host or an ACL that drops the table's messages.
"""

from __future__ import annotations

import ssl
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from companion.venue.settings import MqttSettings, configure_client


@dataclass(frozen=True)
class BrokerCheck:
    ok: bool
    detail: str
    fix: str = ""


def probe_broker(settings: MqttSettings, timeout: float = 5.0) -> BrokerCheck:
    """Connect, subscribe to a topic of this table's, publish to it (QoS 1), wait for it."""
    where = f"{settings.host}:{settings.port}" + (" (TLS)" if settings.tls else "")
    topic = f"{settings.base}/doctor"
    nonce = uuid.uuid4().hex.encode()
    connected, subscribed, echoed = threading.Event(), threading.Event(), threading.Event()
    refusal: list[str] = []
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"companion-doctor-{uuid.uuid4().hex[:8]}",
                         protocol=mqtt.MQTTv311, clean_session=True)

    def on_connect(c: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            refusal.append(str(reason))
        else:
            c.subscribe(topic, qos=1)
        connected.set()

    def on_subscribe(c: Any, userdata: Any, mid: int, reasons: Any, properties: Any) -> None:
        if all(not r.is_failure for r in reasons):
            subscribed.set()
        else:
            refusal.append("the broker refused the subscription")
            subscribed.set()

    def on_message(c: Any, userdata: Any, message: Any) -> None:
        if message.payload == nonce:
            echoed.set()

    client.on_connect, client.on_subscribe, client.on_message = on_connect, on_subscribe, on_message
    try:
        configure_client(client, settings)
        started = time.monotonic()
        client.connect(settings.host, settings.port, keepalive=max(5, int(timeout) + 5))
    except ssl.SSLCertVerificationError as err:
        return BrokerCheck(False, f"{where}: the broker's certificate was not verified "
                           f"({err.verify_message}); nothing was sent",
                           "give the broker's CA file (mqtt.tls_ca or --mqtt-ca), or fix the broker's "
                           "certificate and name")
    except ssl.SSLError as err:
        return BrokerCheck(False, f"{where}: TLS failed ({err.reason or err}); nothing was sent",
                           "is the broker's listener TLS? mqtts:// needs one (port 8883 by default)")
    except OSError as err:
        if settings.tls:
            return BrokerCheck(False, f"{where}: unreachable or not a TLS listener ({err}); no TLS "
                               "handshake, so nothing was sent",
                               "is mosquitto running there with a TLS listener (port 8883 by default)?")
        return BrokerCheck(False, f"{where}: unreachable ({err})",
                           "is mosquitto running there? check the host, the port and the firewall")
    client.loop_start()
    try:
        if not connected.wait(timeout):
            return BrokerCheck(False, f"{where}: no answer to CONNECT within {timeout:.0f} s",
                               "is it an MQTT broker on that port?")
        if refusal:
            return BrokerCheck(False, f"{where}: refused the table ({refusal[0]})",
                               "check mqtt.username and the password (password or password_file)")
        if not subscribed.wait(timeout) or refusal:
            return BrokerCheck(False, f"{where}: could not subscribe to {topic}",
                               "the broker's ACL must let the table use companion/<venue>/<table>/#")
        info = client.publish(topic, nonce, qos=1)
        if not echoed.wait(timeout):
            return BrokerCheck(False, f"{where}: published to {topic} but it never came back (rc {info.rc})",
                               "the broker's ACL must let the table publish to companion/<venue>/<table>/#")
        elapsed = (time.monotonic() - started) * 1000
        return BrokerCheck(True, f"{where}: connect, subscribe, publish and receive in {elapsed:.0f} ms")
    finally:
        client.disconnect()
        client.loop_stop()
