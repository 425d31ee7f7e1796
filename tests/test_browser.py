"""The dashboard in a real headless Chromium (Debian's), as players use it.

One whole game of each of the five games in which every declaration is tapped on the page
(the simulated table does its physical part: the stabilised board, card taps, buttons),
with the page checked at three sizes: no sideways scroll, sizes readable at 1.5 m, no raw
JSON.  Then the clocks' pause across a reload, a live time-up alert, a double tap that
undoes once, a replacement chosen with the same form, and the PIN's immediate answer.

Screenshots: set ``COMPANION_SCREENSHOTS=DIR`` (``scripts/screenshots.sh`` writes
``docs/screenshots``); the taps per declaration land in ``DIR/taps.json`` too.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from waiting import HANG_MS, wait_until

from companion.games import load_game
from companion.games.base import Prompt
from companion.sim.browser_tablet import BrowserTablet, play_through_page, state_key, survey_steps
from companion.sim.world import load_world
from companion.table import Table, TableOptions
from companion.web.app import create_app
from companion.web.server import DashboardServer
from companion.web.setup import TableRef

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
PIN = "432100"
SIZES = [(390, 844), (1180, 820), (820, 1180), (1920, 1080)]
"""Phone, landscape and portrait tablet, TV: the sizes the page is laid out for."""
SHOTS = os.environ.get("COMPANION_SCREENSHOTS")

if not os.path.exists(CHROMIUM):
    if os.environ.get("CI"):
        raise RuntimeError("Debian's chromium is missing: scripts/test.sh installs it")
    pytest.skip("no chromium here; scripts/test.sh installs it", allow_module_level=True)

sync_api = pytest.importorskip("playwright.sync_api")

# the shortest configurations, with seeds that end quickly and whose every declaration the
# tracker lists as legal (so the page can offer it)
GAMES = [
    ("times_square", 2, None, 5),
    ("king_of_clubs", 2, "basic", 2),
    ("jivecat", 2, None, 5),
    ("baron_voodoo", 2, None, 4),
    ("swing_state", 2, None, 5),
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


Serve = Callable[[Table], str]


@pytest.fixture
def serve() -> Iterator[Serve]:
    servers: list[Any] = []
    tables: list[Table] = []

    def start(table: Table) -> str:
        """The dashboard as ``serve`` runs it: uvicorn streams, Flask answers the API."""
        ref = TableRef(table)  # set-up may swap the game: the streams follow it, as in serve
        srv = DashboardServer(ref, create_app(ref, PIN, {"KEEPALIVE_S": 1.0}), "127.0.0.1", 0).start()
        assert srv.wait_started(10), "the dashboard server did not start"
        servers.append(srv)
        tables.append(table)
        return f"http://127.0.0.1:{srv.port}"

    yield start
    for srv in servers:
        srv.close()
    for table in tables:
        table.close()


def open_page(browser: Any, url: str, width: int = 1024, height: int = 768) -> Any:
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.errors = errors
    page.goto(url)
    page.wait_for_selector("#live.pill:not(.off)", timeout=HANG_MS)
    page.wait_for_function("() => document.body.dataset.formsKey !== undefined", timeout=HANG_MS)
    return page


def pairing_exists(url: str) -> bool:
    import urllib.error
    import urllib.request
    try:
        urllib.request.urlopen(f"{url}/api/whoami", timeout=5)
    except urllib.error.HTTPError as err:
        return err.code != 404
    return True


BOARD_LABELS = """
const boardLabels = () => {  // every board label inside its own spot and under no piece
  const box = (e) => e.getBoundingClientRect();
  const inside = (a, b) => a.left >= b.left - 1 && a.right <= b.right + 1 && a.top >= b.top - 1
      && a.bottom <= b.bottom + 1;
  const meets = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5
      && b.top < a.bottom - 0.5;
  const pieces = [...document.querySelectorAll('#board [data-piece]')].map(box);
  const clipped = [], covered = [];
  for (const t of document.querySelectorAll('#board text.spot-label')) {
    const spot = document.querySelector(`#board rect[data-spot="${t.dataset.label}"]`);
    const b = box(t);
    if (!inside(b, box(spot))) clipped.push(t.textContent);
    if (pieces.some((p) => meets(b, p))) covered.push(t.textContent);
  }
  return {clipped, covered};
};
"""


def check_readable(page: Any, label: str) -> None:
    """At this size: no sideways scroll, no raw JSON, sizes readable across the table."""
    sizes = page.evaluate(BOARD_LABELS + """() => {
      const px = (sel) => [...document.querySelectorAll(sel)].filter((e) => e.offsetParent)
          .map((e) => parseFloat(getComputedStyle(e).fontSize));
      const tall = [...document.querySelectorAll('button, a.button')].filter((e) => e.offsetParent)
          .map((e) => { const r = e.getBoundingClientRect();
                        return [Math.min(r.width, r.height), e.textContent]; });
      return {scroll: document.documentElement.scrollWidth, width: document.documentElement.clientWidth,
              body: document.body.scrollWidth,
              scores: px('#players .score'), names: px('#players .name'), clocks: px('#players .clock'),
              banner: px('#banner-text'), turnClock: px('#turn-clock'), targets: tall,
              seqs: [...document.querySelectorAll('#history .seq')].filter((e) => e.offsetParent)
                  .filter((e) => e.scrollWidth > e.clientWidth + 1 ||
                                 e.textContent !== e.closest('li').dataset.move).length,
              labels: boardLabels(),
              text: document.body.innerText};
    }""")
    assert sizes["scroll"] <= sizes["width"] and sizes["body"] <= sizes["width"], (label, sizes["scroll"])
    assert sizes["scores"] and min(sizes["scores"]) >= 40, (label, sizes["scores"])
    assert min(sizes["names"]) >= 24 and min(sizes["clocks"], default=24) >= 24, \
        (label, sizes["names"], sizes["clocks"])  # (no clocks during set-up)
    assert min(sizes["banner"]) >= 24
    assert sizes["seqs"] == 0, label  # history numbers keep every digit (100 and on)
    assert sizes["labels"]["clipped"] == [] and sizes["labels"]["covered"] == [], (label, sizes["labels"])
    small = [t for t in sizes["targets"] if t[0] < 44]
    assert not small, (label, small)
    assert '{"' not in sizes["text"] and "null" not in sizes["text"].split(), label
    banner = page.evaluate("""() => { const s = getComputedStyle(document.querySelector('#banner'));
                                      return [s.backgroundColor, s.color]; }""")
    assert banner[0] not in ("rgba(0, 0, 0, 0)", "transparent")
    assert contrast(*banner) >= 4.5, (label, banner)
    check_size(page, label)


def check_size(page: Any, label: str) -> dict[str, Any]:
    """Issue 41's figures at the page's size: every text at least 4.5:1, no box that cuts
    rows; the phone's turn banner within the first 120 px; the landscape tablet's players,
    declare, board and history above the fold; the TV's scores and turn at least 96 px."""
    figures = measure(page)
    width, height = figures["viewport"]["w"], figures["viewport"]["h"]
    assert figures["min_contrast"]["ratio"] >= 4.5, (label, figures["min_contrast"])
    assert figures["scroll_boxes"] == [], (label, figures["scroll_boxes"])
    if width < 600:
        assert figures["banner"]["bottom"] <= 120, (label, figures["banner"])
    else:  # columns side by side end together: none stands empty while another goes on
        assert figures["largest_empty_px"] <= EMPTY_SHARE * height, (label, figures["empty_below_px"])
    if width >= 900 and width > height:
        for panel in ("players-panel", "declare-panel", "board-panel", "history-panel"):
            assert figures["panels"][panel]["top"] < height - 100, (label, panel, figures["panels"])
    if width >= 1600:
        assert figures["score_px"] >= 96 and figures["banner_text_px"] >= 96, (label, figures)
    return figures


