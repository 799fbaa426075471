"""No two labels of a picture overlap and none is cut off, measured in Chromium from the SVG text boxes.

Checked at every tick of every chapter and of 50 of the 864 runs spread evenly over them: the space-time
diagram (its rows' names and its ticks) and the lifecycles. The served app's diagram is the renderer's
very SVG, and keeps the current tick's words in view at a desktop's and a phone's width.
"""

from __future__ import annotations

import pytest

from app.palette import css_variables
from app.render.diagram import diagram_html, diagram_svg
from app.render.lifecycles import lifecycle_svg
from app.state import PRESETS
from model import Switches, all_switches, run, trace_dict
from tests.browser.conftest import ARTIFACTS, FIND_DIAGRAM
from tests.conftest import ROOT

pytestmark = pytest.mark.browser

COMBINATIONS = list(all_switches())
SAMPLE = COMBINATIONS[:: len(COMBINATIONS) // 50][:50]
RUNS = [Switches(**values) for values in PRESETS.values()] + SAMPLE
CSS = css_variables() + (ROOT / "app" / "diagrams.css").read_text()

MEASURE = """() => {
  const found = [];
  for (const svg of document.querySelectorAll("svg")) {
    const frame = svg.getBoundingClientRect();  // screen pixels: the drawing as a reader sees it
    const boxes = [...svg.querySelectorAll("text")]
      // Bokeh's SVG output draws each text twice, filled and outlined; the outline adds no new box.
      .filter((t) => t.textContent.trim() && t.getAttribute("fill") !== "none")
      .map((t) => ({ text: t.textContent, box: t.getBoundingClientRect() }));
    for (const { text, box } of boxes) {
      const inside = box.left >= frame.left - 0.5 && box.top >= frame.top - 0.5
        && box.right <= frame.right + 0.5 && box.bottom <= frame.bottom + 0.5;
      if (!inside) found.push(`cut off: ${text}`);
    }
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i].box, b = boxes[j].box;
        const across = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const down = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (across > 0.5 && down > 0.5) found.push(`overlap: ${boxes[i].text} / ${boxes[j].text}`);
      }
    }
  }
  return found;
}"""


def show(page, svgs: str) -> list[str]:
    page.set_content(f"<!doctype html><html><head><style>{CSS}</style></head><body>{svgs}</body></html>")
    return page.evaluate(MEASURE)


@pytest.mark.parametrize("n", range(len(RUNS)), ids=lambda n: f"run{n}")
def test_no_label_of_the_diagram_or_lifecycles_overlaps_or_is_cut_off(page, n):
    trace = trace_dict(run(RUNS[n]))
    for frame in trace["ticks"]:
        tick = frame["tick"]
        assert show(page, diagram_svg(trace, tick)) == [], (RUNS[n], tick)
        assert show(page, "".join(lifecycle_svg(m, frame) for m in trace["machines"])) == [], tick


@pytest.mark.parametrize("width", [1280, 390], ids=["desktop", "phone"])
@pytest.mark.parametrize("preset", PRESETS)
def test_the_served_diagram_is_the_renderers_and_shows_the_current_tick(explainer, preset, width):
    """At the chapter's t8 and its last tick: the drawings the screen shows are the renderer's (the wide
    one on a desktop; on a phone the strip of every tick and the tick in full), and every word of them is
    inside the screen's width: nothing is scrolled out of sight sideways."""
    explainer.page.set_viewport_size({"width": width, "height": 1000})
    trace = trace_dict(run(Switches(**PRESETS[preset])))
    for tick in (8, trace["end_tick"]):
        explainer.open(f"?preset={preset}&tick={tick}")
        explainer.wait_tick(tick)
        explainer.page.evaluate(FIND_DIAGRAM)
        served = explainer.page.evaluate("window.__diagrams.map((svg) => svg.outerHTML)")
        drawn = explainer.page.evaluate(
            """(html) => { const box = document.createElement("div"); box.innerHTML = html;
                           const drawings = box.querySelectorAll('svg.diagram[role="img"]');
                           return [...drawings].map((s) => s.outerHTML); }""",
            diagram_html(trace, tick),
        )
        # The renderer's first drawing is the wide one, then the narrow screen's two.
        assert served == (drawn[:1] if width >= 1280 else drawn[1:]), (preset, tick, width, len(served))
        unseen = explainer.page.evaluate(
            """() => window.__diagrams.flatMap((svg) => [...svg.querySelectorAll("text")]
                 .filter((t) => { const b = t.getBoundingClientRect();
                                  return b.width > 0 && (b.left < -0.5 || b.right > innerWidth + 0.5); })
                 .map((t) => t.textContent))"""
        )
        assert unseen == [], (preset, tick, width)
        if width < 1280:
            ARTIFACTS.mkdir(exist_ok=True)
            explainer.page.screenshot(path=ARTIFACTS / f"phone-{preset}-t{tick}.png", full_page=True)


@pytest.mark.parametrize("preset", PRESETS)
def test_the_first_screen_at_1280_by_800_tells_the_story(explainer, preset):
    """Without scrolling: the chapters, the player, every badge and, at t8, the whole diagram (every row;
    at the last tick, the rows down to the journal's)."""
    page = explainer.page
    page.set_viewport_size({"width": 1280, "height": 800})
    trace = trace_dict(run(Switches(**PRESETS[preset])))
    for tick in (8, trace["end_tick"]):
        explainer.open(f"?preset={preset}&tick={tick}")
        explainer.wait_tick(tick)
        page.wait_for_timeout(400)
        page.evaluate(FIND_DIAGRAM)
        boxes = {
            "diagram": page.evaluate("(() => { const r = window.__diagram.getBoundingClientRect();"
                                     " return {x: r.x, y: r.y, width: r.width, height: r.height}; })()"),
            "badges": page.locator("ul.badges:visible").first.bounding_box(),
            "player": page.locator(".tick-now").bounding_box(),
            "chapters": page.locator("select.chapter-menu").bounding_box(),
        }  # fmt: skip
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=ARTIFACTS / f"chapter-{preset}-t{tick}-1280x800.png")
        if tick == trace["end_tick"]:
            # At the last tick every attempt has its row and the journal holds every step: the diagram
            # starts on the first screen and shows the rows down to the journal's; the rest may need a
            # short scroll (the journal's row and the switches' values made it taller: issue 29).
            journal = page.locator("svg.diagram-names tspan.lane", has_text="journal").first.bounding_box()
            box = boxes.pop("diagram")
            assert box["y"] >= 0 and journal["y"] + journal["height"] <= 800, (preset, tick, box, journal)
        for what, box in boxes.items():
            assert box["y"] >= 0 and box["y"] + box["height"] <= 800, (preset, tick, what, box)
