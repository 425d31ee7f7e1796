"""A player's tablet that makes every declaration by tapping the dashboard in a browser.

The simulated table does its physical part as ever; only a :class:`~companion.sim.world.Declare`
goes through the page: the tablet taps the action type, then the buttons the page offers
field by field (found by the data attributes the page sets: ``data-type``, ``data-field``
with ``data-value``, ``data-action``, ``data-confirm``; a list field toggles each item and
taps ``data-done``), and counts its taps.  An action the
page does not offer is not declared at all (a player cannot type it): it is reported as
unreachable.  Driven with Playwright's sync API on a page the caller opened.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion.games.base import Action
from companion.sim.headless import deliver as deliver_physically
from companion.sim.runner import Tablet
from companion.sim.world import Declare, World
from companion.table import Table


def same_value(wanted: Any, offered: Any) -> bool:
    """Equal, or the same items in another order (a swap of d2 and d0 is a swap of d0 and d2)."""
    if wanted == offered:
        return True
    if isinstance(wanted, list) and isinstance(offered, list) and len(wanted) == len(offered):
        key = lambda v: json.dumps(v, sort_keys=True)  # noqa: E731
        return sorted(map(key, wanted)) == sorted(map(key, offered))
    return False


MISSING = object()


def field_value(action: Action, name: str) -> Any:
    """The value the page's field ``name`` asks for: one part of a combination is named
    ``field.N`` (a Nightclub of the four, a player's Dancer)."""
    if name in action:
        return action[name]
    base, _, index = name.rpartition(".")
    if base in action and index.isdigit() and isinstance(action[base], list) \
            and int(index) < len(action[base]):
        return action[base][int(index)]
    return MISSING


def same_action(wanted: Action, offered: Action) -> bool:
    return set(wanted) == set(offered) and all(same_value(wanted[k], offered[k]) for k in wanted)


def state_key(public: dict[str, Any]) -> str:
    """The page's state key (see dashboard.js ``stateKey``): the newest effective entry."""
    effective = [h["seq"] for h in public["history"] if not h["undone"]]
    return str(max(effective) if effective else 0)


@dataclass
class Declaration:
    type: str
    taps: int
    status: int
    options: list[int] = field(default_factory=list)
    """How many options the page offered at each step of this declaration."""


OPTIONS = "#form [data-field], #form [data-action], #form [data-group]"
"""What a step offers to tap: values, whole actions, groups of values (a colour, a suit)."""


def count_options(page: Any) -> int:
    """The options the form's current step shows (visible ones only)."""
    return int(page.evaluate(f"""() => [...document.querySelectorAll({json.dumps(OPTIONS)})]
        .filter((e) => e.offsetParent !== null).length"""))


def survey_steps(page: Any, max_steps: int = 12) -> dict[str, list[int]]:
    """Every action type the form offers now, walked step by step taking the first option
    each time (a list field: its first item, then Done): the options shown at each step,
    by the type's label.  Ends on Back, so the form is as it was."""
    found: dict[str, list[int]] = {}
    sensed = page.locator('#form [data-sensed-open][aria-expanded="false"]')
    if sensed.count():
        sensed.click()
    types = page.locator("#form [data-type]")
    for i in range(types.count()):
        counts = [page.locator("#form [data-type]").count()]  # the first step: the types
        button = page.locator("#form [data-type]").nth(i)
        label = button.inner_text().strip()
        button.click()
        for _ in range(max_steps):
            step = page.get_attribute("#form", "data-step") or ""
            if step == "confirm" or not step:
                break
            counts.append(count_options(page))
            first = page.locator(OPTIONS).first
            if not first.count():
                break
            first.click()
            done = page.locator("#form [data-done]")
            if done.count() and (page.get_attribute("#form", "data-step") or "").startswith("field:") \
                    and not page.locator("#form [data-group]").count():
                if not done.is_disabled():
                    done.click()
        found[label] = counts
        back = page.locator("#form [data-back]")
        if back.count():
            back.first.click()
    return found


@dataclass
class BrowserTablet(Tablet):
    """:class:`Tablet` whose ``declare`` taps the page instead of POSTing JSON."""

    url: str
    pin: str
    page: Any = None
    timeout_ms: float = 30000
    declarations: list[Declaration] = field(default_factory=list)
    unreachable: list[Action] = field(default_factory=list)
    before_confirm: Callable[[Any], None] | None = None
    """Called with the page once, at the first confirmation (e.g. for a screenshot)."""

    # ------------------------------------------------------------------ joining
    def enter_pin(self, pin: str | None = None) -> str:
        """Tap the PIN on the page's pad (opened from Join); returns the pad's answer."""
        page = self.page
        if not page.locator("#pin-pad").count():
            page.click("#join-open")
            page.click("[data-pin-open]")
        for digit in pin or self.pin:
            page.click(f'#pin-pad [data-pin="{digit}"]')
        page.click('#pin-pad [data-pin="OK"]')
        page.wait_for_function(
            "() => !document.querySelector('#pin-pad') || "
            "document.querySelector('#pin-message').textContent !== ''", timeout=self.timeout_ms)
        if not page.locator("#pin-pad").count():
            return "accepted"
        return page.inner_text("#pin-message")

    # ------------------------------------------------------------------ declaring
    def sync(self) -> None:
        """Wait until the page shows the table's current state and the forms built for it."""
        key = state_key(self.state())
        self.page.wait_for_function(
            "k => document.body.dataset.stateKey === k && document.body.dataset.formsKey === k",
            arg=key, timeout=self.timeout_ms)

    def declare(self, action: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        page = self.page
        self.sync()
        if action.get("type") == "forget_taps":
            return self._forget_taps(action)
        taps = 0
        type_button = page.locator(f'#form [data-type="{action["type"]}"]')
        sensed = page.locator('#form [data-sensed-open][aria-expanded="false"]')
        if not type_button.count() and sensed.count():  # what the table reads itself: one tap away
            sensed.click()
            taps += 1
        if not type_button.count():
            return self._unreachable(action, "no such action type offered now")
        options = [page.locator("#form [data-type]").count()]
        type_button.first.click()
        taps += 1
        for _ in range(20):
            step = page.get_attribute("#form", "data-step") or ""
            if step != "confirm":
                options.append(count_options(page))
            if step == "confirm":
                if self.before_confirm is not None:
                    self.before_confirm(page)
                    self.before_confirm = None
                button = page.locator("#form [data-confirm]")
                request_id = button.get_attribute("data-request")
                button.click()
                taps += 1
                page.wait_for_function("r => document.body.dataset.lastRequest === r", arg=request_id,
                                       timeout=self.timeout_ms)
                status = int(page.evaluate("document.body.dataset.lastStatus"))
                self.declarations.append(Declaration(action["type"], taps, status, options))
                return status, {"error": page.inner_text("#action-result")}
            if step == "pick":
                chosen = None
                for button in page.locator("#form [data-action]").all():
                    if same_action(action, json.loads(button.get_attribute("data-action"))):
                        chosen = button
                        break
                if chosen is None:
                    return self._unreachable(action, "not among the actions offered")
                chosen.click()
                taps += 1
                continue
            if step.startswith("field:") and page.locator("#form [data-done]").count():
                name = step.split(":", 1)[1]  # a list built by toggling items, then Done
                for item in action.get(name) or []:
                    chosen, narrowing = self._value_button(name, item)
                    taps += narrowing
                    if chosen is None:
                        return self._unreachable(action, f"no button for {name} {item!r}")
                    chosen.click()
                    taps += 1
                done = page.locator("#form [data-done]")
                if done.is_disabled():
                    return self._unreachable(action, f"{name} cannot be left empty")
                done.click()
                taps += 1
                continue
            if step.startswith("field:"):
                name = step.split(":", 1)[1]
                wanted = field_value(action, name)
                if wanted is MISSING:
                    return self._unreachable(action, f"the page asks for {name}")
                chosen, narrowing = self._value_button(name, wanted)
                taps += narrowing
                if chosen is None:
                    return self._unreachable(action, f"no button for {name}")
                chosen.click()
                taps += 1
                continue
            page.wait_for_timeout(20)
        return self._unreachable(action, "the form never reached its confirmation")

    def _value_button(self, name: str, value: Any) -> tuple[Any, int]:
        """The button the page offers for ``value`` of field ``name`` (or None), and the taps
        it took to get there: a long list is narrowed by tapping the group that holds the
        value ("Zombie", "purple"), after "Other ..." when another group is open."""
        taps = 0
        for _ in range(6):
            for button in self.page.locator(f'#form [data-field="{name}"]').all():
                if same_value(value, json.loads(button.get_attribute("data-value"))):
                    return button, taps
            group = next((g for g in self.page.locator("#form [data-group]").all()
                          if any(same_value(value, v) for v in json.loads(g.get_attribute("data-values")))),
                         None)
            if group is not None:
                group.click()
                taps += 1
                continue
            back = self.page.locator(f'#form [data-groups-back="{name}"]')
            if not back.count():
                break
            back.click()
            taps += 1
        return None, taps

    def _forget_taps(self, action: Action) -> tuple[int, dict[str, Any]]:
        """Cards listed as tapped are taken back by a tap on each (or on the one named)."""
        page, card = self.page, action.get("card")
        wanted = '#taps [data-forget-tap]' if card is None else f'#taps [data-forget-tap="{card}"]'
        page.wait_for_function("() => document.querySelectorAll('#taps [data-forget-tap]').length"
                               f" === {len(self.state().get('taps') or [])}", timeout=self.timeout_ms)
        taps = 0
        while page.locator(wanted).count():
            left = page.locator(wanted).count()
            page.locator(wanted).first.click()
            taps += 1
            page.wait_for_function(f"() => document.querySelectorAll({json.dumps(wanted)}).length < {left}",
                                   timeout=self.timeout_ms)
        if not taps:
            return self._unreachable(action, "no card listed as tapped")
        self.declarations.append(Declaration("forget_taps", taps, 200))
        return 200, {}

    def _unreachable(self, action: Action, why: str) -> tuple[int, dict[str, Any]]:
        self.unreachable.append(action)
        back = self.page.locator("#form [data-back]")
        if back.count():
            back.first.click()
        return 0, {"error": f"cannot be tapped on the page: {why}"}

    def median_taps(self) -> float | None:
        done = [d.taps for d in self.declarations if d.status == 200]
        return statistics.median(done) if done else None


@dataclass
class PagePlayResult:
    tablet: dict[str, Any]
    truth: dict[str, Any]
    steps: int
    stalls: int
    refusals: list[str]


def play_through_page(table: Table, world: World, tablet: BrowserTablet, max_steps: int = 3000,
                      on_step: Callable[[int], None] | None = None) -> PagePlayResult:
    """One whole game: the table's physical part delivered as the headless runner does
    (the stabilised board, taps, buttons), every declaration tapped on the page.
    ``on_step(n)`` is called after each step (e.g. to photograph the game under way)."""
    refusals: list[str] = []

    def deliver(event: Any) -> None:
        if isinstance(event, Declare):
            status, body = tablet.declare(event.action)
            if status != 200:
                refusals.append(f"{event.action}: {status} {body.get('error')}")
        else:
            deliver_physically(table, event, refusals)

    for event in world.start():
        deliver(event)
    steps = stalls = 0
    while steps < max_steps and not world.finished():
        before = len(table.history)
        events = world.step(table.public())
        if not events:
            break
        for event in events:
            deliver(event)
        steps += 1
        if len(table.history) == before:
            stalls += 1
        if on_step is not None:
            on_step(steps)
    return PagePlayResult(table.public(), world.truth(), steps, stalls, refusals)