EMPTY_SHARE = 0.3
"""The most a column may stand empty below its content while another of its band goes on,
as a share of the screen's height (the details are placed a block at a time, and a history
beside them keeps a few moves, so columns end within a block or a move of each other)."""

MEASURE = """() => {
  const shown = (e) => e.offsetParent !== null || getComputedStyle(e).position === 'fixed';
  const px = (sel) => [...document.querySelectorAll(sel)].filter(shown)
      .map((e) => parseFloat(getComputedStyle(e).fontSize));
  const box = (sel) => { const e = document.querySelector(sel);
    if (!e || !shown(e)) return null;
    const r = e.getBoundingClientRect();
    return {top: Math.round(r.top + scrollY), bottom: Math.round(r.bottom + scrollY),
            left: Math.round(r.left), right: Math.round(r.right)}; };
  const rgba = (css) => { const v = (css.match(/[\\d.]+/g) || []).map(Number);
    return v.length >= 3 ? [v[0], v[1], v[2], v.length > 3 ? v[3] : 1] : [0, 0, 0, 0]; };
  const lum = ([r, g, b]) => { const c = [r, g, b].map((x) => { x /= 255;
    return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]; };
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3]));
  const background = (e) => {  // the colours under e, blended from the page up
    const chain = [];
    for (let n = e; n && n.nodeType === 1; n = n.parentElement) chain.push(n);
    let colour = [255, 255, 255];
    for (const n of chain.reverse()) {
      const c = rgba(getComputedStyle(n).backgroundColor);
      if (c[3] > 0) colour = over(c, colour);
    }
    return colour; };
  let worst = null;
  const texts = [];
  for (const e of document.querySelectorAll('body *')) {
    if (!shown(e) || e.closest('svg') || e.disabled || e.closest('[disabled]')) continue;
    const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    const st = getComputedStyle(e);
    if (parseFloat(st.opacity) === 0 || st.visibility === 'hidden') continue;
    const bg = background(e), fg = over(rgba(st.color), bg);
    const [a, b] = [lum(fg) + 0.05, lum(bg) + 0.05];
    const ratio = Math.max(a, b) / Math.min(a, b);
    texts.push(ratio);
    if (!worst || ratio < worst.ratio) worst = {ratio: Math.round(ratio * 100) / 100,
      text: e.textContent.trim().slice(0, 60), id: e.id || e.className || e.tagName};
  }
  const view = {w: innerWidth, h: innerHeight};
  const panels = {};
  let used = 0;
  for (const id of ['players-panel', 'declare-panel', 'board-panel', 'history-panel', 'summary-panel']) {
    const b = box('#' + id);
    panels[id] = b;
    if (b) used += Math.max(0, Math.min(b.right, view.w) - Math.max(b.left, 0))
        * Math.max(0, Math.min(b.bottom, view.h) - Math.max(b.top, 0));
  }
  const scrollBoxes = [...document.querySelectorAll('body *')].filter(shown).filter((e) => {
    const st = getComputedStyle(e);
    return /(auto|scroll)/.test(st.overflowY) && e.scrollHeight > e.clientHeight + 2
        && e.tagName !== 'DIALOG';
  }).map((e) => e.id || e.className);
  // empty columns: the panels side by side in bands (a panel across the page ends a band),
  // each column's content bottom against the longest column's of its band
  const mainBox = document.querySelector('main').getBoundingClientRect();
  const sections = [...document.querySelectorAll('main section')].filter(shown).map((e) => {
    const r = e.getBoundingClientRect();
    const kids = [...e.children].filter(shown).map((k) => k.getBoundingClientRect().bottom);
    const pad = parseFloat(getComputedStyle(e).paddingBottom);
    return {left: Math.round(r.left), wide: r.width > 0.8 * mainBox.width, top: r.top,
            content: Math.max(r.top, ...kids) + pad};
  }).sort((a, b) => a.top - b.top);
  const bands = [[]];
  for (const s of sections) {
    if (s.wide) { bands.push([]); continue; }
    bands[bands.length - 1].push(s);
  }
  const emptyBelow = bands.map((band) => {
    const bottoms = {};
    for (const s of band) bottoms[s.left] = Math.max(bottoms[s.left] ?? -Infinity, s.content);
    const longest = Math.max(...Object.values(bottoms));
    return Object.values(bottoms).length > 1 ? Object.keys(bottoms).sort((a, b) => a - b)
        .map((left) => Math.round(longest - bottoms[left])) : [];
  }).filter((b) => b.length);
  return {viewport: view, banner: box('#banner'), banner_text_px: Math.max(0, ...px('#banner-text')),
          turn_clock_px: Math.max(0, ...px('#turn-clock')), score_px: Math.min(...px('#players .score')),
          name_px: Math.min(...px('#players .name')), smallest_text_px: Math.min(...px('body *')),
          min_contrast: worst, texts: texts.length,
          panels, screen_used: Math.round(100 * used / (view.w * view.h)),
          page_height: document.documentElement.scrollHeight, scroll_boxes: scrollBoxes,
          empty_below_px: emptyBelow, largest_empty_px: Math.max(0, ...emptyBelow.flat())};
}"""


def measure(page: Any) -> dict[str, Any]:
    """The figures issue 41 asks for at the page's current size (positions in CSS px)."""
    page.evaluate("window.scrollTo(0, 0)")
    figures = page.evaluate(MEASURE)
    figures["banner_top"] = figures["banner"]["top"] if figures["banner"] else None
    return figures


def contrast(one: str, other: str) -> float:
    """WCAG contrast ratio of two CSS rgb() colours."""
    def luminance(css: str) -> float:
        channels = [float(v) / 255 for v in re.findall(r"[\d.]+", css)[:3]]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def shot(page: Any, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / name))


def write_figures(game: str, figures: dict[str, Any]) -> None:
    """The per-size figures of one game into ``SHOTS/figures.json`` (beside the screenshots)."""
    if not SHOTS:
        return
    out = Path(SHOTS) / "figures.json"
    every = json.loads(out.read_text()) if out.exists() else {}
    every[game] = figures
    out.write_text(json.dumps(every, indent=1, sort_keys=True) + "\n")


SURVEY_EVERY = 3  # steps between looks at the forms offered (each new set is walked once)
SURVEYS = 5  # walks through every form the page offers per game, at most


