"""No two labels of a picture overlap and none is cut off, measured in Chromium from the SVG text boxes.

Checked for every chapter and for 50 of the 864 runs spread evenly over them. The timeline is measured at
its last tick: a label, once drawn, stays, so the last tick holds every label any earlier tick shows (the
outline of the current tick draws no text). The lifecycles are measured at every tick.
"""

from __future__ import annotations

import pytest

from app.palette import css_variables
from app.render.lifecycles import lifecycle_svg
from app.render.timeline import timeline_svg
from app.state import PRESETS
from model import Switches, all_switches, run, trace_dict
from tests.browser.conftest import BOKEH_TIMELINE
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
def test_no_label_of_the_timeline_or_lifecycles_overlaps_or_is_cut_off(page, n):
    trace = trace_dict(run(RUNS[n]))
    assert show(page, timeline_svg(trace, trace["end_tick"])) == [], RUNS[n]
    for frame in trace["ticks"]:
        assert show(page, "".join(lifecycle_svg(m, frame) for m in trace["machines"])) == [], frame["tick"]


@pytest.mark.parametrize("width", [1280, 390], ids=["desktop", "phone"])
@pytest.mark.parametrize("preset", PRESETS)
def test_the_served_apps_timeline_labels_do_not_overlap(explainer, preset, width):
    """At the chapter's last tick, which holds every label any earlier tick shows; on a phone too, where
    the words under the marks give way when the ticks are too close for them."""
    explainer.page.set_viewport_size({"width": width, "height": 1000})
    end = run(Switches(**PRESETS[preset])).end_tick
    explainer.open(f"?preset={preset}&tick={end}")
    explainer.wait_tick(end)
    explainer.page.wait_for_timeout(800)
    explainer.page.evaluate(BOKEH_TIMELINE)
    assert explainer.page.evaluate("document.body.dataset.timelines") == "1"
    found = explainer.page.evaluate(
        MEASURE.replace('document.querySelectorAll("svg")', "[window.__timeline]")
    )
    assert found == [], preset
    if width >= 1280:  # on a desktop the words under the marks are there to read, not given way
        words = explainer.page.evaluate(
            "[...window.__timeline.querySelectorAll('text')].map(t => t.textContent)"
        )
        assert "admit #1" in words, words
