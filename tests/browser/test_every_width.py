"""The whole run at every width (issue 59), on the served page, as a reader steps through every tick of every
chapter: on a phone (390x844) the player and the strip of every tick on the first screen, the tick in full
starting there; in a 700 px figure every column in view, none scrolled away; at 1280x800 the axis and every
column on the first screen. Nothing in view moves sideways. Screenshots of the main chapter on a phone at
t0, t8 and t14 go to test-artifacts/."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from app.state import PRESETS
from model import Switches, run
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

# Where the diagram on show is, measured in the page (its parts may be in a component's shadow root).
MEASURE = """() => {
  const all = (selector) => {
    const found = [];
    const walk = (root) => {
      root.querySelectorAll(selector).forEach((e) => found.push(e));
      root.querySelectorAll("*").forEach((e) => e.shadowRoot && walk(e.shadowRoot));
    };
    walk(document);
    return found.filter((e) => e.getClientRects().length > 0).map((e) => e.getBoundingClientRect());
  };
  const box = (r) => r && { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
  return {
    ticks: all("svg.diagram text.tick").map(box),
    overview: box(all("svg.diagram-overview")[0]),
    detail: box(all("svg.diagram-detail")[0]),
    player: box(all(".player-row")[0]),
    scrolled: window.scrollX,
    wide: document.documentElement.scrollWidth,
  };
}"""


def step_through(page, url: str, end: int):
    """Every tick of the run at ``url``, by the keyboard: what is measured at each."""
    page.goto(url)
    page.locator(".tick-now").first.wait_for(timeout=60000)
    measured = []
    for tick in range(end + 1):
        if tick:
            page.keyboard.press("ArrowRight")
        expect(page.locator(".tick-now").first).to_have_text(f"t{tick}")
        # Two frames: frame.js fits the drawing to the screen in the frame after a paint.
        page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
        measured.append(page.evaluate(MEASURE))
    return measured


def ends() -> dict[str, int]:
    return {name: run(Switches.from_mapping(values)).end_tick for name, values in PRESETS.items()}


def test_on_a_phone_the_player_and_every_tick_are_on_the_first_screen(browser, explainer_url):
    """390x844: for every tick of every chapter the player and the strip of every tick (its axis naming
    the first and the last tick) are within the first screen, the tick in full starts on it, and nothing
    is scrolled or wider than the phone."""
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    for name, end in ends().items():
        for tick, seen in enumerate(step_through(page, f"{explainer_url}?preset={name}", end)):
            where = (name, tick)
            assert seen["player"]["bottom"] <= 844 and seen["overview"]["bottom"] <= 844, (where, seen)
            assert 0 <= seen["overview"]["left"] and seen["overview"]["right"] <= 390, (where, seen)
            assert seen["detail"]["top"] < 844, (where, seen)
            assert seen["scrolled"] == 0 and seen["wide"] <= 390, (where, seen)
            if name == "main" and tick in (0, 8, 14):
                page.screenshot(path=str(ARTIFACTS / f"phone-390x844-main-t{tick}.png"))
    page.close()


@pytest.mark.parametrize("view", ["", "&view=timeline"])
def test_a_700_px_figure_shows_every_column_of_every_chapter_at_every_tick(browser, explainer_url, view):
    page = browser.new_page(viewport={"width": 700, "height": 1100})
    for name, end in ends().items():
        url = f"{explainer_url}?embed=1&preset={name}{view}"
        for tick, seen in enumerate(step_through(page, url, end)):
            names = seen["ticks"]
            assert len(names) == end + 1, (name, tick, len(names))  # the wide drawing names every tick
            assert all(0 <= r["left"] and r["right"] <= 700 for r in names), (name, tick, names)
            assert seen["scrolled"] == 0 and seen["wide"] <= 700, (name, tick)
    page.close()


def test_at_1280x800_the_axis_and_every_column_are_on_the_first_screen(browser, explainer_url):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    for name, end in ends().items():
        for tick, seen in enumerate(step_through(page, f"{explainer_url}?preset={name}", end)):
            names = seen["ticks"]
            assert len(names) == end + 1 and max(r["bottom"] for r in names) <= 800, (name, tick, names)
            assert max(r["right"] for r in names) <= 1280 and seen["scrolled"] == 0, (name, tick)
    page.close()