@pytest.mark.parametrize("game, players, variant, seed", GAMES, ids=[g[0] for g in GAMES])
def test_a_whole_game_declared_by_tapping_the_page(browser: Any, serve: Serve, game: str,
                                                   players: int, variant: str | None,
                                                   seed: int) -> None:
    table = Table.open(game, None, players, variant, seed, resume=False)
    world = load_world(game, table.game, players, variant, seed)
    url = serve(table)
    page = open_page(browser, url, 1180, 820)
    tablet = BrowserTablet(url, PIN, page)
    # the PIN's answer comes at once (from /api/pair, or without it through the PIN header)
    assert "Wrong PIN" in tablet.enter_pin("0000")
    assert tablet.enter_pin() == "accepted"
    if pairing_exists(url):  # with the pairing routes the device is now paired by its cookie
        assert page.evaluate("fetch('/api/whoami').then((r) => r.json()).then((b) => b.paired)")
    sizes: dict[str, Any] = {}

    def at_sizes(stage: str) -> None:
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.evaluate("window.scrollTo(0, 0)")
            page.wait_for_function("size => document.documentElement.dataset.arranged === size",
                                   arg=f"{width}x{height}", timeout=HANG_MS)
            shot(page, f"{game}-{stage}-{width}x{height}.png")  # (before the checks: a fault is seen)
            check_readable(page, f"{game} {stage} {width}x{height}")
            sizes.setdefault(f"{width}x{height}", {})[stage] = measure(page)
        page.set_viewport_size({"width": 1180, "height": 820})

    def at_first_confirm(p: Any) -> None:  # a form on screen: readable at every size too
        at_sizes("declaring")

    steps_offered: dict[str, int] = {}
    first_step: list[int] = []  # the action types offered at once (the sensed ones opened)
    surveyed: set[str] = set()

    def on_step(n: int) -> None:  # the game under way
        if n % SURVEY_EVERY == 1 and len(surveyed) < SURVEYS:
            tablet.sync()  # each new set of forms offered is walked once (options per step)
            offered = json.dumps(page.eval_on_selector_all("#form [data-type]",
                                                           "bs => bs.map((b) => b.dataset.type)"))
            if offered not in surveyed:
                surveyed.add(offered)
                for label, counts in survey_steps(page).items():
                    steps_offered[label] = max(steps_offered.get(label, 0), max(counts[1:], default=0))
                    first_step.append(counts[0])
        if n == 6:
            tablet.sync()
            at_sizes("playing")

    tablet.before_confirm = at_first_confirm
    tablet.sync()
    on_step(1)  # the forms before the first move (the Nightclubs, the Deities...)
    started = time.monotonic()
    result = play_through_page(table, world, tablet, on_step=on_step)
    seconds = time.monotonic() - started
    assert result.tablet["over"], result.tablet["prompts"]
    assert sorted(result.tablet["winner"]) == sorted(result.truth["winners"])
    assert result.refusals == [] and not tablet.unreachable
    assert result.stalls == 0
    assert all(d.status == 200 for d in tablet.declarations)
    median = tablet.median_taps()
    if median is not None:  # type, a value or two, confirm (a combination: one tap a part)
        assert median <= 4, [(d.type, d.taps) for d in tablet.declarations]
    # the finished game as the page shows it, at four sizes
    page.wait_for_function("k => document.body.dataset.stateKey === k",
                           arg=state_key(table.public()), timeout=HANG_MS)
    assert page.locator("#banner-text").inner_text().endswith(("wins!", "win!", "Game over"))
    assert not page.locator("#prompts li.chore").count()  # chores cleared at game over
    at_sizes("over")
    assert not page.errors, page.errors
    for d in tablet.declarations:
        steps_offered[f"{d.type} (declared)"] = max(steps_offered.get(f"{d.type} (declared)", 0),
                                                   max(d.options[1:], default=0))
    figures = {"declarations": len(tablet.declarations), "median_taps": median,
               "taps": [d.taps for d in tablet.declarations], "seconds": round(seconds, 1),
               "options_per_step": [d.options for d in tablet.declarations],
               "largest_step_by_form": steps_offered,
               "largest_step": max(steps_offered.values(), default=0),
               "most_types_at_once": max(first_step, default=0), "sizes": sizes}
    write_figures(game, figures)
    assert figures["largest_step"] <= 8, steps_offered  # no step offers more than 8 options
    print(f"\n{game}: {len(tablet.declarations)} declarations by tapping, median taps {median},"
          f" largest step {figures['largest_step']}, {seconds:.1f} s")
    page.close()


def started_table(game: str = "times_square", options: TableOptions | None = None,
                  actions: int = 2) -> Table:
    """A table a few moves in (so someone's turn is running)."""
    table = Table.open(game, None, 2, None, 0, resume=False, options=options)
    for _ in range(actions):
        table.declare(table.game.legal_actions(table.state)[0], "camera")
    return table


def unlock(page: Any, url: str) -> None:
    assert BrowserTablet(url, PIN, page).enter_pin() == "accepted"


@pytest.mark.parametrize("game", ["baron_voodoo", "swing_state"])
def test_no_column_stands_empty_while_another_goes_on(browser: Any, serve: Serve, game: str) -> None:
    """Baron Voodoo's long player cards and Swing State's short details, at the portrait
    and landscape tablet and the TV: each column ends within EMPTY_SHARE of the screen's
    height of the longest of its band (the Declare column stood empty for 893 px at
    1180x820 before), with board, players, declare and history above the fold in landscape."""
    page = open_page(browser, serve(started_table(game, actions=6)), 1180, 820)
    for width, height in [(820, 1180), (1180, 820), (1920, 1080)]:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_function("size => document.documentElement.dataset.arranged === size",
                               arg=f"{width}x{height}", timeout=HANG_MS)
        figures = check_size(page, f"{game} {width}x{height}")  # (the empty parts checked there)
        assert figures["empty_below_px"] and figures["panels"]["summary-panel"], figures
    assert not page.errors, page.errors
    page.close()


def test_the_banner_says_a_long_name_whole_within_the_first_120_px(browser: Any, serve: Serve) -> None:
    """Names of up to 24 letters (set-up's limit): the whose-turn banner shrinks them, then
    wraps, and never cuts them with "…"; on a phone it still ends within 120 px, on a TV
    the turn stays at least 96 px."""
    names = ["Maximiliana Wolkenstein", "WWWWWWWWWWWWWWWWWWWWWWWW"]
    table = Table.open("times_square", None, 2, None, 0, resume=False, setup={"names": names})
    url = serve(table)
    page = open_page(browser, url, 390, 844)
    seen: list[str] = []
    for _ in range(40):  # (each seat's turn in a few moves)
        turn = table.public()["turn"]
        if turn is None or table.state.get("phase") == "setup" or names[turn] in seen:
            table.declare(table.game.legal_actions(table.state)[0], "camera")
            continue
        name = names[turn]
        seen.append(name)
        page.wait_for_function("t => document.querySelector('#banner-text').textContent === t",
                               arg=f"{name}'s turn", timeout=HANG_MS)
        for width, height, least in [(390, 844, 26), (1920, 1080, 96)]:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_function("size => document.documentElement.dataset.arranged === size",
                                   arg=f"{width}x{height}", timeout=HANG_MS)
            shown = page.evaluate("""() => { const t = document.querySelector('#banner-text');
                const b = document.querySelector('#banner').getBoundingClientRect();
                // (4 px: a bold glyph reaching past a line height of 1.1)
                return {cut: t.scrollWidth > t.clientWidth + 1 || t.scrollHeight > t.clientHeight + 4,
                        px: parseFloat(getComputedStyle(t).fontSize), bottom: b.bottom}; }""")
            assert not shown["cut"] and shown["px"] >= least, (name, width, shown)
            if width < 600:
                assert shown["bottom"] <= 120, (name, shown)
        page.set_viewport_size({"width": 390, "height": 844})
        if len(seen) == len(names):
            break
    assert seen == names or sorted(seen) == sorted(names), seen
    assert not page.errors, page.errors
    page.close()


