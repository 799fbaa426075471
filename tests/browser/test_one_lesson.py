"""One lesson per screen (issue 44), measured in Chromium on the served app and on the light page: how
many controls the first screen holds and that the lesson is on it, that a waiting tour question shows
nothing of later ticks, and that a key moment's mark is a finger's target on a phone. (What a switch
changed, a row under the pointer and stepping that moves nothing are measured on the page model in
tests/app/test_before_after.py and by test_switch_changes.py here.)"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.site.conftest import site, site_url  # noqa: F401  (the light page is the built site's)

pytestmark = pytest.mark.browser

#: The controls (buttons, links, menus, inputs, tabs, sliders, summaries) a reader can see on the first
#: screen, through Panel's shadow roots: their words, so a failure names them.
FIRST_SCREEN_CONTROLS = """() => {
  const seen = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll(
        "button, a[href], input, select, textarea, summary, [role=button], [role=tab], [role=slider]")) {
      const box = el.getBoundingClientRect(), style = getComputedStyle(el);
      if (box.width > 0 && box.height > 0 && box.top < innerHeight && box.bottom > 0
          && style.visibility !== "hidden" && !el.closest("[hidden], [aria-hidden=true]")) {
        const words = el.getAttribute("aria-label") || el.textContent || el.value || el.tagName;
        seen.push(words.trim().slice(0, 24));
      }
    }
    for (const el of root.querySelectorAll("*")) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(document);
  return seen;
}"""

#: The first element a selector finds, through Panel's shadow roots.
FIND = """(selector) => {
  const walk = (root) => {
    const found = root.querySelector(selector);
    if (found) return found;
    for (const el of root.querySelectorAll("*")) {
      const inner = el.shadowRoot && walk(el.shadowRoot);
      if (inner) return inner;
    }
    return null;
  };
  return walk(document);
}"""

#: Where a thing is (its box), through the shadow roots; null if there is none.
BOX = f"""(selector) => {{
  const el = ({FIND})(selector);
  if (!el) return null;
  const b = el.getBoundingClientRect();
  return {{ top: b.top, bottom: b.bottom, left: b.left, right: b.right, width: b.width, height: b.height }};
}}"""


class Served:
    name, budget = "served", 30

    def __init__(self, page, base_url):
        self.page, self.base_url = page, base_url

    def open(self, query: str) -> None:
        self.page.goto(self.base_url + query)
        self.page.locator(".tick-now").wait_for(timeout=60000)
        self.page.wait_for_timeout(800)

    def wait_tick(self, tick: int) -> None:
        expect(self.page.locator(".tick-now")).to_have_text(f"t{tick}", timeout=15000)


class Light(Served):
    name, budget = "light", 25

    def open(self, query: str) -> None:
        self.page.goto(f"{self.base_url}/index.html{query}")
        self.page.locator("#light:not(.pending) .tick-now").wait_for(timeout=60000)
        self.page.wait_for_timeout(300)


@pytest.fixture(params=["served", "light"])
def reader(request, page):
    page.set_default_timeout(20000)
    if request.param == "served":
        return Served(page, request.getfixturevalue("explainer_url"))
    return Light(page, request.getfixturevalue("site_url"))


def box(page, selector: str) -> dict | None:
    return page.evaluate(BOX, selector)


def test_the_first_screen_holds_the_lesson_within_the_control_budget(reader):
    page = reader.page
    page.set_viewport_size({"width": 1280, "height": 800})
    reader.open("?preset=main&tick=3")
    controls = page.evaluate(FIRST_SCREEN_CONTROLS)
    assert len(controls) <= reader.budget, controls
    for part in (".chapter-menu", ".player", ".lead", ".tick-caption", 'svg.diagram[role="img"]'):
        where = box(page, part)
        assert where is not None and where["top"] < 800, part
    # Every column of the main chapter in view: the strip does not scroll sideways at 1280.
    strip = page.evaluate(f"(s => [s.scrollWidth, s.clientWidth])(({FIND})('.diagram-scroll'))")
    assert strip[0] <= strip[1] + 1, strip
    assert box(page, ".diagram-figure")["bottom"] <= 800


def test_a_waiting_tour_question_shows_nothing_of_later_ticks(reader):
    page = reader.page
    page.set_viewport_size({"width": 1280, "height": 800})
    reader.open("?tour=2")
    tick = int(page.locator(".tick-now").first.inner_text().removeprefix("t"))
    marks = page.evaluate(f"[...(({FIND})('.moment-marks')).children].map((m) => Number(m.dataset.value))")
    assert marks and max(marks) <= tick, (tick, marks)
    assert box(page, ".tour-step") is not None and box(page, ".tour-answers")["bottom"] <= 800


def test_every_key_moment_is_a_fingers_target_on_a_phone(reader):
    page = reader.page
    page.set_viewport_size({"width": 390, "height": 844})
    reader.open("?preset=main&tick=0")
    marks = page.evaluate(
        f"""() => [...(({FIND})('.moment-marks')).querySelectorAll('.moment-mark')].map((m) => {{
          const b = m.getBoundingClientRect(); return [b.left, b.right, b.width, b.height]; }})"""
    )
    assert len(marks) == 9
    for _, _, width, height in marks:
        assert width >= 24 and height >= 24, marks
    for (_, right, *_), (left, *_) in zip(marks, marks[1:], strict=False):
        assert left >= right - 0.5, marks  # no two targets overlap
