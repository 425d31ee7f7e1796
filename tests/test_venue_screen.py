"""The room screen in Debian's Chromium, fed by a mixed evening (Times Square, Jivecat at 3,
King of Clubs, Swing State at 4, named players) through a real Mosquitto: the league counts
people by placing, the screen fills 1920x1080 and 4K with names and scores of 64 px and up
at 1080p and nothing cut, and a killed broker turns the header into a warning."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from waiting import HANG_MS

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    if os.environ.get("CI"):
        raise RuntimeError("Debian's chromium is missing: scripts/test.sh installs it")
    pytest.skip("no chromium here; scripts/test.sh installs it", allow_module_level=True)
pytest.importorskip("playwright.sync_api")


def test_a_mixed_evening_on_the_room_screen(tmp_path: Path) -> None:
    from companion.venue.evening import ROUND_ONE, run_evening

    out = run_evening(tmp_path / "evening", shots=tmp_path / "shots")
    # every game of the first round counted; the unnamed Jivecat seat counts for nobody
    tables = [r["table"] for r in out["results"]]
    assert tables[:len(ROUND_ONE)] == [name for name, _, _ in ROUND_ONE]
    names = {row["name"] for row in out["standings"]}
    assert names <= {"Ann", "Bob", "Cy", "Dee", "Eve"} and names
    for result in out["results"]:
        seats = result["seats"]
        winners = [s for s in seats if s[3]]
        assert all(s[4] == 1 and s[5] == 1.0 for s in winners)  # winners share first place
        losers = sorted((s for s in seats if not s[3]), key=lambda s: -s[2])
        for better, worse in zip(losers, losers[1:], strict=False):  # the rest by score, ties shared
            assert better[4] <= worse[4] and (better[4] == worse[4]) == (better[2] == worse[2])
    ranks = [(row["points"], row["rank"]) for row in out["standings"]]
    for (points, rank), (next_points, next_rank) in zip(ranks, ranks[1:], strict=False):
        assert points >= next_points and (rank == next_rank) == (points == next_points)

    screens = out["screens"]
    for label, least in (("1080p", 64), ("broker_down_1080p", 64), ("4k", 128)):
        shown = screens[label]
        assert shown["cards"] == 4, label
        assert shown["name_px_min"] >= least and shown["score_px_min"] >= least, (label, shown)
        assert shown["cards_cut"] == [] and not shown["league_cut"], (label, shown)
    assert screens["1080p"]["banner"] is None
    assert screens["broker_down_1080p"]["banner"].startswith("Broker unreachable since")
    for name in ("room-1080p.png", "room-4k.png", "room-broker-down-1080p.png"):
        assert (tmp_path / "shots" / name).stat().st_size > 10_000


class KnownPlayers:
    """The set-up's view of a venue link: its state and the venue's known players."""

    known_players = ["Zoe", "Yan", "Xavi"]

    def link_state(self) -> dict[str, object]:
        return {"state": "connected", "detail": "broker.local:8883", "since_s": 12.0}


def test_set_up_names_seats_with_a_tap_from_the_venues_players(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    from companion.sim.browser_tablet import BrowserTablet
    from companion.table import Table
    from companion.web.app import create_app
    from companion.web.server import DashboardServer
    from companion.web.setup import TableRef

    table = Table.open("times_square", tmp_path, 2, None, 1, resume=False)
    ref = TableRef(table)
    server = DashboardServer(ref, create_app(ref, "111111", {"VENUE_LINK": KnownPlayers()}),
                             "127.0.0.1", 0).start()
    try:
        assert server.wait_started(10)
        url = f"http://127.0.0.1:{server.port}"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"])
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.goto(f"{url}/setup")
            page.wait_for_selector("body[data-ready='1']", timeout=HANG_MS)
            page.click('[data-game="times_square"]')
            assert page.inner_text("#venue-link") == "Venue: connected (broker.local:8883)"
            assert page.locator('[data-picker="0"] [data-player]').all_inner_texts() == ["Zoe", "Yan", "Xavi"]
            page.click('[data-picker="0"] [data-player="Yan"]')  # one tap names the seat
            assert page.input_value('[data-seat="0"] input') == "Yan"
            # a name taken at one seat is not offered at another; typing filters, a new name is fine
            assert page.locator('[data-picker="1"] [data-player]').all_inner_texts() == ["Zoe", "Xavi"]
            page.fill('[data-seat="1"] input', "X")
            assert page.locator('[data-picker="1"] [data-player]').all_inner_texts() == ["Xavi"]
            page.fill('[data-seat="1"] input', "Wanda")
            assert page.locator('[data-picker="1"] [data-player]').count() == 0
            page.click("#start")
            assert BrowserTablet(url, "111111", page).enter_pin() == "accepted"
            page.wait_for_url(f"{url}/", timeout=HANG_MS)
            browser.close()
        assert ref.current.record.options["names"] == ["Yan", "Wanda"]
    finally:
        server.close()
        ref.current.log.close()