def test_pause_stops_a_clock_across_a_reload(browser: Any, serve: Serve) -> None:
    table = started_table()
    assert table.game.current_player(table.state) is not None
    url = serve(table)
    page = open_page(browser, url)
    unlock(page, url)
    page.wait_for_timeout(1200)
    page.click("#pause")
    page.wait_for_selector('body[data-paused="1"]', timeout=HANG_MS)
    assert table.paused and page.inner_text("#pause") == "Resume clocks"
    assert [e.kind for e in table.log.events(table.record.id)][-1] == "clock"
    shown = page.inner_text("#players li.turn .clock")
    page.reload()
    page.wait_for_selector('body[data-paused="1"]', timeout=HANG_MS)
    page.wait_for_timeout(2200)
    assert page.inner_text("#players li.turn .clock") == shown
    assert "Paused" in page.inner_text("#turn-clock")
    page.click("#pause")  # resume: the clock runs on from where it stopped
    page.wait_for_selector('body[data-paused="0"]', timeout=HANG_MS)
    page.wait_for_timeout(2200)
    assert page.inner_text("#players li.turn .clock") != shown
    page.close()


def test_time_up_arrives_live_on_the_open_page(browser: Any, serve: Serve) -> None:
    table = started_table(options=TableOptions(turn_limit=3.0))
    table.watch_clocks(0.1)
    url = serve(table)
    page = open_page(browser, url)
    page.evaluate("window.openedOnce = true")  # gone if the page were reloaded
    page.wait_for_selector("#banner.time-up", timeout=HANG_MS)
    assert page.evaluate("window.openedOnce === true")  # no reload: pushed by the table
    assert "Time is up" in page.inner_text("#prompts")
    assert "Time is up" in page.inner_text("#turn-clock")
    page.close()


def test_a_state_that_changes_neither_list_leaves_its_buttons_in_place(browser: Any, serve: Serve) -> None:
    """Every state the table publishes (a card tapped, a camera notice) redrew the history and
    the prompts: a tap that landed as they were replaced reached no button (stop 110's CI: a
    history entry tapped as a correction's update came in), and a prompt opened with "More"
    closed again.  A list is drawn again only when what it shows changed."""
    table = started_table(actions=2)
    table.notice("vision", Prompt("Can't see Tiki 4 clearly (something over it: a hand, a shadow?). Lift it, "
                                  "or move the lamp or what casts it; or say what the table shows there.",
                                  "warning"))
    url = serve(table)
    page = open_page(browser, url)
    unlock(page, url)
    page.click("#prompts li.warning button.more")
    page.evaluate("() => { for (const e of document.querySelectorAll('#history button, #prompts li')) "
                  "e.dataset.drawnBefore = '1'; }")
    table.tap(table.game.card_ids()[0], 0)  # the taps change: neither the history nor the prompts
    page.wait_for_selector("#taps [data-forget-tap]", timeout=HANG_MS)
    kept = page.evaluate("() => [...document.querySelectorAll('#history button.entry, #prompts li')]"
                         ".map((e) => e.dataset.drawnBefore === '1')")
    assert kept and all(kept), kept
    assert "open" in page.get_attribute("#prompts li.warning", "class")
    table.declare(table.game.legal_actions(table.state)[0], "camera")  # a move: the history is new
    page.wait_for_function("n => document.querySelectorAll('#history button.entry').length === n",
                           arg=3, timeout=HANG_MS)
    assert page.evaluate("() => !document.querySelector('#history button.entry').dataset.drawnBefore")
    assert not page.errors
    page.close()


def test_a_card_tapped_arrives_live_and_is_taken_back_by_a_tap(browser: Any, serve: Serve) -> None:
    """Players see the cards their readers took for this move, by name, and take back one
    that belongs to no move (tapped twice, or for a move the table refused)."""
    table = started_table(actions=1)
    url = serve(table)
    page = open_page(browser, url)
    unlock(page, url)
    assert page.is_hidden("#taps")
    first, second = table.game.card_ids()[:2]
    table.tap(first, 0)
    table.tap(second, 0)
    page.wait_for_selector(f'#taps [data-forget-tap="{second}"]', timeout=HANG_MS)
    assert table.game.card_name(first) in page.inner_text("#taps")
    page.click(f'#taps [data-forget-tap="{first}"]')
    page.wait_for_function(f"() => !document.querySelector('#taps [data-forget-tap=\"{first}\"]')",
                           timeout=HANG_MS)
    assert [t.card for t in table.taps] == [second]
    assert not page.errors
    page.close()


def undo_sheet(browser: Any, serve: Serve, actions: int) -> tuple[Table, Any, str, Any]:
    """A started table's dashboard, its newest move opened and "Undo this move…" tapped:
    the table, the page, its URL and that move."""
    table = started_table(actions=actions)
    url = serve(table)
    page = open_page(browser, url)
    unlock(page, url)
    newest = table.history[-1]
    page.click(f'#history [data-entry="{newest.seq}"]')
    assert newest.text in page.inner_text("#sheet")
    page.click(f'[data-undo="{newest.seq}"]')
    return table, page, url, newest


def test_a_double_tap_undoes_once(browser: Any, serve: Serve) -> None:
    table, page, url, newest = undo_sheet(browser, serve, actions=3)
    page.dblclick(f'[data-confirm-undo="{newest.seq}"]')
    page.wait_for_selector(f'#history li.undone[data-seq="{newest.seq}"]', timeout=HANG_MS)
    page.wait_for_timeout(500)
    assert [h.undone for h in table.history] == [False, False, True]
    # and a double tap on a declaration's confirm records it once
    before = len(table.history)
    tablet = BrowserTablet(url, PIN, page)
    tablet.sync()
    page.locator("#form [data-type]").first.click()
    while page.get_attribute("#form", "data-step") != "confirm":
        page.locator("#form [data-field], #form [data-action]").first.click()
    page.dblclick("#form [data-confirm]")
    page.wait_for_function("() => document.body.dataset.lastStatus === '200'", timeout=HANG_MS)
    page.wait_for_timeout(500)
    assert len(table.history) == before + 1
    page.close()


