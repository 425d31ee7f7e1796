"""The dashboard in a real headless Chromium (Debian's), watching a move arrive live."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator

import pytest
from waitress.server import create_server

from companion.table import Table
from companion.web.app import create_app

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]

if not os.path.exists(CHROMIUM):
    if os.environ.get("CI"):
        raise RuntimeError("Debian's chromium is missing: scripts/test.sh installs it")
    pytest.skip("no chromium here; scripts/test.sh installs it", allow_module_level=True)

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture
def served() -> Iterator[tuple[str, Table]]:
    table = Table.open("times_square", None, 2, None, 0, resume=False)
    srv = create_server(create_app(table, "4321", {"KEEPALIVE_S": 1.0}), host="127.0.0.1", port=0,
                        threads=8)
    threading.Thread(target=srv.run, daemon=True).start()
    yield f"http://127.0.0.1:{srv.effective_port}", table
    srv.close()


def test_a_move_arrives_live_on_the_page(served: tuple[str, Table]) -> None:
    url, table = served
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page()
        page.goto(url)
        page.wait_for_selector("#live.pill:not(.off)", timeout=15000)
        assert page.locator("#history li").count() == 0
        action = table.game.legal_actions(table.state)[0]
        table.declare(action, "camera")  # as if the table had recorded a move
        page.wait_for_selector("#history li", timeout=10000)
        text = page.locator("#history li").first.inner_text()
        assert table.history[0].text in text
        # the player list and prompts follow too
        assert page.locator("#players li").count() == 2
        assert page.locator("#prompts li").count() >= 1
        # undo from the page with the PIN
        page.fill("#pin", "4321")
        page.dispatch_event("#pin", "change")
        page.click("#undo")
        page.wait_for_selector("#history li.undone", timeout=10000)
        assert table.history[0].undone
        browser.close()
