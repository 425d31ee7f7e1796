"""``companion venue`` and ``companion bench venue``, and the --mqtt options of serve/demo."""

from __future__ import annotations

import json
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import click

from companion.venue.settings import MqttSettings, MqttSettingsError, password_in_url

NO_PASSWORD_IN_URL = ("a password on the command line shows in `ps` and the shell's history: put it in "
                      "the profile's [mqtt] password or password_file, or give --mqtt-password-file")


def mqtt_options(func: Any) -> Any:
    """--mqtt-url, --venue, --table-name, --mqtt-ca, --mqtt-password-file: publish this table to a
    venue's broker."""
    options = [
        click.option("--mqtt-url", default=None, metavar="mqtt[s]://[USER@]HOST[:PORT]",
                     help="Publish this table to a venue's MQTT broker (mqtts:// verifies it).",
                     callback=_no_password),
        click.option("--mqtt-ca", default=None, type=click.Path(exists=True, dir_okay=False, path_type=Path),
                     help="The broker's CA file for mqtts:// (default: the system's CAs)."),
        click.option("--mqtt-password-file", default=None,
                     type=click.Path(exists=True, dir_okay=False, path_type=Path),
                     help="A file whose first line is the broker password."),
        click.option("--venue", "mqtt_venue", default="venue", show_default=True,
                     help="The venue's name in the topic tree."),
        click.option("--table-name", "mqtt_table", default="table", show_default=True,
                     help="This table's name in the topic tree."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _no_password(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None and password_in_url(value):
        raise click.BadParameter(NO_PASSWORD_IN_URL)
    return value


def _secrets(ca: Path | None, password_file: Path | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if ca is not None:
        out["tls_ca"] = ca
    if password_file is not None:
        out["password_file"] = password_file
    return out


def mqtt_from_options(opts: dict[str, Any]) -> MqttSettings | None:
    """Pop the --mqtt options; settings when --mqtt-url was given, else None."""
    url = opts.pop("mqtt_url", None)
    venue = opts.pop("mqtt_venue", "venue")
    table = opts.pop("mqtt_table", "table")
    more = _secrets(opts.pop("mqtt_ca", None), opts.pop("mqtt_password_file", None))
    if url is None:
        if more:
            raise click.BadParameter("give the broker with --mqtt-url too", param_hint="--mqtt-ca")
        return None
    try:
        return MqttSettings.from_url(url, venue=venue, table=table, **more)
    except MqttSettingsError as err:
        raise click.BadParameter(str(err), param_hint="--mqtt-url") from err


def mqtt_from_section(section: Any) -> MqttSettings:
    """A profile's ``[mqtt]`` section, or a clear error naming the bad key."""
    try:
        return MqttSettings.from_mapping(section)
    except MqttSettingsError as err:
        raise click.ClickException(f"config file: {err}") from err


@click.command()
@click.option("--mqtt-url", default="mqtt://127.0.0.1:1883", show_default=True,
              help="The venue's broker (mqtts:// verifies it).", callback=_no_password)
@click.option("--mqtt-ca", default=None, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The broker's CA file for mqtts:// (default: the system's CAs).")
@click.option("--mqtt-password-file", default=None,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A file whose first line is the broker password.")
@click.option("--venue", default="venue", show_default=True, help="The venue's name in the topic tree.")
@click.option("--config", "config_file", type=click.Path(exists=True, path_type=Path),
              help="A TOML file whose [mqtt] section gives the broker (credentials, TLS).")
@click.option("--league", "league_db", type=click.Path(path_type=Path),
              default=Path("companion-data/venue-league.sqlite"), show_default=True,
              help="The league's SQLite store.")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, default=8100, show_default=True)
@click.option("--export", type=click.Choice(["csv", "json"]), default=None,
              help="Print the league (all evenings, or --evening) and exit.")
@click.option("--evening", default=None, metavar="YYYY-MM-DD", help="One evening's league for --export.")
def venue(mqtt_url: str, mqtt_ca: Path | None, mqtt_password_file: Path | None, venue: str,
          config_file: Path | None, league_db: Path, host: str, port: int, export: str | None,
          evening: str | None) -> None:
    """The room's big screen: every table live from the broker, and the league."""
    from companion.venue.app import VenueConfig, VenueService
    from companion.venue.league import League

    if export:
        league = League(league_db)
        try:
            click.echo(league.export_csv(evening) if export == "csv" else league.export_json(evening),
                       nl=False)
        finally:
            league.close()
        return
    try:
        section: dict[str, Any] = {"url": mqtt_url, "venue": venue,
                                   **_secrets(mqtt_ca, mqtt_password_file)}
        if config_file:
            section = {**section, **tomllib.loads(config_file.read_text()).get("mqtt", {})}
            section.pop("table", None)  # a table's own name means nothing to the venue
        settings = MqttSettings.from_mapping(section)
        service = VenueService(VenueConfig(settings, league_db, host, port)).start()
    except (ValueError, OSError, tomllib.TOMLDecodeError) as err:
        raise click.ClickException(str(err)) from err
    click.echo(f"Venue {settings.venue}: {service.url}   broker: {settings.host}:{settings.port}")
    try:
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        service.stop()


@click.command("venue")
@click.option("--tables", type=click.IntRange(1, 200), default=20, show_default=True)
@click.option("--seconds", type=click.FloatRange(1, 120), default=8.0, show_default=True,
              help="How long the tables play for the latency figures.")
@click.option("--rate", type=click.FloatRange(1, 1000), default=40.0, show_default=True,
              help="Table steps per second, all tables together.")
@click.option("--outage", "outage_s", type=click.FloatRange(1, 600), default=30.0, show_default=True,
              help="Seconds the broker stays dead after its SIGKILL.")
@click.option("--late", "late_s", type=click.FloatRange(0, 120), default=6.0, show_default=True,
              help="Seconds the late side (venue, then tables) comes back after the other.")
@click.option("--screens", type=click.IntRange(1, 2000), default=None,
              help="Instead: this many room screens open on the live feed; how fast /api/room answers.")
@click.option("--json", "as_json", is_flag=True)
def bench_venue(tables: int, seconds: float, rate: float, outage_s: float, late_s: float,
                screens: int | None, as_json: bool) -> None:
    """Tables through one broker: latency to the venue page, and a broker crash (SIGKILL) with the
    venue or the tables back first: events and results lost, messages a table sends a minute."""
    from companion.venue.bench import screens_benchmark, venue_benchmark

    def say(text: str) -> None:
        if not as_json:
            click.echo(f"… {text}", err=True)

    try:
        if screens is not None:
            figures = screens_benchmark(screens, min(tables, 8), rate=rate, progress=say)
        else:
            figures = venue_benchmark(tables, seconds, rate, outage_s, late_s, progress=say)
    except (OSError, FileNotFoundError) as err:
        raise click.ClickException(str(err)) from err
    if as_json:
        click.echo(json.dumps(figures, sort_keys=True))
        return
    width = max(len(k) for k in figures)
    for key, value in figures.items():
        click.echo(f"{key:<{width}}  {value}")
    if any(v for k, v in figures.items() if k.endswith(("events_lost", "results_lost",
                                                        "results_lost_fresh_venue"))):
        sys.exit(1)