def test_an_undo_confirmed_after_another_move_came_takes_back_nothing(browser: Any,
                                                                        serve: Serve) -> None:
    """The camera records a move while the "Undo this move?" sheet is open: confirming
    must not take back that newer move, which the player never saw; the sheet says why."""
    table, page, _, seen = undo_sheet(browser, serve, actions=2)
    table.declare(table.game.legal_actions(table.state)[0], "camera")
    page.click(f'[data-confirm-undo="{seen.seq}"]')
    page.wait_for_function("() => document.querySelector('#sheet-result').textContent !== ''",
                           timeout=HANG_MS)
    number = [h.seq for h in table.history].index(seen.seq) + 1  # as the history numbers it
    assert f"move {number} can no longer be undone" in page.inner_text("#sheet-result")
    assert not any(h.undone for h in table.history)
    assert not page.errors
    page.close()


def test_an_entry_is_replaced_with_the_same_form(browser: Any, serve: Serve) -> None:
    table = started_table(actions=1)
    options = table.game.legal_actions(table.state)
    table.declare(options[0], "camera")
    url = serve(table)
    page = open_page(browser, url)
    unlock(page, url)
    wrong = table.history[-1]
    page.click(f'#history [data-entry="{wrong.seq}"]')
    page.click(f'[data-replace="{wrong.seq}"]')
    page.wait_for_selector("[data-cancel-replace]", timeout=HANG_MS)
    assert page.text_content("#declare-title").startswith("Replace move")
    status, _ = BrowserTablet(url, PIN, page).declare(options[-1])
    assert status == 200
    effective = [h.action for h in table.history if not h.undone]
    assert effective[-1] == options[-1] and len(effective) == 2 and wrong.undone
    page.wait_for_function("() => document.querySelector('#declare-title').textContent === 'Declare'")
    page.close()


def test_a_nightclub_misread_moves_ago_is_corrected_by_a_tap_and_the_moves_since_stand(
        browser: Any, serve: Serve) -> None:
    """King of Clubs: the camera recorded a Nightclub's 2 as a 3 and both sides placed since.
    The tablet asks by name and one tap on its option corrects it; replacing an earlier
    move from the history works the same way, the moves since kept."""
    table = Table.open("king_of_clubs", None, 2, "basic", 0, resume=False)
    game = table.game
    true_clubs = {"type": "nightclubs", "values": [2, 4, 7, 2]}
    truth = game.apply(table.state, true_clubs)
    table.board_seen(game.board_view(game.apply(table.state, {"type": "nightclubs",
                                                               "values": [2, 4, 7, 3]})))
    for player in (0, 1):
        truth = game.apply(truth, {"type": "place", "player": player})
        table.board_seen(game.board_view(truth))
    assert table.table_prompt is not None and table.table_prompt.options
    url = serve(table)
    page = open_page(browser, url)
    unlock(page, url)
    # the camera's reading first, then the other values the rules allow, then "the record is right"
    options = page.locator("#prompts button[data-option]")
    texts = options.all_inner_texts()
    # named in the words of the history (the table's own), not the forms' field names
    assert texts[0] == "Correct #1: Night 1: Nightclubs 2, 4, 7, 2 (Solo 4, Solo 7, Couples 2+2)" \
        and not any("{" in t for t in texts)
    assert texts[-1].startswith("The record is right")
    options.first.click()
    page.wait_for_function("() => document.querySelector('#action-result').textContent"
                           ".startsWith('Recorded')", timeout=HANG_MS)
    assert table.state == truth
    placed = [h for h in table.history if not h.undone][1:]
    assert [h.action["type"] for h in placed] == ["place", "place"]

    # the history: the players replace the Nightclubs move (now 2 moves back) by its form
    clubs = next(h for h in table.history if not h.undone)
    # (the history is drawn again when the correction's update arrives: a tap that lands
    # as it is redrawn reaches no button, so the page is let catch up first)
    BrowserTablet(url, PIN, page).sync()
    page.click(f'#history [data-entry="{clubs.seq}"]')
    page.wait_for_selector(f'[data-replace="{clubs.seq}"]', timeout=HANG_MS)
    assert "Only the newest move can be undone" in page.inner_text("#sheet")
    page.click(f'[data-replace="{clubs.seq}"]')
    page.wait_for_selector("[data-cancel-replace]", timeout=HANG_MS)
    again = {"type": "nightclubs", "values": [2, 4, 7, 4]}
    status, _ = BrowserTablet(url, PIN, page).declare(again)
    assert status == 200
    standing = [h.action for h in table.history if not h.undone]
    assert standing[0]["type"] == "nightclubs" and standing[0] != true_clubs
    assert sorted(standing[0]["values"]) == sorted(again["values"])  # (the form's own order)
    assert standing[1:] == [{"type": "place", "player": 0}, {"type": "place", "player": 1}]
    assert not page.errors
    page.close()


def test_two_moves_nobody_made_are_undone_by_one_tap_named_as_the_prompt_names_them(
        browser: Any, serve: Serve) -> None:
    """Baron Voodoo seed 12 (cafe, passive): a die knocked and put back was recorded as two
    moves.  The warning names both entries by their numbers in the history; the one button
    says "Undo #N and #M" with the same numbers (not the log's sequence numbers), and one tap
    takes back both.  The standing "score pieces differ" warning raised when the table
    changed, and the press's warning with the same words, are one card, not two."""
    from test_wedges_baron_swing import two_moves_nobody_made

    table, first, second, before, truth = two_moves_nobody_made()
    game = table.game
    table.board_seen(game.board_view(truth))
    table.button()
    url = serve(table)
    page = open_page(browser, url)
    unlock(page, url)
    prompt = page.inner_text("#prompts")
    both = page.locator("#prompts button[data-option*='\"through\"']")
    assert both.count() == 1
    label = both.inner_text()
    numbers = re.fullmatch(r"Undo #(\d+) and #(\d+)", label)
    assert numbers is not None, label
    older, newer = (int(n) for n in numbers.groups())
    assert newer == older + 1 and f"Entry #{older} (" in prompt and f"entry #{newer} (" in prompt, prompt
    both.click()
    page.wait_for_function("() => document.querySelector('#action-result').textContent"
                           ".startsWith('Recorded')", timeout=HANG_MS)
    assert [h.seq for h in table.history if h.undone][-2:] == [first.seq, second.seq]
    assert game.board_view(table.state) == game.board_view(before)
    assert not page.errors
    page.close()


def test_on_a_phone_a_warning_comes_before_the_players_and_goes_back_below_once_answered(
        browser: Any, serve: Serve) -> None:
    """A phone shows one column: the players first while nothing is asked, but a warning
    waiting on the players (here two moves nobody made) is drawn above them, so that it is
    read without scrolling; once answered, the players are first again."""
    from test_wedges_baron_swing import two_moves_nobody_made

    table, first, second, before, truth = two_moves_nobody_made()
    table.board_seen(table.game.board_view(truth))
    table.button()
    url = serve(table)
    page = open_page(browser, url, 390, 844)
    unlock(page, url)
    top = "(id) => document.getElementById(id).getBoundingClientRect().top"
    assert page.locator("#prompts li.warning").count() >= 1
    assert page.evaluate(top, "declare-panel") < page.evaluate(top, "players-panel")
    assert page.evaluate(top, "declare-panel") < 844 - 100  # above the fold
    page.locator("#prompts button[data-option*='\"through\"']").click()
    page.wait_for_function("() => !document.querySelector('#prompts li.warning')", timeout=HANG_MS)
    assert page.evaluate(top, "players-panel") < page.evaluate(top, "declare-panel")
    check_size(page, "phone, answered")
    assert not page.errors
    page.close()


def test_a_correction_naming_a_card_already_played_says_the_cards_name(browser: Any, serve: Serve) -> None:
    """Swing State seed 9 (cafe, typical): a Black Wild laid on the wrong seat's reader, then
    on its owner's.  The correction offered names the card as the history does ("Electors'
    slate"), not by its id: the forms no longer offer a card already played; the cards tapped
    are listed by their titles too."""
    from test_disagreements import swing_answering_with_wilds

    table = swing_answering_with_wilds()
    table.tap("cheat-k01", seat=1)
    wrong = table.history[-1]
    table.tap("cheat-k01", seat=2)
    url = serve(table)
    page = open_page(browser, url)
    unlock(page, url)
    fix = page.locator("#prompts button[data-option*='\"correct\"']")
    assert fix.count() == 1
    number = table.ledger.move_number(wrong.seq)
    assert re.fullmatch(rf"Correct #{number}: \w+ plays Electors' slate \(black, wild, protects itself\)",
                        fix.inner_text()), fix.inner_text()
    shown = page.inner_text("body")  # the card tapped is listed by its title too, never its id
    assert "cheat-k01" not in shown and "Cheat k01" not in shown and "Electors' slate \u2715" in shown
    fix.click()
    page.wait_for_function("() => document.querySelector('#action-result').textContent"
                           ".startsWith('Recorded')", timeout=HANG_MS)
    assert [h.action for h in table.history if not h.undone][-1]["player"] == 2
    assert not page.errors
    page.close()


def test_camera_view_and_what_it_sees_differently(browser: Any, serve: Serve) -> None:
    table = started_table()
    url = serve(table)
    page = open_page(browser, url)
    assert page.get_attribute("#board", "data-mismatches") == "0"
    view = dict(table.game.board_view(table.state))
    spot = sorted(view)[0]
    del view[spot]  # the camera no longer sees what stands on one spot
    with table._lock:
        table.seen = view
        table._publish("board")
    page.wait_for_selector(f'#board rect.mismatch[data-spot="{spot}"]', timeout=HANG_MS)
    assert page.is_visible("#mismatch-note")
    page.click("#camera-open")  # no camera on this table: said in words, not an error page
    page.wait_for_selector("#sheet >> text=No camera picture", timeout=HANG_MS)
    page.click("#sheet-close")
    page.click("#join-open")
    page.wait_for_selector("#sheet .qr svg", timeout=HANG_MS)
    shown = page.inner_text("#sheet .address")
    assert shown.startswith("http://") and shown.endswith(f":{url.rsplit(':', 1)[1]}/")
    page.close()


def test_a_place_tapped_on_the_board_is_named_in_large_type(browser: Any, serve: Serve) -> None:
    """Board labels on a dense board are small; a tap names the place and what lies there in
    the game's words, large enough to read across the table, and says what the camera sees
    when that differs."""
    table = started_table()
    url = serve(table)
    page = open_page(browser, url, 390, 844)
    assert page.is_hidden("#board")  # a phone leaves the board out until asked for it
    page.click("#board-toggle")
    page.click('[data-zoom="3"]')  # three times the screen's width, scrolled in its frame
    width = page.evaluate("document.querySelector('#board').getBoundingClientRect().width")
    assert width > 2.5 * 360 and page.evaluate("document.documentElement.scrollWidth") <= 390
    view = dict(table.game.board_view(table.state))
    labels = {s.id: s.label for s in table.game.layout(table.state).spots}
    spot = next(x for x in sorted(view) if labels[x])
    label = labels[spot]
    page.locator(f'#board rect[data-spot="{spot}"]').click(force=True)
    caption = page.inner_text("#spot-caption")
    words = table.game.layout(table.state).pieces[view[spot][0].colour].split(" (")[0]
    assert caption.startswith(f"{label}: ") and words in caption, caption
    size = "parseFloat(getComputedStyle(document.querySelector('#spot-caption')).fontSize)"
    assert float(page.evaluate(size)) >= 24
    del view[spot]  # the camera stops seeing it: the caption follows live and says so
    with table._lock:
        table.seen = view
        table._publish("board")
    page.wait_for_function("() => document.querySelector('#spot-caption').textContent"
                           ".includes('camera sees')", timeout=HANG_MS)
    assert page.inner_text("#spot-caption").endswith("the camera sees empty")
    page.close()


def test_a_delta_arriving_while_a_state_waits_for_its_frame_draws_once(browser: Any,
                                                                       serve: Serve) -> None:
    """A full state is drawn on the next animation frame; a delta that comes first draws it
    at once, and the frame then finds nothing left to draw (it drew null and threw before)."""
    page = open_page(browser, serve(started_table()))
    page.evaluate("""() => new Promise((done) => {
        scheduleRender(latest);
        applyDelta({base: -1, rev: 0});  // not our revision: drawn, then the full state fetched
        requestAnimationFrame(() => requestAnimationFrame(done));
    })""")
    page.wait_for_timeout(300)
    assert not page.errors, page.errors
    page.close()


def test_set_up_resume_and_archive_by_taps(browser: Any, serve: Serve, tmp_path: Path) -> None:
    table = Table.open("times_square", tmp_path, 2, None, 5, resume=False)
    world = load_world("times_square", table.game, 2, None, 5)
    refusals: list[str] = []
    from companion.sim.headless import deliver
    for event in world.start():
        deliver(table, event, refusals)
    while not world.finished():
        for event in world.step(table.public()):
            deliver(table, event, refusals)
    finished_id = table.record.id
    url = serve(table)
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(f"{url}/setup")
    page.wait_for_selector("body[data-ready='1']", timeout=HANG_MS)
    page.click('[data-game="king_of_clubs"]')
    assert "on" in page.get_attribute('[data-variant="basic"]', "class")  # the first, preselected
    page.click('[data-players="2"]')
    page.fill('[data-seat="0"] input', "Ann")
    page.click('[data-seat="1"] [data-readers="3"]')
    # house rules: each with the rulebook's sentence, the default preselected, one tap to change
    rule = load_game("king_of_clubs").house_rules[0]
    card = f'[data-rule="{rule.id}"]'
    assert rule.sentence[:40] in page.inner_text(card)
    assert "on" in page.get_attribute(f'{card} [data-choice="{rule.default}"]', "class")
    other = next(v for v in rule.choices if v != rule.default)
    page.click(f'{card} [data-choice="{other}"]')
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / "setup-house-rules-390x844.png"), full_page=True)
    page.click("#start")
    assert BrowserTablet(url, PIN, page).enter_pin() == "accepted"
    page.wait_for_url(f"{url}/", timeout=HANG_MS)
    page.wait_for_selector("#live.pill:not(.off)", timeout=HANG_MS)
    assert page.inner_text("#title") == load_game("king_of_clubs").title
    page.wait_for_function("() => document.querySelector('#players .name')?.textContent === 'Ann'")
    record = table.log.game(table.log.games()[0].id)
    assert record.name == "king_of_clubs" and record.options["seats"]["readers"]["3"] == 1
    assert record.options["house_rules"][rule.id] == other  # logged with the game
    # the archive: the finished game's chart and breakdown, its exports one tap away
    page.goto(f"{url}/setup")
    page.wait_for_selector("body[data-ready='1']", timeout=HANG_MS)
    page.click(f'[data-archive="{finished_id}"]')
    page.wait_for_selector("#chart canvas", timeout=HANG_MS)
    assert "Final scores" in page.inner_text("#breakdown")
    assert page.get_attribute(f'#finished [data-game-id="{finished_id}"] [data-export="csv"]', "href") \
        == f"/api/archive/{finished_id}.csv"
    width = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert width[0] <= width[1]
    assert '{"' not in page.inner_text("body")
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / "setup-390x844.png"), full_page=True)
    page.close()


def test_deltas_apply_on_their_revision_and_refetch_otherwise(browser: Any, serve: Serve) -> None:
    """The page applies a delta on top of the revision it names, else fetches /api/state."""
    table = started_table()
    url = serve(table)
    page = open_page(browser, url)
    names = [p["name"] for p in table.public()["players"]]
    entry = {"seq": 999, "text": "A move from a delta", "action": {"type": "x"}, "source": "camera",
             "at": time.time(), "undone": False}
    page.evaluate("""([entry, names]) => { latest.rev = 5; return applyDelta({rev: 6, base: 5,
        set: {players: names.map((n, i) => ({seat: i, name: n, score: 40 + i, clock_s: 0,
                                             colour: '#123456'}))},
        history: {add: [entry], undone: [latest.history[0].seq]}}); }""", [entry, names])
    assert page.inner_text("#players li:first-child .score") == "40"
    assert "A move from a delta" in page.inner_text("#history")
    assert page.locator("#history li.undone").count() == 1
    assert page.evaluate("latest.rev") == 6
    page.evaluate("applyDelta({rev: 9, base: 8, set: {}})")  # not our revision: the full state again
    page.wait_for_function("() => !document.querySelector('#history').textContent.includes('from a delta')")
    score = table.public()["players"][0]["score"]
    assert float(page.inner_text("#players li:first-child .score")) == score
    page.close()


def test_several_cards_discarded_by_toggling_them(browser: Any, serve: Serve) -> None:
    """A list field ("discard any number of cards") is tapped item by item, then Done."""
    from companion.sim.headless import deliver

    table = Table.open("jivecat", None, 2, None, 1, resume=False)
    world = load_world("jivecat", load_game("jivecat"), 2, None, 1)
    refusals: list[str] = []
    for event in world.start():
        deliver(table, event, refusals)
    for _ in range(40):
        player = table.state["turn"]
        offered = [a for a in table.game.legal_actions(table.state)
                   if a["type"] == "end_turn" and a.get("discard")]
        if offered and table.state["hand"][player] >= 2:
            break
        for event in world.step(table.public()):
            deliver(table, event, refusals)
    else:
        pytest.fail("no turn with two cards to discard in 40 steps")
    cards = [offered[0]["discard"][0], offered[1]["discard"][0]]
    hand = table.state["hand"][player]
    url = serve(table)
    page = open_page(browser, url)
    unlock(page, url)
    tablet = BrowserTablet(url, PIN, page)
    wanted = {"type": "end_turn", "player": player, "discard": cards}
    shown: list[str] = []
    tablet.before_confirm = lambda p: shown.append(p.inner_text("#form .confirm-text"))
    status, body = tablet.declare(wanted)
    assert status == 200, body
    newest = table.history[-1].action
    assert newest["type"] == "end_turn" and sorted(newest["discard"]) == sorted(cards)
    assert "discarding 2" in table.history[-1].text
    names = [table.game.value_label(table.state, "end_turn", "discard", c) for c in cards]
    assert all(n in shown[0] for n in names), shown
    # type, two cards (each after its group: the deck is long), Done, Confirm
    assert 5 <= tablet.declarations[-1].taps <= 8, tablet.declarations[-1]
    assert max(tablet.declarations[-1].options) <= 8  # no step offers more than 8
    assert hand >= 2 and not tablet.unreachable and refusals == []
    page.close()


def test_a_companion_gone_quiet_greys_the_page_and_it_comes_back_by_itself(browser: Any) -> None:
    """The companion stops answering: within the page's own bound (a ping a second, answered
    within 1.2 s: under 3 s) the page greys, says what to check, the clocks stop and a tap
    is refused at the button pressed; a companion answering again on the same address
    brings the page back without a reload."""
    table = started_table()
    ref = TableRef(table)
    srv = DashboardServer(ref, create_app(ref, PIN, {"KEEPALIVE_S": 1.0}), "127.0.0.1", 0).start()
    assert srv.wait_started(10)
    port = srv.port
    url = f"http://127.0.0.1:{port}"
    again = None
    try:
        page = open_page(browser, url)
        unlock(page, url)
        assert page.evaluate("PING_EVERY_MS + PING_TIMEOUT_MS") < 3000
        page.evaluate("window.openedOnce = true")
        srv.close()
        started = time.monotonic()
        page.wait_for_selector("body.away", timeout=HANG_MS)  # (a hang guard, not the bound)
        print(f"\nthe page greyed {time.monotonic() - started:.1f} s after the companion closed")
        assert "not answering" in page.inner_text("#away") and "Wi-Fi" in page.inner_text("#away")
        shown = page.inner_text("#players li.turn .clock"), page.inner_text("#turn-clock")
        page.wait_for_timeout(1600)
        assert (page.inner_text("#players li.turn .clock"), page.inner_text("#turn-clock")) == shown
        button = page.locator("#form [data-type]").first
        button.click()
        said = page.locator(".said-here")
        assert said.inner_text().startswith("Not sent: the companion is not answering")
        below = page.evaluate("""() => {
            const b = document.querySelector('#form [data-type]').getBoundingClientRect();
            const s = document.querySelector('.said-here').getBoundingClientRect();
            return Math.abs(s.top - b.bottom) < 20; }""")
        assert below  # said where the finger is, not in another panel
        assert page.get_attribute("#form", "data-step") == "types"  # nothing was started
        again = DashboardServer(ref, create_app(ref, PIN, {"KEEPALIVE_S": 1.0}), "127.0.0.1", port).start()
        assert again.wait_started(10)
        page.wait_for_selector("body:not(.away)", timeout=HANG_MS)
        page.wait_for_selector("#live.pill:not(.off)", timeout=HANG_MS)
        assert page.is_hidden("#away") and page.evaluate("window.openedOnce === true")
        assert not page.errors, page.errors
        page.close()
    finally:
        srv.close()
        if again is not None:
            again.close()
        table.close()


def test_set_up_switches_games_only_to_what_this_table_can_play(browser: Any, tmp_path: Path) -> None:
    """A table calibrated for Jivecat at 4: choosing King of Clubs says what to do and Start
    waits; Jivecat at 4 starts and the dashboard follows."""
    from types import SimpleNamespace

    from companion.profile import board_map_json
    from companion.web.setup import TableSwitch

    jivecat = load_game("jivecat")
    board = tmp_path / "board.json"
    board.write_text(json.dumps(board_map_json("jivecat", jivecat.layout(jivecat.start(4, None, 0)), {})))
    table = Table.open("times_square", None, 2, None, 0, resume=False)
    ref = TableRef(table)
    switch = TableSwitch(ref)
    switch.config = SimpleNamespace(board=board)  # as the service's switcher carries its profile
    srv = DashboardServer(ref, create_app(ref, PIN, {"KEEPALIVE_S": 1.0}, switcher=switch),
                          "127.0.0.1", 0).start()
    assert srv.wait_started(10)
    url = f"http://127.0.0.1:{srv.port}"
    try:
        page = browser.new_page(viewport={"width": 820, "height": 1180})
        page.goto(f"{url}/setup")
        page.wait_for_selector("body[data-ready='1']", timeout=HANG_MS)
        page.click('[data-game="king_of_clubs"]')
        note = page.inner_text("#blocked-note")
        assert note.startswith("This table is calibrated for Swinging Jivecat Voodoo Lounge at") \
            and "King of Clubs sheet" in note and "companion calibrate board" in note, note
        assert page.is_disabled("#start")
        shot(page, "setup-switching-blocked-820x1180.png")
        page.click('[data-game="jivecat"]')
        page.click('[data-players="4"]')
        assert page.is_hidden("#blocked-note") and not page.is_disabled("#start")
        shot(page, "setup-switching-ok-820x1180.png")
        page.click("#start")
        assert BrowserTablet(url, PIN, page).enter_pin() == "accepted"
        page.wait_for_url(f"{url}/", timeout=HANG_MS)
        page.wait_for_function("t => document.querySelector('#title').textContent === t",
                               arg=jivecat.title, timeout=HANG_MS)
        assert ref.current.record.name == "jivecat" and ref.current.record.players == 4
        page.close()
    finally:
        srv.close()
        ref.current.close()


def test_the_record_is_right_is_a_line_of_the_history_with_nothing_to_undo(
        browser: Any, serve: Serve) -> None:
    """Swing State: a pawn knocked onto the next space and the button pressed.  One tap on
    "The record is right" logs a line the history shows in words; its sheet offers no undo
    or replace, and the Undo button takes back the move before it, never the line."""
    table = Table.open("swing_state", None, 3, None, 0, resume=False)
    game = table.game
    rolled = game.apply(table.state, {"type": "roll", "player": 0, "value": 4})
    table.board_seen(game.board_view(rolled))
    knocked = dict(game.board_view(rolled))
    start = knocked["r1-00"]
    knocked["r1-00"], knocked["r1-01"] = start[1:], start[:1]
    table.board_seen(knocked)
    table.button()
    url = serve(table)
    page = open_page(browser, url)
    unlock(page, url)
    keep = page.locator('#prompts button[data-option=\'{"type":"keep_record"}\']')
    assert keep.inner_text() == "The record is right: I'll set the table as it says"
    keep.click()
    page.wait_for_function("() => document.querySelector('#action-result').textContent"
                           ".startsWith('Recorded: The record is right')", timeout=HANG_MS)
    line = table.history[-1]
    assert line.kind == "keep_record" and table.state == rolled
    page.wait_for_selector(f'#history [data-entry="{line.seq}"]', timeout=HANG_MS)
    assert line.text in page.inner_text("#history")
    page.click(f'#history [data-entry="{line.seq}"]')
    assert "The record stood as it was" in page.inner_text("#sheet")
    assert page.locator(f'[data-undo="{line.seq}"], [data-replace="{line.seq}"]').count() == 0
    page.keyboard.press("Escape")
    page.click("#undo")
    roll = table.history[0]
    page.wait_for_selector(f'[data-confirm-undo="{roll.seq}"]', timeout=HANG_MS)
    assert not page.errors
    page.close()


def test_a_place_the_camera_cannot_read_is_answered_by_a_tap_on_what_it_shows(
        browser: Any, serve: Serve) -> None:
    """King of Clubs: two Nightclub dice under glare at the night's start, more readings than
    the tablet can show as moves.  The page asks what one place shows, a button each in the
    table's words; one tap says it, and the readings left come back as the night's moves."""
    from doubting_camera import nightclubs_under_glare

    from companion.table.doubt import DOUBT_FRAMES

    table, clubs, frames = nightclubs_under_glare()

    frames(DOUBT_FRAMES)
    url = serve(table)
    page = open_page(browser, url)
    unlock(page, url)
    options = page.locator("#prompts button[data-option]")
    page.wait_for_function("() => [...document.querySelectorAll('#prompts button[data-option]')]"
                           ".some(b => b.textContent === 'Nightclub 3 shows orange (2)')", timeout=HANG_MS)
    texts = options.all_inner_texts()
    assert all(t.startswith("Nightclub 3 shows ") for t in texts) and len(set(texts)) == len(texts), texts
    options.filter(has_text="Nightclub 3 shows orange (2)").first.click()
    page.wait_for_function("() => document.querySelector('#action-result').textContent"
                           ".startsWith('Recorded')", timeout=HANG_MS)
    frames(1)  # the place read as said: the readings left are few enough to offer as moves
    # the night's moves left, under one heading, each by its four dice
    page.wait_for_function("() => [...document.querySelectorAll('#prompts button[data-option]')]"
                           ".some(b => b.textContent === '6: 4: 2: 2')", timeout=HANG_MS)
    assert "Can't read Nightclub 4" in page.inner_text("#prompts")
    assert not table.history
    options.filter(has_text="6: 4: 2: 2").first.click()
    # (the result line still says "Recorded" from the tap before: the record itself is waited for)
    assert wait_until(lambda: [h.action for h in table.history if not h.undone] == [clubs], HANG_MS / 6000)
    page.wait_for_function("() => document.querySelector('#action-result').textContent"
                           ".startsWith('Recorded')", timeout=HANG_MS)
    assert not page.errors
    page.close()


def test_forms_a_lost_request_never_brought_are_asked_for_again(browser: Any, serve: Serve) -> None:
    """A tablet on a busy Wi-Fi: its first requests for the declare forms are lost while the
    table stands still, so no new state prompts another.  The page says so and asks again by
    itself (a second later, then less often); the forms arrive and the sentence goes; nothing
    is thrown on the page."""
    url = serve(started_table())
    page = browser.new_page(viewport={"width": 1024, "height": 768})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    lost: list[str] = []

    def lose_the_first_two(route: Any) -> None:
        if len(lost) < 2:
            lost.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    page.route(re.compile(r".*/api/forms(\?.*)?$"), lose_the_first_two)
    page.goto(url)
    page.wait_for_selector("#live.pill:not(.off)", timeout=HANG_MS)
    # said in the panel meanwhile, in a sentence, and gone once the forms are back
    page.wait_for_function("() => document.getElementById('action-result').textContent"
                           ".startsWith('What can be declared did not arrive')", timeout=HANG_MS)
    page.wait_for_function("() => document.body.dataset.formsKey !== undefined", timeout=HANG_MS)
    assert page.inner_text("#action-result") == ""
    assert len(lost) == 2
    assert page.locator("#form [data-type]").count() > 0
    assert not errors, errors
    page.close()
